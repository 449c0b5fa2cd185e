"""A digest of what the engines, bots and simulator produce, to show that a change of structure changes no game.

Plays seeded matches of every game at its smallest and largest player count and hashes, per configuration:
the records (``motley.records.dump``: params, seed, every move, the result), every seat's observation and
observation tensor after every move, the legal actions, and the games played by each bot kind (random,
heuristic, ISMCTS, the network and ``best`` where the game ships one) and by the simulator. The same code
before and after a change must print the same digests; any line that differs names what changed.

    .venv/bin/python benchmarks/digest.py                # every game, the default number of matches
    .venv/bin/python benchmarks/digest.py --matches 3 --json out.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

import motley
from motley.bots import make_bot
from motley.core.play import play_match
from motley.core.registry import game_class, game_spec
from motley.eval.simulate import simulate


def _hash(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:16]


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def random_matches(config: str, matches: int) -> dict[str, str]:
    """Random legal play of ``matches`` whole matches: records, observations, tensors and legal actions."""
    game = motley.load_game(config)
    records: list[bytes] = []
    views: list[bytes] = []
    tensors: list[bytes] = []
    for seed in range(matches):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            views.append(_json(legal))
            state.apply_action(rng.choice(legal))
            for seat in range(game.num_players):
                views.append(_json(state.observation(seat)))
                tensors.append(np.ascontiguousarray(state.observation_tensor(seat), dtype=np.float32).tobytes())
        records.append(motley.records.dump(state).encode())
    return {"records": _hash(records), "observations": _hash(views), "tensors": _hash(tensors)}


def bot_matches(config: str, bot: str, matches: int) -> str:
    """``matches`` matches with ``bot`` in every seat, the records hashed."""
    game = motley.load_game(config)
    records = []
    for seed in range(matches):
        players = [make_bot(bot, game) for _ in range(game.num_players)]
        state = play_match(game, players, seed=seed)
        records.append(motley.records.dump(state).encode())
    return _hash(records)


def simulated(config: str, bots: list[str], n: int) -> str:
    """The simulator's per-game results (seed, seats, returns, scores, moves) over ``n`` duplicate deals."""
    game = motley.load_game(config)
    summary = simulate(game, bots, n, seed=3, workers=1, duplicate=True, records=True)
    rows = [vars(r) for r in summary.results]
    return _hash([_json(rows)])


def digests(matches: int) -> dict[str, str]:
    """Every digest, keyed by what it covers."""
    out: dict[str, str] = {}
    jobs: list[tuple[str, Callable[[], Any]]] = []
    for name in motley.registered_games():
        cls = game_class(name)
        sizes = sorted({cls.min_players, cls.max_players})
        for players in sizes:
            config = f"{name}(players={players})" if cls.max_players > cls.min_players else name
            jobs.append((f"{config} random", partial(random_matches, config, matches)))
            if game_spec(name).heuristic is not None:
                jobs.append((f"{config} heuristic", partial(bot_matches, config, "heuristic", matches)))
        single = f"{name}(rounds=1)" if name == "fool" else f"{name}(hands=1)" if name == "foolery" else name
        jobs.append((f"{single} ismcts(simulations=30)", partial(bot_matches, single, "ismcts(simulations=30)", 2)))
        jobs.append((f"{single} best", partial(bot_matches, single, "best", 1)))
        if game_spec(name).networks:
            jobs.append((f"{single} network", partial(bot_matches, single, "network", 2)))
        jobs.append((f"{single} simulate", partial(simulated, single, ["heuristic", "random"], 4)))
    for key, job in jobs:
        value = job()
        if isinstance(value, dict):
            for part, digest in value.items():
                out[f"{key} {part}"] = digest
        else:
            out[key] = value
        print(f"{key}: {value}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=5, help="whole matches per configuration")
    parser.add_argument("--json", help="write the digests here as JSON")
    args = parser.parse_args()
    out = digests(args.matches)
    print("all:", _hash([_json(out)]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
