"""One row over several runs: the first bot's win share and points pooled over the deals of runs with other seeds.

Each input is the ``--out-json`` file of a ``motley simulate ... --duplicate`` run of the same game and bots, each
with its own seed (so the runs dealt other cards). Per deal, the first bot's win share (a shared win split) and
points, and the other seats' mean points, are averaged over its seatings (``paired.per_deal``); the row is the mean
over every deal of every run, with 95% intervals over deals (deals are independent, the seatings of one deal are
not). Each run's row on its own is given too.

    for s in 1 2 3; do
        motley simulate 'fool(players=5,rounds=1)' -n 300 --bots 'best,heuristic' --seed $s --duplicate \\
            --workers 2 --out-json seed$s.json
    done
    .venv/bin/python benchmarks/pooled.py seed1.json seed2.json seed3.json

Raises SystemExit with the reason when the runs differ in game or bots, were not made with duplicate deals, or
share a seed (their deals would count twice).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from motley.eval.stats import figure
from paired import fmt, per_deal


def check(runs: list[tuple[Path, dict[str, Any]]]) -> None:
    """SystemExit unless the runs measure the same game and bots with duplicate deals, each on its own seed."""
    first = runs[0][1]["summary"]
    seeds: dict[int, Path] = {}
    for path, run in runs:
        summary = run["summary"]
        if not summary["duplicate"]:
            raise SystemExit(f"{path} was not made with --duplicate: its games are not grouped by deal")
        for key in ("game", "bots"):
            if summary[key] != first[key]:
                raise SystemExit(f"{path} differs from {runs[0][0]} in {key}: {summary[key]!r} and {first[key]!r}")
        if summary["seed"] in seeds:
            raise SystemExit(f"{path} and {seeds[summary['seed']]} have the same seed {summary['seed']}: "
                             "their deals would count twice")
        seeds[summary["seed"]] = path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", help="motley simulate --duplicate --out-json files")
    args = parser.parse_args()
    runs = [(path, json.loads(path.read_text())) for path in args.runs]
    check(runs)
    summary = runs[0][1]["summary"]
    print(f"{summary['game']}: {summary['bots'][0]} against {', '.join(summary['bots'][1:])}")
    shares: list[float] = []
    points: list[float] = []
    others: list[float] = []
    for path, run in runs:
        rows = list(per_deal(run).values())
        print(f"  seed {run['summary']['seed']} ({path.name}), {len(rows)} deals: win share "
              f"{fmt(figure([r[0] for r in rows]))}, points {fmt(figure([r[1] for r in rows]), 2)} "
              f"(the others' {sum(r[2] for r in rows) / len(rows):.2f})")
        shares += [r[0] for r in rows]
        points += [r[1] for r in rows]
        others += [r[2] for r in rows]
    print(f"pooled, {len(shares)} deals: win share {fmt(figure(shares))}, points {fmt(figure(points), 2)}, "
          f"the others' points {fmt(figure(others), 2)}")


if __name__ == "__main__":
    main()
