"""Measured strength of the bots (issue: strong bots), through the same code as ``motley simulate``.

Each configuration seats one bot of the kind under test against the others (seats rotated, so every bot
sits everywhere) and reports its win share with a 95% interval against its fair share. Prints a Markdown
table; the equivalent command line is printed for each row.

    .venv/bin/python benchmarks/strength.py                 # every configuration, default game counts
    .venv/bin/python benchmarks/strength.py --scale 0.25    # quicker, wider intervals
    .venv/bin/python benchmarks/strength.py --only fool
    .venv/bin/python benchmarks/strength.py --only fool --duplicate   # duplicate deals: narrower intervals
    .venv/bin/python benchmarks/strength.py --inference --duplicate   # ISMCTS with inference from play
    .venv/bin/python benchmarks/strength.py --learned --duplicate     # the network and best bots (LEARNED_CONFIGS)

ISMCTS rolls out Fool! and Foolery with their fast heuristic policies by default (``rollout=auto``, see
``motley.bots.ismcts``); ``ismcts(rollout=random)`` is the uniformly random baseline.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import motley
from motley.eval import simulate
from motley.eval.compare import game_figures
from motley.eval.simulate import SimulationSummary
from motley.eval.stats import figure

#: (game spec, bots, games); the first bot is the one measured. Fool! and Foolery are measured over whole
#: matches and over single deals (``rounds=1`` / ``hands=1``: one round or hand is the game, its top scorer
#: wins). ISMCTS over whole matches is slow (1,000 simulations a move: about 18 s of CPU a Fool! match of the earlier
#: ``best``, four times that at its 4,000 simulations now, 170 s a Foolery match), so those rows have fewer games.
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

#: ``--inference``: ISMCTS with inference from play (the other seats modelled as the heuristic:
#: ``infer=K`` importance resampling of K candidate worlds per determinization, ``infer_chain=M`` a
#: Metropolis-Hastings chain of M swaps per determinization) beside plain ISMCTS at the same simulations
#: (the ablation: uniform vs inferred worlds, nothing else changed) and at about the same CPU time per
#: decision in Fool! (``infer=4`` costs about 4 times the plain search, ``infer_chain=2`` about 2.4 times);
#: 150 games a row: about 40 minutes with 2 workers on a shared 2-core machine (docs/reports/README.md).
#: Foolery's rows (one hand, the exchange only comes in later hands) compare the plain search with ``infer=4``
#: and ``infer_chain=2`` at 1,000 simulations; each row is paired with the first row of its own game.
INFERENCE_CONFIGS: list[tuple[str, list[str], int]] = [
    ("fool(players=5,rounds=1)", ["ismcts(simulations=1000)", "heuristic"], 150),
    ("fool(players=5,rounds=1)", ["ismcts(simulations=1000,infer_chain=2)", "heuristic"], 150),
    ("fool(players=5,rounds=1)", ["ismcts(simulations=2000)", "heuristic"], 150),
    ("fool(players=5,rounds=1)", ["ismcts(simulations=1000,infer=4)", "heuristic"], 150),
    ("fool(players=5,rounds=1)", ["ismcts(simulations=4000)", "heuristic"], 150),
    ("foolery(players=5,hands=1)", ["ismcts(simulations=1000)", "heuristic"], 150),
    ("foolery(players=5,hands=1)", ["ismcts(simulations=1000,infer=4)", "heuristic"], 150),
    ("foolery(players=5,hands=1)", ["ismcts(simulations=1000,infer_chain=2)", "heuristic"], 150),
]

#: ``--learned``: the learned networks (the ``network`` bot with the weights the game ships) and ``best``, one seat
#: against the heuristic (the bars of the issue on strong bots); with ``--duplicate`` every deal is played with the
#: measured bot in each seat, so 5,000 games are 1,000 deals. ``best`` searches (about 0.6 s a decision in Fool!,
#: 0.4 s in Foolery), so its rows have 200 deals against the heuristic, and fewer against four ISMCTS or over whole
#: Fool! matches (50 deals: about 37 minutes on two workers with the earlier ``best`` at 1,000 simulations).
LEARNED_CONFIGS: list[tuple[str, list[str], int]] = [
    ("fool(players=5,rounds=1)", ["network", "heuristic"], 5000),
    ("fool(players=5,rounds=1)", ["best", "heuristic"], 1000),
    ("fool(players=5,rounds=1)", ["best", "ismcts(simulations=1000)"], 250),
    ("fool(players=5)", ["best", "heuristic"], 250),
    ("foolery(players=5,hands=1)", ["network", "heuristic"], 5000),
    ("foolery(players=5,hands=1)", ["best", "heuristic"], 1000),
    ("foolery(players=5,hands=1)", ["best", "ismcts(simulations=1000)"], 100),
]


def _first_bot_units(summary: SimulationSummary) -> dict[int, float]:
    """The measured (first) bot's mean win share per unit: per deal group with duplicate deals, else per game."""
    players = len(summary.results[0].lineup)
    groups: dict[int, list[float]] = {}
    for r in summary.results:
        share = game_figures(r, players)["first_bot_win_share"]
        if share is not None:
            groups.setdefault(r.deal if summary.duplicate else r.index, []).append(share)
    return {k: sum(v) / len(v) for k, v in groups.items()}


def paired_differences(rows: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """For each row after the first of its game (``game`` spec), the paired difference of the measured bot's
    win share against that first row, unit by unit over the units both played (the same seed: the same deals
    and seats), with its 95% interval: ``(index of the first row, {"mean", "ci", "n"})`` per such row."""
    firsts: dict[str, int] = {}
    out = []
    for i, row in enumerate(rows):
        first = firsts.setdefault(row["game"], i)
        if first != i:
            base = rows[first]["units"]
            out.append((first, figure([row["units"][k] - base[k] for k in row["units"] if k in base])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="Bot strength with 95% intervals")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count")
    parser.add_argument("--only", default="", help="only configurations of this game")
    parser.add_argument("--workers", type=int, default=0, help="processes (0 = one per core)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default="", help="also write the rows to this file")
    parser.add_argument("--duplicate", action="store_true", help="duplicate deals (seats rotated over each deal)")
    parser.add_argument("--inference", action="store_true", help="the inference rows (INFERENCE_CONFIGS) instead")
    parser.add_argument("--learned", action="store_true", help="the learned-policy rows (LEARNED_CONFIGS) instead")
    parser.add_argument("--rows", default="", help="only the rows whose measured bot starts with this")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    print("| game | bot (one seat) | against | games | win share (95% CI) | fair share | separated | mean points "
          "(95% CI) | the others' mean points |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    configs = INFERENCE_CONFIGS if args.inference else LEARNED_CONFIGS if args.learned else CONFIGS
    for spec, bots, games in configs:
        if args.rows and not bots[0].startswith(args.rows):
            continue
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
        p_low, p_high = first["mean_points_ci"]
        others = summary.entries[1]["mean_points"] if len(summary.entries) > 1 else float("nan")
        print(f"| {spec} | {bots[0]} | {bots[1]} | {n} | {first['win_share']:.3f} [{low:.3f}, {high:.3f}] "
              f"| {fair:.3f} | {verdict} | {first['mean_points']:.2f} [{p_low:.2f}, {p_high:.2f}] | {others:.2f} |",
              flush=True)
        rows.append({"game": spec, "bots": bots, "games": n, "seconds": seconds, "entries": summary.entries,
                     "units": _first_bot_units(summary),
                     "command": f"motley simulate '{spec}' -n {n} --bots '{','.join(bots)}' --seed {args.seed}"
                                + (" --duplicate" if args.duplicate else "")})
        if args.json:
            _write(args.json, rows)
    if args.inference and rows:
        paired = paired_differences(rows)
        print("\nPaired with the first row of the game (same deals and seats; difference of the measured bot's "
              "win share):")
        later = [row for i, row in enumerate(rows) if any(r["game"] == row["game"] for r in rows[:i])]
        for row, (index, diff) in zip(later, paired, strict=True):
            base = rows[index]
            low, high = diff["ci"]
            print(f"- {row['game']}: {row['bots'][0]} minus {base['bots'][0]}: {diff['mean']:+.3f} "
                  f"[{low:+.3f}, {high:+.3f}] over {diff['n']} units; {row['seconds']:.0f} s against "
                  f"{base['seconds']:.0f} s")
            row["paired_with_first"] = diff
    if args.json:
        _write(args.json, rows)


def _write(path: str, rows: list[dict[str, Any]]) -> None:
    """The rows so far as JSON (without the per-unit shares), rewritten after each row."""
    with open(path, "w", encoding="utf-8") as out:
        json.dump([{k: v for k, v in row.items() if k != "units"} for row in rows], out, indent=1)


if __name__ == "__main__":
    main()
