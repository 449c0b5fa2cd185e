"""PettingZoo AEC environment: PettingZoo's own api_test, seed_test and state tests on ``env()`` (the wrapped
environment), for every game and several player counts; the global state, illegal actions, order errors."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as check_state  # renamed: not collected as tests here
from pettingzoo.test.state_test import test_state_space as check_state_space

import motley
from motley.envs.pettingzoo import ActionMask, MotleyAECEnv, env, raw_env
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
    # The AEC seed_test: parallel_seed_test needs a ParallelEnv, and a turn-based match is not one
    # (metadata["is_parallelizable"] is False).
    seed_test(lambda: env(name, players=players), num_cycles=200)
    seed_test(lambda: env(name, players=players, reward="deal"), num_cycles=200)


def _play_match(e: Any, seed: int, rng: random.Random) -> tuple[dict[str, float], list[int]]:
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
        assert e.game_state is not None
        assert legal.tolist() == e.game_state.legal_actions()
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
    assert e.game_state is not None
    for seat, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)
        assert np.array_equal(obs["observation"], e.game_state.observation_tensor(seat))
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        if seat == e.game_state.current_player():
            assert np.flatnonzero(obs["action_mask"]).tolist() == e.game_state.legal_actions()
        else:
            assert not obs["action_mask"].any()


def test_illegal_action_raises_and_changes_nothing() -> None:
    e = raw_env("fools_errand")  # the bare environment; env() ends the match instead (next test)
    e.reset(seed=2)
    assert e.game_state is not None
    before = e.game_state.serialize()
    illegal = next(a for a in range(3) if a not in e.game_state.legal_actions())
    with pytest.raises(motley.IllegalMoveError):
        e.step(illegal)
    assert e.game_state.serialize() == before


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_illegal_action_through_env_ends_the_match_with_minus_one(name: str, players: int) -> None:
    e = env(name, players=players)
    e.reset(seed=2)
    rng = random.Random(2)
    for _ in range(rng.randrange(20)):  # a few legal moves first, so the offender is not always seat 0
        obs, *_ = e.last()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    offender = e.agent_selection
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
        e.step(illegal)
    assert all(e.terminations.values())
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        _, reward, terminated, truncated, _ = e.last()
        assert terminated and truncated  # TerminateIllegalWrapper marks both
        totals[agent] += reward
        e.step(None)
    assert totals == {agent: (-1.0 if agent == offender else 0.0) for agent in e.possible_agents}
    assert e.agents == []


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_global_state_is_every_seat_tensor_and_in_its_space(name: str, players: int) -> None:
    e = env(name, players=players)
    assert isinstance(e.state_space, spaces.Box) and e.state_space.dtype == np.float32
    size = int(np.prod(e.game.observation_tensor_shape()))
    assert e.state_space.shape == (players * size,)
    e.reset(seed=9)
    rng = random.Random(9)
    for _ in e.agent_iter(100_000):
        state = e.state()
        assert state.shape == e.state_space.shape and state.dtype == np.float32
        assert e.state_space.contains(state)
        for seat in range(players):
            assert np.array_equal(state[seat * size:(seat + 1) * size], e.game_state.observation_tensor(seat))
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.game_state.is_terminal() and e.state_space.contains(e.state())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advisory warnings (e.g. about all-zero parts) are not failures
        check_state_space(env(name, players=players))
        check_state(env(name, players=players), num_cycles=50)  # unmasked samples: illegal ends it


def test_step_before_reset_names_reset_and_metadata() -> None:
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        raw_env("fools_errand").step(0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        raw_env("fools_errand").state()
    with pytest.raises(AssertionError, match="reset"):  # OrderEnforcingWrapper's own check
        env("fools_errand").step(0)
    e = env("fools_errand")
    assert e.metadata["render_fps"] == 1 and raw_env("fools_errand").metadata["render_fps"] == 1
    assert isinstance(e.unwrapped, MotleyAECEnv) and not isinstance(e, MotleyAECEnv)
    assert isinstance(raw_env("fools_errand"), MotleyAECEnv)
    with pytest.raises(AssertionError):  # AssertOutOfBoundsWrapper
        e.reset(seed=0)
        e.step(e.game.num_distinct_actions())


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
        raw_env("fools_errand").observe("player_0")
    with pytest.raises(AssertionError):  # env(): OrderEnforcingWrapper
        env("fools_errand").observe("player_0")


def test_wrapped_env_reads_its_attributes_as_the_standard_wrappers_do() -> None:
    """env()'s wrappers read the per-step attributes from the bare env directly: before reset() they raise
    OrderEnforcingWrapper's AttributeError, after it they are the bare env's, and the action space answers
    every value as gymnasium's Discrete does."""
    e = env("fool", players=4)
    for name in ("agent_selection", "agents", "terminations", "rewards", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(e, name)
    e.reset(seed=3)
    bare = e.unwrapped
    for name in ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos"):
        assert getattr(e, name) is getattr(bare, name)
    assert e._cumulative_rewards is bare._cumulative_rewards
    space, standard = e.action_space("player_0"), spaces.Discrete(e.game.num_distinct_actions())
    for value in (0, 5, space.n - 1, space.n, -1, True, np.int64(3), np.int8(-2), 3.0, "1", None, np.array([2])):
        assert space.contains(value) == standard.contains(value), value


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_the_mask_is_int8_and_scans_as_the_legal_ids(name: str, players: int) -> None:
    """The mask stays the ``int8`` array ``Discrete.sample(mask=)`` takes, and every NumPy scan of it (which goes
    through ``ActionMask.nonzero``) finds exactly the legal ids, for the mover and for the others."""
    e = env(name, players=players)
    e.reset(seed=3)
    rng = random.Random(3)
    space = e.action_space(e.agent_selection)
    for _ in range(60):
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            break
        for agent in e.agents:
            mask = e.observe(agent)["action_mask"]
            assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (space.n,)
            assert isinstance(mask, ActionMask) == (space.n >= 4096)  # a narrow mask is a plain ndarray
            legal = info["legal_actions"] if agent == e.agent_selection else np.zeros(0, dtype=np.int64)
            plain = np.asarray(mask).view(np.ndarray)
            reference = np.array([i for i, v in enumerate(plain.tolist()) if v], dtype=np.intp)  # no NumPy scan
            assert np.array_equal(reference, legal)
            assert np.array_equal(np.flatnonzero(mask), legal)
            assert np.array_equal(np.nonzero(mask)[0], legal) and np.array_equal(np.where(mask)[0], legal)
            assert np.array_equal(np.argwhere(mask).ravel(), legal)
        assert space.sample(mask=obs["action_mask"]) in info["legal_actions"]
        e.step(int(info["legal_actions"][rng.randrange(len(info["legal_actions"]))]))


def test_an_action_mask_converted_or_changed_scans_as_numpy_does() -> None:
    """Results NumPy makes from a (wide: Foolery's) mask keep its class; their scans still agree with NumPy's own."""
    e = env("foolery", players=4)
    e.reset(seed=1)
    mask = e.last()[0]["action_mask"]
    plain = mask.view(np.ndarray)
    for derived in (mask.astype(np.int16), mask.astype(np.float32), mask * 3, -mask, mask[::2],
                    np.stack([mask, mask]), mask.reshape(4, -1) if mask.size % 4 == 0 else mask[None]):
        expected = np.asarray(derived).view(np.ndarray)
        got = np.nonzero(derived)
        assert len(got) == len(np.nonzero(expected))
        for axis_got, axis_expected in zip(got, np.nonzero(expected), strict=True):
            assert np.array_equal(axis_got, axis_expected)
    assert np.array_equal(np.flatnonzero(mask), np.flatnonzero(plain))


def test_agent_iter_enforces_order_as_the_standard_wrapper_does() -> None:
    """``env()``'s own ``agent_iter`` (read from the bare environment) refuses what PettingZoo's refuses."""
    from pettingzoo.utils import wrappers

    for e in (env("fool", players=4, illegal="raise"),
              wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env("fool", players=4)))):
        with pytest.raises(AssertionError, match="reset"):
            e.agent_iter()
        e.reset(seed=1)
        agents = iter(e.agent_iter())
        first = next(agents)
        with pytest.raises(AssertionError, match="step"):
            next(agents)  # no step() in between
        e.step(int(e.last()[4]["legal_actions"][0]))
        assert next(agents) == e.agent_selection != first
        assert list(e.agent_iter(max_iter=0)) == []


def _standard_env(name: str, players: int) -> Any:
    """``env()`` built from PettingZoo's own wrappers, unmodified (the reference for env()'s direct step)."""
    from pettingzoo.utils import wrappers

    bare = raw_env(name, players=players, illegal="lose")
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(bare, illegal_reward=-1.0)))


def _same(a: Any, b: Any) -> bool:
    """Equal values: arrays by dtype and contents, dicts key by key, tuples item by item."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return bool(a == b) and type(a) is type(b)


@pytest.mark.parametrize(("name", "players"), CONFIGS)
@pytest.mark.parametrize("seed", [1, 2])
def test_env_steps_as_the_standard_wrappers_do(name: str, players: int, seed: int) -> None:
    """``env()`` (its common step and last() read the bare environment at once) against PettingZoo's own three
    wrappers on the same bare environment: the same observations of every agent, rewards, flags and infos at
    every step, for legal actions (ints and NumPy ints), an illegal one at a random turn, and the finished
    agents' None steps; an out-of-range action fails the same assertion on both and changes nothing."""
    rng = random.Random(seed)
    mine, standard = env(name, players=players), _standard_env(name, players)
    mine.reset(seed=seed)
    standard.reset(seed=seed)
    illegal_at = rng.randrange(1, 40)
    turn = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo logs the illegal move
        for agent in mine.agent_iter(10_000):
            assert agent == standard.agent_selection
            got = mine.last()
            assert _same(got, standard.last()), turn
            for other in mine.possible_agents:
                assert _same(mine.observe(other), standard.observe(other))
            obs, _, terminated, truncated, info = got
            if terminated or truncated:
                action: Any = None
            elif turn == illegal_at:
                action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            else:
                if turn % 7 == 3:  # out of range: the same assertion, nothing changes
                    for e in (mine, standard):
                        with pytest.raises(AssertionError, match="action space"):
                            e.step(obs["action_mask"].size)
                    assert _same(mine.last(), standard.last())
                legal = info["legal_actions"]
                action = legal[rng.randrange(len(legal))]
                action = action if turn % 2 else int(action)  # NumPy ints through the standard path
            mine.step(action)
            standard.step(action)
            turn += 1
    assert mine.agents == standard.agents == [] and turn > illegal_at


@pytest.mark.parametrize(("name", "players"), CONFIGS)
def test_kept_observations_and_infos_never_change(name: str, players: int) -> None:
    """A consumer that keeps every observation and info it was given (as a replay buffer does) finds them
    unchanged at the end of the match: nothing the environment hands out is written again later."""
    import copy

    e = env(name, players=players)
    e.reset(seed=4)
    rng = random.Random(4)
    kept: list[tuple[Any, Any]] = []
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        kept.append((obs, copy.deepcopy(obs)))
        kept.append((info, copy.deepcopy(info)))
        if len(kept) % 3 == 0:
            other = e.possible_agents[rng.randrange(len(e.possible_agents))]
            kept.append((e.observe(other), copy.deepcopy(e.observe(other))))
        if terminated or truncated:
            e.step(None)
            continue
        legal = info["legal_actions"]
        e.step(int(legal[rng.randrange(len(legal))]))
    assert len(kept) > 20
    assert all(_same(given, snapshot) for given, snapshot in kept)


def test_a_wide_mask_is_right_at_every_turn_and_a_kept_one_never_changes() -> None:
    """Foolery's 25,741-wide mask: every mask is right at its turn, read-only for good (it cannot be made writable
    again: it views immutable bytes, so a mask handed out again for the same legal actions is safe), and what the
    loop kept (three turns of five: the observation, the mask alone or a bool view of it) still holds its own
    turn's legal ids at the end."""
    import copy

    e = env("foolery", players=5)
    e.reset(seed=6)
    rng = random.Random(6)
    kept: list[tuple[Any, Any]] = []
    given: list[Any] = []
    turns = 0
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert np.flatnonzero(mask).tolist() == info["legal_actions"].tolist() == e.game_state.legal_actions()
        assert not mask.flags.writeable
        with pytest.raises(ValueError):
            mask.setflags(write=True)
        given.append(mask)  # held: an id is not reused while its mask lives
        if turns % 5 == 0:  # the observation kept, or the mask alone, or a view of it
            kept.append((obs, copy.deepcopy(obs)))
        elif turns % 5 == 1:
            kept.append((mask, mask.copy()))
        elif turns % 5 == 2:
            kept.append((mask.view(np.bool_), mask.view(np.bool_).copy()))
        legal = info["legal_actions"]
        e.step(int(legal[rng.randrange(len(legal))]))
        turns += 1
        del obs, mask
    assert turns > 100 and len({id(mask) for mask in given}) < turns  # some handed out again (same legal ids)
    assert kept and all(_same(mine, snapshot) for mine, snapshot in kept)


def test_resets_without_a_seed_draw_the_next_matches_from_the_last_seed_given() -> None:
    """``reset(seed=s)`` plays match ``s``; each later ``reset()`` the next draw of ``random.Random(s)`` (made at the
    first such reset), until a seed is given again."""
    e = env("fool", players=4, privileged=True)
    draws = random.Random(11)
    seeds = []
    for seed in (11, None, None, 3, 11, None):
        e.reset(seed=seed)
        seeds.append(e.infos["player_0"]["match_seed"])
    expected_11 = [draws.randrange(2**63), draws.randrange(2**63)]
    assert seeds == [11, *expected_11, 3, 11, expected_11[0]]
    assert e.game_state is not None  # the match of its seed
    assert e.game_state.serialize() == motley.load_game("fool", players=4).new_initial_state(
        seed=expected_11[0]).serialize()
