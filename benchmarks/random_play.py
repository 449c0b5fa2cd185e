"""Speed of the engines: random legal play through the public API, one process.

Each game is played from ``new_initial_state`` to the end with ``legal_actions()`` and
``apply_action(random choice)``, exactly as a simulator or RL loop drives it. Rates are per second of
this process's CPU time, so other load on the machine does not count against them. Where OpenSpiel
(``pyspiel``) or RLCard are installed, their comparable games are timed in the same run and the ratio
printed.

    .venv/bin/python benchmarks/random_play.py                  # every game, default configurations
    .venv/bin/python benchmarks/random_play.py "fool(players=5,rounds=1)" --seconds 5
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import motley

#: The configurations the issues set bars for (units: one match of The Fool's Errand, one round of
#: Fool! at 5 players, one hand of Foolery at 5 players).
DEFAULTS = {
    "fools_errand": ("fools_errand", 5000.0),
    "fool": ("fool(players=5,rounds=1)", 2000.0),
    "foolery": ("foolery(players=5,hands=1)", 500.0),
}
#: Comparable OpenSpiel / RLCard games for each of ours.
PEERS = {"fools_errand": [], "fool": ["hearts", "oh_hell"], "foolery": ["dou_dizhu"]}
RLCARD_PEERS = {"foolery": ["doudizhu"]}


def time_games(play_one: Callable[[int], int], seconds: float) -> tuple[float, float, int, float]:
    """Run ``play_one(i)`` (returns its move count) for about ``seconds`` of CPU time.

    Returns games and moves per CPU second of this process (other load on the machine does not count),
    the number of games, and games per wall-clock second.
    """
    games = moves = 0
    start, wall = time.process_time(), time.perf_counter()
    while True:
        moves += play_one(games)
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games / elapsed, moves / elapsed, games, games / (time.perf_counter() - wall)


def motley_player(spec: str) -> Callable[[int], int]:
    """A function playing one random game of ``spec`` with seed ``i``."""
    game = motley.load_game(spec)
    rng = random.Random(0)

    def play_one(i: int) -> int:
        state = game.new_initial_state(seed=i)
        n = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return play_one


def openspiel_player(name: str) -> Callable[[int], int] | None:
    """Random play of an OpenSpiel game (chance outcomes sampled), or None without pyspiel."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(0)

    def play_one(i: int) -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                n += 1
        return n

    return play_one


def rlcard_player(name: str) -> Callable[[int], int] | None:
    """Random play of an RLCard env via env.step, or None without rlcard."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make(name, config={"seed": 0})
    rng = random.Random(0)

    def play_one(i: int) -> int:
        state, _ = env.reset()
        n = 0
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return play_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="game specs (default: every registered game, issue configurations)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    specs = args.games or [DEFAULTS[name][0] for name in motley.registered_games() if name in DEFAULTS]
    rows = []
    for spec in specs:
        name = motley.load_game(spec).name
        per_s, moves_s, n, per_wall_s = time_games(motley_player(spec), args.seconds)
        bar = DEFAULTS.get(name, (spec, 0.0))[1]
        row = {"system": "motley", "game": spec, "games_per_s": per_s, "moves_per_s": moves_s, "games": n,
               "games_per_wall_s": per_wall_s, "bar": bar, "meets_bar": per_s >= bar}
        rows.append(row)
        for peer in PEERS.get(name, []):
            player = openspiel_player(peer)
            if player is not None:
                p_s, p_moves, p_n, _ = time_games(player, args.seconds)
                rows.append({"system": "openspiel", "game": peer, "games_per_s": p_s, "moves_per_s": p_moves,
                             "games": p_n, "motley_ratio": per_s / p_s})
        for peer in RLCARD_PEERS.get(name, []):
            rl_player = rlcard_player(peer)
            if rl_player is not None:
                p_s, p_moves, p_n, _ = time_games(rl_player, args.seconds)
                rows.append({"system": "rlcard", "game": peer, "games_per_s": p_s, "moves_per_s": p_moves,
                             "games": p_n, "motley_ratio": per_s / p_s})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        extra = f"  bar {row['bar']:,.0f}: {'met' if row['meets_bar'] else 'NOT met'}" if "bar" in row else ""
        ratio = f"  (motley / this = {row['motley_ratio']:.2f})" if "motley_ratio" in row else ""
        print(f"{row['system']:10} {row['game']:32} {row['games_per_s']:>10,.0f} games/s "
              f"{row['moves_per_s']:>12,.0f} moves/s (CPU){extra}{ratio}")


if __name__ == "__main__":
    main()
