"""Hints at friendly tables: refused at a table made without them and out of turn, one per decision, searched in
the worker pool from the person's information state, counted per seat (in the state messages and the stored
result), never arriving once the turn has passed; the setting is in the table's record and its rematch's."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest

from motley.server.play import live as live_module
from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record, rematch_record
from motley.server.play.table import Table
from motley.server.play.thinking import Lane, Thinkers
from motley.server.store.records import Settings, TableRecord
from motley.server.store.writer import MoveRow, StoreError
from motley.server.web.routes.finished import finished_record
from tests.support import Viewer

R = TypeVar("R")
PEOPLE = [{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")]
FRIENDLY = {"game": "fool", "players": 4, "options": {"rounds": 1}, "summary_wait": 0, "hints": True, "seats": PEOPLE}
PLAIN = {**FRIENDLY, "hints": False}


class MemoryLog:
    """A table log kept in memory."""

    def __init__(self) -> None:
        self.moves: list[MoveRow] = []
        self.results: dict[str, dict[str, Any]] = {}
        self.seats: list[dict[str, Any]] | None = None
        #: While set, :meth:`store_seats` refuses as a store that does not answer.
        self.broken = False

    async def add_move(self, row: MoveRow) -> None:
        self.moves.append(row)

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        self.results[table_id] = result

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        if self.broken:
            raise StoreError("the store does not answer")
        self.seats = [dict(seat) for seat in seats]

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        pass

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        pass


class ThreadThinkers(Thinkers):
    """Thinkers in threads of this process, noting each job's name and thread."""

    def __init__(self) -> None:
        super().__init__(1)
        self.calls: list[tuple[str, int]] = []
        self.lanes_used: list[Lane] = []

    async def run(self, what: str, fn: Callable[..., R], *args: Any, lane: Lane = "live") -> R:
        def job() -> R:
            self.calls.append((getattr(fn, "__name__", str(fn)), threading.get_ident()))
            self.lanes_used.append(lane)
            return fn(*args)

        with ThreadPoolExecutor(1) as pool:
            return await asyncio.get_running_loop().run_in_executor(pool, job)


def live_table(spec: dict[str, Any], thinkers: Thinkers | None = None, seed: int = 3) -> LiveTable:
    return LiveTable(Table(new_record(table_request(spec), Settings(bot_delay=0.0), seed)), MemoryLog(),
                     thinkers=thinkers)


def to_decision(live: LiveTable) -> None:
    """Play the first legal move until the seat to move has a choice."""
    state = live.table.state
    while len(state.legal_actions()) == 1:
        live.table.apply(live.table.prepare(state.current_player(), state.legal_actions()[0], "seat"))


def errors(viewer: Viewer) -> list[str]:
    return [m["code"] for m in viewer.messages if m["type"] == "error"]


def hints(viewer: Viewer) -> list[dict[str, Any]]:
    return [m for m in viewer.messages if m["type"] == "hint"]


HINT = json.dumps({"type": "hint"})


def test_a_hint_is_refused_at_a_table_made_without_hints() -> None:
    async def body() -> None:
        live = live_table(PLAIN)
        to_decision(live)
        person = Viewer(live.table.state.current_player())
        live.attach(person)
        assert person.last("state")["hints"] is None and person.last("state")["settings"]["hints"] is False
        await live.submit(person, HINT)
        assert errors(person) == ["hints_off"] and hints(person) == []
        assert live.hints.used == [0, 0, 0, 0]

    asyncio.run(body())


def test_a_hint_on_the_persons_turn_once_per_decision_counted_and_stored() -> None:
    async def body() -> None:
        thinkers = ThreadThinkers()
        live = live_table(FRIENDLY, thinkers)
        to_decision(live)
        mover = live.table.state.current_player()
        person, other, spectator = Viewer(mover), Viewer((mover + 1) % 4), Viewer(None)
        for viewer in (person, other, spectator):
            live.attach(viewer)
        assert person.last("state")["settings"]["hints"] is True, "every person is shown the setting"
        legal = live.table.state.legal_actions()
        await live.submit(person, HINT)
        [answer] = hints(person)
        assert answer["action"] in legal and answer["version"] == live.table.version and answer["seat"] == mover
        assert answer["move"] == live.table.state.action_to_string(answer["action"])
        assert answer["why"].endswith(".") and "sampled deals" in answer["why"]
        assert set(answer["cards"]) <= set(answer["move"].upper().split())
        assert [name for name, _ in thinkers.calls] == ["hint"], "searched in the worker pool"
        assert thinkers.lanes_used == ["background"], "beside the play, never in the live bots' lane"
        assert thinkers.calls[0][1] != threading.get_ident(), "never on the event loop's thread"
        assert hints(other) == [] and hints(spectator) == [], "the hint goes to the person alone"
        await live.submit(person, HINT)
        await live.submit(other, HINT)
        await live.submit(spectator, HINT)
        assert errors(person) == ["hint_used"] and errors(other) == ["not_your_turn"]
        assert errors(spectator) == ["spectator"] and len(thinkers.calls) == 1
        counts = [0] * 4
        counts[mover] = 1
        assert other.last("state")["hints"] == counts, "the count is shown to everyone"
        rng = random.Random(1)
        while not live.table.state.is_terminal():
            state = live.table.state
            seat = state.current_player()
            await live.play(live.table.prepare(seat, rng.choice(state.legal_actions()), "seat"))
        assert live.store.results[live.id]["hints"] == counts, "stored with the result"  # type: ignore[attr-defined]
        assert person.last("state")["hints"] == counts, "and shown at the end"

    asyncio.run(body())


def test_a_hint_never_arrives_once_the_turn_has_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    thinking = threading.Event()
    go_on = threading.Event()

    def slow_hint(*args: Any) -> dict[str, Any]:
        thinking.set()
        go_on.wait(10)
        return {"action": 0, "move": "pass", "words": "pass", "why": "late."}

    monkeypatch.setattr(live_module, "hint", slow_hint)

    async def body() -> None:
        live = live_table(FRIENDLY)
        to_decision(live)
        mover = live.table.state.current_player()
        person = Viewer(mover)
        live.attach(person)
        before = live.table.version
        asking = asyncio.create_task(live.submit(person, HINT))
        await asyncio.to_thread(thinking.wait, 10)
        await live.submit(person, json.dumps({"type": "move", "version": live.table.version,
                                              "action": live.table.state.legal_actions()[0]}))
        assert live.table.version == before + 1, "the person moved while the bot thought"
        go_on.set()
        await asyncio.wait_for(asking, 10)
        assert hints(person) == [] and errors(person) == []

    asyncio.run(body())


def test_the_setting_is_in_the_record_and_the_rematch() -> None:
    friendly = Table(new_record(table_request(FRIENDLY), Settings(), 5))
    plain = Table(new_record(table_request(PLAIN), Settings(), 5))
    assert friendly.record.settings["hints"] is True and plain.record.settings["hints"] is False
    default = new_record(table_request({k: v for k, v in FRIENDLY.items() if k != "hints"}), Settings(), 5)
    assert default.settings["hints"] is False, "off unless chosen"
    rng = random.Random(2)
    while not friendly.state.is_terminal():
        state = friendly.state
        friendly.apply(friendly.prepare(state.current_player(), rng.choice(state.legal_actions()), "seat"))
    assert finished_record(friendly)["hints"] is True
    assert rematch_record(friendly, Settings()).settings["hints"] is True
    with pytest.raises(Exception, match="'hints' must be true or false"):
        new_record(table_request({**FRIENDLY, "hints": None}), Settings(), 5)


def test_hint_counts_and_one_hint_a_decision_survive_a_new_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count and the decision a seat had its hint at are stored with the seats before the hint is given, so
    the table rebuilt from its stored record (a restart, another process taking it over, a drain) still counts
    it and refuses a second hint of the same decision."""
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.0)

    async def body() -> None:
        log = MemoryLog()
        live = LiveTable(Table(new_record(table_request(FRIENDLY), Settings(bot_delay=0.0), 3)), log,
                         thinkers=ThreadThinkers())
        to_decision(live)
        mover = live.table.state.current_player()
        person = Viewer(mover)
        live.attach(person)
        await live.submit(person, HINT)
        assert len(hints(person)) == 1 and log.seats is not None
        record = live.table.record
        stored = TableRecord(record.id, record.game, record.params, record.seed, log.seats, record.settings,
                             record.created, moves=list(record.moves))
        again = LiveTable(Table(stored), MemoryLog(), thinkers=ThreadThinkers())
        assert again.table.version == live.table.version
        counts = [0] * 4
        counts[mover] = 1
        assert again.hints.used == counts
        back = Viewer(mover)
        again.attach(back)
        assert back.last("state")["hints"] == counts, "the count is shown after the takeover"
        await again.submit(back, HINT)
        assert errors(back) == ["hint_used"] and hints(back) == [], "one hint a decision, whoever drives the table"

    asyncio.run(body())


def test_a_hint_whose_count_cannot_be_stored_is_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "STORE_RETRY", 0.0)

    async def body() -> None:
        log = MemoryLog()
        live = LiveTable(Table(new_record(table_request(FRIENDLY), Settings(bot_delay=0.0), 3)), log,
                         thinkers=ThreadThinkers())
        to_decision(live)
        person = Viewer(live.table.state.current_player())
        live.attach(person)
        log.broken = True
        await live.submit(person, HINT)
        assert errors(person) == ["not_stored"] and hints(person) == []
        assert live.hints.used == [0, 0, 0, 0] and all(seat.hints == 0 for seat in live.table.seats)
        log.broken = False
        await live.submit(person, HINT)
        assert len(hints(person)) == 1, "asked again once the store answers, it is given"

    asyncio.run(body())


def test_a_hint_for_a_give_of_two_cards_rings_both() -> None:
    """Foolery's King gives any two cards (FY-R13), one card a move: the hint names the whole give, its first
    card's move and both cards, two different cards of the King's hand (never the Fool)."""
    async def body() -> None:
        spec = {"game": "foolery", "players": 4, "options": {"hands": 2}, "summary_wait": 0, "hints": True,
                "seats": PEOPLE}
        live = live_table(spec, ThreadThinkers())
        rng = random.Random(2)
        state = live.table.state

        def kings_give() -> bool:
            obs = state.observation(state.current_player())
            ex = obs["exchange"]
            return bool(obs["phase"] == "exchange" and ex["steps"][ex["step_index"]]["rule"] == "any"
                        and ex["steps"][ex["step_index"]]["cards"] == 2 and ex["step_given"] == 0)

        while not state.is_terminal() and not kings_give():
            live.table.apply(live.table.prepare(state.current_player(), rng.choice(state.legal_actions()), "seat"))
            state = live.table.state
        assert not state.is_terminal(), "the second hand starts with the exchange"
        king = state.current_player()
        person = Viewer(king)
        live.attach(person)
        hand = state.observation(king)["hand"]
        await live.submit(person, HINT)
        [answer] = hints(person)
        assert answer["move"].startswith("give ") and len(answer["cards"]) == 2, answer
        assert answer["cards"][0] in answer["move"].split() and len(set(answer["cards"])) == 2
        assert set(answer["cards"]) <= set(hand) and "FOOL" not in answer["cards"]

    asyncio.run(body())
