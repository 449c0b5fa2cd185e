"""The analysis of a finished match on the server: refused while the match is played and for a seat it does not
have, searched off the event loop in the worker pool, stored with the table and computed once (whatever
restarts), bounded per table and on the server (429 beyond)."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from motley.bots.analysis import analyse_record
from motley.core import records
from motley.server.play.analyses import SEED, AnalysisBusy
from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.play.thinking import Lane, Thinkers
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerThread
from tests.support import store_random_match

R = TypeVar("R")
#: Search iterations per decision in these tests (the answers do not depend on it).
SIMULATIONS = 8
#: Four seats, one deal of Fool!: a short match.
FOUR = {"game": "fool", "players": 4, "options": {"rounds": 1}, "summary_wait": 0,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}, {"kind": "bot", "bot": "random"},
                  {"kind": "bot", "bot": "random"}]}


def stored_finished(storage: Storage, seed: int, request: dict[str, Any] = FOUR) -> tuple[str, str]:
    """A finished match of random moves stored in ``storage`` as a server stores it; returns its id and record."""
    table = store_random_match(storage, request, seed)
    return table.id, records.dump(table.state)


class ThreadThinkers(Thinkers):
    """Thinkers whose workers are threads of this process (so a test sees them): each job's name, thread and,
    while :attr:`gate` is clear, a wait for it."""

    def __init__(self) -> None:
        super().__init__(2)
        self.calls: list[tuple[str, int]] = []
        self.lanes_used: list[Lane] = []
        self.gate = threading.Event()
        self.gate.set()
        self.pool = ThreadPoolExecutor(self.workers)

    async def run(self, what: str, fn: Callable[..., R], *args: Any, lane: Lane = "live") -> R:
        def job() -> R:
            self.calls.append((getattr(fn, "__name__", str(fn)), threading.get_ident()))
            self.lanes_used.append(lane)
            self.gate.wait(10)
            return fn(*args)

        async with self.lanes["live"].slots:
            return await asyncio.get_running_loop().run_in_executor(self.pool, job)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def service_over(path: Path, thinkers: Thinkers | None = None, limit: int = 2) -> Service:
    service = Service(Storage(f"sqlite:///{path}"), Settings(bot_delay=0.0), thinkers or ThreadThinkers())
    service.analyses.simulations = SIMULATIONS
    service.analyses.limit = limit
    return service


async def finished_table(service: Service, table_id: str) -> Table:
    live = await service.get(table_id)
    assert live is not None and live.table.state.is_terminal()
    return live.table


async def wait_done(service: Service, table: Table, seat: int) -> dict[str, Any]:
    job = service.analyses.jobs.get(table.id)
    if job is not None and job.task is not None:
        await job.task
    return await service.analyses.status(table, seat)


def test_an_analysis_runs_in_the_workers_once_and_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "analysis.db"
    storage = Storage(f"sqlite:///{path}")
    table_id, text = stored_finished(storage, seed=3)
    storage.close()
    expected = analyse_record(text, 1, simulations=SIMULATIONS, seed=SEED)
    assert expected["decisions"], "the seat had decisions to review"

    async def first() -> None:
        thinkers = ThreadThinkers()
        service = service_over(path, thinkers)
        try:
            table = await finished_table(service, table_id)
            assert (await service.analyses.status(table, 1))["status"] == "none"
            started = await service.analyses.start(table, 1)
            assert started["status"] == "running"
            loop_thread = threading.get_ident()
            done = await wait_done(service, table, 1)
            assert done["status"] == "done" and done["done"] == done["total"] == len(expected["decisions"])
            assert done["result"] == expected, "the same analysis as motley analyse's for the seat and seed"
            searched = [thread for name, thread in thinkers.calls if name == "evaluate"]
            assert set(thinkers.lanes_used) == {"background"}, "beside the play, never in the live bots' lane"
            assert len(searched) == len(expected["decisions"]), "each decision searched once, in the workers"
            assert loop_thread not in searched, "never on the event loop's thread"
            again = await service.analyses.start(table, 1)
            assert again["status"] == "done" and again["result"] == expected
            assert len(thinkers.calls) == len(searched), "asked again: not computed again"
        finally:
            await service.close()

    async def after_restart() -> None:
        thinkers = ThreadThinkers()
        service = service_over(path, thinkers)
        try:
            table = await finished_table(service, table_id)
            stored = await service.analyses.start(table, 1)
            assert stored["status"] == "done" and stored["result"] == expected
            assert (await service.analyses.status(table, 0))["status"] == "none", "another seat's is its own"
            assert thinkers.calls == [], "a new server over the same store does not compute it again"
        finally:
            await service.close()

    asyncio.run(first())
    asyncio.run(after_restart())


def test_analyses_are_bounded_per_table_and_on_the_server(tmp_path: Path) -> None:
    path = tmp_path / "bounds.db"
    storage = Storage(f"sqlite:///{path}")
    one, _ = stored_finished(storage, seed=4)
    two, _ = stored_finished(storage, seed=5)
    storage.close()

    async def body() -> None:
        thinkers = ThreadThinkers()
        thinkers.gate.clear()  # the workers hold every analysis until the test lets them go
        service = service_over(path, thinkers, limit=1)
        try:
            first, second = await finished_table(service, one), await finished_table(service, two)
            await service.analyses.start(first, 0)
            assert (await service.analyses.start(first, 0))["status"] == "running", "the same one, asked again"
            with pytest.raises(AnalysisBusy, match="one at a time per table"):
                await service.analyses.start(first, 1)
            with pytest.raises(AnalysisBusy, match="1 analyses are running"):
                await service.analyses.start(second, 0)
            thinkers.gate.set()
            assert (await wait_done(service, first, 0))["status"] == "done"
            assert (await service.analyses.start(second, 0))["status"] == "running", "free again once it is done"
            await wait_done(service, second, 0)
        finally:
            thinkers.gate.set()
            await service.close()

    asyncio.run(body())


def test_the_analysis_routes_refuse_a_match_in_play_a_bad_seat_and_beyond_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "routes.db"
    storage = Storage(f"sqlite:///{path}")
    done_id, _ = stored_finished(storage, seed=6)
    busy_id, _ = stored_finished(storage, seed=7)
    storage.close()
    with ServerThread(f"sqlite:///{path}") as server:
        service: Service = server.app.state.service
        service.analyses.simulations = SIMULATIONS
        service.analyses.limit = 0  # no analysis may start: the bound's answer
        made = httpx.post(f"{server.base}/api/tables", json={"game": "fool", "players": 4,
                                                             "seats": [{"kind": "human"}] * 4}).json()
        for method in ("GET", "POST"):
            playing = httpx.request(method, f"{server.base}/api/tables/{made['id']}/analysis?seat=0")
            assert playing.status_code == 409 and "not over" in playing.json()["error"]["message"]
            for seat in ("4", "-1"):
                bad = httpx.request(method, f"{server.base}/api/tables/{done_id}/analysis?seat={seat}")
                assert bad.status_code == 400 and "0..3" in bad.json()["error"]["message"]
        refused = httpx.post(f"{server.base}/api/tables/{busy_id}/analysis?seat=0")
        assert refused.status_code == 429 and refused.headers["retry-after"]
        assert httpx.get(f"{server.base}/api/tables/{busy_id}/analysis?seat=0").json()["status"] == "none"
        service.analyses.limit = 2
        started = httpx.post(f"{server.base}/api/tables/{done_id}/analysis?seat=2")
        assert started.status_code == 202 and started.json()["status"] == "running"
        for _ in range(600):
            now = httpx.get(f"{server.base}/api/tables/{done_id}/analysis?seat=2").json()
            if now["status"] != "running":
                break
            assert 0 <= now["done"] <= now["total"]
            threading.Event().wait(0.1)
        assert now["status"] == "done" and now["result"]["seat"] == 2 and "summary" in now["result"]
        assert httpx.post(f"{server.base}/api/tables/{done_id}/analysis?seat=2").status_code == 200


def test_moves_a_stand_in_or_a_timer_made_are_shown_as_such_and_left_out_of_the_seat_s_figures(tmp_path: Path) -> None:
    """The store keeps who made each move (the player, a bot standing in while the player was away, a timer): the
    analysis says so of each decision and counts only the player's own in the seat's summary."""
    storage = Storage(f"sqlite:///{tmp_path / 'actors.db'}")
    record = new_record(table_request(FOUR), Settings(bot_delay=0.0), 5)
    storage.create_table(record)
    table = Table(record)
    rng = random.Random(5)
    turns = 0
    while not table.state.is_terminal():
        seat = table.state.current_player()
        actor = "seat"
        if seat == 1:
            turns += 1
            actor = ("away", "timer", "seat")[turns % 3]
        move = table.prepare(seat, rng.choice(table.state.legal_actions()), actor)
        storage.add_move(record.id, move.number, seat, move.text, actor)
        table.apply(move)
    storage.finish(record.id, {"scores": table.state.scores()})
    storage.close()

    async def run() -> dict[str, Any]:
        service = service_over(tmp_path / "actors.db")
        try:
            live = await finished_table(service, record.id)
            await service.analyses.start(live, 1)
            return await wait_done(service, live, 1)
        finally:
            await service.close()

    result = asyncio.run(run())["result"]
    actors = [d["actor"] for d in result["decisions"]]
    assert {"away", "timer", "seat"} <= set(actors), actors
    mine = [d for d in result["decisions"] if d["actor"] == "seat"]
    assert result["summary"]["decisions"] == len(mine)
    assert result["summary"]["stand_in"] == len(actors) - len(mine) > 0
    assert result["summary"]["marked"] == sum(1 for d in mine if d["mark"] is not None)
