"""The lobby of a site (docs/scaling.md): two ``motley serve --site`` processes, A and B, on one PostgreSQL (a
throwaway server started here, :mod:`tests.postgres`). B makes ``--tables`` tables of people that wait for their
players (they do not move); then A's table list (``GET /api/tables``) is asked for ``--listings`` times in a row,
and ``--rounds`` times a table is made on B and A's list asked for until it holds it.

Reported: A's listing latency p50 / p99 (ms); the store reads of table headers per listing (PostgreSQL logs every
statement while A is asked, ``log_statement = all``, and those that read the lobby's headers are counted), with
every statement of both processes in that time per listing beside it (heartbeats, scans); and the time from B's
answer to the creation until A lists the table, p50 / max (ms).

Run: ``PYTHONPATH=src:. .venv/bin/python benchmarks/site_lobby.py [--tables 200] [--listings 300] [--rounds 20]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import httpx
from tests.postgres import PostgresServer, binaries

from motley.server.web.testing import ServerProcess

#: What the store's reads of table headers for a listing (``Storage.running_headers``, ``finished_headers``) and
#: nothing else say.
HEADERS = "ORDER BY motley_tables.created DESC"
PEOPLE = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}


def log_statements(server: PostgresServer, on: bool) -> None:
    """Have PostgreSQL log every statement to its log file (``log_statement = all``), or stop."""
    import psycopg

    with psycopg.connect(host=str(server.socket), user="motley", dbname="postgres", autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET log_statement = '{'all' if on else 'none'}'")
        conn.execute("SELECT pg_reload_conf()")
    time.sleep(0.5)


def logged(server: PostgresServer, offset: int) -> list[str]:
    """The statements logged since the log file's ``offset`` (each with its continuation lines), less ``BEGIN``,
    ``COMMIT`` and ``ROLLBACK``."""
    with open(server.log, encoding="utf-8", errors="replace") as log:
        log.seek(offset)
        entries: list[str] = []
        for line in log:
            if line[:4].isdigit():  # a new entry begins with its time
                entries.append(line)
            elif entries:
                entries[-1] += line
    said = [e.split("LOG:  ", 1)[1] for e in entries if "LOG:  statement: " in e or "LOG:  execute " in e]
    return [e for e in said if e.split(":", 1)[1].strip().split(" ")[0] not in ("BEGIN", "COMMIT", "ROLLBACK")]


def listed(http: httpx.Client, base: str) -> set[str]:
    """The table ids of the list at ``base``."""
    return {t["id"] for t in http.get(f"{base}/api/tables").json()}


def measure(server: PostgresServer, url: str, tables: int, listings: int, rounds: int) -> dict[str, Any]:
    """The figures of the module's docstring, with processes A and B over the store at ``url``."""
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        with httpx.Client(timeout=30) as http:
            for _ in range(tables):
                assert http.post(f"{b.base}/api/tables", json=PEOPLE).status_code == 200
            for _ in range(10):
                shown = len(listed(http, a.base))
            log_statements(server, True)
            offset = server.log.stat().st_size
            latencies = []
            for _ in range(listings):
                started = time.perf_counter()
                assert http.get(f"{a.base}/api/tables").status_code == 200
                latencies.append((time.perf_counter() - started) * 1000)
            time.sleep(0.5)
            statements = logged(server, offset)
            log_statements(server, False)
            lobby_reads = sum(1 for s in statements if HEADERS in s) / listings
            appear = []
            for _ in range(rounds):
                made = http.post(f"{b.base}/api/tables", json=PEOPLE).json()["id"]
                started = time.perf_counter()
                while made not in listed(http, a.base):
                    if time.perf_counter() - started > 10:
                        raise SystemExit(f"table {made} not listed by A within 10 s")
                appear.append((time.perf_counter() - started) * 1000)
    finally:
        a.stop()
        b.stop()
    ordered = sorted(latencies)
    return {"p50": statistics.median(ordered), "p99": ordered[int(0.99 * (len(ordered) - 1))],
            "per_listing": lobby_reads, "statements": len(statements) / listings,
            "appear_p50": statistics.median(appear), "appear_max": max(appear), "shown": shown}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="tables of people B makes first")
    parser.add_argument("--listings", type=int, default=300, help="listings asked of A in a row")
    parser.add_argument("--rounds", type=int, default=20, help="tables made on B and waited for in A's list")
    args = parser.parse_args()
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        url = server.create_database()
        got = measure(server, url, args.tables, args.listings, args.rounds)
    finally:
        server.remove()
    print(f"{args.tables} tables on B, {got['shown']} in A's list: A's listing p50 {got['p50']:.1f} ms, "
          f"p99 {got['p99']:.1f} ms; "
          f"{got['per_listing']:.2f} store reads of table headers per listing ({got['statements']:.2f} statements "
          f"of both processes in all, heartbeats and scans included); a table made on B listed by A after "
          f"p50 {got['appear_p50']:.1f} ms, max {got['appear_max']:.1f} ms")


if __name__ == "__main__":
    main()
