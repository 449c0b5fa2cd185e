"""Load on the web server: N tables played at once by real WebSocket clients on loopback.

A ``motley serve`` child process (SQLite in a temporary file, every move stored) hosts N tables whose
seats are all "human": each seat is a WebSocket client in this process that answers its turn with a
random legal move (after ``--think`` seconds, 0 = at once). A table that ends is replaced by a new one,
so N tables are always in play. The clock starts once the first N tables exist and every seat is
connected (the ramp-up is not measured). The seats' clients are split over ``--clients`` processes, so the
clients are not what limits the figures. Move latency is measured by the client that moved: from sending the
move to receiving the state message of the version it made (the server checks, stores, applies and
broadcasts it to every seat in between). Reported: moves/s, p50/p99 latency, and the server's peak
resident memory.

    .venv/bin/python benchmarks/server_load.py                  # Fool! at 4 players; N = 10, 100, 500; 20 s each
    .venv/bin/python benchmarks/server_load.py --think 1.0      # each seat thinks ~1 s (0.5-1.5 s) per move
    .venv/bin/python benchmarks/server_load.py --tables 100 --seconds 30 --game fools_errand --svg
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from motley.server.testing import ServerProcess


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, in seconds (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    """The machine's 1-minute load average (other processes compete for the same 2 cores)."""
    return float(Path("/proc/loadavg").read_text().split()[0])


class Load:
    """The clients of one run: ``tables`` concurrent tables until ``stop`` (a monotonic time)."""

    def __init__(self, base: str, ws_base: str, game: str, think: float, stop: float, svg: bool) -> None:
        self.base = base
        self.ws_base = ws_base
        self.game = game
        self.think = think
        self.stop = stop
        self.svg = svg
        self.latencies: list[float] = []
        self.moves = 0
        self.tables_done = 0
        self.errors = 0
        self.games: list[dict[str, Any]] | None = None
        self.connected = 0
        self.players_per_table = 0
        self.go = asyncio.Event()  # set once every first table is created and every seat connected

    async def create(self, http: httpx.AsyncClient) -> dict[str, Any]:
        name, _, rest = self.game.partition("(")
        options: dict[str, Any] = {}
        for item in rest.rstrip(")").split(","):
            if "=" in item:
                key, value = item.split("=", 1)
                options[key.strip()] = int(value) if value.strip().isdigit() else value.strip()
        players = options.pop("players", None)
        if self.games is None:
            self.games = (await http.get(f"{self.base}/api/games")).json()
        info = next(g for g in self.games if g["name"] == name)
        n = int(players or info["min_players"])
        self.players_per_table = n
        spec = {"game": name, "players": n, "options": options, "bot_delay": 0, "seats": [{"kind": "human"}] * n}
        response = await http.post(f"{self.base}/api/tables", json=spec)
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data

    async def seat(self, url: str, rng: random.Random) -> bool:
        """One seat's client: play every turn until the match ends (True) or the run stops (False)."""
        async with websockets.connect(url, max_size=None, open_timeout=120) as ws:
            self.connected += 1
            await self.go.wait()
            sent_at: float | None = None
            waiting_for = -1
            server_forces = False  # a table with a pace plays a seat's only legal move itself, as the page expects
            async for raw in ws:
                message = json.loads(raw)
                if "settings" in message:
                    server_forces = message["settings"].get("pace") is not None
                if message["type"] == "error":
                    self.errors += 1
                    continue
                if message["type"] != "state":
                    continue
                if sent_at is not None and message["version"] >= waiting_for:
                    self.latencies.append(time.perf_counter() - sent_at)
                    self.moves += 1
                    sent_at = None
                if message["terminal"]:
                    return True
                if time.monotonic() >= self.stop:
                    return False
                forced = len(message["legal"]) == 1 and server_forces
                if message["legal"] and not forced and message["current_player"] == message["seat"] and sent_at is None:
                    if self.think:
                        await asyncio.sleep(self.think * (0.5 + rng.random()))
                    choice = message["legal"][rng.randrange(len(message["legal"]))]
                    waiting_for = message["version"] + 1
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps({"type": "move", "version": message["version"],
                                              "action": choice["action"]}))
        return False

    async def table_slot(self, http: httpx.AsyncClient, slot: int) -> None:
        """Keep one table in play: create it, play it to the end with one client per seat, start another."""
        rng = random.Random(slot)
        while time.monotonic() < self.stop:
            for attempt in range(5):  # a kept-alive HTTP connection the server just closed: try again
                try:
                    table = await self.create(http)
                    break
                except (httpx.ReadError, httpx.RemoteProtocolError):
                    if attempt == 4:
                        raise
            query = "&svg=1" if self.svg else ""
            urls = [f"{self.ws_base}/ws/{table['id']}?token={s['link'].split('token=')[1]}{query}"
                    for s in table["seats"]]
            ended = await asyncio.gather(*(self.seat(url, random.Random(rng.random())) for url in urls))
            self.tables_done += any(ended)


async def client_part(base: str, ws_base: str, tables: int, first: int, seconds: float, game: str, think: float,
                      svg: bool, barrier: Any) -> dict[str, Any]:
    """One client process's share: ``tables`` tables; waits at ``barrier`` once every seat is connected."""
    load = Load(base, ws_base, game, think, time.monotonic() + 3600, svg)
    limits = httpx.Limits(max_connections=100, keepalive_expiry=1.0)
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        tasks = [asyncio.create_task(load.table_slot(http, first + i)) for i in range(tables)]
        while not (load.players_per_table and load.connected >= load.players_per_table * tables):
            await asyncio.sleep(0.1)
            for t in tasks:
                if t.done() and t.exception() is not None:
                    raise RuntimeError("a table slot failed") from t.exception()
        await asyncio.to_thread(barrier.wait, 600)  # every client process is ready: start the clock together
        load.stop = time.monotonic() + seconds
        load.go.set()
        while time.monotonic() < load.stop:
            await asyncio.sleep(0.2)
            for t in tasks:
                if t.done() and t.exception() is not None:
                    raise RuntimeError("a table slot failed") from t.exception()
        result = {"moves": load.moves, "latencies": list(load.latencies), "errors": load.errors,
                  "matches": load.tables_done}  # only moves answered within the measured window
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return result


def client_process(args: dict[str, Any], barrier: Any, out: Any) -> None:
    """Entry point of a client process (uvloop when available)."""
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    try:
        out.put(asyncio.run(client_part(**args, barrier=barrier)))
    except BaseException as exc:
        barrier.abort()
        out.put({"error": repr(exc)})


def run(server: ServerProcess, tables: int, seconds: float, game: str, think: float, svg: bool, clients: int
        ) -> dict[str, Any]:
    """One measurement: ``tables`` concurrent tables for ``seconds``, their seats split over ``clients`` processes."""
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(clients + 1)
    out = ctx.Queue()
    shares = [tables // clients + (i < tables % clients) for i in range(clients)]
    procs = []
    for i, share in enumerate(shares):
        part = {"base": server.base, "ws_base": server.ws_base, "tables": share, "first": sum(shares[:i]),
                "seconds": seconds, "game": game, "think": think, "svg": svg}
        procs.append(ctx.Process(target=client_process, args=(part, barrier, out)))
    for proc in procs:
        proc.start()
    barrier.wait(600)
    started = time.monotonic()
    cpu_start = cpu_seconds(server.pid())
    peak = rss_mb(server.pid())
    while time.monotonic() < started + seconds:
        time.sleep(0.5)
        peak = max(peak, rss_mb(server.pid()))
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(server.pid()) - cpu_start
    parts = [out.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    for part in parts:
        if "error" in part:
            raise RuntimeError(f"a client process failed: {part['error']}")
    moves = sum(p["moves"] for p in parts)
    lat = sorted(x for p in parts for x in p["latencies"]) or [0.0]
    return {"tables": tables, "game": game, "think_s": think, "svg": svg, "clients": clients,
            "seconds": round(elapsed, 1), "moves": moves, "moves_per_s": round(moves / elapsed, 1),
            "p50_ms": round(1000 * statistics.median(lat), 1),
            "p99_ms": round(1000 * lat[int(0.99 * (len(lat) - 1))], 1),
            "max_ms": round(1000 * lat[-1], 1), "matches_finished": sum(p["matches"] for p in parts),
            "errors": sum(p["errors"] for p in parts), "server_peak_rss_mib": round(peak, 1),
            "server_cpu_percent": round(100 * cpu / elapsed, 1), "load_average": load_average()}


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--game", default="fool(players=4)")
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds a client waits before moving")
    parser.add_argument("--svg", action="store_true", help="ask for the SVG drawing in every message, as the page does")
    parser.add_argument("--db", default=None, help="store URL (default: SQLite in a temporary file; 'sqlite://' is "
                                                   "in memory)")
    parser.add_argument("--clients", type=int, default=2, help="client processes the seats are split over")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.tables:
            server = ServerProcess(args.db or f"sqlite:///{tmp}/load-{n}.db").start()
            try:
                result = run(server, n, args.seconds, args.game, args.think, args.svg, args.clients)
            finally:
                server.stop()
            results.append(result)
            if not args.json:
                print(f"N={n:4d} {result['game']} think={args.think}s svg={args.svg}: "
                      f"{result['moves_per_s']:8.1f} moves/s  p50 {result['p50_ms']:6.1f} ms  "
                      f"p99 {result['p99_ms']:7.1f} ms  server RSS {result['server_peak_rss_mib']:.0f} MiB  "
                      f"server CPU {result['server_cpu_percent']:.0f}%  load avg {result['load_average']:.1f}  "
                      f"({result['moves']} moves, {result['matches_finished']} matches, {result['errors']} errors)",
                      flush=True)
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
