"""What a live table tells its viewers beyond the moves, driven without a browser (an in-memory table log, fake
connections and a fake clock): why a match ended, forced moves, refusals in words, the summary that waits at
the end of a deal, the pace of forced moves, one live page per seat, and the rematch offered as an offer."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from motley.core import MotleyError
from motley.server.play.bodies import RematchSeat, table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.store.records import SeatRefused, Settings
from motley.server.store.storage import Storage
from tests.server.play.test_server_live import MemoryLog
from tests.support import Viewer


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(body())


def live_table(spec: dict[str, Any], seed: int = 3, **settings: Any) -> tuple[LiveTable, Clock, MemoryLog]:
    clock, log = Clock(), MemoryLog()
    defaults = Settings(**{"bot_delay": 0.0, **settings})
    return LiveTable(Table(new_record(table_request(spec), defaults, seed)), log, clock), clock, log


def move_of(viewer: Viewer, index: int = 0) -> str:
    state = viewer.last("state")
    return json.dumps({"type": "move", "version": state["version"], "action": state["legal"][index]["action"]})


async def step(live: LiveTable, clock: Clock, people: dict[int, Viewer]) -> None:
    """One move of the match: the driver's when one is due (the clock moved to it), else the person's to move
    (their first legal move)."""
    due = live.next_auto()
    if due is not None and due[1] != "timer":
        clock.now = max(clock.now, due[0])
        await live._drive(due[1])
        return
    await live.submit(people[live.table.state.current_player()], move_of(people[live.table.state.current_player()]))


async def play_to(live: LiveTable, clock: Clock, people: dict[int, Viewer], until: Callable[[], bool],
                  limit: int = 20_000) -> None:
    for _ in range(limit):
        if until() or live.table.state.is_terminal():
            return
        await step(live, clock, people)
    raise AssertionError("the match did not get there")


def bots(game: str, players: int, **options: Any) -> dict[str, Any]:
    return {"game": game, "players": players, "options": options,
            "seats": [{"kind": "bot", "bot": "heuristic"}] * players}


# ---- why a match ended ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "reason"), [
    (bots("fools_errand", 2), r"The decks are empty\."),
    (bots("fools_errand", 2, end_when="either_deck_joker_only"), r"\{seat [01]\}'s deck is empty\."),
    (bots("fool", 4), r"\{seat \d\} (reached −\d+ points|scored \+10 for the sixth time)(,? and .*)?\."),
    (bots("fool", 5, rounds=2), r"Both rounds have been played\."),
    (bots("foolery", 3), r"The last hand has been played \(6 of 6\)\."),
    (bots("foolery", 4, match_end="target", target_score=10), r"\{seat \d\} reached \d+ points\."),
], ids=["errand", "errand-either", "fool", "fool-rounds", "foolery", "foolery-target"])
def test_the_end_of_a_match_says_why_it_ended(spec: dict[str, Any], reason: str) -> None:
    async def body() -> None:
        live, clock, _ = live_table(spec)
        watcher = Viewer(None)
        live.attach(watcher)
        await play_to(live, clock, {}, lambda: False)
        states = [m for m in watcher.messages if m["type"] == "state"]
        assert states[-1]["terminal"] and re.fullmatch(reason, states[-1]["end_reason"]), states[-1]["end_reason"]
        assert all(m["end_reason"] is None for m in states[:-1])
        for name in re.findall(r"\{seat (\d)\}", states[-1]["end_reason"]):
            assert 0 <= int(name) < len(live.table.seats)

    run(body)


# ---- forced moves in the log ---------------------------------------------------------------------------------
def test_each_log_entry_says_whether_it_was_the_only_legal_move_also_after_a_rebuild() -> None:
    async def body() -> None:
        live, clock, _ = live_table(bots("foolery", 4, hands=1))
        await play_to(live, clock, {}, lambda: False)
        record = live.table.record
        forced = []
        state = live.table.game.new_initial_state(seed=record.seed)
        for _, move, _ in record.moves:
            forced.append(len(state.legal_actions()) == 1)
            state.apply_action(state.string_to_action(move))
        assert True in forced and False in forced
        assert [e.forced for e in live.table.log] == forced
        assert [e.forced for e in Table(record).log] == forced, "a table rebuilt from its record"
        assert [e["forced"] for e in live.table.visible_log(None, last=10**6)] == forced

    run(body)


# ---- refusals in words ---------------------------------------------------------------------------------------
def test_a_refused_move_is_explained_in_words_with_the_rule_ids_apart() -> None:
    async def body() -> None:
        live, _, _ = live_table({"game": "foolery", "players": 3, "seats": [{"kind": "human"}] * 3}, seed=4)
        state = live.table.state
        mover = Viewer(state.current_player())
        live.attach(mover)
        await live.submit(mover, json.dumps({"type": "why", "move": "pass"}))  # the first lead may not pass
        why = mover.last("why")
        assert why["reason"] and re.search(r"\(F[YL]-[RD]\d+\)", why["reason"]), why
        assert why["rules"] and all(re.fullmatch(r"[A-Z]{2}-[A-Z]\d+", r) for r in why["rules"])
        assert not re.search(r"[A-Z]{2}-[A-Z]\d+", why["words"]) and why["words"][0].isupper()
        assert why["words"].endswith(".")
        await live.submit(mover, json.dumps({"type": "move", "version": live.table.version, "move": why["move"]}))
        error = mover.last("error")
        assert error["code"] == "illegal" and error["words"] == why["words"] and error["rules"] == why["rules"]
        await live.submit(mover, json.dumps({"type": "why", "move": state.action_to_string(state.legal_actions()[0])}))
        assert mover.last("why")["reason"] is None and mover.last("why")["words"] is None
        assert mover.last("why")["rules"] == []

    run(body)


# ---- the summary at the end of a deal ------------------------------------------------------------------------
PERSON_AND_BOTS = {"game": "fool", "players": 4, "options": {"rounds": 2},
                   "seats": [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * 3}


async def to_first_summary(live: LiveTable, clock: Clock, ann: Viewer) -> None:
    await play_to(live, clock, {0: ann}, lambda: live.summary is not None)
    assert live.summary is not None


def test_the_end_of_a_deal_waits_for_the_person_and_goes_on_after_continue() -> None:
    async def body() -> None:
        live, clock, _ = live_table(PERSON_AND_BOTS, move_time=20.0)
        ann, watcher = Viewer(0), Viewer(None)
        live.attach(ann)
        live.attach(watcher)
        await to_first_summary(live, clock, ann)
        shown = watcher.last("state")
        assert shown["summary"] == {"deal": 1, "waiting": [0], "until": 30.0} and shown["deadline"] is None
        version = live.table.version
        clock.now += 29.0
        assert live.next_auto() == (clock.now + 1.0, "summary"), "no bot moves and no move timer meanwhile"
        await live.submit(watcher, json.dumps({"type": "continue"}))
        assert watcher.last("error")["code"] == "spectator" and live.summary is not None
        await live.submit(ann, json.dumps({"type": "continue"}))
        assert live.summary is None and watcher.last("state")["summary"] is None
        assert live.table.version == version and live.turn_started == clock.now, "the turn's clock starts now"
        assert live.next_auto() is not None and live.next_auto()[1] in ("bot", "forced", "timer")

    run(body)


def test_the_end_of_a_deal_goes_on_by_itself_when_the_time_is_up() -> None:
    async def body() -> None:
        live, clock, _ = live_table(PERSON_AND_BOTS, summary_wait=10.0)
        ann = Viewer(0)
        live.attach(ann)
        await to_first_summary(live, clock, ann)
        due = live.next_auto()
        assert due is not None and due[1] == "summary" and ann.last("state")["summary"]["until"] == 10.0
        clock.now = due[0]
        await live._drive("summary")
        assert live.summary is None and ann.last("state")["summary"] is None
        await play_to(live, clock, {0: ann}, lambda: False)
        assert live.table.state.is_terminal()

    run(body)


def test_a_summary_without_limit_waits_and_a_table_without_people_does_not() -> None:
    async def body() -> None:
        live, clock, _ = live_table(PERSON_AND_BOTS, summary_wait=None)
        ann = Viewer(0)
        live.attach(ann)
        await to_first_summary(live, clock, ann)
        assert ann.last("state")["summary"]["until"] is None and live.next_auto() is None
        live.detach(ann)  # gone: the summary waits the grace time for a page that comes back, then goes on
        assert live.summary is not None and live.next_auto() == (clock.now + 30.0, "summary")
        clock.now += 30.0
        await live._drive("summary")
        assert live.summary is None and live.next_auto() is not None
        alone, clock2, _ = live_table(bots("fool", 4, rounds=2))
        await play_to(alone, clock2, {}, lambda: alone.summary is not None)
        assert alone.table.state.is_terminal(), "bots alone never wait"
        unhurried, clock3, _ = live_table(PERSON_AND_BOTS, summary_wait=0.0)
        ann3 = Viewer(0)
        unhurried.attach(ann3)
        await play_to(unhurried, clock3, {0: ann3}, lambda: unhurried.summary is not None)
        assert unhurried.table.state.is_terminal(), "summary_wait 0: no wait"

    run(body)


def test_a_page_reloaded_during_the_summary_finds_it_still_shown() -> None:
    async def body() -> None:
        live, clock, _ = live_table(PERSON_AND_BOTS, summary_wait=None)
        ann = Viewer(0)
        live.attach(ann)
        await to_first_summary(live, clock, ann)
        version = live.table.version
        live.detach(ann)  # the page reloads: its socket closes, and a new one opens a moment later
        clock.now += 1.0
        again = Viewer(0)
        live.attach(again)
        shown = again.last("state")
        assert shown["summary"] == {"deal": 1, "waiting": [0], "until": None}, shown["summary"]
        assert live.table.version == version and live.next_auto() is None, "nothing moved during the reload"
        await live.submit(again, json.dumps({"type": "continue"}))
        assert live.summary is None and again.last("state")["summary"] is None

    run(body)


# ---- the pace of forced moves --------------------------------------------------------------------------------
def test_a_persons_forced_move_is_played_at_the_pace_once_everyone_is_there() -> None:
    async def body() -> None:
        spec = {"game": "foolery", "players": 3, "seats": [{"kind": "human"}] * 3}
        live, clock, _ = live_table(spec, seed=2, pace=0.5)
        people = {0: Viewer(0), 1: Viewer(1)}
        for viewer in people.values():
            live.attach(viewer)
        people[2] = Viewer(2)  # moves, but has never connected
        while len(live.table.state.legal_actions()) != 1:
            await live.submit(people[live.table.state.current_player()], json.dumps(
                {"type": "move", "version": live.table.version, "action": live.table.state.legal_actions()[-1]}))
        assert live.waiting_for() == [2] and live.next_auto() is None, "not before every person is there"
        live.attach(people[2])
        assert live.next_auto() == (live.turn_started + 0.5, "forced")
        seat, version = live.table.state.current_player(), live.table.version
        clock.now = live.turn_started + 0.5
        await live._drive("forced")
        entry = live.table.log[-1]
        assert live.table.version == version + 1 and (entry.seat, entry.actor, entry.forced) == (seat, "forced", True)

    run(body)


def test_a_table_stored_before_pace_and_summary_wait_behaves_as_before() -> None:
    record = new_record(table_request(PERSON_AND_BOTS), Settings())
    del record.settings["pace"], record.settings["summary_wait"]
    settings = Table(record).settings
    assert (settings.pace, settings.summary_wait) == (None, 0.0)
    assert (Settings().pace, Settings().summary_wait) == (0.7, 30.0)


# ---- a move shown in steps (The Fool's Errand's draws) --------------------------------------------------------
ERRAND_WITH_BOT = {"game": "fools_errand", "players": 2,
                   "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "heuristic"}]}


def test_the_bot_waits_until_the_draws_of_a_move_could_be_shown_one_at_a_time() -> None:
    async def body() -> None:
        live, clock, _ = live_table(ERRAND_WITH_BOT, seed=5, bot_delay=0.5, pace=0.7)
        ann = Viewer(0)
        live.attach(ann)
        waits: list[tuple[int, float]] = []
        while not live.table.state.is_terminal():
            events = len(live.table.state.observation(0)["log"])
            if live.table.state.current_player() == 0:
                clock.now += 3.0  # Ann thinks
                await live.submit(ann, move_of(ann))
            else:
                due = live.next_auto()
                assert due is not None and due[1] == "bot"
                clock.now = due[0]
                await live._drive("bot")
            moved_at = clock.now
            shown = len(live.table.state.observation(0)["log"]) - events
            due = live.next_auto()
            if due is not None and due[1] == "bot":
                waits.append((shown, due[0] - moved_at))
                assert due[0] - moved_at == pytest.approx(0.5 + (shown - 1) * 0.7), "bot_delay + (steps - 1) x pace"
        assert any(shown > 3 for shown, _ in waits), "some moves drew several cards"

    run(body)


def _bot_opens(seed: int) -> bool:
    live, _, _ = live_table(ERRAND_WITH_BOT, seed=seed)
    return live.table.state.current_player() == 1


def test_the_first_move_waits_until_the_opening_could_be_shown_once_everyone_is_there() -> None:
    """The draws the deal made by itself before the first decision are shown once every person is at the table (the
    pages replay them at the pace): the bot's first move waits for them, from the last person's arrival."""
    seed = next(s for s in range(1, 200) if _bot_opens(s))

    async def body() -> None:
        live, clock, _ = live_table(ERRAND_WITH_BOT, seed=seed, bot_delay=0.5, pace=0.7)
        opening = len(live.table.state.observation(0)["log"])
        assert opening >= 2, "the deal drew cards by itself before the first decision"
        assert live.next_auto() is None, "the bot waits for Ann"
        clock.now += 60.0  # Ann opens her link a minute later
        ann = Viewer(0)
        live.attach(ann)
        due = live.next_auto()
        assert due is not None and due[1] == "bot"
        assert due[0] - clock.now == pytest.approx(opening * 0.7 + 0.5), "the opening's steps, then the bot's delay"
        first = next(m for m in ann.messages if m["type"] == "state")
        assert first["waiting_for"] == [] and first["opening"] is True, "Ann's page shows the opening"
        again = Viewer(0)
        live.attach(again)  # a reload later: the table as it is, and the table does not wait again
        assert all("opening" not in m for m in again.messages) and live.next_auto() == due

    run(body)


def test_two_people_see_the_opening_when_the_second_arrives() -> None:
    async def body() -> None:
        live, _, _ = live_table({**ERRAND_WITH_BOT, "seats": [{"kind": "human"}] * 2}, seed=5, pace=0.5)
        ann, bob = Viewer(0), Viewer(1)
        live.attach(ann)
        assert ann.last("state")["waiting_for"] == [1]
        live.attach(bob)
        assert ann.last("state")["waiting_for"] == [] and ann.last("state")["version"] == 0, "Ann's page is told"
        first = next(m for m in bob.messages if m["type"] == "state")
        assert first["waiting_for"] == [] and first["opening"] is True

    run(body)


def test_a_person_whose_move_draws_cards_gets_the_time_to_see_them_on_the_move_timer() -> None:
    async def body() -> None:
        live, clock, _ = live_table({**ERRAND_WITH_BOT, "seats": [{"kind": "human"}] * 2}, seed=5, pace=0.5,
                                    move_time=20.0)
        people = {0: Viewer(0), 1: Viewer(1)}
        for viewer in people.values():
            live.attach(viewer)
        events = len(live.table.state.observation(0)["log"])
        mover = live.table.state.current_player()
        await live.submit(people[mover], move_of(people[mover]))
        shown = len(live.table.state.observation(0)["log"]) - events
        due = live.next_auto()
        assert due is not None and due[1] == "timer" and due[0] == pytest.approx(clock.now + (shown - 1) * 0.5 + 20.0)
        assert live.shared()["deadline"] == pytest.approx(20.0 + (shown - 1) * 0.5)

    run(body)


@pytest.mark.parametrize(("spec", "pace"), [(bots("fool", 4), 0.7), (bots("fools_errand", 2), 0.0)])
def test_a_move_shown_in_one_step_or_at_pace_0_waits_the_bot_delay_only(
        spec: dict[str, Any], pace: float) -> None:
    async def body() -> None:
        live, clock, _ = live_table(spec, seed=5, bot_delay=0.5, pace=pace)
        for _ in range(8):
            due = live.next_auto()
            assert due is not None
            clock.now = due[0]
            await live._drive(due[1])
            due = live.next_auto()
            if live.table.state.is_terminal():
                break
            assert due is not None and due[0] == pytest.approx(clock.now + (0.5 if due[1] == "bot" else pace))
        assert live.table.version >= 4

    run(body)


# ---- one seat, one live page ---------------------------------------------------------------------------------
def test_the_newest_page_of_a_seat_plays_and_play_here_moves_it() -> None:
    async def body() -> None:
        live, _, log = live_table({"game": "fools_errand", "seats": [{"kind": "human"}] * 2})
        mover = live.table.state.current_player()
        first, second, watcher = Viewer(mover), Viewer(mover), Viewer(None)
        for viewer in (first, watcher, second):
            live.attach(viewer)
        assert first.last("state")["live"] is False and second.last("state")["live"] is True
        assert "live" not in watcher.last("state")
        await live.submit(first, move_of(first))
        assert first.last("error")["code"] == "elsewhere" and log.moves == []
        assert first.last("error")["message"] == "This seat is being played in another tab."
        for kind in ("continue", "start"):
            await live.submit(first, json.dumps({"type": kind}))
            assert first.last("error")["code"] == "elsewhere"
        await live.submit(first, json.dumps({"type": "claim"}))
        assert first.last("state")["live"] is True and second.last("state")["live"] is False
        await live.submit(second, move_of(second))
        assert second.last("error")["code"] == "elsewhere"
        await live.submit(first, move_of(first))
        assert len(log.moves) == 1 and second.last("state")["version"] == 1, "the other page still follows"
        live.detach(first)
        assert second.last("state")["live"] is True
        await live.submit(watcher, json.dumps({"type": "claim"}))
        assert watcher.last("error")["code"] == "spectator"

    run(body)


# ---- the rematch as an offer ---------------------------------------------------------------------------------
FOUR = {"game": "fool", "players": 4, "options": {"rounds": 1}, "summary_wait": 0,
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "heuristic"},
                  {"kind": "human", "name": "Bob"}, {"kind": "bot", "bot": "random"}]}


async def finished_table(service: Service, clock: Clock) -> tuple[LiveTable, dict[int | None, Viewer]]:
    live = await service.create(table_request(FOUR), seed=9)
    service.tasks.pop(live.id).cancel()  # the test drives the table itself, on its own clock
    viewers: dict[int | None, Viewer] = {0: Viewer(0), 2: Viewer(2), None: Viewer(None)}
    for viewer in viewers.values():
        live.attach(viewer)
    await play_to(live, clock, {0: viewers[0], 2: viewers[2]}, lambda: False)
    assert live.table.state.is_terminal()
    return live, viewers


def with_service(test: Callable[[Service, Clock], Coroutine[Any, Any, None]]) -> None:
    async def body() -> None:
        clock = Clock()
        service = Service(Storage("sqlite://"), Settings(bot_delay=0.0), clock=clock)
        try:
            await test(service, clock)
        finally:
            await service.close()

    asyncio.run(body())


def tokens_in(message: dict[str, Any]) -> list[str]:
    return re.findall(r"token=([\w-]+)", json.dumps(message))


def test_a_rematch_is_offered_to_each_viewer_with_their_own_link_and_nobody_moves() -> None:
    async def test(service: Service, clock: Clock) -> None:
        live, viewers = await finished_table(service, clock)
        ann = live.table.seats[0].token
        assert ann is not None
        new = await service.rematch(live, ann)
        offers = {seat: viewer.last("rematch") for seat, viewer in viewers.items()}
        assert [s.name for s in new.table.seats] == [s.name for s in live.table.seats]
        assert [s.bot for s in new.table.seats] == [s.bot for s in live.table.seats]
        for seat in (0, 2):
            offer = offers[seat]
            assert (offer["table"], offer["offered_by"], offer["you"]) == (new.id, 0, seat)
            assert tokens_in(offer) == [new.table.seats[seat].token]
            assert offer["seats"][1] == {"name": new.table.seats[1].name, "kind": "bot", "bot": new.table.seats[1].bot}
        assert offers[None]["link"] == f"/table/{new.id}" and offers[None]["you"] is None
        assert tokens_in(offers[None]) == [], "a spectator gets no seat token"
        assert all(v.last("state")["table"] == live.id for v in viewers.values()), "nobody's page is moved"
        late = Viewer(None)
        live.attach(late)
        assert late.last("rematch") == offers[None]
        assert (await service.rematch(live, live.table.seats[2].token or "")).id == new.id, "asked again: the same"
        assert new.waiting_for() == [0, 2], "its bots wait for the people"

    with_service(test)


def test_the_one_who_offers_may_change_the_bots_and_the_order() -> None:
    async def test(service: Service, clock: Clock) -> None:
        live, viewers = await finished_table(service, clock)
        seats = [RematchSeat.model_validate(s) for s in (
            {"from": 2, "kind": "human"}, {"kind": "bot", "bot": "random"},
            {"from": 0, "kind": "human", "name": "Annie"}, {"from": 1, "kind": "bot"})]
        new = await service.rematch(live, live.table.seats[2].token or "", seats)
        table = new.table
        assert [(s.kind, s.name) for s in table.seats][::2] == [("human", "Bob"), ("human", "Annie")]
        assert table.seats[1].bot == "random" and table.seats[3].bot == live.table.seats[1].bot
        assert viewers[0].last("rematch")["you"] == 2 and viewers[2].last("rematch")["you"] == 0
        assert viewers[0].last("rematch")["offered_by"] == 2
        assert table.seat_of_token(tokens_in(viewers[0].last("rematch"))[0]) == 2
        other = [RematchSeat.model_validate(s) for s in (
            {"from": 0, "kind": "human"}, {"kind": "bot"}, {"from": 2, "kind": "human"}, {"kind": "bot"})]
        with pytest.raises(SeatRefused, match="other seats"):
            await service.rematch(live, live.table.seats[0].token or "", other)
        assert (await service.rematch(live, live.table.seats[0].token or "", seats)).id == new.id

    with_service(test)


@pytest.mark.parametrize(("seats", "named"), [
    ([{"from": 1, "kind": "human"}, {"kind": "bot"}, {"from": 2, "kind": "human"}, {"kind": "bot"}],
     "person seats 0, 2"),
    ([{"from": 0, "kind": "human"}, {"kind": "bot"}, {"from": 0, "kind": "human"}, {"kind": "bot"}], "each once"),
    ([{"from": 0, "kind": "human"}, {"kind": "bot"}, {"from": 2, "kind": "human"}], "the 4 seats"),
    ([{"from": 0, "kind": "human"}, {"kind": "bot"}, {"from": 2, "kind": "human"}, {"from": 9, "kind": "bot"}],
     "not 9"),
    ([{"from": 0, "kind": "human", "bot": "random"}, {"kind": "bot"}, {"from": 2, "kind": "human"}, {"kind": "bot"}],
     "no 'bot'"),
    ([{"from": 0, "kind": "human"}, {"kind": "bot", "name": "X"}, {"from": 2, "kind": "human"}, {"kind": "bot"}],
     "no 'name'"),
    ([{"from": 0, "kind": "human"}, {"kind": "bot", "bot": "ismcts", "strength": 10**9},
      {"from": 2, "kind": "human"}, {"kind": "bot"}], "strength"),
])
def test_bad_rematch_seats_are_refused_naming_the_problem(seats: list[dict[str, Any]], named: str) -> None:
    async def test(service: Service, clock: Clock) -> None:
        live, viewers = await finished_table(service, clock)
        with pytest.raises(MotleyError, match=re.escape(named)):
            await service.rematch(live, live.table.seats[0].token or "", [RematchSeat.model_validate(s) for s in seats])
        assert live.rematch is None and not any(t.rematch_of is live for t in service.tables.values())
        assert all(m["type"] != "rematch" for m in viewers[None].messages)

    with_service(test)


def test_a_declined_seat_opens_and_both_tables_are_told() -> None:
    async def test(service: Service, clock: Clock) -> None:
        live, viewers = await finished_table(service, clock)
        new = await service.rematch(live, live.table.seats[0].token or "")
        bob_token = new.table.seats[2].token or ""
        ann_new = Viewer(0)
        new.attach(ann_new)
        with pytest.raises(SeatRefused, match="not a seat of this table"):
            await service.decline(new, live.table.seats[2].token or "")  # Bob's old link: another table's token
        with pytest.raises(SeatRefused):
            await service.rematch(live, new.table.seats[0].token or "")  # the new table's token at the old table
        assert await service.decline(new, bob_token) == 2
        told = {"type": "rematch_declined", "seat": 2, "name": "Bob"}
        assert viewers[0].last("rematch_declined") == told and viewers[None].last("rematch_declined") == told
        assert ann_new.last("rematch_declined") == told
        assert new.table.open_seats() == [2] and new.table.seat_of_token(bob_token) is None
        late = Viewer(None)
        live.attach(late)
        assert late.last("rematch_declined") == told
        with pytest.raises(SeatRefused, match="joined"):
            await service.decline(new, new.table.seats[0].token or "")  # Ann is at the new table already
        assert await service.join(new, 2) == 2, "anyone may take the open seat from the lobby"

    with_service(test)
