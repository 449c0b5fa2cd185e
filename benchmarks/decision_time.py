"""CPU time per decision of the bots (the network alone, best, the heuristic), at positions of random play.

Each bot decides at every position with more than one legal move of ``--deals`` deals played at random (the
same positions for every bot), given the seat's observation as in a game. Figures are per second of this
process's CPU time, with NumPy's BLAS held to one thread (one core, as the bars are set).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/decision_time.py
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/decision_time.py "fool(players=5,rounds=1)" --bots network,best
"""

from __future__ import annotations

import argparse
import random
import time

import motley
from motley.bots import make_bot
from motley.cli.common import split_bots


def positions(game: motley.Game, deals: int) -> list[tuple[motley.Observation, list[int]]]:
    """Observations and legal lists of the seat to move, at every real decision of ``deals`` random deals."""
    rng = random.Random(0)
    out = []
    for seed in range(deals):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) > 1:
                out.append((state.observation(state.current_player()), legal))
            state.apply_action(legal[rng.randrange(len(legal))])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU time per decision of bots")
    parser.add_argument("games", nargs="*", default=["fool(players=5,rounds=1)", "foolery(players=5,hands=1)"])
    parser.add_argument("--bots", default="heuristic,network,best")
    parser.add_argument("--deals", type=int, default=3)
    args = parser.parse_args()
    print("| game | bot | decisions | median ms | 99th percentile ms | max ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for spec in args.games:
        game = motley.load_game(spec)
        points = positions(game, args.deals)
        for name in split_bots(args.bots):
            try:
                bot = make_bot(name, game)
            except motley.MotleyError as exc:
                print(f"| {spec} | {name} | — | {exc} | | |")
                continue
            rng = random.Random(1)
            times = []
            for obs, legal in points:
                start = time.process_time()
                bot.act(obs, legal, rng)
                times.append((time.process_time() - start) * 1000)
            times.sort()
            print(f"| {spec} | {name} | {len(times)} | {times[len(times) // 2]:.2f} | "
                  f"{times[min(len(times) - 1, int(len(times) * 0.99))]:.2f} | {times[-1]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
