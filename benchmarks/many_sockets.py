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

With ``--finished`` the table is a finished one out of the server's memory, as after a restart: a Foolery
table of 7 random bots plays ``--hands`` hands to its end, the server is restarted on the same database
(with the default limits, 200 sockets per table, but ``--connections-per-address 100000``, unless
``--serve-args`` says otherwise; a server without that option needs ``--serve-args ""``), and N spectators
connect, ``--batch`` at once. Printed: how many were let in and how many refused (``table_full``), and the
server's resident memory (Linux ``/proc``: VmRSS) before the first socket and with every socket open, and
its peak (VmHWM).

    .venv/bin/python benchmarks/many_sockets.py --finished --sockets 250 --batch 50
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
from pathlib import Path

import httpx
import websockets

from motley.server.web.testing import free_port, wait_until_up


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


def memory_mb(pid: int) -> dict[str, float]:
    """The process's resident memory now (``rss``) and at its peak (``peak``), in MB, from ``/proc``."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {"rss": int(fields["VmRSS"].split()[0]) / 1024, "peak": int(fields["VmHWM"].split()[0]) / 1024}


async def watch_finished(url: str, answered: asyncio.Event, counts: dict[str, int], stop: asyncio.Event) -> None:
    """One spectator of a finished table: its first message is the state (let in: held open until ``stop``)
    or an error (refused); counted in ``counts`` by type or error code."""
    async with websockets.connect(url, max_size=None, open_timeout=300) as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), 300))
        kind = first.get("code", first["type"])
        counts[kind] = counts.get(kind, 0) + 1
        answered.set()
        if first["type"] == "state":
            await stop.wait()


async def crowd(ws_base: str, table_id: str, sockets: int, batch: int, pid: int
                ) -> tuple[float, dict[str, int], dict[str, float]]:
    """Open ``sockets`` spectators of ``table_id``, ``batch`` at a time; the seconds it took, the first
    messages' counts and the server's memory with them all open."""
    stop = asyncio.Event()
    counts: dict[str, int] = {}
    tasks: list[asyncio.Task[None]] = []
    start = time.perf_counter()
    for first in range(0, sockets, batch):
        events = [asyncio.Event() for _ in range(min(batch, sockets - first))]
        tasks += [asyncio.create_task(watch_finished(f"{ws_base}/ws/{table_id}", e, counts, stop)) for e in events]
        await asyncio.gather(*(e.wait() for e in events))
    elapsed = time.perf_counter() - start
    memory = memory_mb(pid)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return elapsed, counts, memory


def finished_table(args: argparse.Namespace) -> None:
    """The ``--finished`` measure (see the module docstring)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "motley.cli.main", "serve", "--port", str(port),
                   "--db", f"sqlite:///{tmp}/many.db", "--bot-delay", "0", *shlex.split(args.serve_args)]
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ.copy())
        try:
            wait_until_up(base)
            spec = {"game": "foolery", "players": 7, "options": {"hands": args.hands},
                    "seats": [{"kind": "bot", "bot": "random"}] * 7}
            table_id = httpx.post(f"{base}/api/tables", json=spec, timeout=30).json()["id"]
            while not {t["id"]: t for t in httpx.get(f"{base}/api/tables", timeout=60).json()}[table_id]["finished"]:
                time.sleep(0.5)
        finally:
            server.terminate()
            server.wait(timeout=30)
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ.copy())
        try:
            wait_until_up(base)
            before = memory_mb(server.pid)
            elapsed, counts, memory = asyncio.run(crowd(f"ws://127.0.0.1:{port}", table_id, args.sockets,
                                                        args.batch, server.pid))
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{args.sockets} sockets to a finished {args.hands}-hand Foolery table after a restart, in "
          f"{elapsed:.1f} s: {counts.get('state', 0)} let in, {counts.get('table_full', 0)} refused (table_full)"
          f"{'' if set(counts) <= {'state', 'table_full'} else f', others {counts}'}; server memory "
          f"{before['rss']:.0f} MB before, {memory['rss']:.0f} MB with them open, peak {memory['peak']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=100, help="sockets opened at once")
    parser.add_argument("--serve-args", default=None,
                        help="default: '--sockets-per-table 100000 --tables-per-address 1000'; with --finished "
                             "'--connections-per-address 100000'")
    parser.add_argument("--finished", action="store_true", help="a finished table out of memory (see above)")
    parser.add_argument("--hands", type=int, default=50, help="hands of the --finished table's match")
    args = parser.parse_args()
    if args.finished:
        args.serve_args = "--connections-per-address 100000" if args.serve_args is None else args.serve_args
        finished_table(args)
        return
    if args.serve_args is None:
        args.serve_args = "--sockets-per-table 100000 --tables-per-address 1000"
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
