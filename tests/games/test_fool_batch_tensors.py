"""Fool!'s batch observer (``SPEC.batch_observer``, games/fool/batch.py) gives exactly ``observation_tensor``.

Random matches are stepped in many slots at once, each slot moved forward by a random number of plays between
two writes (0: the same state again; several: a trick or a round ended in between), seen from a random seat,
and now and then handed another match, a clone or a finished match; every row must equal
``observe.observation_tensor(state, seat)`` (the reference, from scratch) byte for byte. Every test runs on both
paths of the observer: the compiled writer's rows and the rows kept up to date slot by slot.
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np
import pytest

import motley
from motley.core import MotleyError, State
from motley.core.registry import game_spec
from motley.games.fool import batch, observe
from motley.games.fool.game import FoolState
from tests.support import play_random

#: 60 cards at 5 players, six W1 and no blue (FL-R3 deals 12 each); and 60 with no W1 at all.
SIX_ONES = {"5": {"G": 27, "R": 23, "Y": 7, "B": 1, "W1": 6}}
NO_ONES = {"5": {"G": 20, "R": 16, "Y": 14, "B": 14, "W1": 0}}

CONFIGS: list[dict[str, Any]] = [
    {"players": 4, "rounds": 3},
    {"players": 5},
    {"players": 5, "rounds": 4, "deck_table": SIX_ONES},
    {"players": 5, "rounds": 2, "deck_table": NO_ONES, "end_bonus_count": 2},
    {"players": 7, "rounds": 2},
    {"players": 7, "rounds": 2, "two_fools_from_players": 8},
    {"players": 8, "rounds": 2, "end_total": -30},
]


@pytest.fixture(autouse=True, params=["compiled", "kept up to date"])
def _path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test twice: the rows written by the compiled writer (where it is built), and kept up to date slot by
    slot (the path without it)."""
    if request.param == "compiled":
        if batch._NATIVE_WRITE is None:
            pytest.skip("Fool!'s compiled tensor writer is not built")
    else:
        monkeypatch.setattr(batch, "_NATIVE_WRITE", None)


def _observer(game: motley.Game, slots: int) -> Any:
    factory = game_spec("fool").batch_observer
    assert factory is not None
    return factory(game, slots)


def _check(observer: Any, states: list[State], seats: list[int]) -> None:
    out = np.full((len(states), states[0].game.observation_tensor_shape()[0]), np.nan, dtype=np.float32)
    observer.write(states, seats, out)
    for i, (state, seat) in enumerate(zip(states, seats, strict=True)):
        expected = observe.observation_tensor(cast("FoolState", state), seat)  # the reference, from scratch
        assert out[i].tobytes() == expected.tobytes(), (i, seat, np.flatnonzero(out[i] != expected))


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_rows_equal_observation_tensor_over_random_matches(options: dict[str, Any]) -> None:
    game = motley.load_game("fool", **options)
    rng = random.Random(repr(options))
    slots = 6
    observer = _observer(game, slots)
    states = [game.new_initial_state(seed=rng.randrange(10**6)) for _ in range(slots)]
    rounds_seen = set()
    for _ in range(400):
        for i in range(slots):
            roll = rng.random()
            if states[i].is_terminal() and roll < 0.5:
                states[i] = game.new_initial_state(seed=rng.randrange(10**6))
            elif roll < 0.03:
                states[i] = states[i].clone()
            else:
                play_random(states[i], rng, rng.choice((0, 1, 1, 1, 2, 3, 7)))
            rounds_seen.add(states[i].deal_number())
        _check(observer, states, [rng.randrange(game.num_players) for _ in range(slots)])
    assert len(rounds_seen) > 1  # later rounds (totals, bonuses, last round's scores) were seen


def test_the_seat_to_move_of_every_slot_each_move() -> None:
    """The batch stepper's use: every slot one move further at each write, from the seat to move."""
    game = motley.load_game("fool", players=5, rounds=2)
    rng = random.Random(3)
    observer = _observer(game, 4)
    states = [game.new_initial_state(seed=s) for s in range(4)]
    while not all(s.is_terminal() for s in states):
        live = [s for s in states if not s.is_terminal()]
        _check(observer, live, [s.current_player() for s in live])
        for s in live:
            play_random(s, rng, 1)


def test_a_seat_out_of_range_is_refused() -> None:
    game = motley.load_game("fool", players=4)
    observer = _observer(game, 2)
    states = [game.new_initial_state(seed=s) for s in range(2)]
    out = np.zeros((2, game.observation_tensor_shape()[0]), dtype=np.float32)
    for seats in ([0, 4], [-1, 0]):
        with pytest.raises(MotleyError):
            observer.write(states, seats, out)


def test_one_state_seen_from_every_seat() -> None:
    """One slot (the PettingZoo environment's use): every seat's view of each position of a two-round match."""
    game = motley.load_game("fool", players=6, rounds=2, deck_table={"6": {"G": 27, "R": 23, "Y": 19, "B": 1,
                                                                          "W1": 6}})
    rng = random.Random(11)
    observer = _observer(game, 1)
    state = game.new_initial_state(seed=5)
    while True:
        for seat in range(game.num_players):
            _check(observer, [state], [seat])
        if state.is_terminal():
            break
        play_random(state, rng, 1)
