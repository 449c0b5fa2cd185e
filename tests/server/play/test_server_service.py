"""The server's parts without sockets: the pure table's log visibility, and the service's order of work
(a move is stored, off the event loop, before it is applied; a refused write applies nothing; a move is
never applied twice; bots play through the same path)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

import motley
from motley.core import State
from motley.core.play import replay
from motley.server.play import live as live_module
from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Finished, Moved, Table
from motley.server.store.records import Settings
from motley.server.store.storage import Fence, Storage
from tests.support import Viewer


class WatchedStorage(Storage):
    """An in-memory store that notes the thread of every move write and refuses the first ``fail`` ones."""

    def __init__(self, fail: int = 0, refuse: str | None = None) -> None:
        super().__init__("sqlite://")
        self.fail = fail
        self.refuse = refuse  # a table whose moves are always refused
        self.threads: set[int] = set()
        self.groups: list[int] = []

    def add_moves(self, moves: Sequence[tuple[str, int, int, str, str]],
                  fences: Mapping[str, Fence] | None = None) -> None:
        self.threads.add(threading.get_ident())
        self.groups.append(len(moves))
        if self.fail > 0:
            self.fail -= 1
            raise OSError("disk full")
        if any(row[0] == self.refuse for row in moves):
            raise OSError("refused")
        super().add_moves(moves, fences)


def humans(game: str, players: int) -> dict[str, Any]:
    return {"game": game, "players": players, "seats": [{"kind": "human"}] * players}


def move_text(live: LiveTable, index: int = 0) -> str:
    state = live.table.state
    return json.dumps({"type": "move", "version": live.table.version, "action": state.legal_actions()[index]})


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# ---- the pure table ------------------------------------------------------------------------------------
@contextmanager
def counting_observations(state: State) -> Iterator[list[int]]:
    """Count ``state.observation`` calls while the block runs."""
    calls = [0]
    real = type(state).observation

    def observation(self: State, seat: int) -> Any:
        calls[0] += 1
        return real(self, seat)

    type(state).observation = observation  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        type(state).observation = real  # type: ignore[method-assign]


@pytest.mark.parametrize("players", [3, 5])
def test_a_hidden_move_is_read_by_its_mover_and_receiver_only_without_a_view_per_viewer(players: int) -> None:
    if "foolery" not in motley.registered_games():
        pytest.skip("foolery is not registered")
    table = Table(new_record(table_request(humans("foolery", players)), Settings(), 5))
    rng = random.Random(1)
    hidden_moves = 0
    while not table.state.is_terminal() and hidden_moves < 6:
        seat = table.state.current_player()
        legal = table.state.legal_actions()
        move = table.prepare(seat, legal[rng.randrange(len(legal))], "seat")
        with counting_observations(table.state) as calls:
            events = table.apply(move)
        entry = next(e for e in events if isinstance(e, Moved)).entry
        if move.text.startswith("give"):
            hidden_moves += 1
            assert calls[0] <= players, "at most one observation per seat, never one more for the spectators"
            receivers = [q for q in range(players) if q != seat and move.text.split()[1] in
                         table.state.observation(q).get("hand", [])]
            assert entry.visible == [q == seat or q in receivers for q in range(players)] + [False]
            assert len(receivers) == 1
            with counting_observations(table.state) as reused:
                for q in range(players):
                    table.message(q)
                table.message(None)
            assert calls[0] + reused[0] == players, "each seat's observation is built once for the log and messages"
        else:
            assert calls[0] == 0 and all(entry.visible)
    assert hidden_moves > 0


def test_a_table_rebuilt_from_its_record_is_the_same_table() -> None:
    for name in motley.registered_games():
        game = motley.load_game(name)
        table = Table(new_record(table_request(humans(name, game.num_players)), Settings(), 9))
        rng = random.Random(2)
        events: list[Any] = []
        while not table.state.is_terminal():
            legal = table.state.legal_actions()
            events = table.apply(table.prepare(table.state.current_player(), legal[rng.randrange(len(legal))],
                                               "seat"))
        assert isinstance(events[-1], Finished) and events[-1].result["scores"] == table.state.scores()
        again = Table(table.record)
        assert again.state.serialize() == table.state.serialize() and again.version == table.version
        assert again.log == table.log
        step = table.version // 2
        assert table.state_at(step).serialize() == replay(
            table.game, table.record.seed, None, [(s, m) for s, m, _ in table.record.moves[:step]]).serialize()


def test_a_move_checked_at_an_older_version_is_not_applied() -> None:
    table = Table(new_record(table_request(humans("fools_errand", 2)), Settings(), 3))
    seat = table.state.current_player()
    first = table.prepare(seat, table.state.legal_actions()[0], "seat")
    table.apply(first)
    with pytest.raises(motley.MotleyError):
        table.apply(first)
    assert table.version == 1 and len(table.log) == 1


# ---- the service ---------------------------------------------------------------------------------------
async def started(storage: Storage, spec: dict[str, Any], seed: int | None = None
                  ) -> tuple[Service, LiveTable, list[Viewer]]:
    service = Service(storage, Settings(bot_delay=0.0))
    live = await service.create(table_request(spec), seed=seed)
    viewers = [Viewer(q) for q in range(len(live.table.seats))]
    for viewer in viewers:
        live.attach(viewer)
    return service, live, viewers


def test_moves_are_stored_off_the_event_loop_before_they_are_applied() -> None:
    async def body() -> None:
        storage = WatchedStorage()
        service, live, viewers = await started(storage, humans("fools_errand", 2), 4)
        loop_thread = threading.get_ident()
        for _ in range(5):
            await live.submit(viewers[live.table.state.current_player()], move_text(live))
        stored = storage.load(live.id)
        assert stored is not None and len(stored.moves) == live.table.version == 5
        assert storage.threads and loop_thread not in storage.threads
        await service.close()

    run(body())


def test_a_move_the_store_refuses_is_not_applied_and_the_mover_is_told() -> None:
    async def body() -> None:
        storage = WatchedStorage(fail=1)
        service, live, viewers = await started(storage, humans("fools_errand", 2), 4)
        mover = viewers[live.table.state.current_player()]
        before = live.table.state.serialize()
        await live.submit(mover, move_text(live))
        error = mover.last("error")
        assert error["code"] == "not_stored" and error["version"] == 0
        assert live.table.version == 0 and live.table.state.serialize() == before and not live.table.log
        assert all(v.last("state")["version"] == 0 for v in viewers)
        await live.submit(mover, move_text(live))  # the same move again: now stored and played
        assert live.table.version == 1 and all(v.last("state")["version"] == 1 for v in viewers)
        stored = storage.load(live.id)
        assert stored is not None and len(stored.moves) == 1
        await service.close()

    run(body())


def test_moves_made_together_are_stored_together_and_a_bad_one_fails_alone() -> None:
    async def body() -> None:
        storage = WatchedStorage()
        service = Service(storage, Settings(bot_delay=0.0))
        tables = [await service.create(table_request(humans("fools_errand", 2)), seed=seed) for seed in range(6)]
        storage.refuse = tables[0].id
        viewers = []
        for live in tables:
            viewers.append([Viewer(q) for q in range(2)])
            for viewer in viewers[-1]:
                live.attach(viewer)
        await asyncio.gather(*(live.submit(seats[live.table.state.current_player()], move_text(live))
                               for live, seats in zip(tables, viewers, strict=True)))
        assert max(storage.groups) > 1, "the moves made while a write was under way went in one group"
        assert tables[0].table.version == 0 and any(m.get("code") == "not_stored" for m in viewers[0][0].messages
                                                    + viewers[0][1].messages)
        for live in tables[1:]:
            stored = storage.load(live.id)
            assert live.table.version == 1 and stored is not None and len(stored.moves) == 1
        await service.close()

    run(body())


def test_the_same_move_sent_twice_at_once_is_applied_once() -> None:
    async def body() -> None:
        storage = WatchedStorage()
        service, live, viewers = await started(storage, humans("fools_errand", 2), 6)
        mover = viewers[live.table.state.current_player()]
        text = move_text(live)
        await asyncio.gather(live.submit(mover, text), live.submit(mover, text))
        assert live.table.version == 1
        assert [m["code"] for m in mover.messages if m["type"] == "error"] in (["stale"], ["not_your_turn"])
        stored = storage.load(live.id)
        assert stored is not None and len(stored.moves) == 1
        await service.close()

    run(body())


def test_bots_play_through_the_store_and_a_refused_write_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.01)

    async def body() -> None:
        storage = WatchedStorage(fail=2)
        spec = {"game": "fools_errand", "bot_delay": 0,
                "seats": [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "heuristic"}]}
        service, live, _ = await started(storage, spec, 7)
        watcher = Viewer(None)
        live.attach(watcher)
        await asyncio.wait_for(service.tasks[live.id], timeout=60)
        assert live.table.state.is_terminal() and watcher.last("state")["terminal"]
        stored = storage.load(live.id)
        assert storage.fail == 0 and stored is not None and stored.finished
        assert len(stored.moves) == live.table.version
        assert Table(stored).state.serialize() == live.table.state.serialize()
        assert all(e.actor == "bot" for e in live.table.log)
        await service.close()

    run(body())


def test_a_restarted_service_resumes_the_table_as_it_was() -> None:
    async def body() -> None:
        storage = WatchedStorage()
        service, live, viewers = await started(storage, humans("fools_errand", 2), 8)
        for _ in range(3):
            await live.submit(viewers[live.table.state.current_player()], move_text(live))
        seen = [live.table.message(q) for q in (0, 1, None)]
        again = Service(storage, Settings(bot_delay=0.0))  # the same store, as after a restart
        assert await again.resume() == 1
        resumed = again.tables[live.id].table
        assert [resumed.message(q) for q in (0, 1, None)] == seen
        await again.close()
        await service.close()

    run(body())
