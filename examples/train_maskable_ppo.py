"""Train a MaskablePPO agent (sb3-contrib) for one motley game on the CPU, and plot its win share.

The agent plays one seat of :class:`motley.envs.gymnasium.SingleSeatEnv` (its seat drawn at random every
match) against ``random`` bots. Every ``--eval-every`` steps the current policy (greedy over the legal
actions) plays ``--eval-matches`` matches against random bots on a fixed list of seeds, and its win
share (matches with a positive return) is recorded with a 95% interval; a uniformly random player on
the same seeds is the baseline. Figures go to ``<out>/<game>_ppo.json`` / ``.csv`` and the plot to
``<out>/<game>_ppo.png``; ``--out`` defaults to the run folder ``runs/maskable_ppo/<game>_<players>p``
under the current directory (``runs/`` is ignored by git), so a run writes into the repository's docs only
when asked: the figures in docs/training/ were made with ``--out docs/training`` (the command in
docs/training/README.md).

How many steps a time budget buys depends on the machine and its load (the training runs in one thread):
docs/training/README.md gives its run's rate with the machine it ran on.

Needs the ``train`` extra: ``pip install -e ".[train]"`` (sb3-contrib, torch, matplotlib).

Example (about 5 minutes on one core)::

    .venv/bin/python examples/train_maskable_ppo.py --game "fool(players=4)" --minutes 5
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from motley.envs import as_game
from motley.envs.gymnasium import SingleSeatEnv

#: The folder every run writes under, relative to the current directory.
RUNS = Path("runs") / "maskable_ppo"


def win_share(policy: Any, game_spec: str, seeds: list[int]) -> tuple[float, float]:
    """Win share (return > 0) of ``policy`` over matches on ``seeds`` against random bots, and its 95% half-width.

    ``policy`` is a MaskablePPO model, or None for a uniformly random legal player.
    """
    env = SingleSeatEnv(game_spec, seat=None, opponents="random")
    rng = np.random.default_rng(12345)
    wins = 0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done = False
        reward = 0.0
        while not done:
            mask = info["action_mask"].astype(bool)
            if policy is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action, _ = policy.predict(obs, action_masks=mask, deterministic=True)
            obs, reward, done, _, info = env.step(int(action))
        wins += reward > 0
    p = wins / len(seeds)
    return p, 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / len(seeds))


def eval_callback(game_spec: str, seeds: list[int], every: int, seconds: float, log: list[dict[str, Any]]) -> Any:
    """The callback (stable-baselines3, imported here) that evaluates the policy every ``every`` steps and stops
    training after ``seconds``."""
    from stable_baselines3.common.callbacks import BaseCallback

    class EvalCallback(BaseCallback):
        """Evaluates the policy every ``every`` steps and stops training after ``seconds``."""

        def __init__(self, game_spec: str, seeds: list[int], every: int, seconds: float, log: list[dict[str, Any]]):
            super().__init__()
            self.game_spec, self.seeds, self.every, self.seconds, self.log = game_spec, seeds, every, seconds, log
            self.start = time.monotonic()
            self.next_eval = every
            self.train_time = 0.0

        def _evaluate(self) -> None:
            t0 = time.monotonic()
            p, half = win_share(self.model, self.game_spec, self.seeds)
            eval_time = time.monotonic() - t0
            self.log.append({"timesteps": int(self.num_timesteps), "train_seconds": round(self.train_time, 1),
                             "win_share": round(p, 4), "ci95": round(half, 4)})
            print(f"steps {self.num_timesteps:>8}  train {self.train_time:6.0f}s  win share {p:.3f} ± {half:.3f}"
                  f"  (eval {eval_time:.0f}s)", flush=True)
            self.start += eval_time  # evaluation time does not count against the training budget

        def _on_training_start(self) -> None:
            self.start = time.monotonic()
            self._evaluate()

        def _on_step(self) -> bool:
            self.train_time = time.monotonic() - self.start
            if self.num_timesteps >= self.next_eval:
                self.next_eval += self.every
                self._evaluate()
            return self.train_time < self.seconds

    return EvalCallback(game_spec, seeds, every, seconds, log)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; ``out`` defaults to ``RUNS / <game's name and players>``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="fool(players=4)", help="game string, e.g. 'fool(players=4)'")
    parser.add_argument("--minutes", type=float, default=5.0, help="training time budget (evaluation excluded)")
    parser.add_argument("--eval-every", type=int, default=20_000, help="environment steps between evaluations")
    parser.add_argument("--eval-matches", type=int, default=400, help="matches per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help=f"directory for the figures and the plot (default: {RUNS}/<game>_<players>p)")
    args = parser.parse_args(argv)
    if args.out is None:
        game = as_game(args.game)
        args.out = RUNS / f"{game.name}_{game.num_players}p"
    return args


def main() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    args = parse_args()
    torch.set_num_threads(1)
    game = as_game(args.game)
    spec = str(game)
    stem = f"{game.name}_{game.num_players}p_ppo"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = [10_000_000 + i for i in range(args.eval_matches)]

    baseline, baseline_half = win_share(None, spec, seeds)
    print(f"random baseline on the evaluation seeds: {baseline:.3f} ± {baseline_half:.3f}", flush=True)

    env = SingleSeatEnv(spec, seat=None, opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=2048, batch_size=256, learning_rate=3e-4, gamma=1.0,
                        ent_coef=0.01, seed=args.seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": [256, 256]})
    log: list[dict[str, Any]] = []
    callback = eval_callback(spec, seeds, args.eval_every, args.minutes * 60, log)
    model.learn(total_timesteps=10**9, callback=callback)
    callback._evaluate()

    result = {"game": spec, "players": game.num_players, "opponents": "random", "algorithm": "MaskablePPO",
              "minutes": args.minutes, "eval_matches": args.eval_matches, "seed": args.seed,
              "random_baseline": {"win_share": round(baseline, 4), "ci95": round(baseline_half, 4)},
              "evaluations": log}
    (out / f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    with open(out / f"{stem}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(log[0]))
        writer.writeheader()
        writer.writerows(log)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [e["timesteps"] for e in log]
    share = np.array([e["win_share"] for e in log])
    half = np.array([e["ci95"] for e in log])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, share, marker="o", label="MaskablePPO (greedy)")
    ax.fill_between(steps, share - half, share + half, alpha=0.2)
    ax.axhline(baseline, color="grey", linestyle="--", label=f"random player ({baseline:.3f})")
    ax.set_xlabel("environment steps (learner decisions)")
    ax.set_ylabel(f"win share vs random, {args.eval_matches} matches")
    ax.set_title(f"{spec}: MaskablePPO against random bots ({args.minutes:g} min CPU)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / f"{stem}.png", dpi=120)
    print(f"wrote {out / (stem + '.png')}, {out / (stem + '.json')}, {out / (stem + '.csv')}")


if __name__ == "__main__":
    main()
