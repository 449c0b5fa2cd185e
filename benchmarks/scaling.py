"""Scaling of ``motley simulate``: games/s with 1 and 2 (or more) worker processes, per game.

Runs the same simulation (random bots, seats rotated, the same seed) for each worker count, ``--repeat``
times with the worker counts interleaved, and prints a Markdown table: the best and the median games/s
of the repeats (on a shared machine the best run is the least disturbed one), the speed-up of the best
over one worker's best, and the load average before the runs. With ``--json`` the figures are printed as
JSON too. Every run must produce the same summary, as the simulator promises (checked).

    .venv/bin/python benchmarks/scaling.py                        # every registered game, 1 and 2 workers
    .venv/bin/python benchmarks/scaling.py fool --games 2000 --workers 1,2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from dataclasses import asdict, dataclass

import motley
from motley.eval import simulate

#: Games per run, per game, sized for a few seconds to a minute per run on one core.
DEFAULT_GAMES = {"fools_errand": 12000, "fool": 2000, "foolery": 300}


@dataclass
class Row:
    """One game and worker count: games per run, best (max) and median games/s over the repeats, speed-up
    of the best over the first worker count's best, the 1-minute load average before the runs, and games per
    CPU-second (this process and its workers: the cost of a game, whatever else the machine is doing)."""

    game: str
    games: int
    workers: int
    best_games_per_s: float
    median_games_per_s: float
    load_before: float
    games_per_cpu_s: float = 0.0
    speedup: float = 1.0


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished child processes (the pool's workers)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def measure(spec: str, n: int, workers: list[int], bots: list[str], seed: int, repeat: int = 3) -> list[Row]:
    """``repeat`` simulations of ``n`` games per worker count, interleaved: best and median games/s.

    Raises:
        AssertionError: if two worker counts give different summaries (they must not).
    """
    game = motley.load_game(spec)
    load = os.getloadavg()[0]
    rates: dict[int, list[float]] = {w: [] for w in workers}
    cpu: dict[int, float] = {w: 0.0 for w in workers}
    reference = None
    for _ in range(repeat):
        for w in workers:
            start, cpu_start = time.perf_counter(), _cpu_seconds()
            summary = simulate(game, bots, n, seed=seed, workers=w)
            rates[w].append(n / (time.perf_counter() - start))
            cpu[w] += _cpu_seconds() - cpu_start
            if reference is None:
                reference = summary.as_dict()
            assert summary.as_dict() == reference, f"{spec}: {w} workers changed the results"
    rows = [Row(str(game), n, w, max(rates[w]), statistics.median(rates[w]), load, n * repeat / cpu[w])
            for w in workers]
    for row in rows:
        row.speedup = row.best_games_per_s / rows[0].best_games_per_s
    return rows


def main() -> None:
    """Command-line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="*", help="game specs (default: every registered game)")
    parser.add_argument("--games", dest="n", type=int, default=None, help="games per run (default: per game)")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--bots", default="random", help="bots, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count (interleaved)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",")]
    bots = [b for b in args.bots.split(",") if b]
    rows: list[Row] = []
    print("| game | games per run | workers | best games/s | median games/s | speed-up (best) | load before "
          "| games per CPU-s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for spec in args.games or motley.registered_games():
        n = args.n or DEFAULT_GAMES.get(spec.split("(")[0], 2000)
        for row in measure(spec, n, workers, bots, args.seed, args.repeat):
            rows.append(row)
            print(f"| {row.game} | {row.games} | {row.workers} | {row.best_games_per_s:,.1f} "
                  f"| {row.median_games_per_s:,.1f} | {row.speedup:.2f} | {row.load_before:.1f} "
                  f"| {row.games_per_cpu_s:,.1f} |", flush=True)
    if args.json:
        print(json.dumps([asdict(row) for row in rows], indent=1))


if __name__ == "__main__":
    main()
