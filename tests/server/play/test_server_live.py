"""A live table stands alone: driven over an in-memory table log and fake connections (the protocols it takes:
motley.server.play.live.TableLog and Connection), a move goes in, is written, and goes out to every viewer; a move
the log refuses is not played; the driver plays bot seats to the end and writes the result."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.store.writer import MoveRow, StoreError
from tests.support import Viewer

PEOPLE = {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "human"}]}
BOTS = {"game": "fools_errand", "seats": [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "heuristic"}]}


class MemoryLog:
    """A table log kept in memory: every write it was asked for; moves are refused while ``refusing``."""

    def __init__(self) -> None:
        self.moves: list[MoveRow] = []
        self.results: dict[str, dict[str, Any]] = {}
        self.seats: list[list[dict[str, Any]]] = []
        self.settings: list[dict[str, Any]] = []
        self.refusing = False

    async def add_move(self, row: MoveRow) -> None:
        if self.refusing:
            raise StoreError("add_move failed: OSError: no space left on device")
        self.moves.append(row)

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        self.results[table_id] = result

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        self.seats.append(seats)

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        self.seats.append(seats)

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        self.settings.append(settings)


def live_table(spec: dict[str, Any], log: MemoryLog, seed: int = 3) -> LiveTable:
    return LiveTable(Table(new_record(table_request(spec), Settings(bot_delay=0.0), seed)), log)


def move(live: LiveTable) -> str:
    return json.dumps({"type": "move", "version": live.table.version, "action": live.table.state.legal_actions()[0]})


def test_a_move_in_is_written_then_sent_to_every_viewer() -> None:
    async def body() -> None:
        log = MemoryLog()
        live = live_table(PEOPLE, log)
        mover = live.table.state.current_player()
        player, other, spectator = Viewer(mover), Viewer(1 - mover), Viewer(None)
        for viewer in (player, other, spectator):
            live.attach(viewer)
        assert [m["type"] for m in spectator.messages] == ["state"]
        assert len(log.seats) == 2 and log.seats[-1][mover]["ever_connected"]  # first connections, stored
        text = live.table.state.action_to_string(live.table.state.legal_actions()[0])
        await live.submit(player, move(live))
        assert log.moves == [(live.id, 1, mover, text, "seat")] and live.table.version == 1
        for viewer in (player, other, spectator):
            assert viewer.last("state")["version"] == 1
        assert "not_stored" not in str(player.messages)

    asyncio.run(body())


def test_a_move_the_log_refuses_is_not_played_and_its_mover_is_told() -> None:
    async def body() -> None:
        log = MemoryLog()
        live = live_table(PEOPLE, log)
        player = Viewer(live.table.state.current_player())
        live.attach(player)
        log.refusing = True
        await live.submit(player, move(live))
        assert player.last("error")["code"] == "not_stored" and live.table.version == 0 and log.moves == []
        log.refusing = False
        await live.submit(player, move(live))
        assert live.table.version == 1 and len(log.moves) == 1

    asyncio.run(body())


def test_the_driver_plays_the_bots_to_the_end_through_the_log() -> None:
    async def body() -> None:
        log = MemoryLog()
        live = live_table(BOTS, log, seed=5)
        watcher = Viewer(None)
        live.attach(watcher)
        await asyncio.wait_for(live.run(), timeout=60)
        assert live.table.state.is_terminal()
        assert [row[1] for row in log.moves] == list(range(1, live.table.version + 1))
        assert {row[4] for row in log.moves} == {"bot"} and live.id in log.results
        assert watcher.last("state")["version"] == live.table.version

    asyncio.run(body())
