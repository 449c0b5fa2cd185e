"""Foolery: the engine's fast paths against the plain rules, at every decision of random matches.

At each decision of random matches of every player count (3-7) and several option sets:

* the legal list equals the actions the per-action rule check (``FooleryState.problem``, which shares no
  code with the generator) accepts among those whose cards the mover holds;
* after each move, the seat to move is the one a plain walk round the table gives (FY-R6, FY-R10, FY-D6, FY-D7,
  FY-D12, FY-D24), written here from the rules, not read from the engine's tables;
* a clone and a state rebuilt from its record continue identically, and the match ends with the whole pack
  accounted for.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import motley
from motley.games.foolery import cards as fyc
from motley.games.foolery import game as fy
from motley.games.foolery import moves as fym

_LOW = np.array([m & (1 << 64) - 1 for m in fym.A_MASK], dtype=np.uint64)
_HIGH = np.array([m >> 64 for m in fym.A_MASK], dtype=np.uint64)

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"ace_high_straight": True, "five_kind_trump": "any", "skip_rule": False},
    {"trump_variation": True, "pass_locks_out": True, "exchange_order": "suit_cards_only"},
    {"pass_locks_out": True, "exchange_ties": "ask", "scoring": "president", "dealer_3p": "previous_dealer_left"},
]


def held_actions(hand: int) -> npt.NDArray[np.intp]:
    """Every action id whose cards all lie in ``hand`` (pass and the Fool's play included)."""
    low, high = np.uint64(hand & (1 << 64) - 1), np.uint64(hand >> 64)
    return np.flatnonzero(((_LOW & ~low) == 0) & ((_HIGH & ~high) == 0))


def rule_legal(state: fy.FooleryState) -> list[int]:
    """The legal actions by the per-action rule check alone (a play of cards one does not hold never is)."""
    hand = state.hands[state.current_player()]
    return [int(a) for a in held_actions(hand) if state.problem(int(a)) is None]


def plain_next_seat(state: fy.FooleryState, action: int) -> int | None:
    """The seat to move after ``action`` in a play phase, walking round the table seat by seat, or None when
    the move ends the trick or the hand (the engine's trick end is checked by the other assertions)."""
    game = state.game
    n, p = game.num_players, state.current_player()
    sizes = list(state.sizes)
    passed = state.passed
    top, top_seat, skip = state.top, state.top_seat, False
    if action == fym.PASS:
        passed |= 1 << p
    else:
        sizes[p] -= fym.A_SIZE[action]
        if action == fym.PLAY_FOOL or sizes[p] == 0:
            return None
        equal = top >= 0 and fym.A_KIND[top] == fym.A_KIND[action] == fym.K_NORMAL and fym.A_SIZE[top] <= 2 and (
            fym.A_SIZE[action] == fym.A_SIZE[top] and fym.A_STR[action] == fym.A_STR[top])
        skip = equal and game.params["skip_rule"]  # FY-R6, FY-D6
        top_seat = p
    for step in range(1, n + 1):
        q = (p + step) % n
        if q == top_seat:
            return None  # back to the top play's seat: the trick ends (FY-D7)
        if sizes[q] == 0 or (game.params["pass_locks_out"] and passed >> q & 1):
            continue
        if skip:  # FY-D24: only this turn is lost
            skip = False
            continue
        return q
    raise AssertionError("the walk never came back to the top play's seat")


def pack_is_whole(state: fy.FooleryState) -> bool:
    total = state.played
    for hand in state.hands:
        if total & hand:
            return False
        total |= hand
    return total == (1 << fyc.NUM_CARDS) - 1


@pytest.mark.parametrize("params", OPTION_SETS)
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_legal_lists_and_turns_follow_the_plain_rules(players: int, params: dict[str, Any]) -> None:
    game = motley.load_game("foolery", players=players, hands=2, **params)
    checked = plays = 0
    for seed in range(2):
        state = game.new_initial_state(seed=1000 * players + seed)
        assert isinstance(state, fy.FooleryState)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == rule_legal(state), (state.observation(state.current_player()), legal)
            checked += 1
            plays_only = [a for a in legal if a != fym.PASS]
            action = rng.choice(plays_only if plays_only and rng.random() < 0.6 else legal)
            expect = plain_next_seat(state, action) if state.phase == fyc.PLAY else None
            hand_number = state.hand_number
            state.apply_action(action)
            plays += action != fym.PASS
            if expect is not None and state.hand_number == hand_number:
                assert state.current_player() == expect
            assert state.is_terminal() or pack_is_whole(state)
        assert state.is_terminal() and len(state.results) == 2
        assert sorted(state.results[-1]) == list(range(players))
    assert checked > 100 and plays > 50


@pytest.mark.parametrize("players", [3, 5, 7])
def test_clones_and_records_continue_like_the_state(players: int) -> None:
    """A clone taken mid-hand (its per-seat tables shared at first) and a state replayed from the record
    continue with the same legal lists and the same moves' results as the state itself."""
    game = motley.load_game("foolery", players=players, hands=2, pass_locks_out=players == 5)
    state = game.new_initial_state(seed=players)
    rng = random.Random(players)
    clones: list[fy.FooleryState] = []
    step = 0
    while not state.is_terminal():
        if step % 37 == 0:
            clone = state.clone()
            assert isinstance(clone, fy.FooleryState)
            clones.append(clone)
        legal = state.legal_actions()
        action = rng.choice(legal)
        for clone in clones:
            assert clone.legal_actions() == legal
            clone.apply_action(action)
        state.apply_action(action)
        step += 1
    replay = game.new_initial_state(seed=players)
    for action in state.history():
        replay.apply_action(action)
    for other in [*clones, replay]:
        assert other.is_terminal()
        assert other.history()[-len(clones[-1].history()):] == state.history()[-len(clones[-1].history()):]
        assert other.observation(0) == state.observation(0)
        assert other.returns() == state.returns()


@pytest.mark.parametrize("params", OPTION_SETS[::2])
@pytest.mark.parametrize("players", [3, 5, 7])
def test_passed_is_every_seat_that_passed_since_the_trick_began(players: int, params: dict[str, Any]) -> None:
    """``passed`` (read from the log) against the passes counted here move by move: a pass adds its seat, a
    trick's end (no play on the table after the move) and a new hand clear them, the match's end leaves none."""
    game = motley.load_game("foolery", players=players, hands=1, **params)
    checked = 0
    for seed in range(8):
        state = game.new_initial_state(seed=50 * players + seed)
        assert isinstance(state, fy.FooleryState)
        rng = random.Random(seed)
        counted = 0
        while not state.is_terminal():
            assert state.passed == counted
            legal = state.legal_actions()
            action = rng.choice(legal)
            seat, hand_number = state.current_player(), state.hand_number
            state.apply_action(action)
            if action == fym.PASS:
                counted |= 1 << seat
                checked += 1
            if state.top < 0 or state.hand_number != hand_number:
                counted = 0
        assert state.passed == 0
    assert checked > 100
