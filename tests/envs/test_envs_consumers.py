"""Third-party consumers of the PettingZoo environment, unmodified, over a few hundred steps of every game.

* Tianshou's ``Collector`` (it stacks every step's info into its buffer: ``infos="fixed"``);
* SuperSuit's observation wrappers (they need a Box observation: ``observation="flat"``, the mask in the info);
* sb3-contrib's ``MaskablePPO`` on the Gymnasium environment (the ``train`` extra; skipped without it);
* the options themselves without those libraries: one shape per info key at every step, the flat observation
  and its info mask equal to the Dict ones.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from motley.envs.pettingzoo import env, raw_env

GAMES = ["fools_errand", "fool(players=4)", "foolery(players=5)"]


def _shapes(info: dict[str, Any]) -> dict[str, tuple[str, tuple[int, ...]]]:
    return {key: (np.asarray(value).dtype.str, np.asarray(value).shape) for key, value in info.items()}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_fixed_infos_keep_one_shape_per_key_at_every_step(game: str, observation: str) -> None:
    e = env(game, infos="fixed", observation=observation, privileged=True)
    rng = random.Random(4)
    seen: dict[str, Any] | None = None
    steps = seed = 0
    while steps < 300:  # matches one after the other
        e.reset(seed=seed)
        seed += 1
        for agent in e.agent_iter():
            obs, _reward, terminated, truncated, info = e.last()
            for other in e.agents:
                shapes = _shapes(e.infos[other])
                assert seen is None or shapes == seen, (other, shapes, seen)
                seen = shapes
            assert "legal_actions" not in info and "action_features" not in info
            if terminated or truncated:
                e.step(None)
                continue
            mask = info["action_mask"] if observation == "flat" else obs["action_mask"]
            legal = np.flatnonzero(mask)
            assert len(legal) and np.array_equal(legal, e.unwrapped.game_state.legal_actions())
            assert e.unwrapped.action_features(agent).shape[0] == len(legal)
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1


@pytest.mark.parametrize("game", GAMES)
def test_flat_observation_and_info_mask_equal_the_dict_ones(game: str) -> None:
    flat, dict_env = raw_env(game, observation="flat"), raw_env(game)
    flat.reset(seed=9)
    dict_env.reset(seed=9)
    assert flat.observation_space("player_0") == dict_env.observation_spaces["player_0"]["observation"]  # type: ignore[index]
    rng = random.Random(9)
    for _ in range(200):
        if flat.game_state is None or flat.game_state.is_terminal():
            break
        for agent in flat.possible_agents:
            tensor, reference = flat.observe(agent), dict_env.observe(agent)
            assert isinstance(tensor, np.ndarray) and isinstance(reference, dict)
            assert tensor.tobytes() == reference["observation"].tobytes()
            assert flat.infos[agent]["action_mask"].tobytes() == reference["action_mask"].tobytes()
            assert not tensor.flags.writeable and not flat.infos[agent]["action_mask"].flags.writeable
        legal = dict_env.infos[dict_env.agent_selection]["legal_actions"]
        action = int(legal[rng.randrange(len(legal))])
        flat.step(action)
        dict_env.step(action)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("observation", "infos"), [("flat", "lists"), ("dict", "fixed"), ("flat", "fixed")])
def test_pettingzoo_api_and_seed_tests_pass_with_the_options(game: str, observation: str, infos: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's advisory warnings, as on the default environment
        api_test(env(game, observation=observation, infos=infos), num_cycles=200)
    seed_test(lambda: env(game, observation=observation, infos=infos), num_cycles=100)


def test_bad_observation_or_infos_option_is_refused() -> None:
    with pytest.raises(ValueError, match="observation"):
        raw_env("fool", observation="box")
    with pytest.raises(ValueError, match="infos"):
        raw_env("fool", infos="padded")


def test_flat_env_ends_the_match_on_an_illegal_action_from_the_info_mask() -> None:
    e = env("fool", players=4, observation="flat")
    e.reset(seed=2)
    agent = e.agent_selection
    mask = e.infos[agent]["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values()) and e.rewards[agent] == -1.0


@pytest.mark.parametrize("game", GAMES)
def test_tianshou_collector_collects_over_the_environment(game: str) -> None:
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make() -> PettingZooEnv:
        return PettingZooEnv(env(game, infos="fixed"))

    first = make()
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm(first.action_space).policy
    policy = MultiAgentPolicy(dict.fromkeys(first.agents, random_policy))
    collector: Any = Collector(policy, DummyVectorEnv([make, make]), VectorReplayBuffer(2000, 2))
    collector.reset(reset_buffer=True)
    result = collector.collect(n_step=300)
    assert result.n_collected_steps == 300
    batch: Any
    batch, _ = collector.buffer.sample(0)
    assert len(batch) == 300
    legal = batch.obs.mask[np.arange(len(batch)), batch.act]
    assert legal.all()  # every collected action was legal under its step's mask


@pytest.mark.parametrize("game", GAMES)
def test_supersuit_observation_wrappers_run_over_the_flat_observation(game: str) -> None:
    ss = pytest.importorskip("supersuit")
    e = env(game, observation="flat")
    e = ss.dtype_v0(e, np.float64)
    e = ss.normalize_obs_v0(e, env_min=0.0, env_max=1.0)  # from the space's [-1, 1]
    e = ss.frame_stack_v1(e, 3)
    e = ss.pad_observations_v0(e)
    size = e.unwrapped.observation_space("player_0").shape[0]
    rng = random.Random(5)
    steps = seed = 0
    while steps < 300:
        e.reset(seed=seed)
        seed += 1
        for _agent in e.agent_iter():
            obs, _reward, terminated, truncated, info = e.last()
            assert obs.dtype == np.float64 and obs.shape == (3 * size,) and obs.min() >= 0.0 and obs.max() <= 1.0
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(info["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1


@pytest.mark.parametrize("game", ["fool(players=4)", "foolery(players=5)"])
def test_sb3_contrib_maskable_ppo_learns_and_predicts_legal_actions(game: str) -> None:
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch")
    import torch
    from sb3_contrib import MaskablePPO

    from motley.envs.gymnasium import SingleSeatEnv

    torch.set_num_threads(1)
    e = SingleSeatEnv(game, seat=None, opponents="random")
    model = MaskablePPO("MlpPolicy", e, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]})
    model.learn(total_timesteps=256)  # two rollouts and updates, the masks from e.action_masks()
    assert model.num_timesteps >= 256
    obs, _ = e.reset(seed=1)
    for _ in range(100):
        action, _ = model.predict(obs, action_masks=e.action_masks(), deterministic=True)
        assert int(action) in e.state.legal_actions()  # type: ignore[union-attr]
        obs, _reward, terminated, _, _ = e.step(int(action))
        if terminated:
            obs, _ = e.reset()
