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
"""

from __future__ import annotations

import argparse
import collections

from tests.postgres import PostgresServer, binaries
from tests.server.site.test_server_site_pauses import TTL, join_race, paused_move

from motley.server.web.testing import ServerProcess


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
    args = parser.parse_args()
    main(args.races, args.pauses)
