"""Random play through the OpenSpiel adapter (``motley.envs.openspiel``): what its chance model costs.

Plays whole games from ``game.new_initial_state()`` in one process, the way an OpenSpiel user's loop does:
chance outcomes drawn from ``state.chance_outcomes()`` by their probabilities, moves uniformly among
``state.legal_actions()``, every step through ``state.apply_action``. Reports games/s and the chance nodes
and decisions per game, for each configuration.

    PYTHONPATH=src python benchmarks/openspiel_adapter.py --seconds 2
"""

from __future__ import annotations

import argparse
import random
import time

import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module

from motley.envs import openspiel

CONFIGS = ("motley_fools_errand", "motley_fool(players=5,rounds=1)", "motley_foolery(players=5,hands=1)")


def play(game: pyspiel.Game, rng: random.Random) -> tuple[int, int]:
    """One random game; returns (chance nodes, decisions)."""
    state = game.new_initial_state()
    chance = decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            chance += 1
        else:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            decisions += 1
        state.apply_action(action)
    return chance, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration")
    args = parser.parse_args()
    openspiel.register()
    rng = random.Random(0)
    for spec in CONFIGS:
        game = pyspiel.load_game(spec)
        games = chance = decisions = 0
        start = time.process_time()
        while time.process_time() - start < args.seconds:
            c, d = play(game, rng)
            games, chance, decisions = games + 1, chance + c, decisions + d
        elapsed = time.process_time() - start
        print(f"{spec:40s} {games / elapsed:9.1f} games/s  {chance / games:6.1f} chance nodes  "
              f"{decisions / games:6.1f} decisions a game")


if __name__ == "__main__":
    main()
