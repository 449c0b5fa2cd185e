"""Latency of the news channel and cost of the lease heartbeats, the coordination of several server processes.

* ``news``: ``--messages`` messages (default 1,000, about 100 bytes each) published by one channel and received
  by another (two connections, as two processes would have), each stamped with its send time, for ``LocalNews``
  (one process) and ``PostgresNews`` (LISTEN/NOTIFY). Latency: each message published once the one before has
  arrived, p50/p99/max of publish -> receive in ms. Rate: the messages published back to back, messages/s until
  the last has arrived. The publisher and the listener share this process's event loop.
* ``leases``: ``Storage.claim`` of one table (ms, median of ``--leases`` claims), and one ``Storage.renew`` of
  ``--leases`` leases (ms, median of 20), on SQLite and PostgreSQL.

PostgreSQL is a throwaway server of the tests' own (``tests/postgres.py``: ``initdb`` into a temporary folder, a
Unix socket, fsync off) unless ``--db postgresql://...`` names one.

    PYTHONPATH=src .venv/bin/python benchmarks/news_latency.py            # 1,000 messages, 500 leases
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from motley.server.site.news import LocalNews, News, PostgresNews
from motley.server.store.storage import Storage, new_owner

ROOT = Path(__file__).resolve().parent.parent


def _payload(n: int) -> dict[str, Any]:
    return {"sent": time.perf_counter(), "n": n, "table": "a1b2c3d4e5f6", "event": "seat_taken"}


async def news_latency(publisher: News, listener: News, messages: int) -> dict[str, float]:
    """Publish ``messages`` messages on ``publisher``, receive them on ``listener``: latency in ms (one at a
    time), messages/s (back to back)."""
    await publisher.start()
    await listener.start()
    subscription = listener.subscribe("bench")
    latencies: list[float] = []
    for n in range(messages):
        await publisher.publish("bench", _payload(n))
        message = await subscription.get(timeout=30)
        latencies.append((time.perf_counter() - message.payload["sent"]) * 1000)

    async def receive() -> None:
        for _ in range(messages):
            await subscription.get(timeout=30)

    reader = asyncio.create_task(receive())
    started = time.perf_counter()
    for n in range(messages):
        await publisher.publish("bench", _payload(n))
    await reader
    elapsed = time.perf_counter() - started
    await publisher.close()
    await listener.close()
    ordered = sorted(latencies)
    return {"p50": statistics.median(ordered), "p99": ordered[int(0.99 * (len(ordered) - 1))],
            "max": ordered[-1], "per_s": messages / elapsed}


def lease_cost(url: str, leases: int) -> dict[str, float]:
    """Median ms of one claim and of one renew of ``leases`` leases on the store at ``url``."""
    storage = Storage(url)
    owner = new_owner()
    claims = []
    for n in range(leases):
        started = time.perf_counter()
        storage.claim(f"bench{n}", owner, 30.0)
        claims.append((time.perf_counter() - started) * 1000)
    held = {f"bench{n}" for n in range(leases)}
    renews = []
    for _ in range(20):
        started = time.perf_counter()
        lost = storage.renew(owner, 30.0, held)
        renews.append((time.perf_counter() - started) * 1000)
        assert not lost
    storage.release(None, owner)
    storage.close()
    return {"claim": statistics.median(claims), "renew": statistics.median(renews)}


def _channels(url: str) -> tuple[News, News]:
    """A publishing and a listening channel for the store at ``url`` (one ``LocalNews`` twice on SQLite)."""
    if url.startswith("sqlite"):
        local = LocalNews()
        return local, local
    return PostgresNews(url), PostgresNews(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000, help="messages published")
    parser.add_argument("--leases", type=int, default=500, help="leases claimed, then renewed in one statement")
    parser.add_argument("--db", help="a PostgreSQL URL (default: a throwaway server)")
    args = parser.parse_args()
    server: Any = None
    db = args.db
    if db is None:
        sys.path.insert(0, str(ROOT))  # the tests' throwaway PostgreSQL server
        from tests.postgres import PostgresServer, binaries

        found = binaries()
        if found is None:
            raise SystemExit("PostgreSQL's server binaries are not installed: give --db postgresql://...")
        server = PostgresServer(found)
        db = server.create_database()
    try:
        with tempfile.TemporaryDirectory() as folder:
            print(f"| store | publish -> receive p50 ms | p99 ms | max ms | messages/s | claim ms | renew of "
                  f"{args.leases} ms |")
            print("|---|---|---|---|---|---|---|")
            for name, url in [("SQLite, one process (LocalNews)", f"sqlite:///{folder}/b.db"),
                              ("PostgreSQL (LISTEN/NOTIFY)", db)]:
                publisher, listener = _channels(url)
                news = asyncio.run(news_latency(publisher, listener, args.messages))
                leases = lease_cost(url, args.leases)
                print(f"| {name} | {news['p50']:.2f} | {news['p99']:.2f} | {news['max']:.2f} | "
                      f"{news['per_s']:,.0f} | {leases['claim']:.2f} | {leases['renew']:.2f} |")
    finally:
        if server is not None:
            server.remove()


if __name__ == "__main__":
    main()
