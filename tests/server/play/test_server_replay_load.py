"""What a finished table costs the server: its replays are built off the event loop, once each, a few at a time
per client address; and it has one copy in memory however many requests and sockets ask for it, so the
per-table socket cap holds after a restart."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from motley.server.play import replays
from motley.server.play.limits import Limits
from motley.server.play.live import LiveTable
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.store.records import Settings, TableRecord
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerThread, store_finished_match

BOTS = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4}


class CountingStorage(Storage):
    """A SQLite store that counts the tables it loads."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.loads = 0

    def load(self, table_id: str) -> TableRecord | None:
        self.loads += 1
        return super().load(table_id)


@pytest.fixture
def finished_db(tmp_path: Path) -> tuple[str, TableRecord]:
    """A SQLite database holding one finished table (no server has it in memory: as after a restart)."""
    url = f"sqlite:///{tmp_path / 'finished.db'}"
    storage = Storage(url)
    record = store_finished_match(storage, BOTS, seed=11)
    storage.close()
    return url, record


@pytest.fixture
def serve(finished_db: tuple[str, TableRecord]) -> Iterator[Callable[..., ServerThread]]:
    """Start a server on :func:`finished_db` with the given ``create_app`` settings (stopped after the test)."""
    running: list[ServerThread] = []

    def start(**settings: Any) -> ServerThread:
        server = ServerThread(finished_db[0], bot_delay=0.0, **settings)
        running.append(server.__enter__())
        return server

    yield start
    for server in running:
        server.__exit__(None, None, None)


# ---- one copy of a table ------------------------------------------------------------------------------
def test_concurrent_gets_of_a_finished_table_out_of_memory_share_one_rebuild(
        finished_db: tuple[str, TableRecord]) -> None:
    async def scenario() -> tuple[list[LiveTable | None], LiveTable | None, int]:
        storage = CountingStorage(finished_db[0])
        service = Service(storage, Settings(None, 30.0, 0.0))
        try:
            table_id = finished_db[1].id
            together = await asyncio.gather(*(service.get(table_id) for _ in range(5)))
            later = await service.get(table_id)
            return list(together), later, storage.loads
        finally:
            await service.close()

    together, later, loads = asyncio.run(scenario())
    first = together[0]
    assert first is not None and first.table.state.is_terminal()
    assert all(live is first for live in together) and later is first
    assert loads == 1


def test_the_socket_cap_counts_every_socket_of_a_finished_table_after_a_restart(
        serve: Callable[..., ServerThread], finished_db: tuple[str, TableRecord]) -> None:
    server = serve(limits=Limits(sockets_per_table=3))
    table_id = finished_db[1].id
    url = f"{server.ws_base}/ws/{table_id}"
    with ThreadPoolExecutor(3) as pool:  # at once, so each socket's load of the table overlaps the others'
        viewers: list[ClientConnection] = list(pool.map(lambda _: connect(url, open_timeout=10).__enter__(),
                                                        range(3)))
    try:
        assert all(json.loads(ws.recv(timeout=10))["type"] == "state" for ws in viewers)
        with connect(url, open_timeout=10) as extra:
            refused = json.loads(extra.recv(timeout=10))
            assert (refused["type"], refused["code"]) == ("error", "table_full")
            with pytest.raises(ConnectionClosed):
                extra.recv(timeout=10)
            assert extra.close_code == 1013
    finally:
        for ws in viewers:
            ws.close()


# ---- replays off the event loop ------------------------------------------------------------------------
class Gate:
    """A replay builder that notes its thread and each call, and waits for :attr:`open` before it answers."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.open = threading.Event()
        self.entered = threading.Semaphore(0)
        self.threads: list[int] = []

    def __call__(self, *args: Any) -> Any:
        self.threads.append(threading.get_ident())
        self.entered.release()
        assert self.open.wait(timeout=30), "the test never let the build finish"
        return self.real(*args)


def test_a_replay_is_built_off_the_event_loop_while_the_lobby_answers(
        serve: Callable[..., ServerThread], finished_db: tuple[str, TableRecord],
        monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(replays.index)
    monkeypatch.setattr(replays, "index", gate)
    server = serve()
    table_id = finished_db[1].id
    with ThreadPoolExecutor(1) as pool:
        pending: Future[httpx.Response] = pool.submit(httpx.get, f"{server.base}/api/tables/{table_id}/replay",
                                                      timeout=30)
        try:
            assert gate.entered.acquire(timeout=10), "the replay was never built"
            for path in ("/", "/api/tables"):  # the build is blocked: the event loop must still answer
                assert httpx.get(f"{server.base}{path}", timeout=5).status_code == 200
        finally:
            gate.open.set()
        answer = pending.result(timeout=30)
    assert answer.status_code == 200
    assert answer.json() == replays.index(Table(finished_db[1]))
    assert server.thread.ident not in gate.threads


def test_a_replay_answer_is_built_once_and_then_served_from_memory(
        serve: Callable[..., ServerThread], finished_db: tuple[str, TableRecord],
        monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(replays.step)
    gate.open.set()
    monkeypatch.setattr(replays, "step", gate)
    server = serve()
    table_id, moves = finished_db[1].id, len(finished_db[1].moves)
    answers = [httpx.get(f"{server.base}/api/tables/{table_id}/replay/{n}?view=1", timeout=10)
               for n in (2, 2, moves, moves + 50)]  # a step past the end is the last one
    assert [a.status_code for a in answers] == [200] * 4
    assert answers[0].json() == answers[1].json() and answers[2].json() == answers[3].json()
    assert answers[2].json()["step"] == moves
    assert len(gate.threads) == 2
    assert httpx.get(f"{server.base}/api/tables/{table_id}/replay/2?view=9", timeout=10).status_code == 400


def test_a_client_may_have_only_so_many_replays_being_built(
        serve: Callable[..., ServerThread], finished_db: tuple[str, TableRecord],
        monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(replays.step)
    monkeypatch.setattr(replays, "step", gate)
    server = serve()  # the default: 2 being built at once per address
    table_id = finished_db[1].id
    with ThreadPoolExecutor(3) as pool:
        pending = [pool.submit(httpx.get, f"{server.base}/api/tables/{table_id}/replay/{n}", timeout=30)
                   for n in (1, 2)]
        try:
            for _ in pending:
                assert gate.entered.acquire(timeout=10), "the replays were never built"
            over = httpx.get(f"{server.base}/api/tables/{table_id}/replay/3", timeout=5)
            assert over.status_code == 429
            assert int(over.headers["retry-after"]) >= 1
            assert "being built" in over.json()["error"]["message"]
            # the same step as one being built waits for that build: no slot, no second build
            pending.append(pool.submit(httpx.get, f"{server.base}/api/tables/{table_id}/replay/1", timeout=30))
        finally:
            gate.open.set()
        assert [p.result(timeout=30).status_code for p in pending] == [200, 200, 200]
        assert pending[2].result().json() == pending[0].result().json()
    assert httpx.get(f"{server.base}/api/tables/{table_id}/replay/3", timeout=10).status_code == 200
    assert len(gate.threads) == 3  # the refused request built nothing


def test_a_replay_step_from_the_kept_states_is_the_state_a_full_replay_makes(
        finished_db: tuple[str, TableRecord], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replays, "CHECKPOINT_EVERY", 7)
    table = Table(finished_db[1])
    moves = len(table.record.moves)
    for number in (0, 1, 6, 7, 8, 14, moves // 2, moves - 1, moves, moves + 3):
        assert replays.state_at(table, number).serialize() == table.state_at(number).serialize(), number
    full = replays.observe(table.state_at(moves - 2), 2)
    assert replays.step(table, moves - 1, 2) == replays._frame(table, table.state_at(moves - 1), moves - 1, 2, full)
