"""The ``floor`` rows of benchmarks/rl_step.py build what the PettingZoo environment hands out: the same legal ids,
features, tensor and mask at every decision (so the floor is the cost of the environment's own arrays)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from motley.envs.pettingzoo import env
from tests.support import benchmark_module

GAMES = ("fool(players=5,rounds=1)", "foolery(players=5,hands=1)", "fool(players=4)", "fools_errand")


@pytest.mark.parametrize("spec", GAMES)
def test_the_floor_builds_the_arrays_the_environment_hands_out(spec: str) -> None:
    e = env(spec)
    arrays = benchmark_module("rl_step").step_arrays(e.unwrapped.game)
    rng = random.Random(3)
    checked = 0
    for seed in range(3):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _, terminated, truncated, info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            floor_info, floor_obs = arrays(e.unwrapped.game_state)
            for key in ("legal_actions", "action_features"):
                assert np.array_equal(floor_info[key], info[key]), (spec, seed, agent, key)
                assert floor_info[key].dtype == info[key].dtype
            for key in ("observation", "action_mask"):
                assert np.array_equal(floor_obs[key], obs[key]), (spec, seed, agent, key)
                assert floor_obs[key].dtype == obs[key].dtype and not floor_obs[key].flags.writeable
            legal = info["legal_actions"]
            e.step(int(legal[rng.randrange(len(legal))]))
            checked += 1
    assert checked > 0
