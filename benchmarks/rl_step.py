"""What an RL step costs: a move, then the next observation and legal-action mask of the seat to move, each
side on its fastest documented loop, timed in one run (one process, per second of this process's CPU time).

Rows per game, each a uniform random legal action at every decision:

* ``engine``: motley's bare loop (``legal_actions()`` + ``apply_action``), no observation: the ratios' base;
* ``engine+tensor``: the same, plus ``state.observation_tensor(mover)`` (the bar of "a decision with the
  mover's observation at most 3x a bare one" is ``engine`` over this row);
* ``engine+obs``: the same, plus the int8 mask from the legal list (``np.zeros`` + the legal ids set);
* ``pettingzoo info``: ``motley.envs.pettingzoo.env()``, ``last()`` and the action drawn from
  ``info["legal_actions"]`` (the loop the environment's docstring shows);
* ``pettingzoo mask``: the same environment, the conventional ``np.flatnonzero(obs["action_mask"])``;
* ``pettingzoo bool``: the same on ``obs["action_mask"].view(np.bool_)`` (the scan of a bool mask);
* ``batch``: ``motley.envs.vector.VectorEnv`` in this process (``workers=0``, 64 slots), one action per slot per
  step from ``infos["legal_actions"]``; per decision of a slot;
* ``openspiel``: ``pyspiel``, at every decision the game's tensor of the player to move
  (``observation_tensor``, or ``information_state_tensor`` where the game gives only that: ``hearts``,
  ``oh_hell``) and ``legal_actions_mask``; the action drawn from ``legal_actions()``; chance outcomes (all
  uniform) drawn as moves, ``legal_actions()`` + ``randrange``;
* ``rlcard env``: RLCard's Dou Dizhu environment (``env.step``; its state encoding is the observation and
  ``legal_actions`` the mask).

Per decision: decisions per CPU second (the motley rows count decisions; OpenSpiel's count decisions only,
not chance outcomes); ``x engine`` is the row's decision rate over motley's bare loop on that game, ``x peer``
over the peer's row in the same run. Per game: one hand of Foolery (``hands=1``) against one game of
``dou_dizhu``, one round of Fool! (``rounds=1``) against one game of ``hearts`` or ``oh_hell``.

    .venv/bin/python benchmarks/rl_step.py                 # 2 s a row
    .venv/bin/python benchmarks/rl_step.py --seconds 5 --json
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import motley
from motley.envs.pettingzoo import env as pettingzoo_env
from motley.envs.vector import VectorEnv

#: motley configuration -> its peers: (system, peer game).
GAMES: dict[str, list[tuple[str, str]]] = {
    "foolery(players=5,hands=1)": [("openspiel", "dou_dizhu"), ("rlcard env", "doudizhu")],
    "fool(players=5,rounds=1)": [("openspiel", "hearts"), ("openspiel", "oh_hell")],
}

#: ``run(seconds) -> (decisions, games, CPU seconds)``.
Runner = Callable[[float], tuple[int, int, float]]


def engine(spec: str, observe: str) -> Runner:
    """motley's bare loop; ``observe``: ``""`` (nothing), ``"tensor"`` (the mover's tensor) or ``"both"`` (and
    the int8 mask)."""
    game = motley.load_game(spec)
    rng = random.Random(0)
    actions = game.num_distinct_actions()

    def run(seconds: float) -> tuple[int, int, float]:
        n = games = 0
        cpu = time.process_time()
        while time.process_time() - cpu < seconds:
            state = game.new_initial_state(seed=games)
            games += 1
            while not state.is_terminal():
                legal = state.legal_actions()
                if observe:
                    state.observation_tensor(state.current_player())
                    if observe == "both":
                        mask = np.zeros(actions, dtype=np.int8)
                        mask[legal] = 1
                state.apply_action(legal[rng.randrange(len(legal))])
                n += 1
        return n, games, time.process_time() - cpu

    return run


def pettingzoo(spec: str, pick: str) -> Runner:
    e = pettingzoo_env(spec)
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, int, float]:
        n = games = 0
        cpu = time.process_time()
        while time.process_time() - cpu < seconds:
            e.reset(seed=games)
            games += 1
            for _agent in e.agent_iter():
                obs, _reward, terminated, truncated, info = e.last()
                if terminated or truncated:
                    e.step(None)
                    continue
                if pick == "info":
                    legal = info["legal_actions"]
                elif pick == "mask":
                    legal = np.flatnonzero(obs["action_mask"])
                else:
                    legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
                e.step(int(legal[rng.randrange(len(legal))]))
                n += 1
        return n, games, time.process_time() - cpu

    return run


def batch(spec: str, slots: int = 64) -> Runner:
    def run(seconds: float) -> tuple[int, int, float]:
        envs = VectorEnv(spec, num_envs=slots, workers=0)
        rng = np.random.default_rng(0)
        _, infos = envs.reset(seed=0)
        n = games = 0
        cpu = time.process_time()
        while time.process_time() - cpu < seconds:
            offsets = infos["legal_offsets"]
            pick = offsets[:-1] + (rng.random(slots) * np.diff(offsets)).astype(np.int64)
            _, _, terminations, _, infos = envs.step(infos["legal_actions"][pick])
            n += slots
            games += int(np.count_nonzero(terminations))
        elapsed = time.process_time() - cpu
        envs.close()
        return n, games, elapsed

    return run


def openspiel(name: str) -> Runner | None:
    try:
        import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(0)
    by_observation = game.get_type().provides_observation_tensor

    def run(seconds: float) -> tuple[int, int, float]:
        n = games = 0
        cpu = time.process_time()
        while time.process_time() - cpu < seconds:
            state = game.new_initial_state()
            games += 1
            while not state.is_terminal():
                legal = state.legal_actions()  # at a chance node: its outcomes, all equally likely
                if not state.is_chance_node():
                    player = state.current_player()
                    if by_observation:
                        state.observation_tensor(player)
                    else:
                        state.information_state_tensor(player)
                    state.legal_actions_mask(player)
                    n += 1
                state.apply_action(legal[rng.randrange(len(legal))])
        return n, games, time.process_time() - cpu

    return run


def rlcard_env(name: str) -> Runner | None:
    try:
        import rlcard
    except ImportError:
        return None
    e = rlcard.make(name, config={"seed": 0})
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, int, float]:
        n = games = 0
        cpu = time.process_time()
        while time.process_time() - cpu < seconds:
            state, _ = e.reset()
            games += 1
            while not e.is_over():
                legal = list(state["legal_actions"].keys())
                state, _ = e.step(legal[rng.randrange(len(legal))])
                n += 1
        return n, games, time.process_time() - cpu

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--games", default="foolery,fool", help="the games to time, of foolery and fool")
    parser.add_argument("--rows", default="", help="time only the rows whose names start with one of these "
                        "(comma-separated; the engine row is always timed, the base of the ratios)")
    args = parser.parse_args()
    wanted = tuple(name for name in args.rows.split(",") if name)
    rows: list[dict[str, Any]] = []
    for spec, peers in GAMES.items():
        if spec.split("(")[0] not in args.games.split(","):
            continue
        mine: list[tuple[str, Runner | None]] = [
            ("engine", engine(spec, "")), ("engine+tensor", engine(spec, "tensor")),
            ("engine+obs", engine(spec, "both")),
            ("pettingzoo info", pettingzoo(spec, "info")), ("pettingzoo mask", pettingzoo(spec, "mask")),
            ("pettingzoo bool", pettingzoo(spec, "bool")), ("batch", batch(spec))]
        theirs: list[tuple[str, Runner | None]] = [
            (f"{system} {peer}", openspiel(peer) if system == "openspiel" else rlcard_env(peer))
            for system, peer in peers]
        group: list[dict[str, Any]] = []
        for system, runner in mine + theirs:
            if runner is None or (wanted and system != "engine" and not system.startswith(wanted)):
                continue
            decisions, games, cpu = runner(args.seconds)
            group.append({"game": spec, "system": system, "decisions_per_s": decisions / cpu,
                          "games_per_s": games / cpu})
        base = group[0]["decisions_per_s"]
        peer_rows = [row for row in group if not row["system"].startswith(("engine", "pettingzoo", "batch"))]
        for row in group:
            row["x_engine"] = row["decisions_per_s"] / base
            for peer in peer_rows:
                row[f"x {peer['system']} (decision)"] = row["decisions_per_s"] / peer["decisions_per_s"]
                row[f"x {peer['system']} (game)"] = row["games_per_s"] / peer["games_per_s"]
        rows += group
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        ratios = "  ".join(f"{key.removeprefix('x ')} x{value:.2f}" for key, value in row.items()
                           if key.startswith("x ") and not key.startswith(f"x {row['system']} "))
        print(f"{row['game']:28} {row['system']:22} {row['decisions_per_s']:>10,.0f} dec/s {row['games_per_s']:>9,.1f} "
              f"games/s  x engine {row['x_engine']:.3f}  {ratios}")


if __name__ == "__main__":
    main()
