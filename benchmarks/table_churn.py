"""What one client address can make a server play by creating bot-only tables over and over.

A ``motley serve`` child process (SQLite in a temporary file) with its default limits, or with the rate of
table creation lifted (``--no-rate``: ``--tables-per-minute 1e9 --table-burst 1000000``, as before the rate
existed). One client creates tables of four random bots that move at once (``bot_delay`` and ``pace`` 0):
each plays to its end in moments and frees its slot of the address's quota of unfinished tables, so the
quota alone does not stop the client. When refused (429) it waits for ``Retry-After`` (or 50 ms when the
quota refused it). Reported: tables made, moves stored and moves per second over ``--seconds``.

    PYTHONPATH=src .venv/bin/python benchmarks/table_churn.py               # default limits, 30 s
    PYTHONPATH=src .venv/bin/python benchmarks/table_churn.py --no-rate     # as before the rate
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from motley.server.web.testing import free_port, wait_until_up

BOTS = {"game": "fool", "players": 4, "bot_delay": 0, "pace": 0, "summary_wait": 0,
        "seats": [{"kind": "bot", "bot": "random"}] * 4}


def churn(base: str, seconds: float) -> tuple[int, int]:
    """Create bot-only tables for ``seconds``; returns (tables made, requests refused)."""
    made = refused = 0
    end = time.monotonic() + seconds
    with httpx.Client(base_url=base, timeout=10) as client:
        while time.monotonic() < end:
            answer = client.post("/api/tables", json=BOTS)
            if answer.status_code == 200:
                made += 1
                continue
            assert answer.status_code == 429, answer.text
            refused += 1
            wait = float(answer.headers.get("Retry-After", 0.05))
            time.sleep(max(0.0, min(wait, end - time.monotonic())))
    return made, refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--no-rate", action="store_true", help="lift the rate of table creation")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "churn.db"
        port = free_port()
        extra = ["--tables-per-minute", "1e9", "--table-burst", "1000000"] if args.no_rate else []
        code = "from motley.cli.main import app; app()"
        server = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", str(port), "--db", f"sqlite:///{db}",
                                   *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base)
            start = time.time()
            made, refused = churn(base, args.seconds)
            stop = time.time()
        finally:
            server.terminate()
            server.wait(timeout=30)
        with sqlite3.connect(db) as conn:
            moves = conn.execute("SELECT count(*) FROM motley_moves WHERE at BETWEEN ? AND ?",
                                 (start, stop)).fetchone()[0]
    label = "rate lifted" if args.no_rate else "default limits"
    print(f"{label}: {made} tables made, {refused} refused, {moves} moves stored in {args.seconds:g} s "
          f"({moves / args.seconds:.0f} moves/s)")


if __name__ == "__main__":
    main()
