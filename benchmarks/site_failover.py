"""Failover time of a site (docs/scaling.md): two ``motley serve --site`` processes on one PostgreSQL (a
throwaway server started here, :mod:`tests.postgres`); a table of four bots is made on the owner, the owner is
stopped mid-match, and the time until the survivor drives the table is measured; the stopped process is started
again as the next round's survivor. Prints p50 / max over the rounds and checks every table's stored log replays
(no move lost or stored twice).

``--signal kill`` (the default): SIGKILL, as when a machine dies; the survivor drives the table once a socket to
it gets ``state`` (the dead owner cannot answer a relayed one), after the lease's TTL. ``--signal term``: SIGTERM,
which drains the owner (its tables handed over at once, docs/scaling.md); the survivor drives the table once its
own lobby line of it has seats (a process lists its own tables from memory: a socket relayed to the owner, still
draining, would answer ``state`` too early).

Run: ``PYTHONPATH=src:. .venv/bin/python benchmarks/site_failover.py [ROUNDS] [LEASE_TTL] [--signal term]``
(default 20 rounds, 2.0 s, kill).
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import time

import httpx
from tests.postgres import PostgresServer, binaries
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from motley.server.play.table import Table
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerProcess

BOTS = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4}


def serves(ws_base: str, table_id: str) -> bool:
    """Does the server at ``ws_base`` drive ``table_id`` (its socket gets a ``state``, not ``elsewhere``)?"""
    try:
        with connect(f"{ws_base}/ws/{table_id}", open_timeout=5) as ws:
            return bool(json.loads(ws.recv(timeout=5))["type"] == "state")
    except (OSError, TimeoutError, WebSocketException):
        return False


def drives(base: str, table_id: str) -> bool:
    """Does the server at ``base`` drive ``table_id`` itself (its lobby line of it has seats)?"""
    try:
        return any(t["id"] == table_id and t["seats"] for t in httpx.get(f"{base}/api/tables", timeout=5).json())
    except httpx.HTTPError:
        return False


def main(kills: int, ttl: float, how: str) -> None:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        url = server.create_database()
        times, tables = measure(url, kills, ttl, how)
        storage = Storage(url)
        replayed = sum(1 for t in tables if (r := storage.load(t)) is not None and Table(r) is not None)
        storage.close()
    finally:
        server.remove()
    print(f"lease ttl {ttl:.1f} s, {len(times)} rounds of SIG{how.upper()}: "
          f"takeover p50 {statistics.median(times):.2f} s, "
          f"mean {statistics.mean(times):.2f} s, max {max(times):.2f} s; {replayed}/{len(tables)} stored logs replay")


def measure(url: str, kills: int, ttl: float, how: str = "kill") -> tuple[list[float], list[str]]:
    """``kills`` rounds over the store at ``url``, the owner stopped by SIGKILL (``how`` "kill") or SIGTERM
    ("term"); returns the takeover times (seconds) and the tables made."""
    procs = [ServerProcess(url, extra=["0.2"], lease_ttl=ttl).start() for _ in range(2)]
    times: list[float] = []
    tables: list[str] = []
    try:
        for round_ in range(kills):
            owner, survivor = procs[round_ % 2], procs[(round_ + 1) % 2]
            table_id = httpx.post(f"{owner.base}/api/tables", json=BOTS, timeout=10).json()["id"]
            tables.append(table_id)
            time.sleep(0.3)
            if how == "kill":
                owner.kill()
            else:
                assert owner.proc is not None
                owner.proc.send_signal(signal.SIGTERM)
            killed = time.monotonic()
            while not (serves(survivor.ws_base, table_id) if how == "kill" else drives(survivor.base, table_id)):
                if time.monotonic() - killed > 30:
                    raise SystemExit(f"table {table_id} not taken over in 30 s")
                time.sleep(0.02)
            times.append(time.monotonic() - killed)
            print(f"{how} {round_ + 1}: taken over in {times[-1]:.2f} s", flush=True)
            if how == "term":
                owner.stop()  # it exits by itself once drained
            procs[round_ % 2] = ServerProcess(url, extra=["0.2"], lease_ttl=ttl).start()
    finally:
        for proc in procs:
            proc.stop()
    return times, tables


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", type=int, nargs="?", default=20, help="owners stopped, one per round")
    parser.add_argument("ttl", type=float, nargs="?", default=2.0, help="the lease's TTL, seconds")
    parser.add_argument("--signal", choices=["kill", "term"], default="kill", help="how the owner is stopped")
    args = parser.parse_args()
    main(args.rounds, args.ttl, args.signal)
