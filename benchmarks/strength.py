"""Measured strength of the bots (issue: strong bots), through the same code as ``motley simulate``.

Each configuration seats one bot of the kind under test against the others (seats rotated, so every bot
sits everywhere) and reports its win share with a 95% interval against its fair share. Prints a Markdown
table; the equivalent command line is printed for each row.

    .venv/bin/python benchmarks/strength.py                 # every configuration, default game counts
    .venv/bin/python benchmarks/strength.py --scale 0.25    # quicker, wider intervals
    .venv/bin/python benchmarks/strength.py --only fool
    .venv/bin/python benchmarks/strength.py --only fool --duplicate   # duplicate deals: narrower intervals

ISMCTS rolls out Fool! and Foolery with their fast heuristic policies by default (``rollout=auto``, see
``motley.bots.ismcts``); ``ismcts(rollout=random)`` is the uniformly random baseline.
"""

from __future__ import annotations

import argparse
import json
import time

import motley
from motley.eval import simulate

#: (game spec, bots, games); the first bot is the one measured. Fool! and Foolery are measured over whole
#: matches and over single deals (``rounds=1`` / ``hands=1``: one round or hand is the game, its top scorer
#: wins). ISMCTS over whole matches is slow (1,000 simulations a move: about 35 s of CPU a Fool! match, 170 s a
#: Foolery match), so those rows have fewer games.
CONFIGS: list[tuple[str, list[str], int]] = [
    ("fools_errand", ["heuristic", "random"], 20000),
    ("fools_errand", ["ismcts(simulations=1000)", "random"], 2000),
    ("fools_errand", ["ismcts(simulations=1000)", "heuristic"], 2000),
    ("fool(players=5)", ["heuristic", "random"], 2000),
    ("fool(players=5,rounds=1)", ["heuristic", "random"], 2000),
    ("fool(players=5,rounds=1)", ["ismcts(simulations=1000)", "heuristic"], 1000),
    ("fool(players=5)", ["ismcts(simulations=1000)", "heuristic"], 250),
    ("foolery(players=5)", ["heuristic", "random"], 1000),
    ("foolery(players=5,hands=1)", ["heuristic", "random"], 2000),
    ("foolery(players=5,hands=1)", ["ismcts(simulations=1000)", "heuristic"], 300),
]


def main() -> None:
    parser = argparse.ArgumentParser(description="Bot strength with 95% intervals")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count")
    parser.add_argument("--only", default="", help="only configurations of this game")
    parser.add_argument("--workers", type=int, default=0, help="processes (0 = one per core)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default="", help="also write the rows to this file")
    parser.add_argument("--duplicate", action="store_true", help="duplicate deals (seats rotated over each deal)")
    args = parser.parse_args()
    rows = []
    print("| game | bot (one seat) | against | games | win share (95% CI) | fair share | separated |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for spec, bots, games in CONFIGS:
        game_name = spec.split("(")[0]
        if game_name not in motley.registered_games() or (args.only and args.only != game_name):
            continue
        game = motley.load_game(spec)
        n = max(10, int(games * args.scale))
        start = time.perf_counter()
        summary = simulate(game, bots, n, seed=args.seed, workers=args.workers, duplicate=args.duplicate)
        seconds = time.perf_counter() - start
        first = summary.entries[0]
        low, high = first["win_share_ci"]
        fair = first["fair_share"]
        verdict = "above" if low > fair else "below" if high < fair else "no"
        print(f"| {spec} | {bots[0]} | {bots[1]} | {n} | {first['win_share']:.3f} [{low:.3f}, {high:.3f}] "
              f"| {fair:.3f} | {verdict} |", flush=True)
        rows.append({"game": spec, "bots": bots, "games": n, "seconds": seconds, "entries": summary.entries,
                     "command": f"motley simulate '{spec}' -n {n} --bots '{','.join(bots)}' --seed {args.seed}"
                                + (" --duplicate" if args.duplicate else "")})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
