"""``FoolState.observation_tensor`` kept up to date move by move (games/fool/batch.py, ``StateTensors``) gives
exactly the reference, ``observe.observation_tensor`` (from scratch), and shows a seat only what it may see. (The
compiled writer, which stands in front of it where it is built, is set aside here.)

Seeded random matches: more states than the cache keeps (so slots are taken back and reused), each moved by a
random number of plays between two calls (0: the same position again; several: a trick or a round ended in
between), asked from random seats once or more, now and then replaced by a clone, a new match or a finished
one; every tensor must equal the reference byte for byte.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any, cast

import numpy as np
import pytest

import motley
from motley.core import MotleyError
from motley.games.fool import game as fool_game
from motley.games.fool import observe
from motley.games.fool.batch import StateTensors
from motley.games.fool.game import Fool, FoolState
from tests.games.test_fool_batch_tensors import CONFIGS
from tests.support import in_threads, play_random


@pytest.fixture(autouse=True)
def _python_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's path of ``FoolState.observation_tensor``, the compiled writer set aside where it is built (its
    own tests: test_fool_native_tensor.py)."""
    monkeypatch.setattr(fool_game, "_NATIVE_WRITE", None)


def _same(state: FoolState, seat: int) -> None:
    got = state.observation_tensor(seat)
    expected = observe.observation_tensor(state, seat)
    assert got.dtype == np.float32 and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes(), (seat, np.flatnonzero(got != expected))


def _new(game: motley.Game, rng: random.Random) -> FoolState:
    return cast("FoolState", game.new_initial_state(seed=rng.randrange(10**6)))


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_equals_the_reference_over_random_matches(options: dict[str, Any]) -> None:
    game = motley.load_game("fool", **options)
    rng = random.Random(repr(options))
    states = [_new(game, rng) for _ in range(StateTensors.SLOTS + 2)]
    rounds_seen = set()
    for _ in range(600):
        i = rng.randrange(len(states))
        roll = rng.random()
        if states[i].is_terminal() and roll < 0.5:
            states[i] = _new(game, rng)
        elif roll < 0.03:
            states[i] = states[i].clone()
        else:
            play_random(states[i], rng, rng.choice((0, 1, 1, 1, 2, 3, 7)))
        rounds_seen.add(states[i].deal_number())
        for _ in range(rng.choice((1, 1, 2, 3))):
            _same(states[i], rng.randrange(game.num_players))
    assert len(rounds_seen) > 1  # later rounds (totals, bonuses, last round's scores) were seen


def test_the_seat_to_move_at_every_decision_of_a_match() -> None:
    """An environment's use: one state, the mover's tensor after every move, to the end of the match."""
    game = motley.load_game("fool", players=5, rounds=3)
    rng = random.Random(5)
    state = cast("FoolState", game.new_initial_state(seed=9))
    while not state.is_terminal():
        _same(state, state.current_player())
        play_random(state, rng, 1)
    for seat in range(game.num_players):
        _same(state, seat)


def test_each_call_gives_a_new_array() -> None:
    game = motley.load_game("fool", players=4)
    state = game.new_initial_state(seed=1)
    first = state.observation_tensor(0)
    first[:] = 7.0  # the caller's to change
    again = state.observation_tensor(0)
    assert again is not first and not np.shares_memory(again, first)
    assert again.tobytes() == observe.observation_tensor(cast("FoolState", state), 0).tobytes()


def test_a_seat_out_of_range_is_refused() -> None:
    game = motley.load_game("fool", players=4)
    state = game.new_initial_state(seed=1)
    state.observation_tensor(0)
    for seat in (4, -1, 1.0, "0", True):
        with pytest.raises(MotleyError):
            state.observation_tensor(seat)  # type: ignore[arg-type]  # bad input on purpose
    assert state.observation_tensor(np.int64(2)).tobytes() == state.observation_tensor(2).tobytes()  # type: ignore[arg-type]


def test_a_seat_sees_only_what_it_may_see() -> None:
    """Two worlds with the same observation for a seat (the hidden hands dealt again, ``sample_state``) give
    that seat the same tensor, whichever of them the cache keeps up to date; the hidden hands differ."""
    game = motley.load_game("fool", players=5, rounds=2)
    rng = random.Random(8)
    state = game.new_initial_state(seed=4)
    differed = 0
    while not state.is_terminal():
        seat = rng.randrange(game.num_players)
        mine = state.observation_tensor(seat)
        world = game.sample_state(state.observation(seat), rng)
        assert world.observation_tensor(seat).tobytes() == mine.tobytes()
        assert world.observation_tensor(seat).tobytes() == mine.tobytes()  # kept up to date in a slot now
        world_hands = cast("FoolState", world).hands
        differed += world_hands != cast("FoolState", state).hands
        play_random(state, rng, rng.choice((1, 2)))
        assert state.observation_tensor(seat).tobytes() == observe.observation_tensor(
            cast("FoolState", state), seat).tobytes()
    assert differed  # the hidden cards did differ between the worlds


def test_threads_keep_their_own_states() -> None:
    game = motley.load_game("fool", players=5, rounds=2)

    def work(seed: int) -> None:
        rng = random.Random(seed)
        states = [cast("FoolState", game.new_initial_state(seed=seed * 10 + k)) for k in range(3)]
        for _ in range(300):
            state = rng.choice(states)
            play_random(state, rng, 1)
            _same(state, rng.randrange(game.num_players))

    in_threads(work)


def test_a_game_copies_and_pickles_without_its_cache() -> None:
    game = cast("Fool", motley.load_game("fool", players=4))
    state = game.new_initial_state(seed=2)
    state.observation_tensor(0)
    state.observation_tensor(0)
    assert game.state_tensors
    for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert other.state_tensors == {}
        twin = other.new_initial_state(seed=2)
        assert twin.observation_tensor(0).tobytes() == state.observation_tensor(0).tobytes()
