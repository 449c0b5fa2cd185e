"""Latency of a hint at a friendly table: the search of one decision at the hint's budget, in one process (one core).

Each game's match is played by the heuristic at every seat from seed ``--seed``; at every ``--every``-th decision
with a choice, the hint (``motley.bots.analysis.hint``, as the server's worker process computes it, at
``--simulations``, default ``motley.server.play.hints.HINT_SIMULATIONS``) is timed. Prints, per game, the hints timed
and the median, 90th percentile and largest seconds of wall time. The server adds a worker's queue wait (none on
an idle server) and a WebSocket round trip (well under a millisecond on one machine). Figures in README (hints).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/hint_latency.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import motley
from motley.bots import make_bot
from motley.bots.analysis import decision_at, hint
from motley.server.play.hints import HINT_SIMULATIONS


def main() -> None:
    parser = argparse.ArgumentParser(description="latency of a hint at the hint's search budget")
    parser.add_argument("games", nargs="*", default=["fool(players=5)", "foolery(players=5)", "fools_errand"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=5, help="time every N-th decision with a choice")
    parser.add_argument("--simulations", type=int, default=HINT_SIMULATIONS)
    args = parser.parse_args()
    print(f"{'game':<24} {'hints':>6} {'median s':>9} {'p90 s':>7} {'max s':>7}")
    for text in args.games:
        game = motley.load_game(text)
        state = game.new_initial_state(seed=args.seed)
        bot, rng = make_bot("heuristic", game), random.Random(args.seed)
        times: list[float] = []
        choices = 0
        while not state.is_terminal():
            seat, legal = state.current_player(), state.legal_actions()
            if len(legal) > 1:
                choices += 1
                if choices % args.every == 0:
                    start = time.perf_counter()
                    hint(game, decision_at(state, seat, legal[0]), args.simulations, f"{args.seed}-{choices}")
                    times.append(time.perf_counter() - start)
            state.apply_action(bot.act(state.observation(seat), legal, rng))
        times.sort()
        p90 = times[min(len(times) - 1, int(0.9 * len(times)))] if times else 0.0
        print(f"{text:<24} {len(times):>6} {statistics.median(times) if times else 0.0:>9.3f} {p90:>7.3f} "
              f"{max(times, default=0.0):>7.3f}", flush=True)


if __name__ == "__main__":
    main()
