"""Time of an analysis asked for in the replay viewer: one seat's decisions of a finished match, searched by a
server's worker process (``motley.server.play.analyses``), from the request to the stored result.

Each game's match is played by the heuristic at every seat from seed ``--seed`` and stored as a server stores a
finished table; a :class:`~motley.server.play.service.Service` with one search worker (``Thinkers(1)``: one core) then
analyses ``--seat`` at the server's budget (``motley.bots.analysis.DEFAULT_SIMULATIONS``). Prints, per game, the
decisions analysed and the seconds of wall time until the result is stored. Figures in README (hints and analysis).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/analysis_served.py
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

import motley
from motley.bots import make_bot
from motley.server.play.bodies import table_request
from motley.server.play.requests import new_record
from motley.server.play.service import Service
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.store.records import Settings
from motley.server.store.storage import Storage


def stored_match(storage: Storage, text: str, seed: int) -> str:
    """A heuristic match of ``text`` (a game spec) stored finished in ``storage``; its table id."""
    game = motley.load_game(text)
    request = {"game": game.name, "options": {k: v for k, v in game.params.items() if k != "players"},
               "players": game.num_players, "seats": [{"kind": "human"}] * game.num_players}
    record = new_record(table_request(request), Settings(), seed)
    storage.create_table(record)
    table = Table(record)
    bot = make_bot("heuristic", table.game)
    rng = random.Random(seed)
    while not table.state.is_terminal():
        state = table.state
        seat = state.current_player()
        move = table.prepare(seat, bot.act(state.observation(seat), state.legal_actions(), rng), "seat")
        storage.add_move(record.id, move.number, seat, move.text, "seat")
        table.apply(move)
    storage.finish(record.id, {"scores": table.state.scores()})
    return record.id


async def served(path: Path, table_id: str, seat: int) -> tuple[int, float]:
    service = Service(Storage(f"sqlite:///{path}"), Settings(), Thinkers(1))
    try:
        live = await service.get(table_id)
        assert live is not None
        start = time.perf_counter()
        await service.analyses.start(live.table, seat)
        job = service.analyses.jobs[table_id]
        assert job.task is not None
        await job.task
        wall = time.perf_counter() - start
        done = await service.analyses.status(live.table, seat)
        assert done["status"] == "done", done
        return int(done["total"]), wall
    finally:
        await service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description="time of an analysis served to the replay viewer")
    parser.add_argument("games", nargs="*", default=["fool(players=5)", "foolery(players=5)"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seat", type=int, default=0)
    args = parser.parse_args()
    print(f"{'game':<24} {'decisions':>9} {'wall s':>7}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "served.db"
        for text in args.games:
            storage = Storage(f"sqlite:///{path}")
            table_id = stored_match(storage, text, args.seed)
            storage.close()
            count, wall = asyncio.run(served(path, table_id, args.seat))
            print(f"{text:<24} {count:>9} {wall:>7.1f}", flush=True)


if __name__ == "__main__":
    main()
