"""Speed of the engines: random legal play through the public API, one process, each peer on its own fastest loop.

Each game is played from a new initial state to the end, a uniform random choice among the legal actions at
every step, exactly as a simulator or RL loop drives it. Rates are per second of this process's CPU time, so
other load on the machine does not count against them. Where OpenSpiel (``pyspiel``) or RLCard are installed,
their comparable games are timed in the same run and the ratio printed. The loops, side by side::

    motley (the deal is drawn inside new_initial_state from the seed)
        state = game.new_initial_state(seed=i)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])

    OpenSpiel (C++ games through pyspiel; every chance node of these games is uniform, checked at set-up,
    so a chance outcome is drawn exactly as a move: legal_actions() at a chance node lists its outcomes)
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])

    RLCard engine (the game object under the environment: RLCard's own deal, no state encoding)
        state, _ = env.game.init_game()
        while not env.game.is_over():
            legal = state["actions"]
            state, _ = env.game.step(legal[rng.randrange(len(legal))])

    RLCard environment (RLCard's documented env loop, its state encoding included)
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(legal[rng.randrange(len(legal))])

OpenSpiel's own examples draw a chance outcome through ``chance_outcomes()`` and ``np.random.choice`` with the
probabilities; for uniform outcomes that is the same distribution at several times the cost (before this
loop the benchmark used ``chance_outcomes()`` + ``random.choices``, about 60 % of a ``dou_dizhu`` game's
instructions). An OpenSpiel row counts every action applied (its chance outcomes included: 52 of a
``dou_dizhu`` game, 53 of a ``hearts`` game) in ``moves_per_s``; motley's rows count decisions only.

``--instructions`` also counts the instructions a game costs with callgrind (valgrind): each row's loop plays
``--instruction-games`` games (0, 1, ...) inside one ``functools.reduce`` call in a process under
``valgrind --tool=callgrind --toggle-collect=functools_reduce``, so only the games are counted (not the
start-up, the imports or the set-up, whose count moves by tens of millions of instructions from run to run);
the benchmark loop itself is counted, as in the timings. The count over the number of games is the figure;
two runs agree to 0.1 %. Instruction counts do not depend on the machine's load, so they are the steadier
ratio on a shared machine; times still differ in instructions per cycle (C++ against Python's interpreter).

    .venv/bin/python benchmarks/random_play.py                  # every game, default configurations
    .venv/bin/python benchmarks/random_play.py "fool(players=5,rounds=1)" --seconds 5
    .venv/bin/python benchmarks/random_play.py "foolery(players=5,hands=1)" --instructions
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import motley

#: The configurations the issues set bars for (units: one match of The Fool's Errand, one round of
#: Fool! at 5 players, one hand of Foolery at 5 players).
DEFAULTS = {
    "fools_errand": ("fools_errand", 5000.0),
    "fool": ("fool(players=5,rounds=1)", 2000.0),
    "foolery": ("foolery(players=5,hands=1)", 500.0),
}
#: Comparable peer games for each of ours: (system, the peer's name for the game).
PEERS = {"fools_errand": [], "fool": [("openspiel", "hearts"), ("openspiel", "oh_hell")],
         "foolery": [("openspiel", "dou_dizhu"), ("rlcard-engine", "doudizhu"), ("rlcard-env", "doudizhu")]}

#: ``play_one(i) -> actions applied`` plays game number ``i``.
Player = Callable[[int], int]


def time_games(play_one: Player, seconds: float) -> tuple[float, float, int, float]:
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


def motley_player(spec: str) -> Player:
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


def _check_uniform_chance(game: Any, games: int = 5) -> None:
    """Raise ValueError unless every chance node of ``games`` random games of a pyspiel game is uniform.

    Also checks that ``legal_actions()`` at a chance node lists exactly its outcomes, so the timed loop may
    draw them as it draws moves.
    """
    rng = random.Random(1)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if [a for a, _ in outcomes] != legal or max(p for _, p in outcomes) - min(
                        p for _, p in outcomes) > 1e-12:
                    raise ValueError(f"{game}: a chance node is not uniform over its legal actions")
            state.apply_action(legal[rng.randrange(len(legal))])


def openspiel_player(name: str) -> Player | None:
    """Random play of an OpenSpiel game (uniform chance outcomes drawn as moves), or None without pyspiel."""
    try:
        import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    _check_uniform_chance(game)
    rng = random.Random(0)

    def play_one(i: int) -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return play_one


def rlcard_engine_player(name: str) -> Player | None:
    """Random play of an RLCard game object (no state encoding), or None without rlcard."""
    try:
        import rlcard
    except ImportError:
        return None
    game = rlcard.make(name, config={"seed": 0}).game
    rng = random.Random(0)

    def play_one(i: int) -> int:
        state, _ = game.init_game()
        n = 0
        while not game.is_over():
            legal = state["actions"]
            state, _ = game.step(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return play_one


def rlcard_env_player(name: str) -> Player | None:
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


PLAYERS: dict[str, Callable[[str], Player | None]] = {
    "motley": motley_player, "openspiel": openspiel_player, "rlcard-engine": rlcard_engine_player,
    "rlcard-env": rlcard_env_player}


def count_instructions(system: str, game: str, games: int) -> float | None:
    """Instructions one game of ``system``'s loop costs under callgrind, or None without valgrind.

    Runs this script's ``--play-only`` under ``valgrind --tool=callgrind``, collecting only inside the
    ``functools.reduce`` call that plays the ``games`` games; returns the instructions collected over ``games``.
    """
    if shutil.which("valgrind") is None:
        return None
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=functools_reduce",
               sys.executable, __file__, "--play-only", system, game, str(games)]
    done = subprocess.run(command, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in callgrind's output: {done.stderr[-500:]}")
    return int(found.group(1)) / games


def play_only(system: str, game: str, games: int) -> None:
    """Set up ``system``'s loop for ``game`` and play games 0 .. ``games`` - 1 inside one ``functools.reduce``
    call (the C function callgrind collects in)."""
    player = PLAYERS[system](game)
    if player is None:
        raise SystemExit(f"{system} is not installed")
    functools.reduce(lambda total, i: total + player(i), range(games), 0)


def measure(system: str, game: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """One row: the rates of ``system`` on ``game`` (and its instructions a game), or None if not installed."""
    player = PLAYERS[system](game)
    if player is None:
        return None
    per_s, moves_s, n, per_wall_s = time_games(player, args.seconds)
    row: dict[str, Any] = {"system": system, "game": game, "games_per_s": per_s, "moves_per_s": moves_s,
                           "games": n, "games_per_wall_s": per_wall_s}
    if args.instructions:
        row["instructions_per_game"] = count_instructions(system, game, args.instruction_games)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="game specs (default: every registered game, issue configurations)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each row's instructions per game with callgrind (valgrind)")
    parser.add_argument("--instruction-games", type=int, default=200, help="games counted under callgrind")
    parser.add_argument("--play-only", nargs=3, metavar=("SYSTEM", "GAME", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play_only:
        play_only(args.play_only[0], args.play_only[1], int(args.play_only[2]))
        return
    specs = args.games or [DEFAULTS[name][0] for name in motley.registered_games() if name in DEFAULTS]
    rows = []
    for spec in specs:
        name = motley.load_game(spec).name
        row = measure("motley", spec, args)
        assert row is not None
        bar = DEFAULTS.get(name, (spec, 0.0))[1]
        row.update(bar=bar, meets_bar=row["games_per_s"] >= bar)
        rows.append(row)
        for system, peer in PEERS.get(name, []):
            peer_row = measure(system, peer, args)
            if peer_row is not None:
                peer_row["motley_ratio"] = row["games_per_s"] / peer_row["games_per_s"]
                if row.get("instructions_per_game") and peer_row.get("instructions_per_game"):
                    peer_row["motley_instruction_ratio"] = (peer_row["instructions_per_game"]
                                                            / row["instructions_per_game"])
                rows.append(peer_row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        extra = f"  bar {row['bar']:,.0f}: {'met' if row['meets_bar'] else 'NOT met'}" if "bar" in row else ""
        ratio = f"  (motley / this = {row['motley_ratio']:.2f})" if "motley_ratio" in row else ""
        instructions = ""
        if row.get("instructions_per_game"):
            instructions = f" {row['instructions_per_game'] / 1e6:>7.2f} M instr/game"
            if "motley_instruction_ratio" in row:
                instructions += f" (this / motley = {row['motley_instruction_ratio']:.2f})"
        print(f"{row['system']:13} {row['game']:28} {row['games_per_s']:>10,.0f} games/s "
              f"{row['moves_per_s']:>12,.0f} moves/s (CPU){instructions}{extra}{ratio}")


if __name__ == "__main__":
    main()
