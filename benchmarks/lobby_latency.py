"""The lobby's latency while bots play flat out: can heavy tables stall the server?

A ``motley serve`` child process (SQLite in a temporary file) gets the freeze load: one all-bot table of
the longest match the server accepts, bots moving with no delay (by default Foolery, 7 heuristic bots,
``--hands`` hands), and ``--ismcts`` all-bot tables of ISMCTS bots at ``--sims`` simulations per move
(the web's maximum by default). Meanwhile a client asks for the lobby's table list (``GET /api/tables``)
every ``--interval`` seconds for ``--seconds`` seconds and records each answer's latency. Reported: p50,
p99 and max latency in ms, and how many moves the tables made meanwhile (so a server that answers fast
because its tables stopped is seen). A second phase restarts the server on the same database and measures
the time until its first answer (a server must not play a table to its end before it serves).

    .venv/bin/python benchmarks/lobby_latency.py                    # the freeze load, 30 s
    .venv/bin/python benchmarks/lobby_latency.py --ismcts 0 --seconds 10
    .venv/bin/python benchmarks/lobby_latency.py --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from typing import Any

import httpx

from motley.server.testing import ServerProcess


def bot_table(game: str, players: int, options: dict[str, Any], bot: dict[str, Any]) -> dict[str, Any]:
    """A table request whose every seat is ``bot``, moving with no delay."""
    return {"game": game, "players": players, "options": options, "bot_delay": 0, "seats": [dict(bot)] * players}


def create_tables(http: httpx.Client, requests: list[dict[str, Any]]) -> list[str]:
    """Create every table; returns their ids (a refused request is printed and skipped)."""
    ids = []
    for spec in requests:
        response = http.post("/api/tables", json=spec)
        if response.status_code != 200:
            print(f"refused ({response.status_code}): {response.text[:200]}")
            continue
        ids.append(response.json()["id"])
    return ids


def moves_made(http: httpx.Client) -> int:
    """Moves made so far by every table in the lobby's list."""
    return sum(int(t["version"]) for t in http.get("/api/tables").json())


def poll(http: httpx.Client, seconds: float, interval: float) -> list[float]:
    """Latencies (seconds) of ``GET /api/tables`` asked every ``interval`` s for ``seconds`` s."""
    latencies = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        started = time.perf_counter()
        http.get("/api/tables").raise_for_status()
        latencies.append(time.perf_counter() - started)
        time.sleep(interval)
    return latencies


def first_answer(server: ServerProcess, timeout: float = 300.0) -> float:
    """Seconds from starting ``server`` until its lobby first answers."""
    started = time.monotonic()
    server.start(timeout)
    return time.monotonic() - started


def summary(latencies: list[float]) -> dict[str, float]:
    """p50 / p99 / max of ``latencies`` in ms."""
    ordered = sorted(latencies) or [0.0]
    return {"p50_ms": round(1000 * statistics.median(ordered), 1),
            "p99_ms": round(1000 * ordered[int(0.99 * (len(ordered) - 1))], 1),
            "max_ms": round(1000 * ordered[-1], 1), "requests": len(latencies)}


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between lobby requests")
    parser.add_argument("--hands", type=int, default=50, help="hands of the long Foolery table")
    parser.add_argument("--ismcts", type=int, default=8, help="all-ISMCTS tables (Fool! at 4 players)")
    parser.add_argument("--sims", type=int, default=5000, help="ISMCTS simulations per move")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    requests = [bot_table("foolery", 7, {"hands": args.hands}, {"kind": "bot", "bot": "heuristic"})]
    requests += [bot_table("fool", 4, {}, {"kind": "bot", "bot": "ismcts", "strength": args.sims})] * args.ismcts
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(f"sqlite:///{tmp}/lobby.db").start()
        try:
            with httpx.Client(base_url=server.base, timeout=300) as http:
                created = len(create_tables(http, requests))
                time.sleep(1.0)
                before = moves_made(http)
                latencies = poll(http, args.seconds, args.interval)
                moves = moves_made(http) - before
        finally:
            server.kill()  # as a crash would: the tables are left unfinished in the store
        restart = first_answer(server)
        server.stop()
    result = {"tables": created, "seconds": args.seconds, **summary(latencies), "moves": moves,
              "moves_per_s": round(moves / args.seconds, 1), "restart_first_answer_s": round(restart, 2)}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{created} tables: lobby p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
              f"max {result['max_ms']} ms over {result['requests']} requests; "
              f"{result['moves_per_s']} moves/s meanwhile; after a kill -9 the restarted server answered in "
              f"{result['restart_first_answer_s']} s")


if __name__ == "__main__":
    main()
