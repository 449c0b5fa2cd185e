"""A damaged stored table never stops the server from starting: it is logged by id and left unserved, and
every other table resumes."""

from __future__ import annotations

import asyncio
import json
import logging

import httpx
import pytest

from motley.server.play.bodies import table_request
from motley.server.play.service import Service
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerThread
from tests.postgres import execute

HUMANS = {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "human"}]}


async def make_tables(url: str, count: int) -> list[str]:
    """``count`` two-person tables, each with its first move played and stored."""
    service = Service(Storage(url), Settings(bot_delay=0.0))
    ids = []
    for seed in range(count):
        live = await service.create(table_request(dict(HUMANS)), seed=seed)
        state = live.table.state
        async with live.lock:
            await live.play(live.table.prepare(state.current_player(), state.legal_actions()[0], "seat"))
        ids.append(live.id)
    await service.close()
    return ids


def damage(url: str, ids: list[str]) -> dict[str, str]:
    """Damage every table but the last in its own way; returns which way per table id. A move's seat becomes
    text where the database lets it (SQLite), else a seat the table does not have."""
    ways = {ids[0]: "params", ids[1]: "seats", ids[2]: "settings", ids[3]: "move", ids[4]: "move seat"}
    seat = "'x'" if url.startswith("sqlite") else "99"
    execute(url, ("UPDATE motley_tables SET params = '{oops' WHERE id = :id", {"id": ids[0]}),
            ("UPDATE motley_tables SET seats = '[1, 2]' WHERE id = :id", {"id": ids[1]}),
            ("UPDATE motley_tables SET settings = :s WHERE id = :id", {"s": json.dumps({"no_such": 1}), "id": ids[2]}),
            ("UPDATE motley_moves SET move = 'banana' WHERE table_id = :id", {"id": ids[3]}),
            (f"UPDATE motley_moves SET seat = {seat} WHERE table_id = :id", {"id": ids[4]}))
    return ways


def test_resume_skips_damaged_tables_and_names_them(store_url: str, caplog: pytest.LogCaptureFixture) -> None:
    url = store_url
    ids = asyncio.run(make_tables(url, 7))
    ways = damage(url, ids)

    async def resume() -> tuple[int, set[str]]:
        service = Service(Storage(url), Settings(bot_delay=0.0))
        try:
            return await service.resume(), set(service.tables)
        finally:
            await service.close()

    with caplog.at_level(logging.ERROR, logger="motley.server"):
        count, resumed = asyncio.run(resume())
    assert count == 2 and resumed == set(ids[5:])
    for table_id, way in ways.items():
        named = [r.getMessage() for r in caplog.records if table_id in r.getMessage()]
        assert named and all("not resumed" in m for m in named), (way, named)
    assert "'params'" in next(r.getMessage() for r in caplog.records if ids[0] in r.getMessage())


def test_a_damaged_finished_table_is_left_out_of_the_lobby(store_url: str) -> None:
    storage = Storage(store_url)
    ids = asyncio.run(make_tables(store_url, 2))
    for table_id in ids:
        storage.finish(table_id, {"scores": [0, 0], "returns": [0.0, 0.0]})
    execute(store_url, ("UPDATE motley_tables SET seats = '{oops' WHERE id = :id", {"id": ids[0]}))
    assert [h["id"] for h in storage.finished_headers()] == [ids[1]]
    storage.close()


def test_the_server_starts_over_a_damaged_table(store_url: str) -> None:
    url = store_url
    ids = asyncio.run(make_tables(url, 6))
    damage(url, ids)
    with ServerThread(url, bot_delay=0.0) as server:
        listed = {t["id"] for t in httpx.get(f"{server.base}/api/tables", timeout=10).json()}
        assert ids[5] in listed and not listed & set(ids[:5])
        for table_id in ids[:5]:  # unreadable or not replaying: no such table to serve, never a 500 or 503
            assert httpx.get(f"{server.base}/api/tables/{table_id}/record", timeout=10).status_code == 404
