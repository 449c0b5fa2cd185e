"""The one check of a move, in every game: :meth:`motley.State.check` gives the refusal of a seat's move (a wrong
seat, a finished match, an unknown or forbidden move) or None, changes nothing, and is the check the core's
``apply_action``, ``play``, ``read_move`` and ``string_to_action`` make and the server answers a move with, so each
refusal has one wording (docs/design.md, The server's move path)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

import motley
from motley.core import GameOverError, MoveError, NotYourTurnError, State, registry
from motley.server.play import protocol
from motley.server.play.bodies import table_request
from motley.server.play.live import LiveTable
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings
from tests.server.play.test_server_live import MemoryLog
from tests.support import Viewer, play_out, play_random

#: Every registered game at its least and most players.
SPECS = [f"{name}(players={n})" if low != high else name
         for name in registry.registered_games()
         for low, high in [(registry.game_class(name).min_players, registry.game_class(name).max_players)]
         for n in sorted({low, high})]


def _positions(spec: str, seeds: range = range(3), steps: int = 40) -> Iterator[State]:
    """States of ``spec`` along seeded random play (the start of each match, then every move up to ``steps``)."""
    game = motley.load_game(spec)
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(steps):
            if state.is_terminal():
                break
            yield state
            play_random(state, rng, 1)


def _illegal(state: State) -> int:
    """An action id of the game's action space that is not legal now."""
    legal = set(state.legal_actions())
    return next(a for a in range(state.game.num_distinct_actions()) if a not in legal)


def _raised(call: Any, *args: Any) -> MoveError:
    with pytest.raises(MoveError) as info:
        call(*args)
    return info.value


@pytest.mark.parametrize("spec", SPECS)
def test_check_refuses_a_wrong_seat_and_an_illegal_move_and_accepts_a_legal_one(spec: str) -> None:
    """A wrong seat: NotYourTurnError with the game's ``why_not_turn``; an action id that is not legal:
    IllegalMoveError with ``why_illegal``; a legal one: None, by id and by move string. Nothing changes, and
    ``play``/``apply_action`` raise the very refusal ``check`` gives."""
    for state in _positions(spec):
        before = state.serialize()
        mover, legal = state.current_player(), state.legal_actions()
        other = (mover + 1) % state.game.num_players
        assert state.check(mover, legal[0]) is None
        assert state.check(mover, state.action_to_string(legal[0]).lower()) is None
        assert state.read_move(mover, state.action_to_string(legal[0])) == legal[0]

        wrong = state.check(other, legal[0])
        assert type(wrong) is NotYourTurnError and wrong.reason == state.why_not_turn(other)
        assert str(_raised(state.play, other, legal[0])) == str(wrong)

        action = _illegal(state)
        illegal = state.check(mover, action)
        assert type(illegal) is motley.IllegalMoveError and illegal.reason == state.why_illegal(action)
        assert str(_raised(state.apply_action, action)) == str(illegal)
        assert str(_raised(state.play, mover, action)) == str(illegal)
        assert state.serialize() == before, "checking and refusing change nothing"


@pytest.mark.parametrize("spec", SPECS)
def test_check_names_a_finished_match_first_and_an_unreadable_move_as_invalid(spec: str) -> None:
    state = motley.load_game(spec).new_initial_state(seed=5)
    unknown = state.check(state.current_player(), "no such move")
    assert isinstance(unknown, motley.InvalidMoveError)
    assert str(unknown) == str(_raised(state.string_to_action, "no such move"))
    assert isinstance(state.check(state.current_player(), state.game.num_distinct_actions()), motley.InvalidMoveError)
    play_out(state, random.Random(5))
    for seat in range(state.game.num_players):
        over = state.check(seat, 0)
        assert type(over) is GameOverError and over.reason == "the game is over"
        assert isinstance(over, motley.IllegalMoveError), "still an illegal move for code that catches those"
    assert str(_raised(state.string_to_action, "pass")) == str(state.check(0, "pass"))


def test_a_seat_sitting_out_a_trick_is_told_its_rule() -> None:
    """Fool!: a seat holding a Fool disc sits out the trick (FL-R10); the core's refusal names the rule."""
    for state in _positions("fool(players=4)", range(20), 200):
        out = [seat for seat in range(4) if seat in state.out]  # type: ignore[attr-defined]
        if out:
            refused = state.check(out[0], state.legal_actions()[0])
            assert isinstance(refused, NotYourTurnError) and "(FL-R10)" in refused.reason
            return
    raise AssertionError("no seat sat out a trick in 20 seeded matches")


def _request(game: motley.Game) -> dict[str, Any]:
    """A table request of ``game`` (its player count) with a person in every seat."""
    request: dict[str, Any] = {"game": game.name, "seats": [{"kind": "human"}] * game.num_players}
    if "players" in game.params:
        request["players"] = game.num_players
    return request


def _table(spec: str, seed: int = 3) -> Table:
    return Table(new_record(table_request(_request(motley.load_game(spec))), Settings(), seed))


@pytest.mark.parametrize("spec", SPECS)
def test_the_server_refuses_with_the_cores_words(spec: str) -> None:
    """The table's answers to a wrong seat, an illegal action and a finished match are the core's refusals: the
    same reason, the same rule ids (``protocol.reason_words`` of it), and the same ``why`` reason."""
    table = _table(spec)
    state = table.state
    mover, legal = state.current_player(), state.legal_actions()
    other = (mover + 1) % state.game.num_players

    def refused(seat: int, action: int) -> protocol.ProtocolError:
        message = protocol.ClientMessage("move", version=table.version, action=action)
        with pytest.raises(protocol.ProtocolError) as info:
            table.check(seat, message)
        return info.value

    core = state.check(other, legal[0])
    assert core is not None
    turn = refused(other, legal[0])
    assert (turn.code, turn.message) == ("not_your_turn", core.reason)
    assert table.why(other, state.action_to_string(legal[0])) == core.reason

    action = _illegal(state)
    core = state.check(mover, action)
    assert core is not None
    illegal = refused(mover, action)
    assert (illegal.code, illegal.message, illegal.reason) == ("illegal", str(core), core.reason)
    sent = protocol.error(table.version, illegal.code, illegal.message, illegal.reason)
    assert (sent["words"], sent["rules"]) == protocol.reason_words(core.reason)

    move = table.check(mover, protocol.ClientMessage("move", version=0, move=state.action_to_string(legal[0])))
    assert (move.action, move.text) == (legal[0], state.action_to_string(legal[0]))
    assert list(move.cards) == table.spec.move_cards(move.text)
    assert table.version == 0 and table.log == [], "checking applies nothing"

    play_out(state, random.Random(1))
    over = refused(mover, 0)
    assert (over.code, over.message) == ("over", "the game is over")


class CountingSpecs(dict[str, Any]):
    """The registry's specs, counting every lookup by name."""

    lookups = 0

    def __getitem__(self, name: str) -> Any:
        CountingSpecs.lookups += 1
        return super().__getitem__(name)


@pytest.mark.parametrize("game", registry.registered_games())
def test_the_server_does_not_look_the_game_up_per_move(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A live table of people: moves in (by id and by move string), a ``why``, a refused move and a stale one, each
    stored, applied and broadcast to the seats and a spectator, and not one lookup of the game by name."""
    async def body() -> None:
        spec = motley.game_spec(game)
        fixed = spec.game.min_players == spec.game.max_players
        request = _request(spec.game(**({} if fixed else {"players": spec.players_usually})))
        log = MemoryLog()
        live = LiveTable(Table(new_record(table_request(request), Settings(bot_delay=0.0), 3)), log)
        viewers = [Viewer(seat) for seat in range(live.table.game.num_players)] + [Viewer(None)]
        for viewer in viewers:
            live.attach(viewer)
        monkeypatch.setattr(registry, "_SPECS", CountingSpecs(registry._SPECS))
        CountingSpecs.lookups = 0
        for number in range(12):
            state = live.table.state
            if state.is_terminal():
                break
            mover = viewers[state.current_player()]
            action = state.legal_actions()[-1]
            sent: dict[str, Any] = {"type": "move", "version": live.table.version}
            sent.update({"action": action} if number % 2 else {"move": state.action_to_string(action)})
            await live.submit(mover, json.dumps({"type": "why", "move": state.action_to_string(action)}))
            await live.submit(mover, json.dumps({**sent, "version": live.table.version + 1}))
            await live.submit(mover, json.dumps(sent))
            assert live.table.version == number + 1 and len(log.moves) == number + 1
        assert live.table.version > 1
        assert CountingSpecs.lookups == 0, f"{CountingSpecs.lookups} lookups of the game by name"

    asyncio.run(body())
