"""The fast observation paths give the reference tensors byte for byte, in every game and from every seat.

* Foolery: the compiled core's writer (``FooleryRules._write_tensor``, ``_native.c``) behind
  ``state.observation_tensor``, and its ``state.observation_bytes``, against ``observe.reference_tensor`` (the
  Python definition);
* every game: the batch observer the environments use (``motley.envs.tensors.batch_observer``: Fool!'s
  incremental one, Foolery's compiled one) against ``state.observation_tensor``, and ``state.observation_bytes``
  (the PettingZoo environment's tensor where a game's core writes it);

over random matches at several options, every position of the match, every seat.
"""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np
import pytest

import motley
from motley.core import MotleyError
from motley.envs.tensors import batch_observer, one_state_observer
from motley.games.fool import observe as fool_observe
from motley.games.fool.batch import BatchTensors as FoolBatchTensors
from motley.games.foolery import observe as foolery_observe

FOOLERY_SPECS = ["foolery(players=3)", "foolery(players=5)", "foolery(players=7,trump_variation=true)",
                 "foolery(players=4,ace_high_straight=true,match_end=target,target_score=12)",
                 "foolery(players=6,pass_locks_out=true,skip_rule=true)", "foolery(players=5,hands=1)"]

native = pytest.mark.skipif(foolery_observe._NATIVE_WRITE is None, reason="Foolery's compiled core is not built")


@native
@pytest.mark.parametrize("spec", FOOLERY_SPECS)
def test_compiled_foolery_tensor_is_the_reference_at_every_position_and_seat(spec: str) -> None:
    game = motley.load_game(spec)
    rng = random.Random(spec)
    checked = 0
    for _ in range(6):
        state = game.new_initial_state(seed=rng.randrange(10**6))
        while True:
            for seat in range(game.num_players):
                fast = state.observation_tensor(seat)
                reference = foolery_observe.reference_tensor(cast(Any, state), seat)
                assert fast.dtype == np.float32 and fast.shape == reference.shape
                assert fast.tobytes() == reference.tobytes(), (seat, np.flatnonzero(fast != reference))
                assert state.observation_bytes(seat) == reference.tobytes(), seat  # the compiled bytes
                checked += 1
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert checked > 1000


@native
def test_compiled_foolery_tensor_refuses_bad_seats_and_buffers() -> None:
    game = motley.load_game("foolery", players=4)
    state = cast(Any, game.new_initial_state(seed=3))  # a FooleryState
    for seat in (-1, 4, True, 1.0, "0"):
        with pytest.raises(MotleyError):
            state.observation_tensor(seat)
        with pytest.raises(MotleyError):
            state.observation_bytes(seat)
    assert state.observation_tensor(np.int64(2)).tobytes() == foolery_observe.reference_tensor(state, 2).tobytes()
    assert state.observation_bytes(np.int64(2)) == foolery_observe.reference_tensor(state, 2).tobytes()
    size = game.observation_tensor_shape()[0]
    out: Any
    for out in (np.zeros(size, np.float64), np.zeros(size + 1, np.float32), np.zeros((size, 2), np.float32)[:, 0]):
        with pytest.raises(ValueError):
            foolery_observe.write_tensor(state, 0, out)
    out = np.zeros(size, np.float32)
    foolery_observe.write_tensor(state, 1, out)
    assert out.tobytes() == foolery_observe.reference_tensor(state, 1).tobytes()


@pytest.mark.parametrize("spec", ["fools_errand", "fool(players=4)", "fool(players=6)", *FOOLERY_SPECS[:3]])
def test_batch_observer_rows_are_observation_tensors_at_every_seat(spec: str) -> None:
    game = motley.load_game(spec)
    n = game.num_players
    rng = random.Random(spec)
    observer = batch_observer(game, n)
    out = np.full((n, game.observation_tensor_shape()[0]), np.nan, dtype=np.float32)
    for _ in range(3):
        state = game.new_initial_state(seed=rng.randrange(10**6))
        while True:
            seats = list(range(n))
            observer.write([state] * n, seats, out)
            for seat in seats:
                assert out[seat].tobytes() == state.observation_tensor(seat).tobytes(), seat
                assert state.observation_bytes(seat) == out[seat].tobytes(), seat
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("spec", ["fool(players=5,rounds=2)", "fool(players=7,rounds=2)"])
def test_one_state_observer_follows_a_state_to_the_end_of_its_match_and_the_next(spec: str) -> None:
    """Fool!'s tensor of one state kept up to date between calls (the PettingZoo environment's without the compiled
    writer): the mover's tensor
    after every move, every seat's now and then and at the end, over two matches in turn; a bad seat is refused."""
    game = motley.load_game(spec)
    # with the compiled writer the environment asks the state itself (no observer); the slot's path is tested alone
    assert (one_state_observer(game) is None) == (fool_observe.NATIVE_WRITE is not None)
    tensor = FoolBatchTensors(game, 1).tensor
    rng = random.Random(spec)
    for match in range(2):
        state = game.new_initial_state(seed=match)
        while True:
            seats = range(game.num_players) if state.is_terminal() or rng.random() < 0.1 else [state.current_player()]
            for seat in seats:
                assert tensor(state, seat).tobytes() == state.observation_tensor(seat).tobytes(), seat
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    assert tensor(state, cast(Any, np.int64(1))).tobytes() == state.observation_tensor(1).tobytes()
    with pytest.raises(MotleyError):
        tensor(state, game.num_players)
    assert one_state_observer(motley.load_game("foolery", players=4)) is None  # its core writes the bytes
