"""How many forged records ``motley verify`` accepts, with the commitment a player saw at the start and without it.

Each game's finished tables are made as the server makes them (a lobby request, a seed the server chose, random
moves; :func:`motley.server.web.testing.store_finished_match`) and their records taken as ``GET /api/tables/ID/record``
gives them (:func:`motley.server.web.routes.finished.finished_record`). Each record is then forged in every way
below and checked with ``motley verify FILE`` and ``motley verify FILE --commitment HEX`` (the real commitment):

- ``explicit deal``: the real seed, table and commitment kept, an explicit deal (another seed's) and a whole new
  match played on it, ending in its own result (the record replays);
- ``other seed, same commitment``: the seed changed, everything else kept;
- ``other seed, its commitment``: a whole new match on another seed with the commitment recomputed for it (the
  forger's own record: only ``--commitment`` can tell);
- ``half, no result``: half the moves, the result removed; ``half, result kept``: half the moves, the real result;
- ``no result``: the result removed; ``other result``: the scores of the result changed;
- ``other table``: the record's table id changed (its commitment no longer fits);
- ``a move changed``: one move replaced by another legal one at that point, the rest kept.

The real records themselves must pass both ways. Usage::

    PYTHONPATH=src python benchmarks/forged_records.py [--tables 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import motley
from motley.bots import RandomBot
from motley.cli.main import app
from motley.core.play import play
from motley.core.registry import game_spec
from motley.server.play.table import Table, commitment
from motley.server.store.storage import Storage
from motley.server.web.routes.finished import finished_record
from motley.server.web.testing import store_finished_match

#: The lobby requests of the tables forged: a short match of each game, every seat a bot.
REQUESTS = {
    "fools_errand": {"game": "fools_errand", "players": 2},
    "fool": {"game": "fool", "players": 4, "options": {"rounds": 1}},
    "foolery": {"game": "foolery", "players": 4, "options": {"hands": 1}},
}

Record = dict[str, Any]


def _bots(request: dict[str, Any]) -> dict[str, Any]:
    return {**request, "seats": [{"kind": "bot", "bot": "random"}] * int(request["players"])}


def _new_match(data: Record, seed: int, rng: random.Random, deal_from_seed: bool) -> Record:
    """A whole new match of ``data``'s game and options on ``seed``'s deal: as an explicit deal
    (``deal_from_seed`` False: the record names it) or dealt from the seed itself."""
    game = motley.load_game(data["game"], **data["params"])
    if deal_from_seed:
        start = game.new_initial_state(seed=seed)
    else:
        start = game.new_initial_state(deal=_deal_of(game, seed, rng))
    state = play(start, [RandomBot(game) for _ in range(game.num_players)], rng)
    made: Record = json.loads(motley.records.dump(state))
    return made


def _deal_of(game: motley.Game, seed: int, rng: random.Random) -> dict[str, Any]:
    """An explicit deal as a forger writes it: each seat's hand and the dealer of ``seed``'s first deal (Fool!,
    Foolery), or (The Fool's Errand) two shuffled decks of 26 cards with a Joker each."""
    first = game.new_initial_state(seed=seed).observation(0)
    if "hand" in first and "dealer" in first:
        hands = [game.new_initial_state(seed=seed).observation(seat)["hand"] for seat in range(game.num_players)]
        return {"hands": hands, "dealer": first["dealer"]}
    codes = sorted(game_spec(game.name).card_codes - {"JK"})
    rng.shuffle(codes)
    decks = [codes[:26], codes[26:]]
    for deck in decks:
        deck.insert(rng.randrange(27), "JK")
    return {"decks": decks}


def _changed_move(data: Record, rng: random.Random) -> Record:
    """``data`` with one move (at a point with more than one legal move) replaced by another legal move there;
    the later moves kept as they were."""
    game = motley.load_game(data["game"], **data["params"])
    state = game.new_initial_state(seed=data["seed"])
    moves = [dict(move) for move in data["moves"]]
    open_points: list[tuple[int, str]] = []
    for number, move in enumerate(moves):
        legal = {state.action_to_string(a): a for a in state.legal_actions()}
        others = sorted(set(legal) - {move["move"]})
        if others:
            open_points.append((number, rng.choice(others)))
        state.apply_action(legal[move["move"]])
    number, other = rng.choice(open_points)
    moves[number]["move"] = other
    return {**data, "moves": moves}


def forgeries(data: Record, rng: random.Random) -> dict[str, Record]:
    """Every forgery of the real record ``data`` (see the module's docstring), by name."""
    keep: Record = {k: data[k] for k in ("seed", "table", "commitment", "names") if k in data}
    half = {k: v for k, v in data.items() if k != "result"} | {"moves": data["moves"][:len(data["moves"]) // 2]}
    other_seed = data["seed"] + 1 + rng.randrange(10**6)
    own = _new_match(data, other_seed, rng, deal_from_seed=True)
    result = json.loads(json.dumps(data["result"]))
    result["scores"] = [score + 1 for score in result["scores"]]
    return {
        "explicit deal": {**_new_match(data, other_seed, rng, deal_from_seed=False), **keep},
        "other seed, same commitment": {**data, "seed": other_seed},
        "other seed, its commitment": {**own, "table": data["table"], "names": data.get("names"),
                                       "commitment": commitment(data["table"], other_seed)},
        "half, no result": half,
        "half, result kept": {**half, "result": data["result"]},
        "no result": {k: v for k, v in data.items() if k != "result"},
        "other result": {**data, "result": result},
        "other table": {**data, "table": data["table"][:-1] + ("0" if data["table"][-1] != "0" else "1")},
        "a move changed": _changed_move(data, rng),
    }


def verdict(record: Record, folder: Path, promised: str | None) -> int:
    """The exit status of ``motley verify`` on ``record`` (with ``--commitment promised`` when given)."""
    path = folder / "record.json"
    path.write_text(json.dumps(record))
    extra = [] if promised is None else ["--commitment", promised]
    return CliRunner().invoke(app, ["verify", str(path), *extra]).exit_code


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=3, help="finished tables of each game (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the counts here")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    counts: dict[str, dict[str, int]] = {}
    real_failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        storage = Storage(f"sqlite:///{folder / 'forged.db'}")
        for request in REQUESTS.values():
            for _ in range(args.tables):
                stored = store_finished_match(storage, _bots(request), seed=rng.randrange(2**62))
                loaded = storage.load(stored.id)
                assert loaded is not None
                data = finished_record(Table(loaded))
                promised = str(data["commitment"])
                real_failed += verdict(data, folder, None) != 0
                real_failed += verdict(data, folder, promised) != 0
                for name, forged in forgeries(data, rng).items():
                    row = counts.setdefault(name, {"tried": 0, "accepted alone": 0, "accepted with commitment": 0})
                    row["tried"] += 1
                    row["accepted alone"] += verdict(forged, folder, None) == 0
                    row["accepted with commitment"] += verdict(forged, folder, promised) == 0
        storage.close()
    _print(counts, real_failed)
    out = {"counts": counts, "real records refused": real_failed, "tables": args.tables * len(REQUESTS)}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return out


def _print(counts: dict[str, dict[str, int]], real_failed: int) -> None:
    line: Callable[..., str] = "{:<30} {:>6} {:>16} {:>26}".format
    print(line("forgery", "tried", "accepted alone", "accepted with commitment"))
    for name, row in counts.items():
        print(line(name, row["tried"], row["accepted alone"], row["accepted with commitment"]))
    total = {key: sum(row[key] for row in counts.values()) for key in ("tried", "accepted alone",
                                                                        "accepted with commitment")}
    print(line("all", total["tried"], total["accepted alone"], total["accepted with commitment"]))
    print(f"real records refused: {real_failed}")


if __name__ == "__main__":
    main()
