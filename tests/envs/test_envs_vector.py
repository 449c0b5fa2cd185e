"""The batch stepper (motley.envs.vector): each slot replays the match of a single PettingZoo environment given
the same seeds and actions (autoreset included), worker processes give exactly the batches of in-process
stepping, and bad input is refused with nothing played."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import motley
from motley.core.features import action_feature_table
from motley.envs.pettingzoo import MotleyAECEnv, raw_env
from motley.envs.vector import VectorEnv

#: Short matches (one deal) so that a few hundred steps see several autoresets.
SHORT = ["fools_errand", "fool(players=4,rounds=1)", "fool(players=5,rounds=1)", "foolery(players=3,hands=1)",
         "foolery(players=5,hands=1)"]


def pick(infos: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """One random legal action per slot, from the flat legal list."""
    offsets = infos["legal_offsets"]
    chosen: np.ndarray = infos["legal_actions"][
        offsets[:-1] + (rng.random(len(offsets) - 1) * np.diff(offsets)).astype(np.int64)]
    return chosen


def check_slot(obs: dict[str, np.ndarray], infos: dict[str, Any], i: int, single: MotleyAECEnv) -> None:
    """Slot ``i`` of the batch shows the decision of ``single``'s agent to move."""
    state = single.game_state
    assert state is not None and not state.is_terminal()
    agent = single.agent_selection
    seat = state.current_player()
    assert infos["seat"][i] == seat
    mine = single.observe(agent)
    assert np.array_equal(obs["observation"][i], mine["observation"])
    assert obs["observation"][i].tobytes() == state.observation_tensor(seat).tobytes()  # the game's own encoder
    assert np.array_equal(obs["action_mask"][i], mine["action_mask"])
    legal = infos["legal_actions"][infos["legal_offsets"][i]:infos["legal_offsets"][i + 1]]
    assert legal.tolist() == state.legal_actions()
    features = infos["action_features"][infos["legal_offsets"][i]:infos["legal_offsets"][i + 1]]
    assert np.array_equal(features, single.infos[agent]["action_features"])


@pytest.mark.parametrize("spec", SHORT)
@pytest.mark.parametrize("reward", ["match", "deal"])
def test_each_slot_is_the_single_environment_with_the_same_seed_and_actions(spec: str, reward: str) -> None:
    n = 3
    envs = VectorEnv(spec, num_envs=n, reward=reward)
    singles = [raw_env(spec, reward=reward) for _ in range(n)]
    obs, infos = envs.reset(seed=40)
    for i, single in enumerate(singles):
        single.reset(seed=40 + i)
        check_slot(obs, infos, i, single)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(250):
        actions = pick(infos, rng)
        obs, rewards, terminations, truncations, infos = envs.step(actions)
        assert rewards.shape == (n, envs.game.num_players) and rewards.dtype == np.float32
        assert not truncations.any()
        for i, single in enumerate(singles):
            single.step(int(actions[i]))
            expected = [single.rewards[agent] for agent in single.possible_agents]
            assert rewards[i] == pytest.approx(np.array(expected, dtype=np.float32))
            assert bool(terminations[i]) == all(single.terminations.values())
            if terminations[i]:  # autoreset: the slot's next match is the single env's next reset()
                ends += 1
                single.reset()
            check_slot(obs, infos, i, single)
    assert ends > 0, "no match ended: autoreset was not put to the test"
    envs.close()


def test_autoreset_is_same_step_and_seeds_come_from_each_slots_generator() -> None:
    envs = VectorEnv("fools_errand", num_envs=2, privileged=True)  # the seeds are privileged information
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    _, infos = envs.reset(seed=[5, 9])
    assert infos["match_seed"].tolist() == [5, 9]
    draws = {0: random.Random(5), 1: random.Random(9)}
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(300):
        _, rewards, terminations, _, infos = envs.step(pick(infos, rng))
        for i in np.flatnonzero(terminations):
            assert infos["match_seed"][i] == draws[int(i)].randrange(2**63)
            assert rewards[i].sum() == pytest.approx(0.0) and np.abs(rewards[i]).max() > 0  # zero-sum returns
            seen += 1
    assert seen > 0


@pytest.mark.parametrize("spec", ["fool(players=5,rounds=1)", "foolery(players=4,hands=1)"])
def test_workers_give_the_batches_of_in_process_stepping(spec: str) -> None:
    local = VectorEnv(spec, num_envs=5, workers=0, privileged=True)
    pool = VectorEnv(spec, num_envs=5, workers=2, privileged=True)
    try:
        a, ia = local.reset(seed=3)
        b, ib = pool.reset(seed=3)
        rng = np.random.default_rng(2)
        for _ in range(120):
            for key in a:
                assert np.array_equal(a[key], b[key])
            for key in ("seat", "legal_actions", "legal_offsets", "action_features", "match_seed"):
                assert np.array_equal(ia[key], ib[key])
            actions = pick(ia, rng)
            a, ra, ta, _, ia = local.step(actions)
            b, rb, tb, _, ib = pool.step(actions)
            assert np.array_equal(ra, rb) and np.array_equal(ta, tb)
    finally:
        local.close()
        pool.close()
    with pytest.raises(RuntimeError, match="closed"):
        pool.reset(seed=0)


def test_batches_have_the_documented_shapes_and_spaces() -> None:
    game = motley.load_game("fool", players=5)
    envs = VectorEnv(game, num_envs=4)
    obs, infos = envs.reset(seed=0)
    assert obs["observation"].shape == (4, *game.observation_tensor_shape())
    assert obs["action_mask"].shape == (4, game.num_distinct_actions()) and obs["action_mask"].dtype == np.int8
    assert envs.observation_space.contains(obs)
    assert infos["legal_offsets"][0] == 0 and infos["legal_offsets"][-1] == infos["legal_actions"].size
    table = action_feature_table(game)
    assert np.array_equal(infos["action_features"], table[infos["legal_actions"]])


def test_bad_input_is_refused_and_plays_nothing() -> None:
    envs = VectorEnv("fool(players=4)", num_envs=3, privileged=True)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        envs.step(np.zeros(3, dtype=np.int64))
    obs, infos = envs.reset(seed=1)
    legal = pick(infos, np.random.default_rng(0))
    illegal = legal.copy()
    illegal[1] = next(a for a in range(envs.num_actions) if obs["action_mask"][1, a] == 0)
    for bad, error in ((illegal, motley.IllegalMoveError), (legal[:2], ValueError), (legal.astype(float), ValueError),
                       (np.array([legal[0], legal[1], -1]), motley.InvalidMoveError),
                       (np.array([legal[0], envs.num_actions, legal[2]]), motley.InvalidMoveError)):
        with pytest.raises(error):
            envs.step(bad)
    with pytest.raises(motley.IllegalMoveError, match="slot 1"):
        envs.step(illegal)
    again, _, _, _, _ = envs.step(legal)  # nothing was played before: the legal actions still apply
    assert not np.array_equal(again["observation"], obs["observation"])
    with pytest.raises(ValueError):
        envs.reset(seed=[1, 2])
    with pytest.raises(motley.MotleyError, match="seed"):
        envs.reset(seed=[1, 2, -3])
    again, again_infos = envs.reset(seed=np.int64(1))  # a NumPy integer seeds the same matches as the int
    assert np.array_equal(again["observation"], obs["observation"])
    assert np.array_equal(again_infos["match_seed"], infos["match_seed"])
    for kwargs in ({"num_envs": 0}, {"num_envs": 2, "workers": 3}, {"num_envs": 2, "reward": "trick"}):
        with pytest.raises(ValueError):
            VectorEnv("fool(players=4)", **kwargs)
