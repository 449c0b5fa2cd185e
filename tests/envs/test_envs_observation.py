"""Observation tensors hold no hidden information, and keep to their documented shape and range.

The property, for every game and player count, at many random reachable states and for every seat
``p``: re-dealing the cards hidden from ``p`` (``game.sample_state(state.observation(p), rng)``, a world
consistent with what ``p`` has seen, with the hidden cards permuted among their hidden places) leaves
``observation_tensor(p)`` unchanged. A tensor that encoded any hidden card would change.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

import motley
from motley.core import State
from tests.support import game_configs

CONFIGS = game_configs()


def reachable_states(game: motley.Game, seeds: range, rng: random.Random, per_match: int) -> Iterator[State]:
    """``per_match`` states at random depths of random matches, one match per seed."""
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        length = 0
        probe = state.clone()
        while not probe.is_terminal():
            legal = probe.legal_actions()
            probe.apply_action(legal[rng.randrange(len(legal))])
            length += 1
        stops = sorted(rng.randrange(length + 1) for _ in range(per_match))
        done = 0
        for stop in stops:
            while done < stop and not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                done += 1
            yield state.clone()


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_tensor_does_not_change_when_hidden_cards_are_permuted(name: str, players: int) -> None:
    game = motley.load_game(name, players=players)
    rng = random.Random(2024)
    varied = 0
    for state in reachable_states(game, range(6), rng, per_match=4):
        if state.is_terminal():
            continue
        for seat in range(players):
            tensor = state.observation_tensor(seat)
            for _ in range(3):
                world = game.sample_state(state.observation(seat), rng)
                assert np.array_equal(world.observation_tensor(seat), tensor), (
                    f"{name}({players}) seat {seat}: tensor differs in a world with the hidden cards re-dealt "
                    f"at indices {np.flatnonzero(world.observation_tensor(seat) != tensor).tolist()[:10]}")
                varied += hidden_cards_differ(state, world, rng)
    assert varied > 0  # the worlds did re-deal hidden cards, so the property was put to the test


def hidden_cards_differ(state: State, world: State, rng: random.Random, steps: int = 40) -> bool:
    """Whether ``world`` holds other hidden cards than ``state``: some seat's observation differs now, or
    after both play the same random moves (which reveal cards) for up to ``steps`` moves."""
    state, world = state.clone(), world.clone()
    n = state.game.num_players
    for _ in range(steps + 1):
        if any(state.observation(q) != world.observation(q) for q in range(n)):
            return True
        if state.is_terminal() or world.is_terminal() or state.legal_actions() != world.legal_actions():
            return state.is_terminal() != world.is_terminal() or state.legal_actions() != world.legal_actions()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        world.apply_action(action)
    return False


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_tensor_shape_dtype_and_range(name: str, players: int) -> None:
    """Every seat's tensor at every step of two random matches: documented shape, float32, within [-1, 1]."""
    game = motley.load_game(name, players=players)
    shape = game.observation_tensor_shape()
    rng = random.Random(7)
    for seed in range(2):
        state = game.new_initial_state(seed=seed)
        while True:
            for seat in range(players):
                tensor = state.observation_tensor(seat)
                assert tensor.shape == shape and tensor.dtype == np.float32
                assert np.isfinite(tensor).all()
                bad = np.flatnonzero((tensor < -1.0) | (tensor > 1.0))
                assert bad.size == 0, (
                    f"{name}({players}) seat {seat} after {len(state.history())} moves: values outside [-1, 1] "
                    f"at {bad.tolist()[:10]}: {tensor[bad][:10].tolist()}")
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_tensor_depends_on_the_seat_and_the_play(name: str, players: int) -> None:
    game = motley.load_game(name, players=players)
    state = game.new_initial_state(seed=3)
    first = state.observation_tensor(0)
    rng = random.Random(3)
    for _ in range(5):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert not np.array_equal(state.observation_tensor(0), first) or state.is_terminal()
    assert any(not np.array_equal(state.observation_tensor(s), state.observation_tensor(0)) for s in range(1, players))


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_tensor_of_a_played_state_equals_that_of_its_fresh_copy(name: str, players: int) -> None:
    """Tensors may keep what does not change within a deal (Fool! reads its completed tricks once): at every
    step of two random matches, and interleaving two matches, each seat's tensor equals the tensor of a copy
    of the state read back from its serialized text, which shares nothing with it."""
    game = motley.load_game(name, players=players)
    rng = random.Random(11)
    states = [game.new_initial_state(seed=seed) for seed in (1, 2)]
    while not all(state.is_terminal() for state in states):
        for state in states:
            copy = game.deserialize_state(state.serialize())
            for seat in range(players):
                assert np.array_equal(state.observation_tensor(seat), copy.observation_tensor(seat)), (
                    f"{name}({players}) seat {seat} after {len(state.history())} moves")
            if not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])


def test_fool_tensors_stay_right_when_the_trick_readings_are_evicted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fool! keeps its readings of completed tricks for a bounded number of rounds: with room for two, four
    matches played in turn still get, at every step, the tensors of fresh copies of their states."""
    from motley.games.fool import observe

    monkeypatch.setattr(observe, "_COMPLETED_LIMIT", 2)
    monkeypatch.setattr(observe, "_COMPLETED", {})
    game = motley.load_game("fool", players=4, rounds=1)
    rng = random.Random(5)
    states = [game.new_initial_state(seed=seed) for seed in range(4)]
    for _ in range(60):
        for state in states:
            if state.is_terminal():
                continue
            copy = game.deserialize_state(state.serialize())
            seat = state.current_player()
            assert np.array_equal(state.observation_tensor(seat), copy.observation_tensor(seat))
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(observe._COMPLETED) <= 2
