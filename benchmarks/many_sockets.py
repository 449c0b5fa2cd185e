"""Many viewers of one table: the seconds it takes to open N WebSockets to one table on loopback.

A ``motley serve`` child process (SQLite in a temporary file) hosts one table (a person and bots, nobody
moves); this process opens N spectator sockets to it, ``--batch`` at a time, each counted as open once its
first ``state`` message arrived, then closes them all. Every connect changes the table's seats, so a server
that sends a seats update to every viewer per connect does O(N^2) work here; one that batches the updates
does O(N). Printed: the seconds to open all N sockets, and how many ``seats`` messages the clients got.

    .venv/bin/python benchmarks/many_sockets.py                      # N = 1500
    .venv/bin/python benchmarks/many_sockets.py --sockets 500
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/many_sockets.py --serve-args ""   # an older server

``--serve-args`` are the ``motley serve`` options of the child (the default raises the per-table and
per-address limits so that N sockets are allowed; a server without those options needs ``""``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import httpx
import websockets

from motley.server.testing import free_port, wait_until_up


async def watch(url: str, opened: asyncio.Event, seats: list[int], stop: asyncio.Event) -> None:
    """One spectator: open, wait for the first state, count seats messages until ``stop``."""
    async with websockets.connect(url, max_size=None, open_timeout=120) as ws:
        while True:
            receive = asyncio.ensure_future(ws.recv())
            halt = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({receive, halt}, return_when=asyncio.FIRST_COMPLETED)
            if receive not in done:
                receive.cancel()
                return
            halt.cancel()
            message = json.loads(receive.result())
            if message["type"] == "state":
                opened.set()
            elif message["type"] == "seats":
                seats[0] += 1


async def measure(ws_base: str, table_id: str, sockets: int, batch: int) -> tuple[float, int]:
    """Seconds until ``sockets`` spectators of ``table_id`` all got their first state; seats messages seen."""
    stop = asyncio.Event()
    seats = [0]
    tasks: list[asyncio.Task[None]] = []
    start = time.perf_counter()
    for first in range(0, sockets, batch):
        events = [asyncio.Event() for _ in range(min(batch, sockets - first))]
        tasks += [asyncio.create_task(watch(f"{ws_base}/ws/{table_id}", e, seats, stop)) for e in events]
        await asyncio.gather(*(e.wait() for e in events))
    elapsed = time.perf_counter() - start
    await asyncio.sleep(1.0)  # the last batched updates
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return elapsed, seats[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=100, help="sockets opened at once")
    parser.add_argument("--serve-args", default="--sockets-per-table 100000 --tables-per-address 1000")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "motley.cli.main", "serve", "--port", str(port),
                   "--db", f"sqlite:///{tmp}/many.db", *shlex.split(args.serve_args)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ.copy())
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base)
            spec = {"game": "fool", "players": 4,
                    "seats": [{"kind": "human"}] * 4}
            table = httpx.post(f"{base}/api/tables", json=spec, timeout=30).json()
            elapsed, seats = asyncio.run(measure(f"ws://127.0.0.1:{port}", table["id"], args.sockets, args.batch))
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{args.sockets} sockets to one table opened in {elapsed:.2f} s; {seats} seats messages received")


if __name__ == "__main__":
    main()
