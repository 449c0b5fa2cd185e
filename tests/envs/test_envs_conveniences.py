"""What a researcher expects of the environments: ``illegal="raise" | "lose"`` on each, action ids outside the
action space refused as invalid, read-only observation and info arrays, softmax and sampling over the ragged
legal segments (:mod:`motley.envs.segments`), and examples that write under a run folder."""

from __future__ import annotations

import importlib.util
import itertools
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import motley
from motley.envs.gymnasium import SingleSeatEnv
from motley.envs.pettingzoo import env, raw_env
from motley.envs.segments import (
    masked_softmax,
    segment_log_softmax,
    segment_log_softmax_torch,
    segment_sample,
    segment_softmax,
)
from motley.envs.vector import VectorEnv

ROOT = Path(__file__).resolve().parents[2]


def illegal_action(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


# ---- illegal="raise" | "lose" -----------------------------------------------------------------------------
@pytest.mark.parametrize("workers", [0, 1])
def test_vector_illegal_lose_ends_only_that_slots_match(workers: int) -> None:
    spec = "fool(players=4)"
    losing = VectorEnv(spec, num_envs=3, workers=workers, illegal="lose")
    twin = VectorEnv(spec, num_envs=3)
    try:
        obs, infos = losing.reset(seed=8)
        twin.reset(seed=8)
        assert not infos["illegal_action"].any()
        legal = losing.action_space.sample()
        bad = legal.copy()
        bad[1] = illegal_action(obs["action_mask"][1])
        seat = int(infos["seat"][1])
        after, rewards, terminations, _, infos = losing.step(bad)
        expected, twin_rewards, twin_terminations, _, _ = twin.step(legal)
        assert infos["illegal_action"].tolist() == [False, True, False]
        assert terminations[1] and rewards[1, seat] == -1.0 and np.count_nonzero(rewards[1]) == 1
        for i in (0, 2):  # the other slots played their actions as usual
            assert np.array_equal(after["observation"][i], expected["observation"][i])
            assert np.array_equal(rewards[i], twin_rewards[i]) and terminations[i] == twin_terminations[i]
        assert after["action_mask"][1].any()  # slot 1 is at the first decision of its next match
        _, _, _, _, infos = losing.step(losing.action_space.sample())
        assert not infos["illegal_action"].any()
    finally:
        losing.close()
        twin.close()


def test_vector_illegal_raise_is_the_default_and_plays_nothing() -> None:
    envs = VectorEnv("fool(players=4)", num_envs=2)
    obs, _ = envs.reset(seed=1)
    bad = envs.action_space.sample()
    bad[0] = illegal_action(obs["action_mask"][0])
    with pytest.raises(motley.IllegalMoveError, match="slot 0"):
        envs.step(bad)
    with pytest.raises(ValueError, match="illegal"):
        VectorEnv("fool(players=4)", num_envs=2, illegal="forfeit")


def test_pettingzoo_raw_env_illegal_lose_ends_the_match() -> None:
    e = raw_env("fool", players=4, illegal="lose")
    e.reset(seed=3)
    offender = e.agent_selection
    e.step(illegal_action(e.observe(offender)["action_mask"]))
    assert all(e.terminations.values())
    assert e.rewards[offender] == -1.0 and all(r == 0.0 for a, r in e.rewards.items() if a != offender)
    assert e.infos[offender]["illegal_action"] is True
    _, reward, terminated, _, _ = e.last()
    assert terminated and reward == -1.0
    for _agent in e.agent_iter():  # every agent steps out with None, as at the end of a match
        e.step(None)
    assert e.agents == []


def test_pettingzoo_illegal_raise_on_env_and_raw_env() -> None:
    for e in (env("fool", players=4, illegal="raise"), raw_env("fool", players=4)):
        e.reset(seed=3)
        before = e.unwrapped.game_state.serialize()
        with pytest.raises(motley.IllegalMoveError):
            e.step(illegal_action(e.observe(e.agent_selection)["action_mask"]))
        assert e.unwrapped.game_state.serialize() == before
    with pytest.raises(ValueError, match="illegal"):
        raw_env("fool", players=4, illegal="forfeit")


def test_pettingzoo_env_loses_by_default_as_terminate_illegal_wrapper() -> None:
    e = env("fool", players=4)
    e.reset(seed=3)
    offender = e.agent_selection
    e.step(illegal_action(e.observe(offender)["action_mask"]))
    assert e.rewards[offender] == -1.0 and all(e.terminations.values())


@pytest.mark.parametrize("mode", ["lose", "raise"])
def test_action_ids_outside_the_space_are_invalid_moves(mode: str) -> None:
    single = SingleSeatEnv("fool", players=4, illegal=mode)
    single.reset(seed=0)
    batch = VectorEnv("fool(players=4)", num_envs=2, illegal=mode)
    batch.reset(seed=0)
    aec = raw_env("fool", players=4, illegal=mode)
    aec.reset(seed=0)
    size = single.game.num_distinct_actions()
    for bad in (-1, size, size + 7):
        with pytest.raises(motley.InvalidMoveError):
            single.step(bad)
        with pytest.raises(motley.InvalidMoveError, match="slot 1"):
            batch.step(np.array([batch.action_space.sample()[0], bad]))
        with pytest.raises(motley.InvalidMoveError):
            aec.step(bad)
    with pytest.raises(motley.InvalidMoveError):
        single.step(2.5)
    assert single.state is not None and not single.state.is_terminal()  # nothing was played or lost


# ---- read-only arrays -------------------------------------------------------------------------------------
def assert_read_only(array: np.ndarray) -> None:
    assert not array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        array.reshape(-1)[0] = 1


def test_observations_and_infos_are_read_only() -> None:
    e = env("foolery", players=4)
    e.reset(seed=2)
    obs, _, _, _, _ = e.last()
    assert_read_only(obs["observation"])
    assert_read_only(obs["action_mask"])
    assert e.observe(e.agent_selection) is obs  # the cached dict, which nobody can change
    single = SingleSeatEnv("foolery", players=4)
    _, info = single.reset(seed=2)
    assert_read_only(info["legal"].actions)
    assert_read_only(info["legal"].features)
    batch = VectorEnv("foolery(players=4)", num_envs=2, copy=False)
    obs, infos = batch.reset(seed=2)
    assert_read_only(obs["observation"])
    assert_read_only(obs["action_mask"])
    assert_read_only(infos["seat"])
    obs, rewards, terminations, _, _ = batch.step(batch.action_space.sample())
    for array in (obs["observation"], rewards, terminations):
        assert_read_only(array)


# ---- softmax and sampling over ragged segments ------------------------------------------------------------
def reference_softmax(logits: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.zeros_like(logits, dtype=np.float64)
    for lo, hi in itertools.pairwise(offsets):
        if hi > lo:
            e = np.exp(logits[lo:hi] - logits[lo:hi].max())
            out[lo:hi] = e / e.sum()
    return out


def ragged(rng: np.random.Generator, segments: int, empty: bool) -> tuple[np.ndarray, np.ndarray]:
    counts = rng.integers(0 if empty else 1, 9, size=segments)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return rng.normal(scale=30.0, size=int(offsets[-1])), offsets


def test_segment_softmax_matches_a_softmax_per_segment() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        logits, offsets = ragged(rng, int(rng.integers(1, 12)), empty=True)
        probs = segment_softmax(logits, offsets)
        assert np.allclose(probs, reference_softmax(logits, offsets))
        assert np.allclose(np.exp(segment_log_softmax(logits, offsets)), probs)
        sums = np.add.reduceat(probs, offsets[:-1][np.diff(offsets) > 0]) if probs.size else np.zeros(0)
        assert np.allclose(sums, 1.0)
    with pytest.raises(ValueError, match="offsets"):
        segment_softmax(np.zeros(3), np.array([0, 2]))
    with pytest.raises(ValueError, match="flat"):
        segment_softmax(np.zeros((2, 3)), np.array([0, 6]))


def test_segment_sample_follows_the_softmax_and_stays_in_each_segment() -> None:
    logits = np.array([np.log(0.5), np.log(0.3), np.log(0.2), 0.0, -np.inf, 0.0])  # p 0 and 1 in [4:6]
    offsets = np.array([0, 3, 4, 6])
    rng = np.random.default_rng(1)
    draws = np.array([segment_sample(logits, offsets, rng) for _ in range(20_000)])
    assert (draws[:, 1] == 3).all() and (draws[:, 2] == 5).all()
    share = np.bincount(draws[:, 0], minlength=3) / len(draws)
    assert np.allclose(share, [0.5, 0.3, 0.2], atol=0.015)
    with pytest.raises(ValueError, match="empty"):
        segment_sample(np.zeros(2), np.array([0, 2, 2]))


def test_segment_sample_picks_legal_actions_of_the_batch_stepper() -> None:
    envs = VectorEnv("foolery(players=3,hands=1)", num_envs=4)
    obs, infos = envs.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        logits = infos["action_features"].sum(axis=1)
        actions = infos["legal_actions"][segment_sample(logits, infos["legal_offsets"], rng)]
        assert (obs["action_mask"][np.arange(4), actions] == 1).all()
        obs, _, _, _, infos = envs.step(actions)


def test_masked_softmax_is_zero_off_the_mask() -> None:
    rng = np.random.default_rng(2)
    logits = rng.normal(size=(5, 7)).astype(np.float32)
    mask = (rng.random((5, 7)) < 0.5).astype(np.int8)
    mask[0] = 0
    probs = masked_softmax(logits, mask)
    assert probs.dtype == np.float32 and (probs[mask == 0] == 0).all() and (probs[0] == 0).all()
    for row in range(1, 5):
        legal = np.flatnonzero(mask[row])
        if legal.size:
            assert np.allclose(probs[row, legal], reference_softmax(logits[row, legal], np.array([0, legal.size])))
    with pytest.raises(ValueError, match="shape"):
        masked_softmax(logits, mask[:, :3])


def test_segment_log_softmax_torch_matches_numpy_and_has_gradients() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    logits, offsets = ragged(rng, 6, empty=True)
    x = torch.tensor(logits, requires_grad=True)
    out = segment_log_softmax_torch(x, offsets)
    assert np.allclose(out.detach().numpy(), segment_log_softmax(logits, offsets))
    out.sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()


# ---- examples write under a run folder --------------------------------------------------------------------
def load_example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_training_example_writes_under_an_ignored_run_folder() -> None:
    example = load_example("train_maskable_ppo")
    out = example.parse_args(["--game", "foolery(players=5)"]).out
    assert out.parts[0] == "runs" and "foolery_5p" in out.parts
    ignored = subprocess.run(["git", "check-ignore", "-q", str(out / "x.json")], cwd=ROOT, check=False)
    assert ignored.returncode == 0, f"{out} is not ignored by git"
    assert example.parse_args(["--out", "/tmp/elsewhere"]).out == Path("/tmp/elsewhere")
