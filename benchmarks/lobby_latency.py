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

With ``--replay-clients N`` it measures the replay load instead: a Foolery table of 7 random bots plays
``--hands`` hands to its end (about 11,000 moves at 50 hands), then N client processes loop its replay (the
index, ``GET /api/tables/ID/replay``; with ``--walk`` also a random step in a random view each time, which is
built anew unless some client asked for it before) while the lobby (``GET /`` and ``GET /api/tables`` in turn)
is measured as above, and before they start for as long (the machine's own noise). Reported besides: the
replay answers the clients got and how many were 429 (a client that gets 429 waits its ``Retry-After``).
``--instead PATH`` is the control: the clients loop PATH (a route that is a lookup, as ``/api/defaults``) in
the replay's place, so the cost of answering requests at all is seen.

    .venv/bin/python benchmarks/lobby_latency.py --replay-clients 4 --seconds 20
    .venv/bin/python benchmarks/lobby_latency.py --replay-clients 4 --walk --seconds 20
    .venv/bin/python benchmarks/lobby_latency.py --replay-clients 4 --instead /api/defaults   # the control
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import httpx

from motley.server.web.testing import ServerProcess


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


def poll(http: httpx.Client, seconds: float, interval: float, paths: tuple[str, ...] = ("/api/tables",)
         ) -> list[float]:
    """Latencies (seconds) of ``GET`` of ``paths`` (in turn) asked every ``interval`` s for ``seconds`` s."""
    latencies: list[float] = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        started = time.perf_counter()
        http.get(paths[len(latencies) % len(paths)]).raise_for_status()
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
            "p99_ms": round(1000 * ordered[math.ceil(0.99 * len(ordered)) - 1], 1),  # nearest rank
            "max_ms": round(1000 * ordered[-1], 1), "requests": len(latencies)}


def finished_foolery(http: httpx.Client, hands: int, timeout: float = 600.0) -> tuple[str, int]:
    """Create a Foolery table of 7 random bots (no delay) and wait until its match of ``hands`` hands is over;
    returns its id and its moves."""
    [table_id] = create_tables(http, [bot_table("foolery", 7, {"hands": hands}, {"kind": "bot", "bot": "random"})])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = {t["id"]: t for t in http.get("/api/tables").json()}
        if listed[table_id]["finished"]:
            return table_id, int(listed[table_id]["version"])
        time.sleep(0.5)
    raise TimeoutError(f"table {table_id} did not finish in {timeout} s")


def loop_replay(base: str, table_id: str, moves: int, walk: bool, until: float, seed: int,
                instead: str | None = None) -> Counter[int]:
    """One replay viewer, in a process of its own (so the lobby's timings here share no interpreter lock with
    it): the index (and with ``walk`` a random step in a random view) until ``until`` (``time.time()``); the
    answers' status codes counted; after a 429 it waits its ``Retry-After``. ``instead``: a path asked for in
    the replay's place (the control: a route that is a lookup)."""
    rng = random.Random(seed)
    answers: Counter[int] = Counter()
    with httpx.Client(base_url=base, timeout=300) as http:
        while time.time() < until:
            paths = [instead or f"/api/tables/{table_id}/replay"]
            if walk:
                view = rng.choice(["", *(f"?view={v}" for v in range(7))])
                paths.append(f"/api/tables/{table_id}/replay/{rng.randint(0, moves)}{view}")
            for path in paths:
                response = http.get(path)
                answers[response.status_code] += 1
                if response.status_code == 429:
                    time.sleep(float(response.headers.get("retry-after", "1")))
    return answers


def replay_load(args: argparse.Namespace) -> dict[str, Any]:
    """The lobby's latency while ``args.replay_clients`` clients loop the replay of a long finished match."""
    answers: Counter[int] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(f"sqlite:///{tmp}/replays.db").start()
        try:
            with httpx.Client(base_url=server.base, timeout=300) as http:
                table_id, moves = finished_foolery(http, args.hands)
                quiet = poll(http, args.seconds, args.interval, ("/", "/api/tables"))
                until = time.time() + args.seconds + 1.0
                with ProcessPoolExecutor(args.replay_clients) as pool:
                    clients = [pool.submit(loop_replay, server.base, table_id, moves, args.walk, until, i,
                                           args.instead) for i in range(args.replay_clients)]
                    time.sleep(1.0)
                    latencies = poll(http, args.seconds, args.interval, ("/", "/api/tables"))
                    for client in clients:
                        answers.update(client.result())
        finally:
            server.stop()
    return {"replay_clients": args.replay_clients, "walk": args.walk, "moves": moves, "seconds": args.seconds,
            **summary(latencies), "without_replays": summary(quiet),
            "replay_answers": sum(answers.values()), "refused_429": answers[429],
            "other_errors": sum(n for code, n in answers.items() if code not in (200, 429))}


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between lobby requests")
    parser.add_argument("--hands", type=int, default=50, help="hands of the long Foolery table")
    parser.add_argument("--ismcts", type=int, default=8, help="all-ISMCTS tables (Fool! at 4 players)")
    parser.add_argument("--sims", type=int, default=5000, help="ISMCTS simulations per move")
    parser.add_argument("--replay-clients", type=int, default=0, help="measure the replay load instead")
    parser.add_argument("--walk", action="store_true", help="replay clients also ask for random steps")
    parser.add_argument("--instead", help="the control: the clients loop this path instead of the replay index")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.replay_clients:
        result = replay_load(args)
        print(json.dumps(result, indent=1) if args.json else
              f"{args.replay_clients} clients looping the replay of a {result['moves']}-move Foolery match"
              f"{' (walking its steps)' if args.walk else ''}: lobby p50 {result['p50_ms']} ms, p99 "
              f"{result['p99_ms']} ms, max {result['max_ms']} ms over {result['requests']} requests; "
              f"{result['replay_answers']} replay answers, {result['refused_429']} of them 429; without them "
              f"p50 {result['without_replays']['p50_ms']} ms, p99 {result['without_replays']['p99_ms']} ms")
        return
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
