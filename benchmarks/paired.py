"""Paired difference between two runs over the same deals: B - A, with 95% intervals over deals.

Each input is the ``--out-json`` file of a ``motley simulate ... --duplicate`` run whose first bot is the one
measured (one seat of it in every game). The runs differ in that bot (two bots against the same table) or in the
table (one bot against two tables); they have the same game, seed and
number of games, so that both runs dealt the same cards to the same seatings. Per deal, the first bot's win share
(a shared win split) and points are averaged over its seatings; the report gives each run's means over deals and
the mean of the per-deal differences, which is far tighter than the two rows' own intervals because the luck of
the deal cancels.

    motley simulate 'fool(players=5,rounds=1)' -n 300 --bots 'ismcts(simulations=1000),heuristic' \\
        --seed 1 --duplicate --workers 2 --out-json a.json
    motley simulate 'fool(players=5,rounds=1)' -n 300 --bots 'ismcts(simulations=1000,infer_chain=2),heuristic' \\
        --seed 1 --duplicate --workers 2 --out-json b.json
    .venv/bin/python benchmarks/paired.py a.json b.json
    .venv/bin/python benchmarks/paired.py a.json b.json a-seed2.json b-seed2.json   # pooled over both seeds

Raises SystemExit with the reason when the runs of a pair did not play the same deals, or a later pair measures
other bots.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from motley.core.rewards import outcome_shares
from motley.eval.stats import figure


def per_deal(run: dict[str, Any]) -> dict[int, tuple[float, float, float]]:
    """Per deal of a run (its ``--out-json`` data), the means over the first bot's seatings of its (win share,
    points, the other seats' mean points)."""
    first = run["summary"]["bots"][0]
    shares: dict[int, list[tuple[float, float, float]]] = defaultdict(list)
    for game in run["games"]:
        seat = game["bots"].index(first)
        won = outcome_shares(game["returns"])[0][seat]
        others = [float(s) for i, s in enumerate(game["scores"]) if i != seat]
        shares[game["deal"]].append((won, float(game["scores"][seat]), sum(others) / len(others)))
    return {deal: (sum(r[0] for r in v) / len(v), sum(r[1] for r in v) / len(v), sum(r[2] for r in v) / len(v))
            for deal, v in shares.items()}


def _same_deals(run_a: dict[str, Any], run_b: dict[str, Any]) -> None:
    a, b = run_a["summary"], run_b["summary"]
    for key in ("game", "seed", "duplicate"):
        if a[key] != b[key]:
            raise SystemExit(f"the runs differ in {key}: {a[key]!r} and {b[key]!r}; they did not play the same deals")
    if any(x["seed"] != y["seed"] for x, y in zip(run_a["games"], run_b["games"], strict=False)):
        raise SystemExit("the runs dealt different cards (game seeds differ)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a", type=Path, help="motley simulate --out-json of bot A")
    parser.add_argument("b", type=Path, help="the same for bot B")
    parser.add_argument("more", type=Path, nargs="*",
                        help="more pairs A B of runs over other deals (another seed): the figures pool every deal")
    args = parser.parse_args()
    if len(args.more) % 2:
        raise SystemExit("the runs come in pairs, A then B: an odd number was given")
    paths = [args.a, args.b, *args.more]
    rows_a: list[tuple[float, float, float]] = []
    rows_b: list[tuple[float, float, float]] = []
    names: list[str] = []
    for path_a, path_b in zip(paths[::2], paths[1::2], strict=True):
        run_a, run_b = json.loads(path_a.read_text()), json.loads(path_b.read_text())
        _same_deals(run_a, run_b)
        if names and names != [run_a["summary"]["bots"][0], run_b["summary"]["bots"][0]]:
            raise SystemExit(f"{path_a} and {path_b} measure other bots than the first pair")
        names = [run_a["summary"]["bots"][0], run_b["summary"]["bots"][0]]
        deals_a, deals_b = per_deal(run_a), per_deal(run_b)
        deals = sorted(set(deals_a) & set(deals_b))
        rows_a += [deals_a[d] for d in deals]
        rows_b += [deals_b[d] for d in deals]
        print(f"{run_a['summary']['game']}, {len(deals)} deals, seed {run_a['summary']['seed']}")
    if len(paths) > 2:
        print(f"pooled: {len(rows_a)} deals")
    for name, bot, rows in (("A", names[0], rows_a), ("B", names[1], rows_b)):
        share, points = figure([r[0] for r in rows]), figure([r[1] for r in rows])
        print(f"  {name} {bot}: win share {fmt(share)}, points {fmt(points, 2)}")
    share = figure([b[0] - a[0] for a, b in zip(rows_a, rows_b, strict=True)])
    points = figure([b[1] - a[1] for a, b in zip(rows_a, rows_b, strict=True)])
    print(f"  B - A: win share {fmt(share, sign=True)}, points {fmt(points, 2, sign=True)}")


def fmt(f: dict[str, Any], digits: int = 3, sign: bool = False) -> str:
    """A figure of :func:`motley.eval.stats.figure` as ``mean [low, high]``."""
    spec = f"{'+' if sign else ''}.{digits}f"
    low, high = f["ci"]
    return f"{f['mean']:{spec}} [{low:{spec}}, {high:{spec}}]"


if __name__ == "__main__":
    main()
