"""Time of the analysis of a match: one seat's decisions of a whole match, in one process (one core).

Each game's match is played by ``--bots`` (default: the heuristic at every seat) from seed ``--seed``; the analysis
of ``--seat`` runs at ``--simulations`` per decision (default: the analysis's default budget,
``motley.bots.analysis.DEFAULT_SIMULATIONS``). Prints, per game, the seat's decisions analysed, the seconds of CPU
time and of wall time of the seat's whole match (seconds per seat-match), the seconds per decision, and the decisions
searched again before a mark (the analysis's second search, on the decisions that may be marked); with
``--first-only``, the first search alone (no decision searched again, none marked), so the second search's cost is
the difference of two runs made together. The figures are in docs/reports/README.md.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_time.py
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_time.py "fool(players=5)" --simulations 1000
"""

from __future__ import annotations

import argparse
import time

import motley
from motley.bots import make_bot
from motley.bots.analysis import DEFAULT_SIMULATIONS, analyse_record
from motley.core.play import play_match


def main() -> None:
    parser = argparse.ArgumentParser(description="time of the analysis of one seat's decisions of a match")
    parser.add_argument("games", nargs="*", default=["fools_errand", "fool(players=5)", "foolery(players=5)"])
    parser.add_argument("--bots", default="heuristic", help="the bot at every seat of the analysed match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS)
    parser.add_argument("--first-only", action="store_true",
                        help="the first search alone, no second search before a mark (what it costs: the difference)")
    args = parser.parse_args()
    print(f"{'game':<24} {'moves':>6} {'decisions':>9} {'cpu s':>7} {'wall s':>7} {'s/decision':>10} "
          f"{'searched again':>14}")
    for text in args.games:
        game = motley.load_game(text)
        final = play_match(game, [make_bot(args.bots, game) for _ in range(game.num_players)], args.seed)
        record = motley.records.dump(final)
        wall, cpu = time.perf_counter(), time.process_time()
        analysis = analyse_record(record, args.seat, simulations=args.simulations, seed=0, check=not args.first_only)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        count = len(analysis["decisions"])
        again = sum(1 for d in analysis["decisions"] if d.get("checked"))
        print(f"{text:<24} {len(final.history()):>6} {count:>9} {cpu:>7.1f} {wall:>7.1f} {cpu / max(count, 1):>10.3f} "
              f"{again:>14}", flush=True)


if __name__ == "__main__":
    main()
