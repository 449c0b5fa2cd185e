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
* ``floor info``, ``floor mask``: the arrays of an environment step built inline, without the AEC API's calls
  (``agent_iter``, ``last``, ``step``, the wrappers, the rewards and infos of every agent): per decision the legal
  ids as an int64 array and their action features, the mover's tensor and mask built as ``MotleyAECEnv`` builds
  them, then the action drawn from the ids (``info``) or from ``np.flatnonzero`` of the mask (``mask``). What any
  PettingZoo environment that hands out these arrays costs at least, its AEC calls aside: the bound of the two
  ``pettingzoo`` rows above;
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

``--instructions`` also counts each row's instructions per decision and per game with callgrind (valgrind), as
``random_play.py --instructions`` does: the row's loop plays ``--instruction-units`` games (0, 1, ...; the batch
row a quarter as many steps of its 64 slots, per decision only) inside one ``functools.reduce`` call in a
process under ``valgrind --tool=callgrind --toggle-collect=functools_reduce``, so only the play is counted
(not the start-up, the imports or the set-up). Counts do not move with the machine's load; times do.

    .venv/bin/python benchmarks/rl_step.py                 # 2 s a row
    .venv/bin/python benchmarks/rl_step.py --seconds 5 --json
    .venv/bin/python benchmarks/rl_step.py --games fool --rows engine+tensor,pettingzoo,openspiel --instructions
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

import numpy as np

import motley
from motley.core.features import action_feature_table
from motley.envs.pettingzoo import _WIDE, _WIDE_MASKS_KEPT, ActionMask
from motley.envs.pettingzoo import env as pettingzoo_env
from motley.envs.tensors import one_state_observer
from motley.envs.vector import VectorEnv

#: motley's rows, in the table's order.
MINE = ("engine", "engine+tensor", "engine+obs", "pettingzoo info", "pettingzoo mask", "pettingzoo bool", "floor info",
        "floor mask", "batch")
#: motley configuration -> its peers: (system, peer game).
GAMES: dict[str, list[tuple[str, str]]] = {
    "foolery(players=5,hands=1)": [("openspiel", "dou_dizhu"), ("rlcard env", "doudizhu")],
    "fool(players=5,rounds=1)": [("openspiel", "hearts"), ("openspiel", "oh_hell")],
}

#: ``play(i) -> (decisions, games ended)``: one unit of a row's loop, number ``i`` (a game with seed ``i``; for the
#: batch stepper one step of every slot).
Player = Callable[[int], tuple[int, int]]


def engine(spec: str, observe: str) -> Player:
    """motley's bare loop; ``observe``: ``""`` (nothing), ``"tensor"`` (the mover's tensor) or ``"both"`` (and
    the int8 mask)."""
    game = motley.load_game(spec)
    rng = random.Random(0)
    actions = game.num_distinct_actions()

    def play(i: int) -> tuple[int, int]:
        n = 0
        state = game.new_initial_state(seed=i)
        while not state.is_terminal():
            legal = state.legal_actions()
            if observe:
                state.observation_tensor(state.current_player())
                if observe == "both":
                    mask = np.zeros(actions, dtype=np.int8)
                    mask[legal] = 1
            state.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        return n, 1

    return play


def pettingzoo(spec: str, pick: str) -> Player:
    e = pettingzoo_env(spec)
    rng = random.Random(0)

    def play(i: int) -> tuple[int, int]:
        n = 0
        e.reset(seed=i)
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
        return n, 1

    return play


def step_arrays(game: motley.Game) -> Callable[[motley.State], tuple[dict[str, Any], dict[str, Any]]]:
    """``arrays(state) -> (info, obs)``: the arrays a PettingZoo step hands the seat to move in ``state``, built
    inline (the module docstring's ``floor`` rows): the legal ids as an int64 array and their action features; the
    tensor as ``MotleyAECEnv.observe`` makes it (the compiled core's bytes, or the game's one-state observer, or
    ``observation_tensor``) and the mask as it does (a wide one kept by legal actions over ``legal_mask_bytes``, a
    narrow one a copy of zeros with the legal ids set), each read-only."""
    features = action_feature_table(game)
    size = game.num_distinct_actions()
    tensor_of = one_state_observer(game)
    zeros = np.zeros(size, dtype=np.int8)
    kept: dict[tuple[int, ...], Any] = {}
    wide, shape, int8 = size >= _WIDE, (size,), np.dtype(np.int8)
    # the compiled core writes the tensor's bytes (State.observation_bytes overridden), as the environment checks
    compiled = type(game.new_initial_state(seed=0)).observation_bytes is not motley.State.observation_bytes

    def arrays(state: motley.State) -> tuple[dict[str, Any], dict[str, Any]]:
        # one call a decision: the tensor and the mask inline
        legal_list = state.legal_actions()
        legal = np.array(legal_list, dtype=np.int64)
        info = {"legal_actions": legal, "action_features": features.take(legal, 0)}
        seat = state.current_player()
        if compiled:
            tensor = np.frombuffer(state.observation_bytes(seat), np.float32)
        elif tensor_of is not None:
            tensor = tensor_of(state, seat)
            tensor.setflags(write=False)
        else:
            tensor = state.observation_tensor(seat)
            tensor.setflags(write=False)
        if wide:
            key = tuple(legal_list)
            mask = kept.get(key)
            if mask is None:
                if len(kept) >= _WIDE_MASKS_KEPT:
                    kept.clear()
                mask = kept[key] = np.ndarray.__new__(ActionMask, shape, int8, state.legal_mask_bytes())  # as observe
        else:
            mask = zeros.copy()
            mask[legal] = 1
            mask.setflags(write=False)
        return info, {"observation": tensor, "action_mask": mask}

    return arrays


def floor(spec: str, pick: str) -> Player:
    """The floor rows (module docstring): :func:`step_arrays` at every decision, then the action drawn from the ids
    (``pick="info"``) or from ``np.flatnonzero`` of the mask (``"mask"``)."""
    game = motley.load_game(spec)
    rng = random.Random(0)
    arrays = step_arrays(game)

    def play(i: int) -> tuple[int, int]:
        n = 0
        state = game.new_initial_state(seed=i)
        while not state.is_terminal():
            info, obs = arrays(state)
            ids = info["legal_actions"] if pick == "info" else np.flatnonzero(obs["action_mask"])
            state.apply_action(int(ids[rng.randrange(len(ids))]))
            n += 1
        return n, 1

    return play


def batch(spec: str, slots: int = 64) -> Player:
    envs = VectorEnv(spec, num_envs=slots, workers=0)
    rng = np.random.default_rng(0)
    infos = envs.reset(seed=0)[1]

    def play(_i: int) -> tuple[int, int]:
        nonlocal infos
        offsets = infos["legal_offsets"]
        pick = offsets[:-1] + (rng.random(slots) * np.diff(offsets)).astype(np.int64)
        _, _, terminations, _, infos = envs.step(infos["legal_actions"][pick])
        return slots, int(np.count_nonzero(terminations))

    return play


def openspiel(name: str) -> Player | None:
    try:
        import pyspiel  # type: ignore[import-not-found]  # no stubs: a C++ extension module
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(0)
    by_observation = game.get_type().provides_observation_tensor

    def play(_i: int) -> tuple[int, int]:
        n = 0
        state = game.new_initial_state()
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
        return n, 1

    return play


def rlcard_env(name: str) -> Player | None:
    try:
        import rlcard
    except ImportError:
        return None
    e = rlcard.make(name, config={"seed": 0})
    rng = random.Random(0)

    def play(_i: int) -> tuple[int, int]:
        n = 0
        state, _ = e.reset()
        while not e.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = e.step(legal[rng.randrange(len(legal))])
            n += 1
        return n, 1

    return play


def player(spec: str, system: str) -> Player | None:
    """The loop of row ``system`` (a name of the table: ``engine+tensor``, ``openspiel hearts``, ...) on ``spec``."""
    if system in ("engine", "engine+tensor", "engine+obs"):
        return engine(spec, {"engine": "", "engine+tensor": "tensor", "engine+obs": "both"}[system])
    if system.startswith("pettingzoo "):
        return pettingzoo(spec, system.removeprefix("pettingzoo "))
    if system.startswith("floor "):
        return floor(spec, system.removeprefix("floor "))
    if system == "batch":
        return batch(spec)
    if system.startswith("openspiel "):
        return openspiel(system.removeprefix("openspiel "))
    return rlcard_env(system.removeprefix("rlcard env "))


def time_player(play: Player, seconds: float) -> tuple[int, int, float]:
    """Run units 0, 1, ... of ``play`` for about ``seconds`` of this process's CPU time: (decisions, games,
    CPU seconds)."""
    n = games = i = 0
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        decisions, ended = play(i)
        n, games, i = n + decisions, games + ended, i + 1
    return n, games, time.process_time() - cpu


def count_instructions(spec: str, system: str, units: int) -> tuple[float, float] | None:
    """Instructions per decision and per game of a row under callgrind, or None without valgrind.

    Runs this script's ``--play-only`` under ``valgrind --tool=callgrind``, collecting only inside the
    ``functools.reduce`` call that plays units 0 .. ``units`` - 1 (not the start-up, imports or set-up).
    """
    if shutil.which("valgrind") is None:
        return None
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=functools_reduce",
               sys.executable, __file__, "--play-only", spec, system, str(units)]
    done = subprocess.run(command, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    counts = re.search(r"played (\d+) (\d+)", done.stdout)
    if found is None or counts is None:
        raise RuntimeError(f"no instruction count in callgrind's output: {done.stderr[-500:]}")
    total, decisions, games = int(found.group(1)), int(counts.group(1)), int(counts.group(2))
    return total / decisions, total / max(games, 1)


def play_only(spec: str, system: str, units: int) -> None:
    """Set up a row and play its units 0 .. ``units`` - 1 inside one ``functools.reduce`` call (the C function
    callgrind collects in); print the decisions and games played."""
    play = player(spec, system)
    if play is None:
        raise SystemExit(f"{system} is not installed")
    def add(total: tuple[int, int], i: int) -> tuple[int, int]:
        decisions, ended = play(i)
        return total[0] + decisions, total[1] + ended

    decisions, games = functools.reduce(add, range(units), (0, 0))
    print(f"played {decisions} {games}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each row's instructions per decision and per game with callgrind (valgrind)")
    parser.add_argument("--instruction-units", type=int, default=20,
                        help="games counted under callgrind per row (the batch row: a quarter as many steps)")
    parser.add_argument("--play-only", nargs=3, metavar=("SPEC", "ROW", "UNITS"), help=argparse.SUPPRESS)
    parser.add_argument("--games", default="foolery,fool", help="the games to time, of foolery and fool")
    parser.add_argument("--rows", default="", help="time only the rows whose names start with one of these "
                        "(comma-separated; the engine row is always timed, the base of the ratios)")
    args = parser.parse_args()
    if args.play_only:
        play_only(args.play_only[0], args.play_only[1], int(args.play_only[2]))
        return
    wanted = tuple(name for name in args.rows.split(",") if name)
    rows: list[dict[str, Any]] = []
    for spec, peers in GAMES.items():
        if spec.split("(")[0] not in args.games.split(","):
            continue
        names = [*MINE, *(f"{system} {peer}" for system, peer in peers)]
        group: list[dict[str, Any]] = []
        for system in names:
            if wanted and system != "engine" and not system.startswith(wanted):
                continue
            play = player(spec, system)
            if play is None:
                continue
            decisions, games, cpu = time_player(play, args.seconds)
            row: dict[str, Any] = {"game": spec, "system": system, "decisions_per_s": decisions / cpu,
                                   "games_per_s": games / cpu}
            if args.instructions and system != "batch":  # the batch's slots end games at random: per decision only
                row["instructions_per_decision"], row["instructions_per_game"] = count_instructions(
                    spec, system, args.instruction_units) or (None, None)
            elif args.instructions:
                steps = count_instructions(spec, system, max(1, args.instruction_units // 4))
                row["instructions_per_decision"] = None if steps is None else steps[0]
            group.append(row)
        base = group[0]["decisions_per_s"]
        peer_rows = [row for row in group
                     if not row["system"].startswith(("engine", "pettingzoo", "floor", "batch"))]
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
        counted = ""
        if row.get("instructions_per_decision"):
            counted = f"  {row['instructions_per_decision'] / 1e3:,.1f} k instr/decision"
            if row.get("instructions_per_game"):
                counted += f" {row['instructions_per_game'] / 1e6:,.2f} M instr/game"
        print(f"{row['game']:28} {row['system']:22} {row['decisions_per_s']:>10,.0f} dec/s {row['games_per_s']:>9,.1f} "
              f"games/s  x engine {row['x_engine']:.3f}  {ratios}{counted}")


if __name__ == "__main__":
    main()
