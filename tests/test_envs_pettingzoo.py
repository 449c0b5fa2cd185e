"""PettingZoo AEC environment: PettingZoo's own api_test and seed_test, for every game and several player counts."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import motley
from motley.envs.pettingzoo import MotleyAECEnv, env
from tests.support import game_configs

CONFIGS = game_configs()


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_api_test(name: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations draw advisory warnings, as PettingZoo's classic envs do
        api_test(env(name, players=players), num_cycles=400)
        api_test(env(name, players=players, reward="deal"), num_cycles=400)


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_seed_test(name: str, players: int) -> None:
    seed_test(lambda: env(name, players=players), num_cycles=200)


def _play_match(e: MotleyAECEnv, seed: int, rng: random.Random) -> tuple[dict[str, float], list[int]]:
    """Play a match with random legal actions; the total reward per agent and the actions played."""
    e.reset(seed=seed)
    totals: dict[str, float] = dict.fromkeys(e.possible_agents, 0.0)
    actions: list[int] = []
    for agent in e.agent_iter(100_000):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert e.state is not None
        assert legal.tolist() == e.state.legal_actions()
        action = int(legal[rng.randrange(len(legal))])
        actions.append(action)
        e.step(action)
    return totals, actions


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_match_is_the_motley_match_and_rewards_are_returns(name: str, players: int) -> None:
    e = env(name, players=players)
    totals, actions = _play_match(e, seed=11, rng=random.Random(3))
    state = motley.load_game(name, players=players).new_initial_state(seed=11)
    for a in actions:
        state.apply_action(a)
    assert state.is_terminal()
    assert totals == {f"player_{s}": r for s, r in enumerate(state.returns())}
    assert e.agents == []


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_observation_is_the_seat_tensor_and_mask_only_for_the_mover(name: str, players: int) -> None:
    e = env(name, players=players)
    e.reset(seed=5)
    assert e.state is not None
    for seat, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)
        assert np.array_equal(obs["observation"], e.state.observation_tensor(seat))
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        if seat == e.state.current_player():
            assert np.flatnonzero(obs["action_mask"]).tolist() == e.state.legal_actions()
        else:
            assert not obs["action_mask"].any()


def test_illegal_action_raises_and_changes_nothing() -> None:
    e = env("fools_errand")
    e.reset(seed=2)
    assert e.state is not None
    before = e.state.serialize()
    illegal = next(a for a in range(3) if a not in e.state.legal_actions())
    with pytest.raises(motley.IllegalMoveError):
        e.step(illegal)
    assert e.state.serialize() == before


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_round_rewards_are_weighted_deal_rewards_plus_returns(name: str, players: int) -> None:
    e = env(name, players=players, reward="deal", deal_weight=0.5)
    totals, actions = _play_match(e, seed=1, rng=random.Random(1))
    state = motley.load_game(name, players=players).new_initial_state(seed=1)
    expected = [0.0] * players
    deal, start = state.deal_number(), list(state.scores())
    for a in actions:
        state.apply_action(a)
        if state.is_terminal() or state.deal_number() != deal:
            gains = [b - s for s, b in zip(start, state.scores(), strict=True)]
            mean = sum(gains) / players
            spread = max(abs(g - mean) for g in gains)
            for seat in range(players):
                expected[seat] += 0.5 * ((gains[seat] - mean) / spread if spread else 0.0)
            deal, start = state.deal_number(), list(state.scores())
    for seat in range(players):
        expected[seat] += state.returns()[seat]
        assert totals[f"player_{seat}"] == pytest.approx(expected[seat])
    assert totals != dict(zip(e.possible_agents, state.returns(), strict=True)) or all(
        g == 0 for g in state.scores())  # the per-deal rewards were paid (they are 0 only if no seat scored)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        env("fools_errand", reward="trick")
    with pytest.raises(motley.OptionError):
        env("no_such_game")
    with pytest.raises(RuntimeError):
        env("fools_errand").observe("player_0")
