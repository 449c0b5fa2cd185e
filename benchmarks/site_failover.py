"""Failover time of a site (docs/scaling.md): two ``motley serve --site`` processes on one PostgreSQL (a
throwaway server started here, :mod:`tests.postgres`); a table of four bots is made on the owner, the owner is
killed (SIGKILL) mid-match, and the time until the survivor drives the table (a socket to it gets ``state``) is
measured; the killed process is started again as the next round's survivor. Prints p50 / max over the kills and
checks every table's stored log replays (no move lost or stored twice).

Run: ``PYTHONPATH=src:. .venv/bin/python benchmarks/site_failover.py [KILLS] [LEASE_TTL]`` (default 20, 2.0 s).
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import httpx
from tests.postgres import PostgresServer, binaries
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from motley.server.storage import Storage
from motley.server.table import Table
from motley.server.testing import ServerProcess

BOTS = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4}


def serves(ws_base: str, table_id: str) -> bool:
    """Does the server at ``ws_base`` drive ``table_id`` (its socket gets a ``state``, not ``elsewhere``)?"""
    try:
        with connect(f"{ws_base}/ws/{table_id}", open_timeout=5) as ws:
            return bool(json.loads(ws.recv(timeout=5))["type"] == "state")
    except (OSError, TimeoutError, WebSocketException):
        return False


def main(kills: int, ttl: float) -> None:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        url = server.create_database()
        times, tables = measure(url, kills, ttl)
        storage = Storage(url)
        replayed = sum(1 for t in tables if (r := storage.load(t)) is not None and Table(r) is not None)
        storage.close()
    finally:
        server.remove()
    print(f"lease ttl {ttl:.1f} s, {len(times)} kills: takeover p50 {statistics.median(times):.2f} s, "
          f"mean {statistics.mean(times):.2f} s, max {max(times):.2f} s; {replayed}/{len(tables)} stored logs replay")


def measure(url: str, kills: int, ttl: float) -> tuple[list[float], list[str]]:
    """``kills`` rounds over the store at ``url``; returns the takeover times (seconds) and the tables made."""
    procs = [ServerProcess(url, extra=["0.2"], lease_ttl=ttl).start() for _ in range(2)]
    times: list[float] = []
    tables: list[str] = []
    try:
        for round_ in range(kills):
            owner, survivor = procs[round_ % 2], procs[(round_ + 1) % 2]
            table_id = httpx.post(f"{owner.base}/api/tables", json=BOTS, timeout=10).json()["id"]
            tables.append(table_id)
            time.sleep(0.3)
            owner.kill()
            killed = time.monotonic()
            while not serves(survivor.ws_base, table_id):
                if time.monotonic() - killed > 30:
                    raise SystemExit(f"table {table_id} not taken over in 30 s")
                time.sleep(0.02)
            times.append(time.monotonic() - killed)
            print(f"kill {round_ + 1}: taken over in {times[-1]:.2f} s", flush=True)
            procs[round_ % 2] = ServerProcess(url, extra=["0.2"], lease_ttl=ttl).start()
    finally:
        for proc in procs:
            proc.stop()
    return times, tables


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20, float(sys.argv[2]) if len(sys.argv) > 2 else 2.0)
