"""Fool!'s compiled tensor writer (``games/fool/_native.c``, ``observe.NATIVE_WRITE``) writes exactly the reference,
``observe.observation_tensor`` (Python), at every position of random matches and from every seat, refuses bad seats
and buffers with the game's errors, and shows a seat only what it may see; ``MOTLEY_PURE_PYTHON=1`` leaves it out.
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pytest

import motley
from motley.core import MotleyError
from motley.games.fool import game as fool_game
from motley.games.fool import observe
from motley.games.fool.game import FoolState
from tests.games.test_fool_batch_tensors import CONFIGS
from tests.support import in_threads, play_random, run_pure_python

native = pytest.mark.skipif(observe.NATIVE_WRITE is None, reason="Fool!'s compiled tensor writer is not built")


def _compiled(state: FoolState, seat: int) -> npt.NDArray[np.float32]:
    write = observe.NATIVE_WRITE
    assert write is not None
    out = np.full(observe.tensor_size(state.game.num_players), np.nan, dtype=np.float32)  # every value is written
    assert write(state, seat, out) is True
    return out


@native
@pytest.mark.parametrize("options", [*CONFIGS, {"players": 8, "rounds": 3},
                                     {"players": 7, "two_fools_from_players": 7}],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_compiled_tensor_is_the_reference_at_every_position_and_seat(options: dict[str, Any]) -> None:
    game = motley.load_game("fool", **options)
    rng = random.Random(repr(options))
    checked, rounds = 0, set()
    for _ in range(3):
        state = cast("FoolState", game.new_initial_state(seed=rng.randrange(10**6)))
        while True:
            rounds.add(state.deal_number())
            for seat in range(game.num_players):
                reference = observe.observation_tensor(state, seat)
                for fast in (_compiled(state, seat), state.observation_tensor(seat)):
                    assert fast.dtype == np.float32 and fast.shape == reference.shape
                    assert fast.tobytes() == reference.tobytes(), (seat, np.flatnonzero(fast != reference))
                checked += 1
            if state.is_terminal():
                break
            play_random(state, rng, 1)
    assert checked > 500 and len(rounds) > 1  # later rounds (totals, bonuses, last round's scores) were seen


@native
def test_states_of_games_with_other_options_in_turn() -> None:
    """The writer keeps what it read of the last game (its deck's block, the bonus count, two Fools): states of
    games with other decks and options, asked in turn from several threads, each get their own game's tensor."""
    games = [motley.load_game("fool", **options) for options in CONFIGS[1:4]]
    games.append(motley.load_game("fool", players=7, two_fools_from_players=7, end_bonus_count=2))

    def work(seed: int) -> None:
        rng = random.Random(seed)
        states = [cast("FoolState", game.new_initial_state(seed=seed)) for game in games]
        for _ in range(200):
            state = rng.choice(states)
            if not state.is_terminal():
                play_random(state, rng, 1)
            seat = rng.randrange(state.game.num_players)
            assert state.observation_tensor(seat).tobytes() == observe.observation_tensor(state, seat).tobytes()

    in_threads(work)


@native
def test_the_state_asks_the_compiled_writer() -> None:
    """``FoolState.observation_tensor`` is the compiled writer's where it is built (so the test above tests what
    the environments run): its tensor is written without the per-thread cache of the Python path."""
    game = cast("fool_game.Fool", motley.load_game("fool", players=5))
    state = game.new_initial_state(seed=3)
    for _ in range(3):
        state.observation_tensor(1)
    assert game.state_tensors == {}


@native
def test_hands_and_a_trick_held_in_tuples_give_the_same_tensor() -> None:
    """The writer reads lists or tuples (a clone, a copy or a restored state), and refuses what is neither."""
    game = motley.load_game("fool", players=4)
    state = cast("FoolState", game.new_initial_state(seed=5))
    play_random(state, random.Random(1), 6)
    expected = observe.observation_tensor(state, 2)
    twin = state.clone()
    twin.hands = cast(Any, [tuple(tuple(col) for col in hand) for hand in twin.hands])
    twin.trick = cast(Any, tuple(twin.trick))
    assert _compiled(twin, 2).tobytes() == expected.tobytes()
    twin.trick = cast(Any, {1: 2})
    with pytest.raises(TypeError):
        _compiled(twin, 2)


@native
def test_bad_seats_and_buffers_are_refused_and_nothing_is_written() -> None:
    game = motley.load_game("fool", players=4)
    state = cast("FoolState", game.new_initial_state(seed=3))
    write = observe.NATIVE_WRITE
    assert write is not None
    size = game.observation_tensor_shape()[0]
    for seat in (-1, 4, True, 1.0, "0", 2**70):
        out = np.full(size, 7.0, dtype=np.float32)
        assert write(state, cast(Any, seat), out) is False
        assert (out == 7.0).all()  # nothing written
        with pytest.raises(MotleyError):
            state.observation_tensor(cast(Any, seat))
    assert state.observation_tensor(cast(Any, np.int64(2))).tobytes() == observe.observation_tensor(state, 2).tobytes()
    bad: Any
    for bad in (np.zeros(size, np.float64), np.zeros(size + 1, np.float32), np.zeros((size, 2), np.float32)[:, 0],
                bytes(4 * size)):
        with pytest.raises((ValueError, TypeError, BufferError)):
            write(state, 0, bad)


@native
def test_each_call_gives_a_new_array() -> None:
    game = motley.load_game("fool", players=4)
    state = game.new_initial_state(seed=1)
    first = state.observation_tensor(0)
    first[:] = 7.0  # the caller's to change
    again = state.observation_tensor(0)
    assert again is not first and not np.shares_memory(again, first)
    assert again.tobytes() == observe.observation_tensor(cast("FoolState", state), 0).tobytes()


@native
def test_a_seat_sees_only_what_it_may_see() -> None:
    """Two worlds with the same observation for a seat (the hidden hands dealt again, ``sample_state``) give that
    seat the same compiled tensor, though the hidden hands differ."""
    game = motley.load_game("fool", players=5, rounds=2)
    rng = random.Random(8)
    state = cast("FoolState", game.new_initial_state(seed=4))
    differed = 0
    while not state.is_terminal():
        seat = rng.randrange(game.num_players)
        world = cast("FoolState", game.sample_state(state.observation(seat), rng))
        assert _compiled(world, seat).tobytes() == _compiled(state, seat).tobytes()
        differed += world.hands != state.hands
        play_random(state, rng, rng.choice((1, 2)))
    assert differed  # the hidden cards did differ between the worlds


def test_motley_pure_python_leaves_the_compiled_writer_out() -> None:
    probe = ("import motley; from motley.games.fool import game, observe; "
             "assert observe.NATIVE_WRITE is None and game._NATIVE_WRITE is None; "
             "state = motley.load_game('fool', players=4).new_initial_state(seed=1); "
             "state.observation_tensor(0); state.observation_tensor(0); "
             "assert state.game.state_tensors; print('python tensor')")
    done = run_pure_python(probe)
    assert done.returncode == 0 and "python tensor" in done.stdout, done.stderr
