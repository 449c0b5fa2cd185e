"""Foolery's compiled core (``games/foolery/_native.c``) plays exactly the Python engine's game.

The same seeds are played on two states side by side, one with the compiled methods (the installed
``FooleryState``) and one with the Python methods of ``rules.PYTHON_METHODS`` (a subclass that sets them back),
every player count 3-7 and option sets that change play (locks, skips, trump variation, Ace-high straights,
any trump in five of a kind, the exchange of later hands with asked ties). At every decision: the same legal
list; after every move: every slot of the state (the 5-card cache of the Python engine aside) and the state of
the generator; at the end: the same returns. Illegal moves are refused alike, with the same reason, and change
nothing. The compiled deal draws exactly the numbers of ``cards.shuffle_as_random``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from motley.core.errors import IllegalMoveError, InvalidMoveError, MoveError
from motley.core.game import State
from motley.core.search import SearchState
from motley.games.foolery import cards as fyc
from motley.games.foolery import game as fy
from motley.games.foolery import moves as fym
from motley.games.foolery import rules
from tests.support import run_pure_python

pytestmark = pytest.mark.skipif(not rules.NATIVE, reason="the compiled Foolery core is not built here, or "
                                "MOTLEY_PURE_PYTHON=1 (the Python engine alone)")


class PythonState(fy.FooleryState):
    """The assembled state with the Python engine's methods in place of the compiled ones."""

    __slots__ = ()


for _name, _method in rules.PYTHON_METHODS.items():
    setattr(PythonState, _name, _method)


class PythonFoolery(fy.Foolery):
    state_class = PythonState


#: Every slot of the state but the Python engine's 5-card cache (``_fives``), which the compiled core neither
#: reads nor fills (a cache: any entry gives the same plays).
SLOTS = [s for cls in (rules.FooleryRules, SearchState, State) for s in cls.__slots__ if s != "_fives"]

CONFIGS: list[dict[str, Any]] = [
    {"players": 3, "hands": 2, "pass_locks_out": True, "trump_variation": True},
    {"players": 4, "hands": 2, "ace_high_straight": True, "five_kind_trump": "any", "exchange_ties": "ask"},
    {"players": 5, "hands": 2, "skip_rule": False, "exchange_order": "suit_cards_only"},
    {"players": 5, "hands": 1},
    {"players": 6, "hands": 2, "pass_locks_out": True, "ace_high_straight": True},
    {"players": 7, "hands": 2, "trump_variation": True, "five_kind_trump": "any", "dealer_3p": "peasant"},
]


def new_state(game: fy.Foolery, seed: int) -> fy.FooleryState:
    state = game.new_initial_state(seed=seed)
    assert isinstance(state, fy.FooleryState)
    return state


def snapshot(state: rules.FooleryRules) -> dict[str, Any]:
    """Every slot's value (lists copied, the cached legal list as a list), and the generator's state."""
    out: dict[str, Any] = {}
    for name in SLOTS:
        value = getattr(state, name)
        if name == "_legal" and value is not None:
            value = list(value)
        out[name] = value if name != "rng" else value.getstate()
    return out


def play_both(params: dict[str, Any], seed: int) -> int:
    """Play one random match on both engines from ``seed``, checking them at every step; the decisions."""
    native = new_state(fy.Foolery(**params), seed)
    python = new_state(PythonFoolery(**params), seed)
    assert type(native).legal_actions is not PythonState.legal_actions
    assert snapshot(native) == snapshot(python)
    rng = random.Random(seed)
    decisions = 0
    while not python.is_terminal():
        assert not native.is_terminal()
        legal = python.legal_actions()
        assert native.legal_actions() == legal, (seed, decisions)
        mask = native.legal_mask_bytes()
        assert mask == python.legal_mask_bytes() and type(mask) is bytes, (seed, decisions)
        assert np.flatnonzero(np.frombuffer(mask, np.int8)).tolist() == legal, (seed, decisions)
        plays = [a for a in legal if a != fym.PASS]  # play more than a uniform draw, so hands empty and end
        action = rng.choice(plays if plays and rng.random() < 0.7 else legal)
        native.apply_action(action)
        python.apply_action(action)
        assert snapshot(native) == snapshot(python), (seed, decisions, action)
        decisions += 1
    assert native.is_terminal() and native.returns() == python.returns()
    assert native.legal_mask_bytes() == python.legal_mask_bytes() == bytes(native.game.num_distinct_actions())
    assert native.history() == python.history()
    return decisions


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_the_compiled_core_plays_the_python_engine_game(params: dict[str, Any]) -> None:
    decisions = sum(play_both(params, seed) for seed in range(4))
    assert decisions > 400


@pytest.mark.parametrize("options", [{}, {"ace_high_straight": True, "five_kind_trump": "any",
                                           "trump_variation": True}])
def test_legal_lists_of_random_hands_and_tables_match(options: dict[str, Any]) -> None:
    """Legal lists for random hands (5-30 cards, rich in 5-card hands) against random tables of every kind:
    leads, 1-4 cards of a rank, trump sets and 5-card hands, on both engines."""
    native = new_state(fy.Foolery(players=3, **options), 0)
    python = new_state(PythonFoolery(players=3, **options), 0)
    rng = random.Random(1)
    tops = [-1, *range(fym.NORMAL_BASE, fym.FIVE_BASE, 7), *range(fym.FIVE_BASE, fym.NUM_ACTIONS, 53)]
    for _ in range(3000):
        suits = rng.choice((range(14), range(9, 14), (0, 9, 10, 11, 12, 13)))  # some hands near J-C-Q-K-A
        pool = [4 * r + su for r in suits for su in range(4)] + list(range(56, 78))
        hand = fyc.mask_of(rng.sample(pool, rng.randrange(5, min(30, len(pool)))))
        top = rng.choice(tops)
        for state in (native, python):
            state.hands[state.to_move] = hand
            state.top, state._legal = top, None
            state._fives = [(0, ())] * 3
        assert native.legal_actions() == python.legal_actions(), (hand, top)


def test_apply_legal_and_clones_follow_the_python_engine() -> None:
    """Search's ``apply_legal`` (the compiled ``_apply``) and clones mid-hand, against the Python engine."""
    params = {"players": 5, "hands": 2, "pass_locks_out": True}
    native = new_state(fy.Foolery(**params), 7)
    python = new_state(PythonFoolery(**params), 7)
    rng = random.Random(7)
    while not python.is_terminal():
        legal = python.legal_actions()
        assert native.legal_actions() == legal
        action = rng.choice(legal)
        native.apply_legal(action)
        python.apply_legal(action)
        if rng.random() < 0.1:
            native, python = native.clone(), python.clone()
        assert snapshot(native) == snapshot(python)


def test_illegal_moves_are_refused_alike_and_change_nothing() -> None:
    for seed in range(3):
        native = new_state(fy.Foolery(players=4), seed)
        python = new_state(PythonFoolery(players=4), seed)
        rng = random.Random(seed)
        for _ in range(60):
            legal = set(python.legal_actions())
            for bad in (rng.randrange(fym.NUM_ACTIONS), -1, fym.NUM_ACTIONS, 10**30, True, 2.0, "pass"):
                if bad in legal and not isinstance(bad, bool):
                    continue
                before = snapshot(native)
                before.pop("_legal")  # the check may fill the cached legal list, as the Python engine's does
                errors = []
                for state in (native, python):
                    with pytest.raises(MoveError) as caught:
                        state.apply_action(bad)  # type: ignore[arg-type]
                    errors.append((type(caught.value), str(caught.value)))
                assert errors[0] == errors[1] and errors[0][0] in (IllegalMoveError, InvalidMoveError)
                after = snapshot(native)
                after.pop("_legal")
                assert after == before
            action = sorted(legal)[rng.randrange(len(legal))]
            native.apply_action(np.int64(action))  # type: ignore[arg-type]  # another integer type: converted, as by the core
            python.apply_action(action)
            assert snapshot(native) == snapshot(python)


def test_the_compiled_deal_draws_what_the_python_shuffle_draws() -> None:
    from motley.games.foolery import _native  # built: NATIVE is true

    for seed in range(500):
        players, dealer = 3 + seed % 5, seed % (3 + seed % 5)
        ours, theirs = random.Random(seed), random.Random(seed)
        theirs.random()  # any state of the generator, not only a fresh seed
        ours.random()
        bits = fyc.shuffle_as_random(list(fyc.BIT), theirs)
        hands = [0] * players
        for i in range(players):
            hands[(dealer + 1 + i) % players] = sum(bits[i::players])
        assert _native.deal(ours, players, dealer) == hands
        assert ours.getstate() == theirs.getstate()


def test_motley_pure_python_forces_the_python_engine() -> None:
    probe = ("from motley.games.foolery import rules; "
             "assert not rules.NATIVE; "
             "assert all(getattr(rules.FooleryRules, n) is m for n, m in rules.PYTHON_METHODS.items()); "
             "print('python engine')")
    done = run_pure_python(probe)
    assert done.returncode == 0 and "python engine" in done.stdout, done.stderr
