"""What a finished table costs the server: it has one copy in memory however many requests and sockets ask
for it, so the per-table socket cap holds after a restart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from motley.server.limits import Limits
from motley.server.live import LiveTable
from motley.server.service import Service
from motley.server.storage import Storage
from motley.server.table import Settings, TableRecord
from motley.server.testing import ServerThread, store_finished_match

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
