"""Whether a person's first connection to their seat is stored before the page is shown the seat.

Two trials against a server over SQLite in a temporary file, each with tables of an open seat (0) and a seat by
invitation; seat 0's invitee opens the invite link:

* ``kill``: a ``motley serve`` child process is killed (SIGKILL) as soon as the invitee's page got its first
  state message, then started again over the same file; the lobby then tries to claim seat 0
  (``POST /api/tables/ID/join?seat=0``). A claim that succeeds gave the invitee's seat away.
* ``lock``: another connection holds the database's exclusive lock for ``--lock`` seconds while the invitee
  connects (a server in a thread of this process); afterwards the stored seat says whether the connection was
  written (a seat not written is claimable after a restart).

    PYTHONPATH=src .venv/bin/python benchmarks/seat_writes.py            # 8 kills, 3 locks of 3 s
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import threading
import time
from typing import Any

import httpx
from websockets.sync.client import connect

from motley.server.web.testing import ServerProcess, ServerThread

TABLE = {"game": "fools_errand", "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}


def first_message(ws_base: str, table: dict[str, Any]) -> dict[str, Any]:
    """The first message seat 0's invite link gets from the table's socket."""
    token = table["seats"][0]["link"].split("token=")[1]
    with connect(f"{ws_base}/ws/{table['id']}?token={token}", open_timeout=15) as ws:
        message: dict[str, Any] = json.loads(ws.recv(timeout=15))
        return message


def killed(tables: int) -> int:
    """The ``kill`` trial: how many of ``tables`` invitee seats the lobby could claim after the restart."""
    claimable = 0
    with tempfile.TemporaryDirectory() as folder:
        db = f"sqlite:///{folder}/kill.db"
        for _ in range(tables):
            server = ServerProcess(db).start()
            table = httpx.post(f"{server.base}/api/tables", json=TABLE, timeout=10).json()
            first_message(server.ws_base, table)
            server.kill()
            server = ServerProcess(db).start()
            claim = httpx.post(f"{server.base}/api/tables/{table['id']}/join?seat=0", timeout=30)
            claimable += claim.status_code == 200
            server.stop()
    return claimable


def locked(tables: int, seconds: float) -> list[tuple[str, float, bool]]:
    """The ``lock`` trial: per table, the first message's type (or error code), the seconds it took, and whether
    the stored seat says its person connected."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/lock.db"
        with ServerThread(f"sqlite:///{path}", bot_delay=0.0) as server:
            for _ in range(tables):
                table = httpx.post(f"{server.base}/api/tables", json=TABLE, timeout=10).json()
                held = threading.Event()

                def hold(held: threading.Event = held) -> None:
                    db = sqlite3.connect(path, timeout=30)
                    db.execute("BEGIN EXCLUSIVE")
                    held.set()
                    time.sleep(seconds)
                    db.commit()
                    db.close()

                holder = threading.Thread(target=hold)
                holder.start()
                held.wait()
                start = time.perf_counter()
                message = first_message(server.ws_base, table)
                took = time.perf_counter() - start
                holder.join()
                time.sleep(1.0)  # a write queued without waiting has had its chance
                with sqlite3.connect(path) as db:
                    seats = json.loads(db.execute("SELECT seats FROM motley_tables WHERE id = ?",
                                                  (table["id"],)).fetchone()[0])
                rows.append((message.get("code") or message["type"], took, bool(seats[0]["ever_connected"])))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=8, help="tables of the kill trial")
    parser.add_argument("--locks", type=int, default=3, help="tables of the lock trial")
    parser.add_argument("--lock", type=float, default=3.0, help="seconds the database stays locked")
    args = parser.parse_args()
    print(f"kill -9 right after the first state message: {killed(args.kills)} of {args.kills} invitee seats "
          "claimable after the restart")
    rows = locked(args.locks, args.lock)
    for answer, took, stored in rows:
        print(f"  {args.lock:g} s lock: first message {answer} after {took:.1f} s; stored as connected: {stored}")
    print(f"{args.lock:g} s lock during the first connection: {sum(not s for _, _, s in rows)} of {len(rows)} "
          "connections not stored (their seats claimable after a restart)")


if __name__ == "__main__":
    main()
