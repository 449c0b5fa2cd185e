"""The server always answers: bots that think run in a bounded pool of worker processes, automatic moves
yield the event loop, web tables have caps, start-up serves before it resumes the tables, and a locked or
failing store is survived and said (issue "A server nobody can take over or stall", points 2 and 3)."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import random
import sqlite3
import threading
import time
from typing import Any

import httpx
import pytest
import sqlalchemy

import motley
from motley.bots import make_bot
from motley.core import MotleyError
from motley.server.play import live as live_module
from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.play.web_bots import MAX_SIMULATIONS
from motley.server.store import migrations
from motley.server.store import storage as storage_module
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.store.writer import DuplicateMove, LeaseLost, Store, StoreError
from motley.server.web.testing import ServerThread
from tests.postgres import execute
from tests.support import Viewer, play_random


def bots(game: str, players: int, bot: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"game": game, "players": players, "bot_delay": 0, "seats": [bot] * players, **extra}


# ---- thinking bots in worker processes -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["fools_errand", "fool", "foolery"])
def test_a_search_in_a_worker_process_chooses_what_the_bot_chooses_here(name: str) -> None:
    game = motley.load_game(name)
    spec = "ismcts(simulations=40)"
    positions = []
    for seed in range(3):
        state = play_random(game.new_initial_state(seed=seed), random.Random(seed), 5 + 3 * seed)
        while not state.is_terminal() and len(state.legal_actions()) < 2:
            state.apply_action(state.legal_actions()[0])
        if not state.is_terminal():
            positions.append((state.observation(state.current_player()), state.legal_actions(), f"{seed}-x"))
    assert positions

    async def body() -> list[int]:
        thinkers = Thinkers(1)
        try:
            return [await thinkers.choose(name, game.params, spec, obs, legal, seed) for obs, legal, seed in positions]
        finally:
            thinkers.close()

    here = [make_bot(spec, game).act(obs, legal, random.Random(seed)) for obs, legal, seed in positions]
    assert asyncio.run(body()) == here


def test_at_most_the_pool_size_of_searches_run_at_once_and_all_finish() -> None:
    game = motley.load_game("fool")
    state = game.new_initial_state(seed=5)
    obs, legal = state.observation(state.current_player()), state.legal_actions()

    async def body() -> tuple[int, list[int]]:
        thinkers = Thinkers(1)
        most = 0

        async def watch() -> None:
            nonlocal most
            while True:
                most = max(most, thinkers.running)
                await asyncio.sleep(0.005)

        watcher = asyncio.create_task(watch())
        try:
            chosen = await asyncio.gather(*(thinkers.choose("fool", game.params, "ismcts(simulations=300)", obs,
                                                            legal, f"s{i}") for i in range(3)))
        finally:
            watcher.cancel()
            thinkers.close()
        return most, list(chosen)

    most, chosen = asyncio.run(body())
    assert most == 1 and len(chosen) == 3 and all(a in legal for a in chosen)


def test_a_bot_table_of_a_service_searches_in_its_worker_pool() -> None:
    async def body() -> None:
        service = Service(Storage("sqlite://"), Settings(bot_delay=0.0), Thinkers(1))
        ismcts = {"kind": "bot", "bot": "ismcts", "strength": 20}
        live = await service.create(table_request(bots("fools_errand", 2, ismcts)), seed=3)
        await asyncio.wait_for(service.tasks[live.id], timeout=120)
        assert live.table.state.is_terminal()
        assert service.thinkers.lanes["live"].pool is not None, "the searches ran in the worker processes"
        assert all(e.actor == "bot" for e in live.table.log)
        await service.close()

    asyncio.run(body())


def test_a_table_of_the_strongest_bots_plays_them_in_the_worker_pool() -> None:
    async def body() -> None:
        service = Service(Storage("sqlite://"), Settings(bot_delay=0.0), Thinkers(1))
        live = await service.create(table_request(bots("fools_errand", 2, {"kind": "bot", "bot": "best"})), seed=5)
        assert [s.bot for s in live.table.seats] == ["best", "best"]
        await asyncio.wait_for(service.tasks[live.id], timeout=300)
        assert live.table.state.is_terminal()
        assert service.thinkers.lanes["live"].pool is not None, "best searches, so it thinks in the worker processes"
        await service.close()

    asyncio.run(body())


# ---- automatic moves yield the event loop --------------------------------------------------------------
class InstantStore:
    """A table log (:class:`motley.server.play.live.TableLog`) that accepts every write at once, without ever
    suspending the caller."""

    def __init__(self) -> None:
        self.order: list[str] = []

    async def add_move(self, row: tuple[str, int, int, str, str]) -> None:
        self.order.append(row[0])

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        return None

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        return None

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        return None

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        return None


def test_automatic_moves_of_one_table_let_other_tables_move_in_between() -> None:
    async def body() -> list[str]:
        store = InstantStore()
        lives = []
        for seed in (1, 2):
            request = table_request(bots("fool", 4, {"kind": "bot", "bot": "random"}))
            record = new_record(request, Settings(bot_delay=0.0), seed)
            lives.append(LiveTable(Table(record), store))
        await asyncio.wait_for(asyncio.gather(*(live.run() for live in lives)), timeout=120)
        assert all(live.table.state.is_terminal() for live in lives)
        return store.order

    order = asyncio.run(body())
    switches = sum(1 for before, after in itertools.pairwise(order) if before != after)
    assert switches > 10, "one table played many moves in a row while the other waited"


# ---- caps on web tables --------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "named"), [
    ({"game": "foolery", "players": 7, "options": {"hands": 400}}, "hands"),
    ({"game": "fool", "players": 4, "options": {"end_total": -100000}}, "end_total"),
    ({"game": "fool", "players": 4, "options": {"rounds": 5000}}, "rounds"),
    ({"game": "fool", "players": 4,
      "seats": [{"kind": "bot", "bot": "ismcts", "strength": MAX_SIMULATIONS + 1}] * 4}, "simulations"),
])
def test_a_web_table_beyond_the_caps_is_refused_with_the_field_named(spec: dict[str, Any], named: str) -> None:
    with pytest.raises(MotleyError, match=named):
        new_record(table_request(spec), Settings())


def test_a_web_table_within_the_caps_is_made_though_python_may_ask_for_more() -> None:
    request = table_request({"game": "foolery", "players": 7, "options": {"hands": 50},
                             "seats": [{"kind": "bot", "bot": "ismcts", "strength": MAX_SIMULATIONS}] * 7})
    record = new_record(request, Settings())
    assert record.params["hands"] == 50 and record.seats[0]["bot"] == f"ismcts(simulations={MAX_SIMULATIONS})"
    assert motley.load_game("foolery", players=7, hands=400).params["hands"] == 400  # the engine's own bound


def test_the_lobby_is_told_the_caps() -> None:
    from motley.server.web.routes.games import games_info

    foolery = next(g for g in games_info() if g["name"] == "foolery")
    hands = next(o for o in foolery["options"] if o["name"] == "hands")
    assert hands["maximum"] == 50 and foolery["max_simulations"] == MAX_SIMULATIONS


# ---- a driver never dies, a locked store is survived and said ------------------------------------------
def test_a_driver_logs_an_unexpected_failure_and_carries_on(monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.01)
    real = LiveTable.auto_move
    failures = [1]

    async def flaky(self: LiveTable, reason: str) -> None:
        if failures[0]:
            failures[0] -= 1
            raise KeyError("a bug in a bot")
        await real(self, reason)

    monkeypatch.setattr(LiveTable, "auto_move", flaky)

    async def body() -> LiveTable:
        service = Service(Storage("sqlite://"), Settings(bot_delay=0.0))
        live = await service.create(table_request(bots("fools_errand", 2, {"kind": "bot", "bot": "random"})), seed=2)
        await asyncio.wait_for(service.tasks[live.id], timeout=60)
        await service.close()
        return live

    with caplog.at_level(logging.INFO, logger="motley.server"):
        live = asyncio.run(body())
    assert live.table.state.is_terminal() and failures == [0]
    assert any("automatic move failed" in r.getMessage() and r.exc_info for r in caplog.records)
    assert any("automatic moves go on" in r.getMessage() for r in caplog.records)


def locked(url: str) -> Any:
    """Another process's connection holding the write lock on the moves (until its ``rollback()``): SQLite's
    database lock, or PostgreSQL's lock on the table ``motley_moves`` that refuses writes but lets reads by."""
    if url.startswith("sqlite"):
        other = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        return other
    import psycopg

    from motley.server.store.storage import store_url

    parsed = store_url(url)
    conn = psycopg.connect(host=str(parsed.query["host"]), user=parsed.username, dbname=parsed.database)
    conn.execute("LOCK TABLE motley_moves IN EXCLUSIVE MODE")
    return conn


#: What the driver says of a write that waited for a lock past the store's timeout.
LOCKED = {"sqlite": "database is locked", "postgresql": "lock timeout"}


def test_a_locked_database_is_said_to_the_mover_and_the_table_goes_on_once_it_answers(
        store_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.05)

    async def body() -> None:
        service = Service(Storage(store_url, busy_timeout=0.2), Settings(bot_delay=0.0))
        people = await service.create(table_request({"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}),
                                      seed=4)
        mover = Viewer(people.table.state.current_player())
        people.attach(mover)
        record = new_record(table_request(bots("fool", 4, {"kind": "bot", "bot": "random"})), Settings(bot_delay=0.0),
                            4)
        await service.store.call(service.store.storage.create_table, record)
        lock = await asyncio.to_thread(locked, store_url)
        robots = service.tables[record.id] = LiveTable(Table(record), service.store)
        service.start(robots)  # its first move comes while the database is locked
        stalled_at = robots.table.version
        move = json.dumps({"type": "move", "version": 0, "action": people.table.state.legal_actions()[0]})
        await people.submit(mover, move)
        errors = [m for m in mover.messages if m["type"] == "error"]
        assert [e["code"] for e in errors] == ["not_stored"] and people.table.version == 0
        await asyncio.sleep(0.5)
        assert robots.table.version <= stalled_at + 1, "no bot move is played while the store refuses it"
        await asyncio.to_thread(lock.rollback)
        await people.submit(mover, move)  # the same move again, once the database answers
        await asyncio.wait_for(service.tasks[robots.id], timeout=60)
        assert people.table.version == 1 and robots.table.state.is_terminal()
        for live in (people, robots):
            stored = service.store.storage.load(live.id)
            assert stored is not None and len(stored.moves) == live.table.version  # nothing stored twice
        await service.close()

    with caplog.at_level(logging.INFO, logger="motley.server"):
        asyncio.run(body())
    said = [r.getMessage() for r in caplog.records]
    reason = LOCKED[store_url.split(":")[0].split("+")[0]]
    assert any("not stored" in m and reason in m and "\n" not in m for m in said)
    assert any("automatic moves go on" in m for m in said)


def test_the_server_answers_before_its_unfinished_tables_are_resumed(store_url: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db = store_url

    async def make() -> str:
        service = Service(Storage(db), Settings(bot_delay=0.0))
        live = await service.create(table_request({"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}),
                                    seed=9)
        await service.close()
        return live.id

    table_id = asyncio.run(make())
    release = threading.Event()
    real = Storage.load_all

    def slow_load_all(self: Storage, *args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(storage_module.Storage, "load_all", slow_load_all)
    with ServerThread(db) as server:  # starts only once the lobby answers
        assert not release.is_set()
        assert httpx.get(f"{server.base}/api/games", timeout=5).status_code == 200
        release.set()
        for _ in range(200):
            running = [t for t in httpx.get(f"{server.base}/api/tables", timeout=5).json() if not t["finished"]]
            if running:
                break
            threading.Event().wait(0.05)
        assert [t["id"] for t in running] == [table_id]


# ---- the store refuses a move stored twice ---------------------------------------------------------------
def stored_table(storage: Storage) -> str:
    record = new_record(table_request({"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}), Settings(), 1)
    storage.create_table(record)
    return record.id


def test_the_store_refuses_a_second_move_with_the_same_number(store_url: str) -> None:
    storage = Storage(store_url)
    table_id = stored_table(storage)
    storage.add_move(table_id, 1, 0, "G3", "seat")
    with pytest.raises(DuplicateMove, match="stored already"):
        storage.add_move(table_id, 1, 1, "G4", "seat")
    record = storage.load(table_id)
    assert record is not None and record.moves == [(0, "G3", "seat")]
    storage.close()


def test_a_move_number_stored_already_is_the_stores_lost_lease_and_other_failures_are_not(store_url: str) -> None:
    """The writer tells a move refused as stored already (another writer drives the table) by its own error,
    :class:`LeaseLost`, which the set of tables reads without knowing the database; a store that cannot write at
    all fails with a plain :class:`StoreError`."""
    storage = Storage(store_url)
    table_id = stored_table(storage)

    async def main() -> None:
        store = Store(storage)
        await store.add_move((table_id, 1, 0, "G3", "seat"))
        with pytest.raises(LeaseLost, match="stored already") as lost:
            await store.add_move((table_id, 1, 1, "G4", "seat"))
        assert isinstance(lost.value.__cause__, DuplicateMove)
        await store.add_move((table_id, 2, 1, "G4", "seat"))  # the next number goes on
        store.close()
        with pytest.raises(StoreError) as failed:
            await store.add_move((table_id, 3, 2, "G5", "seat"))
        assert not isinstance(failed.value, LeaseLost)

    asyncio.run(main())
    reopened = Storage(store_url)
    record = reopened.load(table_id)
    reopened.close()
    assert record is not None and [m for _, m, _ in record.moves] == ["G3", "G4"]


def test_an_older_store_gets_the_unique_index_and_one_with_a_duplicate_still_opens(
        store_url: str, caplog: pytest.LogCaptureFixture) -> None:
    insert = ("INSERT INTO motley_moves (table_id, number, seat, move, actor, at) VALUES (:id, 1, 0, 'G3', 'seat', 0)")
    for duplicate in (False, True):
        storage = Storage(store_url)
        table_id = stored_table(storage)
        storage.close()
        # as a database made before migrations and before the index existed
        execute(store_url, ("DROP INDEX ux_motley_moves_table_number", {}), ("DROP TABLE alembic_version", {}),
                *[(insert, {"id": table_id})] * (1 + duplicate))
        with caplog.at_level(logging.WARNING, logger="motley.server"):
            reopened = Storage(store_url)
        indexes = {ix["name"] for ix in sqlalchemy.inspect(reopened.engine).get_indexes("motley_moves")}
        assert ("ux_motley_moves_table_number" in indexes) is not duplicate
        assert any("not unique" in r.getMessage() for r in caplog.records) is duplicate
        assert execute(store_url, ("SELECT version_num FROM alembic_version", {})) == [[(migrations.head(),)]]
        record = reopened.load(table_id)
        assert record is not None and len(record.moves) == 1 + duplicate
        if not duplicate:  # the next round starts from a store made anew
            execute(store_url, ("DROP TABLE motley_moves", {}), ("DROP TABLE motley_tables", {}),
                    ("DROP TABLE alembic_version", {}))
        reopened.close()
        caplog.clear()


def test_a_live_bot_never_waits_behind_the_background_lane() -> None:
    """With the one background worker busy (an analysis's long decision), a live table's bot is answered by its
    own lane at once; and the background lane's workers run at the lowest CPU priority."""
    from motley.server.play.thinking import BACKGROUND_NICE

    async def body() -> None:
        thinkers = Thinkers(1, background=1)
        try:
            game = motley.load_game("fool(players=4,rounds=1)")
            state = game.new_initial_state(seed=2)
            seat = state.current_player()
            busy = asyncio.ensure_future(thinkers.run("an analysis", time.sleep, 3.0, lane="background"))
            await asyncio.sleep(0.5)
            started = time.monotonic()
            action = await thinkers.choose("fool", game.params, "random", state.observation(seat),
                                           state.legal_actions(), "s")
            assert action in state.legal_actions()
            assert time.monotonic() - started < 2.5, "the live bot waited for the background lane"
            assert not busy.done()
            assert await thinkers.run("niceness", os.nice, 0, lane="background") == BACKGROUND_NICE
            assert await thinkers.run("niceness", os.nice, 0) == os.nice(0)
            await busy
        finally:
            thinkers.close()

    asyncio.run(body())
