"""Speed of the RL environments: decisions per second of random legal play, with a peer timed in the same run.

Each row plays random legal actions for about ``--seconds`` and counts decisions (one action chosen for the
seat to move):

* ``engine``: ``legal_actions()`` + ``apply_action`` on the motley State, no environment (the ceiling);
* ``pettingzoo``: ``motley.envs.pettingzoo.env()`` (with PettingZoo's standard wrappers), the loop of
  PettingZoo's documentation: ``agent_iter`` / ``last()`` (observation tensor and mask) / ``step``, the
  action drawn from ``info["legal_actions"]``;
* ``gymnasium``: ``SingleSeatEnv`` (the other seats random bots); a decision is one ``step`` of the learner;
* ``vector``: ``motley.envs.vector.VectorEnv`` (observation tensors, masks, legal lists and action features
  for every slot), in this process (``workers=0``) and on every core (``workers=2``), one action per slot
  per step drawn with NumPy;
* the peer: RLCard's Dou Dizhu environment (``rlcard.make("doudizhu")``, ``env.step`` with a random legal
  action, its state encoding included) when ``rlcard`` is installed, else OpenSpiel's ``dou_dizhu`` through
  pyspiel (``observation_tensor`` of the player to move at every decision; its chance outcomes, all uniform,
  drawn as its moves are, ``legal_actions()`` + ``randrange``, never through ``chance_outcomes()``).

Single-process rows are per second of this process's CPU time (other load on the machine does not count);
vector rows give decisions per wall-clock second and per CPU second of all its processes together. The
ratio to the peer travels from machine to machine.

    .venv/bin/python benchmarks/rl_speed.py                 # Foolery and Fool! at 5 players, 3 s a row
    .venv/bin/python benchmarks/rl_speed.py --seconds 10 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import motley
from motley.envs.gymnasium import SingleSeatEnv
from motley.envs.pettingzoo import env as pettingzoo_env
from motley.envs.vector import VectorEnv

#: Bars of the issue, decisions per CPU second (pettingzoo) or wall-clock second (vector, 2 workers).
BARS = {("pettingzoo", "foolery(players=5)"): 40_000.0, ("pettingzoo", "fool(players=5)"): 60_000.0,
        ("vector", "fool(players=5)"): 150_000.0}
GAMES = ("foolery(players=5)", "fool(players=5)")

#: ``play(seconds) -> (decisions, CPU seconds, wall seconds)``.
Runner = Callable[[float], tuple[int, float, float]]


def engine(spec: str) -> Runner:
    game = motley.load_game(spec)
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, float, float]:
        n = seed = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.process_time() - cpu < seconds:
            state = game.new_initial_state(seed=seed)
            seed += 1
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                n += 1
        return n, time.process_time() - cpu, time.perf_counter() - wall

    return run


def pettingzoo(spec: str) -> Runner:
    e = pettingzoo_env(spec)
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, float, float]:
        n = seed = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.process_time() - cpu < seconds:
            e.reset(seed=seed)
            seed += 1
            for _agent in e.agent_iter():
                _obs, _reward, terminated, truncated, info = e.last()
                if terminated or truncated:
                    e.step(None)
                    continue
                legal = info["legal_actions"]
                e.step(int(legal[rng.randrange(len(legal))]))
                n += 1
        return n, time.process_time() - cpu, time.perf_counter() - wall

    return run


def gymnasium(spec: str) -> Runner:
    e = SingleSeatEnv(spec, opponents="random")
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, float, float]:
        n = seed = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.process_time() - cpu < seconds:
            _obs, info = e.reset(seed=seed)
            seed += 1
            done = False
            while not done:
                legal = info["legal"].actions
                _obs, _reward, done, _truncated, info = e.step(int(legal[rng.randrange(len(legal))]))
                n += 1
        return n, time.process_time() - cpu, time.perf_counter() - wall

    return run


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of a live process, from /proc (0 where /proc is not there)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def vector(spec: str, workers: int, num_envs: int) -> Runner:
    def run(seconds: float) -> tuple[int, float, float]:
        envs = VectorEnv(spec, num_envs=num_envs, workers=workers)
        rng = np.random.default_rng(0)
        _, infos = envs.reset(seed=0)
        pids = [p.pid for p in envs._processes]
        start_children = sum(_cpu_of(pid) for pid in pids)
        n = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.perf_counter() - wall < seconds:
            offsets = infos["legal_offsets"]
            pick = offsets[:-1] + (rng.random(num_envs) * np.diff(offsets)).astype(np.int64)
            _, _, _, _, infos = envs.step(infos["legal_actions"][pick])
            n += num_envs
        elapsed_wall = time.perf_counter() - wall
        used = time.process_time() - cpu + sum(_cpu_of(pid) for pid in pids) - start_children
        envs.close()
        return n, used, elapsed_wall

    return run


def rlcard_doudizhu() -> tuple[str, Runner] | None:
    try:
        import rlcard
    except ImportError:
        return None
    e = rlcard.make("doudizhu", config={"seed": 0})
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, float, float]:
        n = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.process_time() - cpu < seconds:
            state, _ = e.reset()
            while not e.is_over():
                legal = list(state["legal_actions"].keys())
                state, _ = e.step(legal[rng.randrange(len(legal))])
                n += 1
        return n, time.process_time() - cpu, time.perf_counter() - wall

    return "rlcard doudizhu env", run


def openspiel_doudizhu() -> tuple[str, Runner] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(0)

    def run(seconds: float) -> tuple[int, float, float]:
        n = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.process_time() - cpu < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()  # at a chance node: its outcomes, all equally likely
                if not state.is_chance_node():
                    state.observation_tensor(state.current_player())
                    n += 1
                state.apply_action(legal[rng.randrange(len(legal))])
        return n, time.process_time() - cpu, time.perf_counter() - wall

    return "openspiel dou_dizhu", run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row")
    parser.add_argument("--num-envs", type=int, default=128, help="slots of the vector rows")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--systems", default="engine,pettingzoo,gymnasium,vector",
                        help="comma-separated rows to time besides the peer (default: all)")
    args = parser.parse_args()
    systems = set(args.systems.split(","))
    peer = rlcard_doudizhu() or openspiel_doudizhu()
    rows: list[dict[str, Any]] = []

    def measure(system: str, game: str, runner: Runner) -> None:
        decisions, cpu, wall = runner(args.seconds)
        row = {"system": system, "game": game, "decisions": decisions, "per_cpu_s": decisions / cpu,
               "per_wall_s": decisions / wall}
        rows.append(row)

    if peer is not None:
        measure(peer[0], "dou_dizhu", peer[1])
    for spec in GAMES:
        for system, runner in (("engine", engine), ("pettingzoo", pettingzoo), ("gymnasium", gymnasium)):
            if system in systems:
                measure(system, spec, runner(spec))
    for workers in (0, 2) if "vector" in systems else ():
        measure("vector" if workers else "vector (in-process)", "fool(players=5)",
                vector("fool(players=5)", workers, args.num_envs))
    peer_rate = rows[0]["per_cpu_s"] if peer is not None else None
    for row in rows:
        if peer_rate is not None:
            row["ratio_to_peer"] = row["per_cpu_s"] / peer_rate
        bar = BARS.get((row["system"], row["game"]))
        if bar is not None:
            rate = row["per_wall_s"] if row["system"] == "vector" else row["per_cpu_s"]
            row["bar"], row["meets_bar"] = bar, rate >= bar
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'system':22} {'game':20} {'decisions/CPU s':>16} {'decisions/wall s':>17} {'x peer (CPU)':>13}  bar")
    for row in rows:
        verdict = f"{row['bar']:,.0f}: {'met' if row['meets_bar'] else 'NOT met'}" if "bar" in row else ""
        ratio = f"{row['ratio_to_peer']:.2f}" if "ratio_to_peer" in row else "-"
        print(f"{row['system']:22} {row['game']:20} {row['per_cpu_s']:>16,.0f} {row['per_wall_s']:>17,.0f} "
              f"{ratio:>13}  {verdict}")


if __name__ == "__main__":
    main()
