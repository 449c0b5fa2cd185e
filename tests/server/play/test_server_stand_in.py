"""Who plays for a person who is not there, and what the seats say of it: after ``Settings.expiries_to_stand_in``
move timers in a row a seat is played by its stand-in (at ``bot_delay``, not at the end of each timer) until its
person moves, says ``back`` or reconnects; a disconnected person's seat says how long before the stand-in takes
over (``grace_left``); a countdown (``deadline``) only on a person's own turn. Driven over a fake clock and fake
connections; the setting stored, kept by a rematch, and absent from old records."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from motley.core import MotleyError
from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record, rematch_record
from motley.server.play.table import Table
from motley.server.store.records import Settings, TableRecord
from tests.server.play.test_server_live import MemoryLog
from tests.support import FakeClock, Viewer

#: Two people at The Fool's Errand, a move timer of 5 s (and no pace: :func:`live_table`; every move waits for its
#: seat).
PEOPLE: dict[str, Any] = {"game": "fools_errand", "move_time": 5.0, "grace": 10.0, "bot_delay": 0.5,
                          "seats": [{"kind": "human"}, {"kind": "human"}]}


def live_table(spec: dict[str, Any], clock: FakeClock, seed: int = 3) -> LiveTable:
    table = Table(new_record(table_request(spec), Settings(), seed))
    table.settings.pace = None  # as a table stored before pace existed: a forced move waits for its seat too
    return LiveTable(table, MemoryLog(), clock=clock, wall=clock)


async def person_moves(live: LiveTable, viewer: Viewer) -> None:
    """The person of ``viewer``'s seat, to move, plays their first legal move."""
    action = live.table.state.legal_actions()[0]
    await live.submit(viewer, json.dumps({"type": "move", "version": live.table.version, "action": action}))


async def until_turn_of(live: LiveTable, seat: int, clock: FakeClock, viewers: list[Viewer]) -> None:
    """Play on (the other person moves, forced moves are driven) until it is ``seat``'s turn."""
    while live.table.state.current_player() != seat:
        p = live.table.state.current_player()
        if live.table.state.is_terminal():
            raise AssertionError("the match ended before the seat's turn")
        await person_moves(live, viewers[p])


async def let_it_run_out(live: LiveTable, clock: FakeClock) -> str:
    """Wait (on the fake clock) for the driver's next move and let it play; its reason."""
    due = live.next_auto()
    assert due is not None
    clock.now = max(clock.now, due[0])
    await live._drive(due[1])
    return due[1]


def test_expiries_in_a_row_hand_the_seat_to_its_stand_in_until_the_person_moves() -> None:
    async def body() -> None:
        clock = FakeClock(1000.0)
        live = live_table(PEOPLE, clock)
        viewers = [Viewer(0), Viewer(1)]
        for viewer in viewers:
            live.attach(viewer)
        lazy = live.table.state.current_player()
        for expiry in range(2):  # the setting's default: 2
            await until_turn_of(live, lazy, clock, viewers)
            assert not live.seat_info()[lazy]["idle"] and live.shared()["deadline"] == 5.0  # a person's turn
            started = clock.now
            assert await let_it_run_out(live, clock) == "timer" and clock.now == started + 5.0
            assert live.table.log[-1].actor == "timer" and live.presence[lazy].expiries == expiry + 1
        assert live.seat_info()[lazy]["idle"] and viewers[1 - lazy].last("state")["seats"][lazy]["idle"]
        await until_turn_of(live, lazy, clock, viewers)
        assert live.shared()["deadline"] is None  # the stand-in plays this turn: no countdown
        started = clock.now
        assert await let_it_run_out(live, clock) == "idle" and clock.now == started + 0.5  # at bot_delay
        assert live.table.log[-1].actor == "idle" and live.table.log[-1].seat == lazy
        await until_turn_of(live, lazy, clock, viewers)
        await person_moves(live, viewers[lazy])  # the person acts again: the seat is theirs
        assert live.table.log[-1].actor == "seat" and not live.seat_info()[lazy]["idle"]
        assert live.presence[lazy].expiries == 0

    asyncio.run(body())


def test_back_or_a_reconnect_ends_the_stand_in_and_a_restart_keeps_it() -> None:
    async def body() -> None:
        clock = FakeClock(1000.0)
        spec = {**PEOPLE, "expiries_to_stand_in": 1}
        live = live_table(spec, clock)
        viewers = [Viewer(0), Viewer(1)]
        for viewer in viewers:
            live.attach(viewer)
        lazy = live.table.state.current_player()
        assert await let_it_run_out(live, clock) == "timer" and live.is_idle(lazy)
        # a table loaded again from its record (a restart) still knows the seat is idle
        again = LiveTable(Table(live.table.record), MemoryLog(), clock=clock, wall=clock)
        assert again.is_idle(lazy) and again.seat_info()[lazy]["idle"]
        spectator = Viewer(None)
        live.attach(spectator)
        await live.submit(spectator, json.dumps({"type": "back"}))
        assert spectator.last("error")["code"] == "spectator" and live.is_idle(lazy)
        await live.submit(viewers[lazy], json.dumps({"type": "back"}))
        assert not live.is_idle(lazy) and not viewers[1 - lazy].last("state")["seats"][lazy]["idle"]
        # idle again, then the person's page reconnects: they are back
        await until_turn_of(live, lazy, clock, viewers)
        assert await let_it_run_out(live, clock) == "timer" and live.is_idle(lazy)
        live.detach(viewers[lazy])
        live.attach(Viewer(lazy))
        assert not live.is_idle(lazy)

    asyncio.run(body())


def test_never_hands_the_seat_to_its_stand_in_when_the_setting_is_off() -> None:
    async def body() -> None:
        clock = FakeClock(1000.0)
        live = live_table({**PEOPLE, "expiries_to_stand_in": None}, clock)
        viewers = [Viewer(0), Viewer(1)]
        for viewer in viewers:
            live.attach(viewer)
        lazy = live.table.state.current_player()
        for _ in range(3):
            await until_turn_of(live, lazy, clock, viewers)
            assert await let_it_run_out(live, clock) == "timer"
        assert not live.is_idle(lazy) and live.presence[lazy].expiries == 3

    asyncio.run(body())


def test_a_disconnected_seat_says_when_its_stand_in_takes_over() -> None:
    async def body() -> None:
        clock = FakeClock(1000.0)
        live = live_table({**PEOPLE, "move_time": None}, clock)
        viewers = [Viewer(0), Viewer(1)]
        for viewer in viewers:
            live.attach(viewer)
        mover = live.table.state.current_player()
        assert live.seat_info()[mover]["grace_left"] is None and live.seat_info()[mover]["stand_in"] == "heuristic"
        live.detach(viewers[mover])
        clock.advance(4.0)
        info = live.seat_info()[mover]
        assert info["grace_left"] == pytest.approx(6.0) and not info["away"] and not info["connected"]
        assert live.shared()["deadline"] is None  # no move timer at this table
        due = live.next_auto()
        assert due is not None and due[1] == "away" and due[0] == pytest.approx(clock.now + 6.0)
        clock.advance(6.0)
        info = live.seat_info()[mover]
        assert info["grace_left"] is None and info["away"]
        await live._drive("away")
        assert live.table.log[-1].actor == "away" and live.table.log[-1].seat == mover
        assert live.presence[mover].expiries == 0  # an away move is not an expiry

    asyncio.run(body())


def test_a_countdown_only_on_a_persons_turn() -> None:
    clock = FakeClock(1000.0)
    spec = {"game": "fools_errand", "move_time": 5.0,
            "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    seen = set()
    for seed in range(1, 40):  # deals where the bot moves first, and deals where the person does
        live = live_table(spec, clock, seed)
        bot_first = live.table.state.current_player() == 1
        assert (live.shared()["deadline"] is None) == bot_first
        seen.add(bot_first)
    assert seen == {True, False}
    assert live.seat_info()[1]["stand_in"] is None  # a bot seat has no stand-in


def test_the_setting_is_stored_kept_by_a_rematch_and_absent_from_old_records() -> None:
    for given, stored in ((3, 3), (None, None)):
        record = new_record(table_request({**PEOPLE, "expiries_to_stand_in": given}), Settings(), 7)
        assert record.settings["expiries_to_stand_in"] == stored
        assert Table(record).settings.expiries_to_stand_in == stored
        table = Table(record)
        again = rematch_record(table, Settings(), seed=8)
        assert again.settings["expiries_to_stand_in"] == stored
    default = new_record(table_request(PEOPLE), Settings(), 7)
    assert default.settings["expiries_to_stand_in"] == Settings().expiries_to_stand_in == 2
    old: TableRecord = new_record(table_request(PEOPLE), Settings(), 7)
    del old.settings["expiries_to_stand_in"]  # stored before the setting existed: behaves as it did
    assert Table(old).settings.expiries_to_stand_in is None
    for bad in (0, 21, 1.5, True, "2"):
        with pytest.raises((MotleyError, ValueError)):
            new_record(table_request({**PEOPLE, "expiries_to_stand_in": bad}), Settings(), 7)
