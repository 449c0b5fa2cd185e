"""Fencing tokens of a site (docs/scaling.md): two ``motley serve --site`` processes on one PostgreSQL (a throwaway
server started here, :mod:`tests.postgres`), the owner of a table paused (SIGSTOP) past its lease while a request
waits for it, the other process taking the table over, then the owner resumed. Two kinds of rounds, those of
``tests/server/site/test_server_site_pauses.py``:

- races: a join of a table's one open seat queued at the paused owner, a second join of it at the taker; prints
  how many of the two joins were given the seat (1 is right), and whether the stored seat is one given;
- pauses: a move sent to the paused owner by the seat to move; prints whether the client was shown a version
  lower than one it was shown before (after reconnecting to the taker), and how many moves the store holds
  (0 is right: the move was made while the taker held the lease).

Run: ``PYTHONPATH=src:. .venv/bin/python benchmarks/site_fencing.py [RACES] [PAUSES]`` (default 5 and 10). The
same script over an older motley (``PYTHONPATH=OLD/src:.``) gives the figures before the fences.

``--cost N``: instead, the cost of the fence itself: N moves stored one transaction each, alternately with and
without a fence (the lease check in the same transaction), on SQLite and on PostgreSQL; prints the median time of
one write each way and their ratio.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import tempfile
import time
from pathlib import Path

from tests.postgres import PostgresServer, binaries
from tests.server.site.test_server_site_pauses import TTL, join_race, paused_move

from motley.server.store.storage import Fence, Storage, TableRecord, new_owner
from motley.server.web.testing import ServerProcess


def write_cost(url: str, moves: int) -> tuple[float, float]:
    """Median seconds of one stored move without and with its fence, ``moves`` of each, interleaved."""
    storage = Storage(url)
    try:
        for table in ("plain", "fenced"):
            storage.create_table(TableRecord(id=table, game="fool", params={}, seed=1, seats=[], settings={},
                                             created=time.time()))
        owner = new_owner()
        epoch = storage.claim("fenced", owner, 3600.0)
        assert epoch is not None
        fences = {"fenced": Fence(owner, epoch)}
        times: dict[str, list[float]] = {"plain": [], "fenced": []}
        for n in range(1, moves + 1):
            for table in ("plain", "fenced"):
                started = time.perf_counter()
                storage.add_moves([(table, n, 0, "m", "seat")], fences if table == "fenced" else None)
                times[table].append(time.perf_counter() - started)
        return statistics.median(times["plain"]), statistics.median(times["fenced"])
    finally:
        storage.close()


def cost(moves: int) -> None:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        with tempfile.TemporaryDirectory() as folder:
            for name, url in (("SQLite", f"sqlite:///{Path(folder) / 'cost.db'}"),
                              ("PostgreSQL", server.create_database())):
                plain, fenced = write_cost(url, moves)
                print(f"{name}: one move {plain * 1000:.3f} ms unfenced, {fenced * 1000:.3f} ms fenced "
                      f"(x{fenced / plain:.2f}), median of {moves}")
    finally:
        server.remove()


def main(races: int, pauses: int) -> None:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        url = server.create_database()
        a = ServerProcess(url, lease_ttl=TTL).start()
        b = ServerProcess(url, lease_ttl=TTL).start()
        try:
            given: collections.Counter[int] = collections.Counter()
            for n in range(races):
                race = join_race(url, a, b)
                given[race.given] += 1
                print(f"race {n + 1}: joins answered {race.paused} (paused owner), {race.taker} (taker); "
                      f"seat given {race.given}x; stored seat is one given: {race.stored_is_given}", flush=True)
            back = stored = 0
            for n in range(pauses):
                pause = paused_move(url, a, b)
                back += pause.went_back
                stored += bool(pause.stored)
                print(f"pause {n + 1}: versions shown {pause.shown}, moves stored {pause.stored}, "
                      f"answers {pause.answers}", flush=True)
        finally:
            a.stop()
            b.stop()
    finally:
        server.remove()
    if races:
        print(f"seats given per race: {dict(sorted(given.items()))} over {races} races")
    if pauses:
        print(f"versions going back: {back} of {pauses} pauses; a move stored under the other's lease: "
              f"{stored} of {pauses}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("races", type=int, nargs="?", default=5)
    parser.add_argument("pauses", type=int, nargs="?", default=10)
    parser.add_argument("--cost", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.cost:
        cost(args.cost)
    else:
        main(args.races, args.pauses)
