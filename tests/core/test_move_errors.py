"""Invalid against illegal moves, in every game: text that names no move of the game (an unknown card code or
word, malformed text) raises :class:`motley.InvalidMoveError` naming the text; a well-formed move the rules
forbid now raises :class:`motley.IllegalMoveError` with the rule's id. Both are :class:`motley.MoveError` (a
:class:`motley.MotleyError`), and neither changes the state."""

from __future__ import annotations

import random
import re

import pytest

import motley
from motley.core import State


def _refused(state: State, text: str, error: type[motley.MoveError]) -> str:
    """The message of ``error`` that ``string_to_action(text)`` raises; the state unchanged (checked)."""
    before = state.serialize()
    with pytest.raises(error) as info:
        state.string_to_action(text)
    assert state.serialize() == before
    assert isinstance(info.value, motley.MoveError) and isinstance(info.value, motley.MotleyError)
    assert info.value.move == text
    return str(info.value)


def _reachable(spec: str, found: object, seeds: range = range(40)) -> tuple[State, str]:
    """A state of ``spec`` reached by random play and a move string ``found(state)`` names there."""
    game = motley.load_game(spec)
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            text = found(state)  # type: ignore[operator]
            if text is not None:
                return state, text
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError(f"no such state of {spec} in {len(seeds)} seeds")


CASES = {
    # game: (unknown card code or word, malformed text)
    "fools_errand": ("7S", "draw draw"),
    "fool(players=4)": ("X5", "G6 G14"),
    "foolery(players=4)": ("ZZ", "give 2S 3S"),
}


@pytest.mark.parametrize("spec", sorted(CASES))
def test_unknown_and_malformed_moves_are_invalid(spec: str) -> None:
    state = motley.load_game(spec).new_initial_state(seed=1)
    for text in CASES[spec]:
        message = _refused(state, text, motley.InvalidMoveError)
        assert message.startswith(f"invalid move {text!r}: ")
        assert "unknown" in message or "one card at a time" in message
    for value in (None, 3.5, True):  # not a move string, not an action id
        with pytest.raises(motley.InvalidMoveError):
            state.string_to_action(value)  # type: ignore[arg-type]
        with pytest.raises(motley.InvalidMoveError, match="whole number"):
            state.apply_action(value)  # type: ignore[arg-type]
    before = state.serialize()
    for action in (-1, state.game.num_distinct_actions()):
        with pytest.raises(motley.InvalidMoveError, match="unknown action id"):
            state.apply_action(action)
        with pytest.raises(motley.InvalidMoveError, match="unknown action id"):
            state.action_to_string(action)
    assert state.serialize() == before


def _fools_errand_refused(state: State) -> str | None:
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    return next((m for m in ("draw", "keep joker") if m not in legal), None)


def _fool_off_colour(state: State) -> str | None:
    """A card of the hand that does not follow the lead colour while the seat holds it (FL-R6)."""
    obs = state.observation(state.current_player())
    lead = obs["trick"]["lead"]
    if lead is None:
        return None
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    return next((code for code in obs["hand"] if code not in legal and code != "W1"), None)


def _foolery_lead_pass(state: State) -> str | None:
    """``pass`` by the seat that leads the trick (FY-R10)."""
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    return "pass" if legal and "pass" not in legal and not legal[0].startswith("give") else None


@pytest.mark.parametrize(("spec", "find", "rule"), [
    ("fools_errand", _fools_errand_refused, "Joker"),
    ("fool(players=4)", _fool_off_colour, "(FL-R6"),
    ("foolery(players=4)", _foolery_lead_pass, "(FY-R10)"),
])
def test_a_forbidden_well_formed_move_is_illegal_with_its_rule(spec: str, find: object, rule: str) -> None:
    state, text = _reachable(spec, find)
    message = _refused(state, text, motley.IllegalMoveError)
    assert message.startswith(f"illegal move {text!r}: ") and rule in message
    before = state.serialize()
    with pytest.raises(motley.IllegalMoveError, match=re.escape(rule)):
        state.apply_action(state._parse_move(text))
    assert state.serialize() == before


def test_the_errors_are_exported_and_related() -> None:
    assert motley.core.InvalidMoveError is motley.InvalidMoveError
    assert motley.core.MoveError is motley.MoveError
    assert issubclass(motley.InvalidMoveError, motley.MoveError)
    assert issubclass(motley.IllegalMoveError, motley.MoveError)
    assert issubclass(motley.MoveError, motley.MotleyError)
    assert not issubclass(motley.InvalidMoveError, motley.IllegalMoveError)
    assert not issubclass(motley.IllegalMoveError, motley.InvalidMoveError)
