"""No environment hands an agent anything that depends on a card hidden from it, and none hands out a seed.

Each environment (PettingZoo AEC ``env()``, Gymnasium ``SingleSeatEnv``, the batch stepper ``VectorEnv``) is
walked with random legal play. At many decisions the cards hidden from the seat to move are re-dealt
(``game.sample_state``: a world consistent with the seat's information state), a fresh environment of the same
kind is started on that world, and every key of what the acting seat receives (its observation, its
``infos`` or ``last()``) must be the same, byte for byte, as in the true world. No integer handed out may be
the match's seed (``new_initial_state(seed=...)`` with it deals every hand). ``privileged=True`` is the one
way to get the seed, and the check finds it there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import motley
from motley.core import Game, State
from motley.envs.gymnasium import LegalActions, SingleSeatEnv
from motley.envs.pettingzoo import env
from motley.envs.vector import VectorEnv
from tests.support import game_configs

CONFIGS = game_configs()
#: The seed of every fresh environment loaded with a world (any value: the world replaces the deal).
FRESH_SEED = 2**40 + 12_345
#: Decisions checked per environment and configuration, and worlds re-dealt at each.
CHECKS, WORLDS = 10, 2

View = dict[str, Any]


def encode(value: Any) -> bytes:
    """A value as bytes, with its type, dtype and shape, so two views compare exactly."""
    if isinstance(value, LegalActions):
        return b"legal:" + encode(value.actions) + encode(value.features)
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{value.shape}:".encode() + value.tobytes()
    return f"{type(value).__name__}:{value!r}".encode()


def integers(value: Any) -> set[int]:
    """Every whole number in a value handed out (arrays of integers, ints, the legal lists)."""
    if isinstance(value, LegalActions):
        return set(value.actions.tolist())
    if isinstance(value, np.ndarray):
        return set(value.ravel().tolist()) if np.issubdtype(value.dtype, np.integer) else set()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return {int(value)}
    return set()


@contextmanager
def dealing(game: Game, world: State | None = None) -> Iterator[list[int]]:
    """Record the seeds of ``game.new_initial_state`` (yielded list); with ``world``, every new match is a copy
    of it instead (a fresh environment then starts on that world)."""
    seeds: list[int] = []
    original = game.new_initial_state

    def deal(seed: int | None = None) -> State:
        seeds.append(int(seed) if seed is not None else -1)
        return world.clone() if world is not None else original(seed=seed)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(game, "new_initial_state", deal)
        yield seeds


def aec_view(e: Any) -> View:
    """``last()`` of the agent to move, key by key."""
    obs, reward, terminated, truncated, info = e.last()
    return ({f"obs.{key}": value for key, value in obs.items()} | {f"info.{key}": value for key, value in info.items()}
            | {"reward": float(reward), "terminated": terminated, "truncated": truncated})


def gym_view(obs: Any, info: dict[str, Any]) -> View:
    return {"obs": obs} | {f"info.{key}": value for key, value in info.items()}


def vector_view(obs: dict[str, np.ndarray], infos: dict[str, Any], i: int, n: int) -> View:
    """Slot ``i``'s part of a batch: the rows of (N, ...) arrays, the slot's segment of the flat legal lists.

    Raises:
        AssertionError: for a key this test does not know how to cut (a new key must be checked here).
    """
    lo, hi = int(infos["legal_offsets"][i]), int(infos["legal_offsets"][i + 1])
    view: View = {f"obs.{key}": value[i] for key, value in obs.items()}
    for key, value in infos.items():
        if key in ("legal_actions", "action_features"):
            view[f"info.{key}"] = value[lo:hi]
        elif key == "legal_offsets":
            view["info.legal_count"] = hi - lo
        else:
            assert isinstance(value, np.ndarray) and value.shape[:1] == (n,), f"unknown batch info key {key!r}"
            view[f"info.{key}"] = value[i]
    return view


def fresh_view(kind: str, game: Game, world: State, privileged: bool) -> tuple[View, list[int]]:
    """The acting seat's view from a new environment of ``kind`` whose match is ``world`` (a copy), and the seeds
    it asked for."""
    seat = world.current_player()
    with dealing(game, world) as seeds:
        if kind == "aec":
            e = env(game, privileged=privileged)
            e.reset(seed=FRESH_SEED)
            return aec_view(e), seeds
        if kind == "gymnasium":
            single = SingleSeatEnv(game, seat=seat, privileged=privileged)
            return gym_view(*single.reset(seed=FRESH_SEED)), seeds
        batch = VectorEnv(game, num_envs=1, privileged=privileged)
        obs, infos = batch.reset(seed=FRESH_SEED)
        return vector_view(obs, infos, 0, 1), seeds


def assert_no_seed(kind: str, view: View, seeds: list[int]) -> None:
    for key, value in view.items():
        assert not integers(value) & set(seeds), f"{kind}: {key} holds the match seed"


def assert_blind(kind: str, game: Game, state: State, view: View, seeds: list[int], rng: random.Random,
                 privileged: bool) -> None:
    """``view``, what the seat to move in ``state`` was handed, holds no seed and is the same in re-dealt worlds
    (the reward aside: a fresh environment has paid nothing yet)."""
    seat = state.current_player()
    assert_no_seed(kind, view, seeds)
    for _ in range(WORLDS):
        world = game.sample_state(state.observation(seat), rng)
        theirs, fresh_seeds = fresh_view(kind, game, world, privileged)
        assert_no_seed(kind, theirs, fresh_seeds)
        assert theirs.keys() == view.keys(), f"{kind}: keys differ between worlds"
        for key in view.keys() - {"reward"}:
            assert encode(theirs[key]) == encode(view[key]), f"{kind}: {key} changes when hidden cards are re-dealt"


def walk_aec(game: Game, rng: random.Random, privileged: bool) -> None:
    e = env(game, privileged=privileged)
    with dealing(game) as seeds:
        e.reset(seed=rng.randrange(2**62))
    done = 0
    for _agent in e.agent_iter(5000):
        _, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        if rng.random() < 0.3 and done < CHECKS:
            assert_blind("aec", game, e.unwrapped.game_state, aec_view(e), seeds, rng, privileged)
            done += 1
        legal = info["legal_actions"]
        e.step(int(legal[rng.randrange(len(legal))]))
    assert done > 0


def walk_gymnasium(game: Game, rng: random.Random, privileged: bool) -> None:
    single = SingleSeatEnv(game, seat=rng.randrange(game.num_players), privileged=privileged)
    with dealing(game) as seeds:
        obs, info = single.reset(seed=rng.randrange(2**62))
    done = 0
    for _ in range(CHECKS * 4):
        if rng.random() < 0.5 and done < CHECKS:
            assert single.state is not None
            assert_blind("gymnasium", game, single.state, gym_view(obs, info), seeds, rng, privileged)
            done += 1
        legal = info["legal"].actions
        obs, _, terminated, _, info = single.step(int(legal[rng.randrange(len(legal))]))
        if terminated:
            break
    assert done > 0


def walk_vector(game: Game, rng: random.Random, privileged: bool) -> None:
    n = 2
    batch = VectorEnv(game, num_envs=n, privileged=privileged)
    seed = rng.randrange(2**62)
    obs, infos = batch.reset(seed=seed)
    states = [game.new_initial_state(seed=seed + i) for i in range(n)]  # the slots' matches, stepped alongside
    done = 0
    for _ in range(CHECKS * 3):
        if done < CHECKS:
            i = rng.randrange(n)
            assert infos["seat"][i] == states[i].current_player()
            assert_blind("vector", game, states[i], vector_view(obs, infos, i, n), [seed + i], rng, privileged)
            done += 1
        offsets = infos["legal_offsets"]
        actions = infos["legal_actions"][offsets[:-1] + np.array([rng.randrange(c) for c in np.diff(offsets)])]
        obs, _, terminations, _, infos = batch.step(actions)
        if terminations.any():
            break
        for state, action in zip(states, actions.tolist(), strict=True):
            state.apply_action(action)
    assert done > 0


WALKS: dict[str, Callable[[Game, random.Random, bool], None]] = {
    "aec": walk_aec, "gymnasium": walk_gymnasium, "vector": walk_vector}


@pytest.mark.parametrize(("name", "players"), CONFIGS)
@pytest.mark.parametrize("kind", sorted(WALKS))
def test_what_the_acting_seat_gets_is_blind_to_hidden_cards_and_holds_no_seed(kind: str, name: str,
                                                                               players: int) -> None:
    game = motley.load_game(name, players=players)
    WALKS[kind](game, random.Random(f"{kind}-{name}-{players}"), False)


@pytest.mark.parametrize("kind", sorted(WALKS))
def test_privileged_environments_hand_out_the_seed_and_the_check_sees_it(kind: str) -> None:
    game = motley.load_game("fool", players=4)
    with pytest.raises(AssertionError, match="seed"):
        WALKS[kind](game, random.Random(kind), True)
