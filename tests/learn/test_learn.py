"""Learned policies: the NumPy Q network, self-play with rollout targets, the network and best bots, the trainer."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import motley
from motley.bots import make_bot
from motley.bots.best import BEST_DEFAULT, best_spec
from motley.bots.network import NetworkBot, shipped_network
from motley.bots.qnet import QNetwork, load, save
from motley.core.features import action_feature_table
from motley.core.registry import game_spec
from motley.core.search import SearchState
from motley.learn.qnet import random_network
from motley.learn.selfplay import continue_deal, play_deals, random_seatings, target_values

SINGLE_DEALS = ["fool(players=5,rounds=1)", "foolery(players=4,hands=1)"]


def plain_mlp(net: QNetwork, obs: np.ndarray, feats: np.ndarray, hints: np.ndarray) -> np.ndarray:
    """The network as written on paper: one MLP over the concatenated input."""
    parts = [np.repeat(obs[None, :], len(feats), axis=0), feats]
    if net.hint:
        parts.append(hints[:, None])
    x = np.concatenate(parts, axis=1).astype(np.float64)
    for i, (w, b) in enumerate(net.weights):
        x = x @ w + b
        if i < len(net.weights) - 1:
            x = np.maximum(x, 0.0)
    return x[:, 0]


@pytest.mark.parametrize("spec", SINGLE_DEALS)
def test_the_split_first_layer_scores_as_the_plain_network(spec: str) -> None:
    game = motley.load_game(spec)
    net = random_network(game, (32, 16), seed=3)
    table = action_feature_table(game)
    state = game.new_initial_state(seed=5)
    rng = random.Random(2)
    for _ in range(25):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        obs = state.observation_tensor(state.current_player())
        hints = np.zeros(len(legal), dtype=np.float32)
        hints[rng.randrange(len(legal))] = 1.0
        got = net.q_values(obs, legal, table, hints)
        assert np.allclose(got, plain_mlp(net, obs, table[legal], hints), atol=1e-4)
        state.apply_action(legal[rng.randrange(len(legal))])


def test_a_batch_scores_each_decision_as_alone() -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    net = random_network(game, (16,), seed=1)
    table = action_feature_table(game)
    states = [game.new_initial_state(seed=s) for s in range(6)]
    obs = np.stack([s.observation_tensor(s.current_player()) for s in states])
    legals = [s.legal_actions() for s in states]
    flat = np.array([a for legal in legals for a in legal], dtype=np.int64)
    owner = np.repeat(np.arange(len(states)), [len(legal) for legal in legals])
    hints = (np.arange(len(flat)) % 3 == 0).astype(np.float32)
    batch = net.q_batch(obs, flat, owner, table, hints)
    start = 0
    for i, legal in enumerate(legals):
        end = start + len(legal)
        alone = net.q_values(obs[i], legal, table, hints[start:end])
        assert np.allclose(batch[start:end], alone, atol=1e-5)
        start = end


def test_a_saved_network_loads_back_with_its_meta(tmp_path: Path) -> None:
    game = motley.load_game("foolery(players=5,hands=1)")
    net = random_network(game, (24, 8), seed=9, meta={"note": "x"})
    save(net, tmp_path / "n.npz", half=False)
    back = load(tmp_path / "n.npz", game)
    assert back.hint == net.hint and back.obs_size == net.obs_size and back.meta["note"] == "x"
    for (w, b), (w2, b2) in zip(net.weights, back.weights, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    save(net, tmp_path / "h.npz")  # float16: half the bytes, close values
    half = load(tmp_path / "h.npz", game)
    assert np.allclose(half.weights[0][0], net.weights[0][0], atol=2e-3)


def test_a_network_for_another_game_or_a_broken_file_is_refused(tmp_path: Path) -> None:
    fool = motley.load_game("fool(players=5,rounds=1)")
    save(random_network(fool, (8,), seed=0), tmp_path / "fool.npz")
    with pytest.raises(motley.MotleyError, match="observation floats"):
        load(tmp_path / "fool.npz", motley.load_game("fool(players=6,rounds=1)"))
    (tmp_path / "junk.npz").write_bytes(b"not an archive")
    with pytest.raises(motley.MotleyError, match="not a motley network"):
        load(tmp_path / "junk.npz")
    with pytest.raises(motley.MotleyError, match="not a motley network"):
        load(tmp_path / "missing.npz")


@pytest.mark.parametrize("spec", SINGLE_DEALS)
def test_deals_of_teacher_seats_without_exploration_are_the_heuristic_deals(spec: str) -> None:
    game = motley.load_game(spec)
    policy = game_spec(game.name).search_policy
    assert policy is not None
    seeds = [11, 12, 13]
    seatings = [["teacher"] * game.num_players for _ in seeds]
    samples, tally = play_deals(game, None, seeds, seatings, 0.0, random.Random(0))
    total = 0.0
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        start = list(state.scores())
        decisions: list[tuple[int, int]] = []
        while not state.is_terminal():
            legal = state.legal_actions()
            action = legal[0] if len(legal) == 1 else policy.move(state)
            if len(legal) > 1:
                decisions.append((state.current_player(), action))
            state.apply_action(action)
        total += sum(b - a for a, b in zip(start, state.scores(), strict=True))
        value = target_values(start, state, 0.3)
        rows = len(decisions)
        assert list(samples.actions[:rows]) == [a for _, a in decisions]
        assert np.allclose(samples.targets[:rows], [value[s] for s, _ in decisions])
        assert samples.hints[:rows].all()  # the teacher played the heuristic's choice every time
        samples.actions, samples.targets, samples.hints = (samples.actions[rows:], samples.targets[rows:],
                                                           samples.hints[rows:])
    assert len(samples) == 0
    assert tally.deals == 3 and tally.net_seats == 3 * game.num_players and tally.other_seats == 0
    assert tally.net_points == pytest.approx(total)


def seat0_first_decision(game: motley.Game, seed: int) -> tuple[motley.State, list[int], list[SearchState]]:
    """Seat 0's first real decision of a deal the heuristic plays: the state, its legal moves and, per move, a
    copy of the deal with that move made."""
    policy = game_spec(game.name).search_policy
    assert policy is not None
    state = game.new_initial_state(seed=seed)
    while state.current_player() != 0 or len(state.legal_actions()) == 1:
        state.apply_action(policy.move(state))
    legal = state.legal_actions()
    worlds = []
    for a in legal:
        world = state.clone()
        assert isinstance(world, SearchState)
        world.apply_action(a)
        worlds.append(world)
    return state, legal, worlds


def test_rollout_targets_are_each_actions_return_in_the_true_deal_less_their_mean() -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    policy = game_spec(game.name).search_policy
    assert policy is not None
    seating = ["teacher"] + ["heuristic"] * 4
    samples, _ = play_deals(game, None, [21], [seating], 0.0, random.Random(0), points_weight=0.5, rollouts=True,
                            max_actions=50)
    state, legal, worlds = seat0_first_decision(game, 21)
    returns = []
    for world in worlds:
        policy.rollout(world, random.Random(0), 0.0)
        returns.append(target_values([0] * 5, world, 0.5)[0])
    first = dict(zip(samples.actions[:len(legal)].tolist(), samples.targets[:len(legal)].tolist(), strict=True))
    assert sorted(first) == legal
    mean = sum(returns) / len(returns)
    for a, r in zip(legal, returns, strict=True):
        assert first[a] == pytest.approx(r - mean, abs=1e-6)
    assert samples.hints[:len(legal)].sum() == 1 and samples.actions[0] == policy.move(state)


def test_network_seats_play_the_highest_q_and_are_tallied() -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    net = random_network(game, (16,), seed=4)
    seatings = random_seatings(5, 8, 0.5, random.Random(3))
    assert all("net" in s for s in seatings)
    _, tally = play_deals(game, net, list(range(8)), seatings, 0.0, random.Random(1))
    assert tally.net_seats + tally.other_seats == 40 and tally.deals == 8
    assert tally.net_seats == sum(s.count("net") for s in seatings)
    assert 0.0 <= tally.net_wins <= tally.net_seats
    samples, _ = play_deals(game, net, [0], seatings[:1], 0.0, random.Random(1))
    table = action_feature_table(game)
    policy = game_spec(game.name).search_policy
    assert policy is not None
    # replay the first deal: every network decision is the argmax of Q with the heuristic's hint
    state = game.new_initial_state(seed=0)
    row = 0
    while not state.is_terminal():
        seat, legal = state.current_player(), state.legal_actions()
        choice = legal[0] if len(legal) == 1 else policy.move(state)
        if seatings[0][seat] == "net" and len(legal) > 1:
            hints = np.array([a == choice for a in legal], dtype=np.float32)
            q = net.q_values(state.observation_tensor(seat), legal, table, hints)
            choice = legal[int(np.argmax(q))]
            assert samples.actions[row] == choice
            row += 1
        state.apply_action(choice)
    assert row == len(samples) > 0


@pytest.mark.parametrize("spec", ["fools_errand", "fool(players=4)", "foolery(players=3)"])
def test_the_network_bot_reads_the_seats_tensor_from_the_observation_alone(spec: str, tmp_path: Path) -> None:
    game = motley.load_game(spec)
    net = random_network(game, (8,), seed=0, hint=False)
    path = tmp_path / "net.npz"
    save(net, path, half=False)
    bot = NetworkBot(game, str(path))
    rng = random.Random(7)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            seat = state.current_player()
            assert np.array_equal(bot.tensor(state.observation(seat)), state.observation_tensor(seat))
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])


def test_the_network_bot_plays_its_best_move_and_explains_it(tmp_path: Path) -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    save(random_network(game, (16, 8), seed=2), tmp_path / "n.npz", half=False)
    bot = make_bot(f"network(weights={tmp_path / 'n.npz'})", game)
    assert isinstance(bot, NetworkBot)
    state = game.new_initial_state(seed=4)
    while len(state.legal_actions()) < 3:
        state.apply_action(state.legal_actions()[0])
    seat, legal = state.current_player(), state.legal_actions()
    action = bot.act(state.observation(seat), legal, random.Random(0))
    explained = bot.explain()
    assert sorted(e["action"] for e in explained) == legal
    assert explained[0]["action"] == action
    assert [e["move"] for e in explained] == [state.action_to_string(e["action"]) for e in explained]
    assert [e["q"] for e in explained] == sorted((e["q"] for e in explained), reverse=True)
    heuristic = make_bot("heuristic", game).act(state.observation(seat), legal, random.Random(0))
    assert [e["action"] for e in explained if e["heuristic"]] == [heuristic]


def test_a_network_bot_without_weights_names_what_is_missing() -> None:
    game = motley.load_game("fools_errand")
    assert shipped_network(game) is None
    with pytest.raises(motley.MotleyError, match="no network for fools_errand"):
        make_bot("network", game)


@pytest.mark.parametrize("name", motley.registered_games())
def test_every_shipped_network_fits_its_game_and_best_is_a_bot_of_every_game(name: str) -> None:
    for key, _ in game_spec(name).networks.items():
        game = motley.load_game(key)
        assert str(game) == key  # the key is the canonical game string the bot looks up
        path = shipped_network(game)
        assert path is not None and path.stat().st_size <= 5_000_000
        load(path, game)
        assert make_bot("network", game).act is not None
    game = motley.load_game(name)
    bot = make_bot("best", game)
    assert bot.name == "best"
    named = game_spec(name).best_bot or BEST_DEFAULT
    assert best_spec(game) == (BEST_DEFAULT if named == "network" and shipped_network(game) is None else named)
    for key in game_spec(name).networks if named == "network" else ():
        assert isinstance(make_bot("best", motley.load_game(key)), NetworkBot)  # where the network is shipped
    state = game.new_initial_state(seed=1)
    legal = state.legal_actions()
    if len(legal) > 1:
        assert bot.act(state.observation(state.current_player()), legal, random.Random(0)) in legal


def test_best_takes_no_options() -> None:
    with pytest.raises(motley.MotleyError, match="best takes no options"):
        make_bot("best(simulations=5)", motley.load_game("fool"))


def test_a_short_training_run_writes_a_network_that_plays_as_its_model(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from motley.learn.dmc import TrainConfig, _make_learner, train

    config = TrainConfig(game="fool(players=5,rounds=1)", minutes=0.05, actors=0, hidden=(16,), deals_per_batch=4,
                         teach_samples=200, eval_every=1.0, eval_deals=2, batch_size=64, buffer=5000)
    curve = train(config, tmp_path)
    assert curve and all(0.0 <= p.win_share <= 1.0 for p in curve)
    assert curve[-1].samples > 200  # it went past the teacher's decisions
    for name in ("network.npz", "checkpoint.pt", "curve.csv", "config.json"):
        assert (tmp_path / name).exists()
    game = motley.load_game(config.game)
    net = load(tmp_path / "network.npz", game)
    learner = _make_learner(game, config)
    learner.model.load_state_dict(torch.load(tmp_path / "checkpoint.pt")["model"])
    exact = learner.network()
    state = game.new_initial_state(seed=3)
    legal = state.legal_actions()
    obs = state.observation_tensor(state.current_player())
    table = action_feature_table(game)
    hints = np.zeros(len(legal), dtype=np.float32)
    x = np.concatenate([np.repeat(obs[None], len(legal), 0), table[legal], hints[:, None]], axis=1)
    with torch.no_grad():
        expected = learner.model(torch.from_numpy(x)).numpy()[:, 0]
    assert np.allclose(exact.q_values(obs, legal, table, hints), expected, atol=1e-4)
    assert np.allclose(net.q_values(obs, legal, table, hints), expected, atol=0.05)  # saved in float16


def test_with_a_continuation_network_the_seat_plays_on_by_it_in_the_rollouts() -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    policy = game_spec(game.name).search_policy
    assert policy is not None
    follow = random_network(game, (8,), seed=6)
    seating = ["teacher"] + ["heuristic"] * 4
    plain, _ = play_deals(game, None, [21], [seating], 0.0, random.Random(0), rollouts=True, max_actions=50)
    samples, _ = play_deals(game, None, [21], [seating], 0.0, random.Random(0), rollouts=True, max_actions=50,
                            continuation=follow)
    _, legal, worlds = seat0_first_decision(game, 21)
    returns = []
    for world in worlds:
        continue_deal(world, 0, follow, action_feature_table(game), policy.move)
        assert world.is_terminal()
        returns.append(target_values([0] * 5, world, 0.3)[0])
    mean = sum(returns) / len(returns)
    got = dict(zip(samples.actions[:len(legal)].tolist(), samples.targets[:len(legal)].tolist(), strict=True))
    assert all(got[a] == pytest.approx(r - mean, abs=1e-6) for a, r in zip(legal, returns, strict=True))
    assert len(samples) == len(plain) and not np.allclose(samples.targets, plain.targets)  # it played otherwise


def test_targets_over_several_worlds_are_centred_per_decision_and_less_spread() -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    seating = ["teacher"] * 5
    one, _ = play_deals(game, None, [8, 9], [seating] * 2, 0.0, random.Random(0), rollouts=True, max_actions=50)
    many, _ = play_deals(game, None, [8, 9], [seating] * 2, 0.0, random.Random(0), rollouts=True, max_actions=50,
                         worlds=6)
    assert np.array_equal(one.actions, many.actions)  # the same decisions, the same actions tried
    # each decision's rows start with the action played (the heuristic's, hint 1): split the rows there
    starts = np.flatnonzero(many.hints == 1).tolist() + [len(many)]
    for a, b in itertools.pairwise(starts):
        assert abs(float(many.targets[a:b].sum())) < 1e-4
    assert not np.allclose(one.targets, many.targets)
    assert float(np.abs(many.targets).mean()) < float(np.abs(one.targets).mean())


def test_training_without_pytorch_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from motley.cli.main import app

    monkeypatch.setitem(sys.modules, "torch", None)  # as if PyTorch were not installed
    result = CliRunner().invoke(app, ["train", "fool(players=5,rounds=1)", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "'train' extra" in result.stderr and "pip install 'motley[train]'" in result.stderr
    assert not (tmp_path / "run").exists()


def test_the_bot_list_has_network_and_best() -> None:
    from motley.bots import bot_kinds

    assert {"network", "best"} <= set(bot_kinds())


def test_a_resumed_run_goes_on_from_its_checkpoint_and_curve(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from motley.learn.dmc import TrainConfig, train

    config = TrainConfig(game="fool(players=5,rounds=1)", minutes=0.03, actors=0, hidden=(16,), deals_per_batch=4,
                         teach_samples=100, eval_every=1.0, eval_deals=2, batch_size=64, buffer=5000)
    first = train(config, tmp_path)
    steps = float(torch.load(tmp_path / "checkpoint.pt")["optimiser"]["state"][0]["step"])
    again = train(config, tmp_path, resume=True)
    assert [(p.seconds, p.samples, p.win_share) for p in again[:len(first)]] == [
        (p.seconds, p.samples, p.win_share) for p in first]
    assert len(again) > len(first)
    assert again[len(first)].seconds > first[-1].seconds and again[len(first)].samples > first[-1].samples
    assert (tmp_path / f"config-resume-{len(first)}.json").exists()
    # the optimiser went on from its saved state: Adam's step count kept growing
    assert float(torch.load(tmp_path / "checkpoint.pt")["optimiser"]["state"][0]["step"]) > steps > 0


def cmdline(pid: int) -> bytes:
    """A process's command line (Linux /proc), empty once it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_the_actors_of_a_killed_training_run_stop_too(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    import os
    import signal
    import subprocess
    import time

    from tests.support import children

    code = ("from motley.learn.dmc import TrainConfig, train\n"
            "if __name__ == '__main__':\n"
            f"    train(TrainConfig(game='fool(players=5,rounds=1)', minutes=5, actors=1, hidden=(8,), "
            f"eval_every=600, eval_deals=1), {str(tmp_path)!r})\n")
    script = tmp_path / "run.py"
    script.write_text(code)
    parent = subprocess.Popen([sys.executable, str(script)], env={**os.environ, "PYTHONPATH": "src"})
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while time.monotonic() < deadline and not any(b"spawn_main" in cmdline(pid) for pid in workers):
            time.sleep(0.2)  # the actor starts after the first evaluation
            workers = children(parent.pid)
        assert any(b"spawn_main" in cmdline(pid) for pid in workers), "the run started its actor process"
        time.sleep(1)
    finally:
        os.kill(parent.pid, signal.SIGKILL)  # no clean-up: the actors must notice by themselves
        parent.wait()
    for _ in range(50):
        if not any(Path(f"/proc/{pid}").exists() for pid in workers):
            break
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
