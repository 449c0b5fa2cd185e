"""Deep Monte-Carlo training of a Q(s, a) network by self-play (``motley train``; PyTorch, the ``train`` extra).

The method of DouZero (Zha et al., ICML 2021) for one game configuration with a single deal (``fool(players=5,
rounds=1)``, ``foolery(players=5,hands=1)``):

* **Actors** (``actors`` processes, NumPy only) play batches of deals with the latest weights
  (:func:`motley.learn.selfplay.play_deals`) and send the recorded decisions with their Monte-Carlo targets.
  Each seat of a deal is the network with probability ``net_share`` and otherwise the game's heuristic, so the
  network learns against itself and against the heuristic. For the first ``teach_samples`` decisions the
  network seats play the heuristic instead (``"teacher"``): the network learns the heuristic's Q first, and
  acting greedily on it already improves on the heuristic.
* **The learner** (this process, PyTorch on the CPU, or CUDA when ``device="cuda"``) keeps the newest
  ``buffer`` decisions and fits Q(s, a) to the targets by mean squared error with Adam, using each decision about
  ``reuse`` times; after every batch it hands the new weights to the actors.
* **Every** ``eval_every`` seconds the greedy network plays ``eval_deals`` fixed deals against the heuristic,
  in each seat once (duplicate deals): the win share and mean points go to the learning curve
  (``curve.csv``, ``curve.png``), and the network to ``network.npz`` (the format of :mod:`motley.bots.qnet`) with
  ``checkpoint.pt`` (model and optimiser, for ``resume``).

Everything is drawn from ``seed``: the deals, the seatings, the initial weights. The actors' timing decides which
weights play which deal, so two runs agree only with ``actors=0`` (the actor runs in this process, in turn with
the learner).
"""

from __future__ import annotations

import contextlib
import csv
import json
import multiprocessing as mp
import os
import queue
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from motley.bots.qnet import QNetwork, load, save
from motley.core import Game, MotleyError, load_game
from motley.core.extras import require
from motley.core.features import action_feature_table
from motley.core.processes import exit_with_parent
from motley.learn.qnet import random_network
from motley.learn.selfplay import Samples, Tally, play_deals, random_seatings

__all__ = ["TrainConfig", "evaluate", "train"]


@dataclass
class TrainConfig:
    """What a training run does (saved as ``config.json`` beside the weights).

    Attributes:
        game: the game string (a single-deal configuration).
        minutes: wall-clock budget of the whole run, evaluations included.
        seed: the seed of every draw.
        hidden: hidden layer sizes of the network.
        actors: actor processes (0: one actor in this process, deterministic).
        deals_per_batch: deals an actor plays per batch.
        net_share: chance that a seat is the network (else the heuristic).
        epsilon: share of random moves of the network and teacher seats.
        points_weight: weight of the centred score gain in the targets (:mod:`motley.learn.selfplay`).
        teach_samples: decisions recorded from the heuristic before the network plays itself.
        rollouts: rollout targets for every recorded decision (:mod:`motley.learn.selfplay`), else the deal's
            return of the move played; max_actions: the most actions of a decision given a rollout target.
        lr: Adam's learning rate; batch_size: decisions per update; reuse: updates per decision on average.
        buffer: decisions kept for training (the newest).
        eval_every: seconds between evaluations; eval_deals: fixed deals per evaluation (each played once with
            the network in every seat).
        device: ``"cpu"`` or ``"cuda"``.
        init: a network file to start from (its layer sizes replace ``hidden``); "" for new weights.
        continuation: a network file the recorded seat plays by in the rollouts (:mod:`motley.learn.selfplay`);
            "" for the heuristic.
        worlds: worlds each rollout target is averaged over (the true deal and ``worlds - 1`` determinizations).
    """

    game: str
    minutes: float = 30.0
    seed: int = 0
    hidden: tuple[int, ...] = (256, 256)
    actors: int = 1
    deals_per_batch: int = 64
    net_share: float = 0.5
    epsilon: float = 0.05
    points_weight: float = 0.5
    teach_samples: int = 200_000
    rollouts: bool = True
    max_actions: int = 8
    lr: float = 1e-3
    batch_size: int = 1024
    reuse: float = 1.0
    buffer: int = 300_000
    eval_every: float = 120.0
    eval_deals: int = 100
    device: str = "cpu"
    init: str = ""
    continuation: str = ""
    worlds: int = 1


@dataclass
class CurvePoint:
    """One row of the learning curve."""

    seconds: float
    samples: int
    updates: int
    loss: float
    win_share: float
    win_share_ci: float
    mean_points: float
    others_points: float


def evaluate(game: Game, net: QNetwork, seeds: Sequence[int]) -> Tally:
    """The greedy network in each seat in turn against the heuristic on every deal of ``seeds``."""
    players = game.num_players
    seatings = [["net" if s == seat else "heuristic" for s in range(players)] for _ in seeds for seat in range(players)]
    deal_seeds = [seed for seed in seeds for _ in range(players)]
    _, tally = play_deals(game, net, deal_seeds, seatings, 0.0, random.Random(0), record=False)
    return tally


def _actor(game_text: str, config: TrainConfig, index: int, weights: Any, out: Any, stop: Any, parent: int) -> None:
    """An actor process: play batches with the newest weights until ``stop`` is set or the learner is gone."""
    exit_with_parent(parent)
    game = load_game(game_text)
    rng = random.Random(config.seed * 1000 + index + 1)
    follow = load(config.continuation, game) if config.continuation else None
    net: QNetwork | None = None
    teaching = True
    while not stop.is_set():
        try:
            message = weights.get(timeout=0.0 if net is not None else 1.0)
            net, teaching = message
        except queue.Empty:
            if net is None:
                continue
        samples, tally = _play_batch(game, net, config, rng, teaching, follow)
        while not stop.is_set():
            try:
                out.put((samples, tally), timeout=0.5)
                break
            except queue.Full:
                continue


def _play_batch(game: Game, net: QNetwork | None, config: TrainConfig, rng: random.Random,
                teaching: bool, follow: QNetwork | None = None) -> tuple[Samples, Tally]:
    seeds = [rng.randrange(2**62) for _ in range(config.deals_per_batch)]
    role = "teacher" if teaching else "net"
    seatings = random_seatings(game.num_players, len(seeds), config.net_share, rng, role)
    return play_deals(game, net, seeds, seatings, config.epsilon, rng, config.points_weight,
                      rollouts=config.rollouts, max_actions=config.max_actions, continuation=follow,
                      worlds=config.worlds)


class _Buffer:
    """The newest ``capacity`` decisions, as arrays (a ring)."""

    def __init__(self, capacity: int, obs_size: int) -> None:
        self.obs = np.zeros((capacity, obs_size), dtype=np.float16)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.targets = np.zeros(capacity, dtype=np.float32)
        self.hints = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0

    def add(self, samples: Samples) -> None:
        n = len(samples)
        capacity = self.actions.shape[0]
        idx = (self.next + np.arange(n)) % capacity
        self.obs[idx] = samples.obs
        self.actions[idx] = samples.actions
        self.targets[idx] = samples.targets
        self.hints[idx] = samples.hints
        self.next = int((self.next + n) % capacity)
        self.size = min(capacity, self.size + n)

    def sample(self, rng: np.random.Generator, count: int) -> tuple[npt.NDArray[np.float16], npt.NDArray[np.int64],
                                                                     npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        idx = rng.integers(0, self.size, count)
        return self.obs[idx], self.actions[idx], self.targets[idx], self.hints[idx]


@dataclass
class _Learner:
    """The PyTorch side: the model, the optimiser and the conversion to :class:`QNetwork`."""

    torch: Any
    model: Any
    optimiser: Any
    table: Any
    obs_size: int
    device: str
    meta: dict[str, Any] = field(default_factory=dict)

    def step(self, obs: npt.NDArray[np.float16], actions: npt.NDArray[np.int64], targets: npt.NDArray[np.float32],
             hints: npt.NDArray[np.float32]) -> float:
        torch = self.torch
        x_obs = torch.from_numpy(obs.astype(np.float32)).to(self.device)
        x_act = self.table[torch.from_numpy(actions).to(self.device)]
        x_hint = torch.from_numpy(hints).to(self.device)[:, None]
        y = torch.from_numpy(targets).to(self.device)
        q = self.model(torch.cat([x_obs, x_act, x_hint], dim=1)).squeeze(1)
        loss = torch.nn.functional.mse_loss(q, y)
        self.optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 40.0)
        self.optimiser.step()
        return float(loss.item())

    def network(self) -> QNetwork:
        layers = [m for m in self.model if isinstance(m, self.torch.nn.Linear)]
        weights = [(m.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                    m.bias.detach().cpu().numpy().astype(np.float32).copy()) for m in layers]
        return QNetwork(weights, self.obs_size, dict(self.meta), hint=True)


def _make_learner(game: Game, config: TrainConfig) -> _Learner:
    torch = require("torch", "train", "motley train")
    torch.manual_seed(config.seed)
    start = load(config.init, game) if config.init else random_network(game, config.hidden, config.seed)
    if not start.hint:
        raise MotleyError(f"{config.init}: training needs a network that reads the heuristic's choice (hint)")
    modules: list[Any] = []
    for i, (w, b) in enumerate(start.weights):
        linear = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(w.T.copy()))
            linear.bias.copy_(torch.from_numpy(b))
        modules.append(linear)
        if i < len(start.weights) - 1:
            modules.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*modules).to(config.device)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr)
    table = torch.from_numpy(np.array(action_feature_table(game))).to(config.device)
    meta = {"game": str(game), "method": "deep Monte-Carlo", "config": asdict(config)}
    return _Learner(torch, model, optimiser, table, start.obs_size, config.device, meta)


def train(config: TrainConfig, out_dir: str | Path, progress: Callable[[float, str], None] | None = None,
          resume: bool = False) -> list[CurvePoint]:
    """Run the training of ``config``, writing ``network.npz``, ``checkpoint.pt``, ``curve.csv``, ``curve.png``
    (when matplotlib is installed) and ``config.json`` into ``out_dir``.

    Args:
        config: the run.
        out_dir: where the files go (created).
        progress: called with the share of the budget spent (0..1) and a one-line status.
        resume: start from ``out_dir/checkpoint.pt`` (model and optimiser) instead of new weights.
    Returns:
        The learning curve.
    Raises:
        MissingExtraError: PyTorch is not installed.
        MotleyError: a game without a heuristic on full states.
    """
    game = load_game(config.game)
    learner = _make_learner(game, config)  # PyTorch, or MissingExtraError before any file is written
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    previous = _read_curve(out) if resume and (out / "checkpoint.pt").exists() else []
    name = f"config-resume-{len(previous)}.json" if previous else "config.json"
    (out / name).write_text(json.dumps(asdict(config), indent=2) + "\n")
    torch = learner.torch
    torch.set_num_threads(1 if config.device == "cpu" else torch.get_num_threads())
    if previous:
        saved = torch.load(out / "checkpoint.pt", map_location=config.device)
        learner.model.load_state_dict(saved["model"])
        learner.optimiser.load_state_dict(saved["optimiser"])
    run = _Run(game, config, learner, out, progress, previous)
    return run.loop()


def _read_curve(out: Path) -> list[CurvePoint]:
    """The learning curve of an earlier run in ``out`` (empty if there is none)."""
    if not (out / "curve.csv").exists():
        return []
    with (out / "curve.csv").open(newline="") as f:
        return [CurvePoint(float(r["seconds"]), int(r["samples"]), int(r["updates"]), float(r["loss"]),
                           float(r["win_share"]), float(r["win_share_ci"]), float(r["mean_points"]),
                           float(r["others_points"])) for r in csv.DictReader(f)]


class _Run:
    """One training run's loop and bookkeeping."""

    def __init__(self, game: Game, config: TrainConfig, learner: _Learner, out: Path,
                 progress: Callable[[float, str], None] | None, previous: Sequence[CurvePoint] = ()) -> None:
        self.game, self.config, self.learner, self.out, self.progress = game, config, learner, out, progress
        self.buffer = _Buffer(config.buffer, learner.obs_size)
        self.rng = np.random.default_rng(config.seed)
        self.eval_seeds = [random.Random(config.seed * 7919 + i).randrange(2**62) for i in range(config.eval_deals)]
        self.curve: list[CurvePoint] = list(previous)  # a resumed run's curve goes on from the earlier one's
        self.offset = previous[-1].seconds if previous else 0.0
        self.samples = previous[-1].samples if previous else 0
        self.updates = previous[-1].updates if previous else 0
        self.losses: list[float] = []
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        """Seconds of this run so far (the budget's clock)."""
        return time.perf_counter() - self.start

    def teaching(self) -> bool:
        return self.samples < self.config.teach_samples

    def loop(self) -> list[CurvePoint]:
        budget = self.config.minutes * 60.0
        if not self.curve:
            self.evaluate()
        next_eval = self.config.eval_every
        if self.config.actors == 0:
            rng = random.Random(self.config.seed + 1)
            follow = load(self.config.continuation, self.game) if self.config.continuation else None
            while self.elapsed() < budget:
                net = None if self.teaching() else self.learner.network()
                self.learn(*_play_batch(self.game, net, self.config, rng, self.teaching(), follow))
                if self.elapsed() >= next_eval:
                    self.evaluate()
                    next_eval += self.config.eval_every
        else:
            self._with_actors(budget, next_eval)
        if not self.curve or self.offset + self.elapsed() - self.curve[-1].seconds > 1.0:
            self.evaluate()  # the final weights, unless an evaluation has just been made
        return self.curve

    def _with_actors(self, budget: float, next_eval: float) -> None:
        context = mp.get_context("spawn")
        stop = context.Event()
        results: Any = context.Queue(maxsize=4)
        inboxes = [context.Queue(maxsize=1) for _ in range(self.config.actors)]
        procs = [context.Process(target=_actor, args=(self.config.game, self.config, i, inboxes[i], results, stop,
                                                      os.getpid()), daemon=True) for i in range(self.config.actors)]
        for p in procs:
            p.start()
        try:
            self._send(inboxes)
            while self.elapsed() < budget:
                try:
                    samples, tally = results.get(timeout=1.0)
                except queue.Empty:
                    continue
                self.learn(samples, tally)
                self._send(inboxes)
                if self.elapsed() >= next_eval:
                    self.evaluate()
                    next_eval += self.config.eval_every
        finally:
            stop.set()
            for p in procs:
                p.join(timeout=5)
                if p.is_alive():
                    p.kill()

    def _send(self, inboxes: Sequence[Any]) -> None:
        net = None if self.teaching() else self.learner.network()
        for inbox in inboxes:
            with contextlib.suppress(queue.Empty):
                inbox.get_nowait()
            inbox.put((net, self.teaching()))

    def learn(self, samples: Samples, tally: Tally) -> None:
        self.buffer.add(samples)
        self.samples += len(samples)
        steps = max(1, round(len(samples) * self.config.reuse / self.config.batch_size))
        for _ in range(steps):
            self.losses.append(self.learner.step(*self.buffer.sample(self.rng, self.config.batch_size)))
            self.updates += 1
        if self.progress is not None:
            loss = float(np.mean(self.losses[-50:])) if self.losses else float("nan")
            phase = "teacher" if self.teaching() else "self-play"
            self.progress(min(1.0, self.elapsed() / (self.config.minutes * 60.0)),
                          f"{self.samples:,} decisions, {self.updates:,} updates, loss {loss:.4f} ({phase})")

    def evaluate(self) -> None:
        net = self.learner.network()
        net.meta.update(samples=self.samples, updates=self.updates, seconds=round(self.offset + self.elapsed(), 1))
        tally = evaluate(self.game, net, self.eval_seeds)
        share = tally.net_wins / max(1, tally.net_seats)
        ci = 1.96 * float(np.sqrt(share * (1 - share) / max(1, tally.net_seats)))
        point = CurvePoint(round(self.offset + self.elapsed(), 1), self.samples, self.updates,
                           float(np.mean(self.losses[-200:])) if self.losses else float("nan"), share, ci,
                           tally.net_points / max(1, tally.net_seats), tally.other_points / max(1, tally.other_seats))
        self.curve.append(point)
        save(net, self.out / "network.npz")
        self.learner.torch.save({"model": self.learner.model.state_dict(),
                                 "optimiser": self.learner.optimiser.state_dict()}, self.out / "checkpoint.pt")
        _write_curve(self.curve, self.out, 1.0 / self.game.num_players)
        if self.progress is not None:
            self.progress(min(1.0, self.elapsed() / (self.config.minutes * 60.0)),
                          f"evaluation: win share {share:.3f} ± {ci:.3f}, points {point.mean_points:.2f} vs "
                          f"{point.others_points:.2f}")


def _write_curve(curve: Sequence[CurvePoint], out: Path, fair: float) -> None:
    with (out / "curve.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(asdict(curve[0])))
        writer.writeheader()
        for point in curve:
            writer.writerow(asdict(point))
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
    except ModuleNotFoundError:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    minutes = [p.seconds / 60 for p in curve]
    ax1.errorbar(minutes, [p.win_share for p in curve], yerr=[p.win_share_ci for p in curve], marker="o",
                 label="network")
    ax1.axhline(fair, color="grey", linestyle="--", label="fair share (the heuristic's own)")
    ax1.legend()
    ax1.set_xlabel("training minutes")
    ax1.set_ylabel("win share vs heuristics (95% interval)")
    ax2.plot(minutes, [p.mean_points for p in curve], marker="o", label="network")
    ax2.plot(minutes, [p.others_points for p in curve], marker="s", label="heuristics")
    ax2.set_xlabel("training minutes")
    ax2.set_ylabel("mean points per deal")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=100)
    plt.close(fig)
