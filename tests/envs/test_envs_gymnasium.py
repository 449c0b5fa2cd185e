"""Gymnasium single-seat environment: Gymnasium's check_env for every game, plus the mask and the rewards."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import motley
from motley.bots import make_bot
from motley.envs.gymnasium import SingleSeatEnv
from tests.support import game_configs

CONFIGS = game_configs()


@pytest.mark.parametrize(("name", "players"), CONFIGS)
@pytest.mark.parametrize("seat", [0, None])
def test_check_env(name: str, players: int, seat: int | None) -> None:
    e = SingleSeatEnv(name, players=players, seat=seat, opponents="random")
    check_env(e, skip_render_check=True)


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_check_env_with_heuristic_opponents(name: str, players: int) -> None:
    game = motley.load_game(name, players=players)
    try:
        make_bot("heuristic", game)
    except motley.MotleyError:
        pytest.skip(f"no heuristic bot for {name}")
    check_env(SingleSeatEnv(game, seat=None, opponents="heuristic"), skip_render_check=True)


def _episode(e: SingleSeatEnv, seed: int) -> tuple[list[int], float, dict[str, Any]]:
    obs, info = e.reset(seed=seed)
    actions: list[int] = []
    rng = np.random.default_rng(seed)
    while True:
        assert e.state is not None and e.state.current_player() == e.seat
        assert np.flatnonzero(info["action_mask"]).tolist() == e.state.legal_actions()
        assert np.array_equal(info["action_mask"].astype(bool), e.action_masks())
        assert np.array_equal(obs, e.state.observation_tensor(e.seat))
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        actions.append(action)
        obs, reward, terminated, truncated, info = e.step(action)
        assert not truncated
        if terminated:
            return actions, reward, info
        assert reward == 0.0


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_episode_mask_and_final_reward(name: str, players: int) -> None:
    e = SingleSeatEnv(name, players=players, seat=None)
    actions, reward, info = _episode(e, seed=4)
    assert e.state is not None and e.state.is_terminal()
    assert reward == e.state.returns()[e.seat] == info["returns"][e.seat]
    assert not e.action_masks().any()
    again, reward_again, _ = _episode(SingleSeatEnv(name, players=players, seat=None), seed=4)
    assert (again, reward_again) == (actions, reward)  # reproducible from the seed


def test_illegal_action_loses_or_raises() -> None:
    e = SingleSeatEnv("fools_errand")
    _, info = e.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = e.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError):
        e.step(0)
    e = SingleSeatEnv("fools_errand", illegal="raise")
    _, info = e.reset(seed=1)
    assert e.state is not None
    before = e.state.serialize()
    with pytest.raises(motley.IllegalMoveError):
        e.step(illegal)
    assert e.state.serialize() == before


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        SingleSeatEnv("fools_errand", seat=2)
    with pytest.raises(ValueError):
        SingleSeatEnv("fools_errand", opponents=["random", "random"])
    with pytest.raises(motley.MotleyError):
        SingleSeatEnv("fools_errand", opponents="no_such_bot")


def test_registered_with_gymnasium_and_render_modes_checked() -> None:
    import gymnasium

    from motley.envs.gymnasium import env_id, register

    ids = register()
    assert ids == [env_id(n) for n in motley.registered_games()] and register() == ids
    e = gymnasium.make(env_id("fools_errand"), seat=None)
    check_env(e.unwrapped)  # with a spec: also builds render_mode="ansi" and checks render()
    _, info = e.reset(seed=0)
    assert info["action_mask"].dtype == np.int8


def _fresh_python(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter (nothing of motley imported beforehand)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


def test_make_in_a_fresh_interpreter() -> None:
    # Importing motley.envs.gymnasium registers every game's id.
    done = _fresh_python(
        "import gymnasium, motley.envs.gymnasium\n"
        "e = gymnasium.make('motley/fool-v0', players=4)\n"
        "obs, info = e.reset(seed=0)\n"
        "assert e.unwrapped.game.num_players == 4 and obs.shape == e.observation_space.shape\n"
        "print(sorted(i for i in gymnasium.registry if i.startswith('motley/')))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(sorted(f"motley/{n}-v0" for n in motley.registered_games()))
    # Without importing motley at all: Gymnasium imports the module named before the colon.
    done = _fresh_python(
        "import sys, gymnasium\n"
        "assert 'motley' not in sys.modules\n"
        "e = gymnasium.make('motley.envs.gymnasium:motley/fool-v0')\n"
        "e.reset(seed=1)\n"
        "e = gymnasium.make('motley/foolery-v0')  # registered by that import too\n"
        "e.reset(seed=1)")
    assert done.returncode == 0, done.stderr
