"""A live table's searching bot beside analyses: its decision latency with and without clients asking for the
analyses of finished matches, with the server's two lanes of worker processes and with one lane for all.

A :class:`~motley.server.play.thinking.Thinkers` of one live worker and one background worker (the server's
default on a 2-core machine) times ``--decisions`` ISMCTS decisions (``--bot``) of a live Fool! table, each from a
position of a random match, sequentially, as a table's driver asks for them (:meth:`Thinkers.choose`: the wait
for a free worker and the search). Beside them, in the "loaded" runs, analyses of ``--analyses`` finished heuristic
matches keep the server's limit of two analyses running (:class:`~motley.server.play.analyses.Analyses`, as the
replay viewer's requests start them), one after the other. ``one lane`` runs the same with every job in the live
lane (the server before it had a background lane). Prints p50 and p99 per setting and the loaded/quiet ratio of
the p99.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bots_beside_analyses.py --decisions 60
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import motley
from motley.core import Observation
from motley.server.play.service import Service
from motley.server.play.thinking import Lane, Thinkers
from motley.server.store.records import Settings
from motley.server.store.storage import Storage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analysis_served import stored_match

R = TypeVar("R")


class OneLane(Thinkers):
    """Every job in the live lane: the server's workers before analyses and hints had a lane of their own."""

    async def run(self, what: str, fn: Callable[..., R], *args: Any, lane: Lane = "live") -> R:
        return await super().run(what, fn, *args, lane="live")


def positions(count: int, seed: int) -> list[tuple[Observation, list[int], str]]:
    """``count`` decisions of random Fool! matches (4 players, one round): observation, legal actions, seed."""
    game = motley.load_game("fool(players=4,rounds=1)")
    rng = random.Random(seed)
    found: list[tuple[Observation, list[int], str]] = []
    while len(found) < count:
        state = game.new_initial_state(seed=rng.randrange(1 << 30))
        while not state.is_terminal() and len(found) < count:
            seat = state.current_player()
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                found.append((state.observation(seat), legal, f"b{len(found)}"))
            state.apply_action(rng.choice(legal))
    return found


async def keep_analysing(service: Service, tables: list[str], stop: asyncio.Event) -> int:
    """Keep two analyses running (the server's limit) over ``tables`` and their seats until ``stop``; the count
    finished."""
    finished = 0
    jobs = [(table_id, seat) for seat in range(5) for table_id in tables]
    while not stop.is_set():
        running = []
        for table_id, seat in jobs[:2]:
            jobs = jobs[1:] + jobs[:1]
            live = await service.get(table_id)
            assert live is not None
            await service.analyses.start(live.table, seat)
            job = service.analyses.jobs.get(table_id)
            if job is not None and job.task is not None:
                running.append(job.task)
        for task in running:
            await task
        finished += len(running)
        await service.store.call(lambda: None)
    return finished


async def timed(path: Path, tables: list[str], thinkers: Thinkers, loaded: bool, bot: str,
                work: list[tuple[Observation, list[int], str]]) -> list[float]:
    service = Service(Storage(f"sqlite:///{path}"), Settings(), thinkers)
    stop = asyncio.Event()
    game = motley.load_game("fool(players=4,rounds=1)")
    load = asyncio.ensure_future(keep_analysing(service, tables, stop)) if loaded else None
    try:
        if load is not None:
            await asyncio.sleep(2.0)  # the workers started and searching
        times = []
        await thinkers.choose("fool", game.params, bot, *work[0])  # the live worker started
        for observation, legal, seed in work:
            start = time.perf_counter()
            await thinkers.choose("fool", game.params, bot, observation, legal, seed)
            times.append(time.perf_counter() - start)
        return times
    finally:
        stop.set()
        if load is not None:
            load.cancel()
        for job in list(service.analyses.jobs.values()):
            if job.task is not None:
                job.task.cancel()
        await service.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description="a live bot's decision latency beside analyses")
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--analyses", type=int, default=4, help="finished matches to analyse")
    parser.add_argument("--bot", default="ismcts(simulations=300)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = positions(args.decisions, args.seed)
    print(f"{'workers':<10} {'clients':<9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bots.db"
        storage = Storage(f"sqlite:///{path}")
        tables = [stored_match(storage, "fool(players=5,rounds=1)", args.seed + i) for i in range(args.analyses)]
        storage.close()
        p99: dict[tuple[str, bool], float] = {}
        makers: list[tuple[str, Callable[[], Thinkers]]] = [("two lanes", lambda: Thinkers(1, background=1)),
                                                             ("one lane", lambda: OneLane(1))]
        for name, make in makers:
            for loaded in (False, True):
                times = asyncio.run(timed(path, tables, make(), loaded, args.bot, work))
                p99[name, loaded] = percentile(times, 0.99)
                print(f"{name:<10} {'analyses' if loaded else 'none':<9} {1000 * statistics.median(times):>8.0f} "
                      f"{1000 * p99[name, loaded]:>8.0f} {1000 * max(times):>8.0f}", flush=True)
        for name in ("two lanes", "one lane"):
            print(f"{name}: p99 with analyses / without: x{p99[name, True] / p99[name, False]:.2f}")


if __name__ == "__main__":
    main()
