"""Idle tables are tidied up (issue: abandoned tables pile up, a table whose person never connects waits
forever): an unfinished table without a move and without a viewer for ``idle_close`` seconds is cancelled
(stored as finished with a ``cancelled`` result, its driver stopped, out of the running tables), a table
someone watches or plays is not; a finished table leaves the lobby's list after that time but keeps its replay.
The clocks are injected: nothing sleeps."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from motley.server.play.bodies import table_request
from motley.server.play.messages import ServerMessage
from motley.server.play.service import Service
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from tests import support

IDLE = 100.0


class Clock:
    """A clock that moves only when told (both the monotonic and the wall clock of a service)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Viewer:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat

    def send(self, message: ServerMessage) -> None:
        pass

    def stop(self, code: int, reason: str, flush: bool) -> None:
        pass


def person_vs_bot() -> dict[str, Any]:
    return {"game": "fools_errand", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bo"}]}


def service_with(clock: Clock, storage: Storage) -> Service:
    return Service(storage, Settings(bot_delay=0.0), idle_close=IDLE, clock=clock, wall=clock)


def test_a_table_nobody_connects_to_is_cancelled_after_the_idle_time(store_url: str) -> None:
    async def body() -> None:
        clock, storage = Clock(), Storage(store_url)
        service = service_with(clock, storage)
        live = await service.create(table_request(person_vs_bot()), seed=3)
        clock.now += IDLE - 1
        assert await service.tidy() == [] and live.id in service.tables
        clock.now += 1
        assert await service.tidy() == [live.id]
        assert live.id not in service.tables and live.closed
        stored = storage.load(live.id)
        assert stored is not None and stored.finished and stored.result is not None
        assert stored.result["cancelled"] is True and "Ann" in stored.result["reason"]
        again = await service.get(live.id)  # loaded again: never driven, never listed as finished
        assert again is not None and again.closed and live.id not in service.tables
        assert await service.listed_finished() == []
        assert await service.resume() == 0
        await service.close()

    asyncio.run(body())


def test_a_cancelled_table_refuses_moves_with_its_reason_live_and_after_a_restart(store_url: str) -> None:
    """A viewer still connected to a table cancelled as idle, and anyone after a restart, is told the table was
    closed and why; no move is stored."""
    async def body() -> None:
        clock, storage = Clock(), Storage(store_url)
        service = service_with(clock, storage)
        # a long grace: no bot plays for Ann while her page is away, so the idle time runs out undisturbed
        live = await service.create(table_request({**person_vs_bot(), "grace": 3600}), seed=3)
        mover = live.table.state.current_player()
        seat = support.Viewer(mover)
        live.attach(seat)
        live.detach(seat)  # the page went away; the idle time runs
        clock.now += IDLE
        assert await service.tidy() == [live.id]
        moves = len(storage.load(live.id).moves)  # type: ignore[union-attr]
        for table in (live, await service.get(live.id)):  # the table in memory, then as a restart rebuilds it
            assert table is not None
            viewer = support.Viewer(mover)
            table.attach(viewer)
            state = viewer.messages[-1]
            await table.submit(viewer, json.dumps({"type": "move", "version": state["version"],
                                                   "action": state["legal"][0]["action"]}))
            error = viewer.messages[-1]
            assert error["type"] == "error" and error["code"] == "closed", error
            assert "closed" in error["message"] and "Ann" in error["message"], "the reason, in words"
            for kind in ("start", "continue"):
                await table.submit(viewer, json.dumps({"type": kind}))
                assert viewer.messages[-1]["code"] == "closed"
        assert len(storage.load(live.id).moves) == moves  # type: ignore[union-attr]
        fresh = Service(storage, Settings(bot_delay=0.0), idle_close=IDLE, clock=clock, wall=clock)
        rebuilt = await fresh.get(live.id)  # another process, after a restart
        assert rebuilt is not None and rebuilt.closed_because is not None and "Ann" in rebuilt.closed_because
        await service.close()
        await fresh.close()

    asyncio.run(body())


def test_a_watched_or_played_table_is_not_cancelled(store_url: str) -> None:
    async def body() -> None:
        clock, storage = Clock(), Storage(store_url)
        service = service_with(clock, storage)
        watched = await service.create(table_request(person_vs_bot()), seed=4)
        played = await service.create(table_request(person_vs_bot()), seed=5)
        watched.attach(Viewer(None))
        seat = Viewer(played.table.state.current_player())
        played.attach(seat)
        clock.now += IDLE / 2
        played.detach(seat)  # the last viewer left half-way: the idle time counts from here
        clock.now += IDLE / 2 + 1
        assert await service.tidy() == []
        clock.now += IDLE / 2
        assert await service.tidy() == [played.id]
        assert watched.id in service.tables and not watched.closed
        await service.close()

    asyncio.run(body())


def test_a_move_restarts_the_idle_time(store_url: str) -> None:
    async def body() -> None:
        clock, storage = Clock(), Storage(store_url)
        service = service_with(clock, storage)
        live = await service.create(table_request(person_vs_bot()), seed=6)
        clock.now += IDLE - 1
        state = live.table.state
        mover = Viewer(state.current_player())
        await live.submit(mover, json.dumps({"type": "move", "version": 0, "action": state.legal_actions()[0]}))
        assert live.table.version == 1
        clock.now += IDLE - 1
        assert await service.tidy() == []
        await service.close()

    asyncio.run(body())


def test_finished_tables_leave_the_list_after_the_idle_time_but_keep_their_replay(store_url: str) -> None:
    async def body() -> None:
        clock, storage = Clock(), Storage(store_url)
        service = service_with(clock, storage)
        spec = {"game": "fools_errand", "seats": [{"kind": "bot", "bot": "random"}] * 2}
        live = await service.create(table_request(spec), seed=7)
        for _ in range(2000):
            if live.table.state.is_terminal():
                break
            await live.auto_move("bot")
        assert live.table.state.is_terminal()
        [header] = storage.finished_headers()
        clock.now = header["last_move"] + IDLE - 1
        assert [h["id"] for h in await service.listed_finished()] == [live.id]
        clock.now += 2
        assert await service.listed_finished() == []
        kept = await service.get(live.id)
        assert kept is not None and kept.table.state.is_terminal()
        await service.close()

    asyncio.run(body())


def test_without_idle_close_nothing_is_cancelled(store_url: str) -> None:
    async def body() -> None:
        clock = Clock()
        service = Service(Storage(store_url), Settings(), idle_close=None, clock=clock, wall=clock)
        live = await service.create(table_request(person_vs_bot()), seed=8)
        clock.now += 10 * IDLE
        assert await service.tidy() == [] and live.id in service.tables
        await service.close()

    asyncio.run(body())


def test_a_lobby_line_names_the_players_the_stage_and_who_is_awaited() -> None:
    from motley.server.play.live import LiveTable
    from motley.server.play.requests import new_record
    from motley.server.play.table import Table
    from motley.server.store.writer import Store
    from motley.server.web.routes.tables import table_summary

    async def body() -> None:
        clock = Clock()
        spec = {"game": "fool", "players": 4,
                "seats": [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * 3}
        record = new_record(table_request(spec), Settings(), seed=1)
        record.created = clock.now - 90
        store = Store(Storage("sqlite://"))
        live = LiveTable(Table(record), store, clock, clock)
        line = table_summary(live)
        assert line["names"][0] == "Ann" and len(line["names"]) == 4
        assert line["waiting_for"] == 1 and line["stage"] == "round 1" and line["age"] == 90
        live.attach(Viewer(0))
        assert table_summary(live)["waiting_for"] == 0
        store.close()

    asyncio.run(body())


def test_a_cancelled_table_leaves_the_lobby_and_says_it_has_no_replay(store_url: str) -> None:
    import httpx

    from motley.server.web.testing import ServerThread

    with ServerThread(store_url, idle_close=1e-6) as server:
        table_id = httpx.post(f"{server.base}/api/tables", json=person_vs_bot(), timeout=10).json()["id"]
        service: Service = server.app.state.service
        loop = service.tasks[table_id].get_loop()  # the server's event loop, where its tables live
        # cancelled by this call, or by the server's own tidy-up loop (every second here) just before it
        assert asyncio.run_coroutine_threadsafe(service.tidy(), loop).result(timeout=10) in ([table_id], [])
        assert table_id not in service.tables
        assert httpx.get(f"{server.base}/api/tables", timeout=10).json() == []
        answer = httpx.get(f"{server.base}/api/tables/{table_id}/replay/0", timeout=10)
        assert answer.status_code == 409 and "cancelled" in answer.json()["error"]["message"]


def test_motley_serve_passes_idle_close_and_zero_means_never(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    import motley.server
    from motley.cli.main import app
    from motley.server.play.limits import IDLE_CLOSE

    given: list[float | None] = []
    monkeypatch.setattr(motley.server, "create_app", lambda *a, **kw: given.append(kw["idle_close"]))
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: None)
    for args, expected in (([], IDLE_CLOSE), (["--idle-close", "90"], 90.0), (["--idle-close", "0"], None)):
        result = CliRunner().invoke(app, ["serve", "--db", "sqlite://", *args])
        assert result.exit_code == 0, result.output
        assert given.pop() == expected
