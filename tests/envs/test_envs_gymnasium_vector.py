"""Gymnasium's vector API over motley: ``gymnasium.make_vec`` on every registered id (sync and async), the
batch stepper under Gymnasium's vector reward wrappers through ``SeatRewards``, and its masked ``sample()``."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers.vector import NormalizeReward, RecordEpisodeStatistics

import motley
from motley.envs.gymnasium import LegalActions, register
from motley.envs.vector import SeatRewards, VectorEnv


def masked_random(infos: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """A random legal action per env from the stacked masks (0 where an env has none: its match is over and
    Gymnasium's next-step autoreset ignores the action)."""
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in infos["action_mask"]])


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", register())
def test_make_vec_steps_every_registered_id(env_id: str, mode: str) -> None:
    n = 3
    envs = gymnasium.make_vec(env_id, num_envs=n, vectorization_mode=mode)
    try:
        game = motley.load_game(env_id.removeprefix("motley/").removesuffix("-v0"))  # the defaults, as make_vec's
        obs, infos = envs.reset(seed=11)
        rng = np.random.default_rng(0)
        for _ in range(40):
            assert obs.shape == (n, *game.observation_tensor_shape())
            assert infos["action_mask"].shape == (n, game.num_distinct_actions())
            assert infos["num_legal"].shape == (n,) and infos["legal"].shape == (n,)
            for i in range(n):
                legal = infos["legal"][i]
                assert isinstance(legal, LegalActions) and len(legal) == infos["num_legal"][i]
                assert legal.actions.tolist() == np.flatnonzero(infos["action_mask"][i]).tolist()
                assert legal.features.shape == (len(legal), legal.features.shape[1])
            obs, rewards, terminations, truncations, infos = envs.step(masked_random(infos, rng))
            assert rewards.shape == terminations.shape == truncations.shape == (n,)
    finally:
        envs.close()


def test_make_vec_returns_stack_at_the_end_of_a_match() -> None:
    envs = gymnasium.make_vec("motley/fools_errand-v0", num_envs=2, vectorization_mode="sync")
    _, infos = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(500):
        _, rewards, terminations, _, infos = envs.step(masked_random(infos, rng))
        if terminations.any():
            i = int(np.flatnonzero(terminations)[0])
            assert infos["_returns"][i] and infos["returns"].shape == (2, 2)
            assert rewards[i] == infos["returns"][i, infos["seat"][i]]
            return
    pytest.fail("no match ended")


def test_seat_rewards_feed_record_episode_statistics_and_normalize_reward() -> None:
    n, seat = 3, 1
    base = VectorEnv("fool(players=4,rounds=1)", num_envs=n, reward="deal")
    recorded = RecordEpisodeStatistics(SeatRewards(base, seat))
    envs = NormalizeReward(recorded, gamma=0.99)
    envs.reset(seed=5)
    returns = np.zeros(n)
    lengths = np.zeros(n, dtype=np.int64)
    episodes = 0
    for _ in range(300):  # the statistics, on the seat's own rewards
        _, rewards, terminations, _, infos = recorded.step(envs.action_space.sample())
        assert rewards.shape == (n,) and rewards.dtype == np.float32
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(terminations):
            assert infos["_episode"][i]
            assert infos["episode"]["r"][i] == pytest.approx(returns[i])
            assert infos["episode"]["l"][i] == lengths[i]
            returns[i], lengths[i] = 0.0, 0
            episodes += 1
    assert episodes > 0
    for _ in range(100):  # the whole stack: normalised (N,) rewards
        _, scaled, _, _, _ = envs.step(envs.action_space.sample())
        assert scaled.shape == (n,) and np.isfinite(scaled).all()
    with pytest.raises(ValueError):
        SeatRewards(base, 4)


def test_seat_rewards_are_the_seats_column() -> None:
    a, b = VectorEnv("fools_errand", num_envs=4), VectorEnv("fools_errand", num_envs=4)
    view = SeatRewards(b, 0)
    a.reset(seed=2)
    view.reset(seed=2)
    for _ in range(200):
        actions = view.action_space.sample()
        _, full, *_ = a.step(actions)
        _, column, *_ = view.step(actions)
        assert np.array_equal(column, full[:, 0])


@pytest.mark.parametrize(("spec", "workers", "steps"), [("fool(players=5)", 0, 150),
                                                    ("foolery(players=3,hands=1)", 2, 30)])
def test_action_space_sample_draws_legal_actions_only(spec: str, workers: int, steps: int) -> None:
    envs = VectorEnv(spec, num_envs=4, workers=workers)
    try:
        with pytest.raises(RuntimeError, match="reset"):
            envs.action_space.sample()
        obs, _ = envs.reset(seed=1)
        envs.action_space.seed(9)
        first = envs.action_space.sample()
        envs.action_space.seed(9)
        assert np.array_equal(envs.action_space.sample(), first)  # seeded through the space, as Gymnasium's
        for _ in range(steps):
            actions = envs.action_space.sample()
            assert actions.shape == (4,) and envs.action_space.contains(actions)
            assert (obs["action_mask"][np.arange(4), actions] == 1).all()
            obs, *_ = envs.step(actions)
        only_zero = np.zeros(envs.num_actions, dtype=np.int8)
        only_zero[0] = 1
        masks = (only_zero,) * 4
        assert (envs.action_space.sample(mask=masks) == 0).all()  # an explicit mask as MultiDiscrete's
    finally:
        envs.close()


def test_registered_ids_cover_every_game() -> None:
    assert register() == [f"motley/{name}-v0" for name in motley.registered_games()]


def masked_softmax_sample(infos: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """What a policy head does: logits, -inf outside the mask, softmax, a draw; raises on NaN probabilities."""
    mask = infos["action_mask"].astype(bool)
    logits = np.where(mask, rng.normal(size=mask.shape), -np.inf)
    with np.errstate(invalid="ignore"):
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
    if np.isnan(probs).any():
        raise FloatingPointError("a row of the mask is all 0")
    return np.array([rng.choice(len(p), p=p) for p in probs])


def _play_through_match_ends(envs: gymnasium.vector.VectorEnv, matches: int) -> int:
    """Step with a masked softmax until ``matches`` matches ended; every action drawn is legal or ignored."""
    _, infos = envs.reset(seed=8)
    rng = np.random.default_rng(8)
    ended = steps = 0
    while ended < matches:
        actions = masked_softmax_sample(infos, rng)
        legal = infos["num_legal"] > 0
        assert all(a in infos["legal"][i].actions for i, a in enumerate(actions) if legal[i])
        _, _, terminations, _, infos = envs.step(actions)
        ended += int(terminations.sum())
        steps += 1
        assert steps < 5000, "the matches did not end"
    return ended


def test_make_vec_with_final_mask_ones_never_gives_an_all_zero_mask() -> None:
    envs = gymnasium.make_vec("motley/fools_errand-v0", num_envs=3, vectorization_mode="sync", final_mask="ones")
    try:
        assert _play_through_match_ends(envs, 4) >= 4
    finally:
        envs.close()


def test_make_vec_with_same_step_autoreset_never_gives_an_all_zero_mask() -> None:
    envs = gymnasium.make_vec("motley/fools_errand-v0", num_envs=3, vectorization_mode="sync",
                              vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP})
    try:
        assert _play_through_match_ends(envs, 4) >= 4
    finally:
        envs.close()


def test_make_vec_default_gives_the_empty_final_mask_it_documents() -> None:
    envs = gymnasium.make_vec("motley/fools_errand-v0", num_envs=3, vectorization_mode="sync")
    try:
        with pytest.raises(FloatingPointError):
            _play_through_match_ends(envs, 4)
    finally:
        envs.close()


def test_final_mask_is_checked() -> None:
    with pytest.raises(ValueError, match="final_mask"):
        gymnasium.make("motley/fool-v0", final_mask="some")
