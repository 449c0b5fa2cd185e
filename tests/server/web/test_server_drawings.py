"""Each viewer's SVG drawings (``svg=1``) are made once per seat and version and shared by that seat's sockets
(:class:`motley.server.web.drawings.Drawings`), and are the drawings of that viewer's own observation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from motley.drawing import move_svg, render
from motley.server.play.bodies import table_request
from motley.server.play.limits import Limits
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from motley.server.store.writer import MoveRow
from motley.server.web import drawings
from motley.server.web.drawings import Drawings
from motley.server.web.sockets import SocketConnection

PEOPLE = {"game": "fools_errand", "seats": [{"kind": "human"}, {"kind": "human"}]}
MOVES = 6


class QuietLog:
    """A table log that keeps nothing and refuses nothing."""

    async def add_move(self, row: MoveRow) -> None:
        pass

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        pass

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        pass

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        pass

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        pass


def states(conn: SocketConnection) -> list[dict[str, Any]]:
    """The ``state`` messages queued for ``conn`` (its writer never started), as the client would read them."""
    queued: list[dict[str, Any]] = []
    while not conn.queue.empty():
        text = conn.queue.get_nowait()
        if text is not None:
            queued.append(json.loads(text))
    return [m for m in queued if m["type"] == "state"]


def play(connections: dict[int | None, list[SocketConnection]]) -> None:
    """Attach ``connections`` (by seat; None: spectators) to a new two-person table and play :data:`MOVES` moves,
    each from the seat's live connection (its newest)."""

    async def body() -> None:
        live = LiveTable(Table(new_record(table_request(PEOPLE), Settings(bot_delay=0.0), 5)), QuietLog())
        for group in connections.values():
            for conn in group:
                live.attach(conn)
        for _ in range(MOVES):
            table = live.table
            mover = connections[table.state.current_player()][-1]
            await live.submit(mover, json.dumps({"type": "move", "version": table.version,
                                                 "action": table.state.legal_actions()[0]}))
        live.close("the test is over")

    asyncio.run(body())


@pytest.fixture()
def draws(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each table drawing made by the sockets (its observation), in order."""
    made: list[Any] = []

    def counting(observation: Any) -> str:
        made.append(observation)
        return render(observation)

    monkeypatch.setattr(drawings, "render", counting)
    return made


def test_a_seats_drawings_are_made_once_per_version_for_all_its_sockets(draws: list[Any]) -> None:
    shared = Drawings()
    limits = Limits()

    def socket(seat: int | None) -> SocketConnection:
        return SocketConnection(None, seat, True, limits, "t", shared)  # type: ignore[arg-type]

    connections: dict[int | None, list[SocketConnection]] = {0: [socket(0) for _ in range(3)], 1: [socket(1)],
                                                             None: [socket(None) for _ in range(2)]}
    play(connections)
    received = {seat: [states(conn) for conn in group] for seat, group in connections.items()}
    shown = {(seat, m["version"]) for seat, lists in received.items() for messages in lists for m in messages}
    count = sum(len(messages) for lists in received.values() for messages in lists)
    assert len(draws) == shared.made == len(shown), "one drawing per seat and version"
    assert count > 2 * len(shown), "the drawings were shared by several messages each"
    for seat, lists in received.items():
        by_version: dict[int, set[str]] = {}
        for messages in lists:
            for m in messages:
                assert m["svg"] == render(m["observation"]), "the drawing of the viewer's own observation"
                moves = [move["move"] for move in m["legal"]]
                assert [move["svg"] for move in m["legal"]] == [move_svg(m["game"], text) for text in moves]
                by_version.setdefault(m["version"], set()).add(m["svg"])
        assert all(len(svgs) == 1 for svgs in by_version.values()), f"seat {seat}: one drawing per version"


def test_without_a_shared_set_each_socket_draws_its_own(draws: list[Any]) -> None:
    """The count the sharing saves: sockets of one seat that do not share draw once each."""
    limits = Limits()
    connections: dict[int | None, list[SocketConnection]] = {
        0: [SocketConnection(None, 0, True, limits, "t") for _ in range(3)],  # type: ignore[arg-type]
        1: [SocketConnection(None, 1, False, limits, "t")]}  # type: ignore[arg-type]
    play(connections)
    shown = {(0, m["version"]) for conn in connections[0] for m in states(conn)}
    assert len(draws) > len(shown)
