"""Load on the web server: N tables played at once by real WebSocket clients on loopback.

``motley serve`` hosts N tables whose seats are all "human": each seat is a WebSocket client that answers its
turn with a random legal move (after ``--think`` seconds, 0 = at once: saturation). A table that ends is replaced
by a new one, so N tables are always in play. The server is one process on SQLite (a temporary file, every move
stored, as ``motley serve``), or a site on a throwaway PostgreSQL started here (``tests/postgres.py``; fsync on):
one ``--site`` process, or ``--workers K`` processes on one shared port, where the kernel hands each socket to
any process and those that land off their table's owner are relayed to it (no sticky routing). The clock starts
once the first N tables exist and every seat is connected (the ramp-up is not measured). The seats' clients are
split over ``--clients`` processes, so the clients are not what limits the figures. Move latency is measured by
the client that moved: from sending the move to receiving the state message of the version it made (the server
checks, stores, applies and broadcasts it to every seat in between).

Reported per run: moves/s (total and per server process), moves per CPU-second of the server's processes (all of
them, from /proc: the capacity of one core, whatever else runs on the machine), p50/p99 latency, peak resident
memory, the machine's load average, and the coordination cost per move measured inside the server: statements
and commits sent to the store (a SQLAlchemy ``before_cursor_execute`` and ``commit`` listener in every process,
on when ``MOTLEY_COUNTERS`` names a folder: :mod:`motley.server.store.counters`), PostgreSQL's own committed
transactions (``pg_stat_database.xact_commit``, which also counts the lease heartbeats and the lobby's reads),
PostgreSQL's CPU time (its server's processes, from /proc) and news messages published. All per move are over
the measured window, so they include the tables created and finished meanwhile.

    PYTHONPATH=src:. .venv/bin/python benchmarks/server_load.py              # SQLite; N = 10, 100, 500; 20 s each
    PYTHONPATH=src:. .venv/bin/python benchmarks/server_load.py --think 1.0  # each seat thinks ~1 s (0.5-1.5 s)
    PYTHONPATH=src:. .venv/bin/python benchmarks/server_load.py --sites sqlite:1 postgresql:1 postgresql:2 \
        postgresql:4 --tables 500 1000 --think 0 4 --seconds 15                # the load table of docs/scaling.md
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import websockets

from motley.server.store import counters
from motley.server.web.testing import OPEN_LIMITS, free_port, wait_until_up

if TYPE_CHECKING:
    from tests.postgres import PostgresServer


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
        self.reconnects = 0
        self.why: collections.Counter[str] = collections.Counter()  # error codes and close codes seen
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
        """One seat's client: play every turn until the match ends (True) or the run stops (False). A socket the
        server closes before the end (1012: the table moved to another process of a site) or refuses is opened
        again after 0.5 s, as the page does (counted in ``reconnects``; a move awaiting its answer is made again).

        Raises:
            websockets.WebSocketException, OSError: the 20th reconnection in a row failed.
        """
        first = True
        for attempt in range(20):
            try:
                return await self.play(url, rng, first)
            except (websockets.WebSocketException, OSError) as exc:
                code = exc.rcvd.code if isinstance(exc, websockets.ConnectionClosed) and exc.rcvd else None
                self.why[f"closed {code}" if code else type(exc).__name__] += 1
                if time.monotonic() >= self.stop or attempt == 19:
                    if attempt == 19:
                        raise
                    return False
                self.reconnects += 1
                first = False
                await asyncio.sleep(0.5)
        return False

    async def play(self, url: str, rng: random.Random, first: bool) -> bool:
        """One socket of a seat (``first``: counted as connected for the ramp-up): see :meth:`seat`."""
        async with websockets.connect(url, max_size=None, open_timeout=120) as ws:
            if first:
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
                    self.why[f"error {message.get('code')}"] += 1
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
                except httpx.HTTPError:  # a connection the server just closed, a 503 while a process starts
                    if attempt == 4:
                        raise
                    await asyncio.sleep(0.2)
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
                    raise RuntimeError(f"a table slot failed: {t.exception()!r}") from t.exception()
        await asyncio.to_thread(barrier.wait, 600)  # every client process is ready: start the clock together
        load.stop = time.monotonic() + seconds
        cpu_start = time.process_time()
        load.go.set()
        while time.monotonic() < load.stop:
            await asyncio.sleep(0.2)
            for t in tasks:
                if t.done() and t.exception() is not None:
                    raise RuntimeError(f"a table slot failed: {t.exception()!r}") from t.exception()
        result = {"moves": load.moves, "latencies": list(load.latencies), "errors": load.errors,
                  "reconnects": load.reconnects, "why": dict(load.why), "cpu_s": time.process_time() - cpu_start,
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


def tree(root: int) -> list[int]:
    """The process ``root`` and every process below it (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


class Server:
    """The server under load: ``motley serve`` on ``store`` ("sqlite": one process on a SQLite file in ``tmp``;
    "postgresql": a database of ``postgres``, one ``--site`` process or ``--workers`` ``processes``), with the
    open limits of the tests and the coordination counters on (``MOTLEY_COUNTERS``, written under ``tmp``); its
    output goes to a file in ``log`` if given.

    Raises:
        TimeoutError: the server did not answer within 60 s.
    """

    def __init__(self, store: str, processes: int, tmp: Path, postgres: PostgresServer | None,
                 log: Path | None = None) -> None:
        self.store, self.processes = store, processes
        self.postgres = postgres if store == "postgresql" else None
        self.port = free_port()
        self.base, self.ws_base = f"http://127.0.0.1:{self.port}", f"ws://127.0.0.1:{self.port}"
        self.counters = tmp / f"counters-{store}-{processes}-{self.port}"
        self.db = (self.postgres.create_database() if self.postgres is not None
                   else f"sqlite:///{tmp}/load-{self.port}.db")
        limits = [f"--{name.replace('_', '-')}={getattr(OPEN_LIMITS, name)}"
                  for name in ("tables_per_address", "tables_per_minute", "table_burst", "sockets_per_table",
                               "messages_per_second", "message_burst", "connections_per_address")]
        site = [] if store == "sqlite" else ["--site"] if processes == 1 else [f"--workers={processes}"]
        command = [sys.executable, "-c", "from motley.cli.main import main; main()", "serve", "--host=127.0.0.1",
                   f"--port={self.port}", f"--db={self.db}", "--bot-delay=0", *limits, *site]
        env = {**os.environ, "MOTLEY_COUNTERS": str(self.counters)}
        output = open(log / f"server-{store}-{processes}-{self.port}.log", "wb") if log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        wait_until_up(self.base, 60)
        deadline = time.monotonic() + 60  # every worker answers the shared port once it has registered
        while processes > 1 and len(self.pids()) < processes + 1 and time.monotonic() < deadline:
            time.sleep(0.2)

    def pids(self) -> list[int]:
        """The server's process and every process below it (``--workers``' workers, search pools)."""
        return tree(self.proc.pid)

    def cpu(self) -> float:
        """CPU seconds used so far by the server's processes (those alive now)."""
        total = 0.0
        for pid in self.pids():
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += cpu_seconds(pid)
        return total

    def rss(self) -> float:
        """Resident memory of the server's processes together, MiB."""
        total = 0.0
        for pid in self.pids():
            with contextlib.suppress(OSError, ValueError):
                total += rss_mb(pid)
        return total

    def store_cpu(self) -> float:
        """CPU seconds used so far by the PostgreSQL server's processes (all its backends, its writers), or 0 on
        SQLite (whose work is in the server's own processes)."""
        if self.postgres is None:
            return 0.0
        postmaster = int((self.postgres.data / "postmaster.pid").read_text().split()[0])
        total = 0.0
        for pid in tree(postmaster):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += cpu_seconds(pid)
        return total

    def coordination(self) -> dict[str, int]:
        """The coordination counters of every server process so far, summed (:mod:`motley.server.store.counters`),
        and PostgreSQL's committed transactions of the database (``pg_stat_database.xact_commit``)."""
        totals = dict.fromkeys(counters.NAMES, 0)
        for counts in counters.read(self.counters).values():
            for name, n in counts.items():
                totals[name] += n
        if self.store == "postgresql":
            import psycopg

            url = self.db.replace("postgresql+psycopg://", "postgresql://")
            with psycopg.connect(url, autocommit=True) as conn:
                row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                                   ).fetchone()
            totals["pg_xact_commit"] = int(row[0]) if row else 0
        return totals

    def stop(self) -> None:
        """SIGTERM (the workers give their leases up) and wait."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def run(server: Server, tables: int, seconds: float, game: str, think: float, svg: bool, clients: int
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
    cpu_start, store_start, work_start = server.cpu(), server.store_cpu(), server.coordination()
    peak = server.rss()
    while time.monotonic() < started + seconds:
        time.sleep(0.5)
        peak = max(peak, server.rss())
    elapsed = time.monotonic() - started
    cpu, store_cpu, work_end = server.cpu() - cpu_start, server.store_cpu() - store_start, server.coordination()
    load = load_average()
    parts = [out.get(timeout=600) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    for part in parts:
        if "error" in part:
            raise RuntimeError(f"a client process failed: {part['error']}")
    moves = sum(p["moves"] for p in parts)
    lat = sorted(x for p in parts for x in p["latencies"]) or [0.0]
    per_move = {f"{name}_per_move": round((work_end[name] - work_start[name]) / max(moves, 1), 2)
                for name in work_end}
    return {"store": server.store, "processes": server.processes, "tables": tables, "game": game,
            "think_s": think, "svg": svg, "clients": clients, "seconds": round(elapsed, 1), "moves": moves,
            "moves_per_s": round(moves / elapsed, 1), "moves_per_s_per_process": round(moves / elapsed /
                                                                                      server.processes, 1),
            "moves_per_cpu_s": round(moves / cpu, 1) if cpu else None,
            "p50_ms": round(1000 * statistics.median(lat), 1),
            "p99_ms": round(1000 * lat[int(0.99 * (len(lat) - 1))], 1),
            "max_ms": round(1000 * lat[-1], 1), "matches_finished": sum(p["matches"] for p in parts),
            "errors": sum(p["errors"] for p in parts), "reconnects": sum(p["reconnects"] for p in parts),
            "why": dict(sum((collections.Counter(p["why"]) for p in parts), collections.Counter())),
            "server_peak_rss_mib": round(peak, 1),
            "server_cpu_s": round(cpu, 1), "server_cpu_percent": round(100 * cpu / elapsed, 1),
            "server_cpu_ms_per_move": round(1000 * cpu / max(moves, 1), 3),
            "clients_cpu_percent": round(100 * sum(p["cpu_s"] for p in parts) / elapsed, 1),
            "store_cpu_ms_per_move": round(1000 * store_cpu / max(moves, 1), 3), **per_move,
            "load_average": load}


def sites(names: list[str]) -> list[tuple[str, int]]:
    """``STORE:PROCESSES`` items (``sqlite:1``, ``postgresql:4``) as pairs; SQLite serves one process only.

    Raises:
        SystemExit: for an item of another shape.
    """
    found = []
    for name in names:
        store, _, count = name.partition(":")
        if store not in ("sqlite", "postgresql") or not count.isdigit() or int(count) < 1 or (
                store == "sqlite" and int(count) != 1):
            raise SystemExit(f"--sites takes sqlite:1 or postgresql:N (N >= 1), not {name!r}")
        found.append((store, int(count)))
    return found


def show(result: dict[str, Any]) -> str:
    """One run as a line of text."""
    store = f"{result['store']}×{result['processes']}"
    if "error" in result:
        return f"{store:13s} N={result['tables']:4d} think={result['think_s']}s: failed: {result['error']}"
    line = (f"{store:13s} N={result['tables']:4d} think={result['think_s']}s: {result['moves_per_s']:7.1f} moves/s "
            f"({result['moves_per_cpu_s']} per server CPU-s)  p50 {result['p50_ms']:6.1f} ms  "
            f"p99 {result['p99_ms']:7.1f} ms  statements/move {result['statements_per_move']}  "
            f"commits/move {result['commits_per_move']}")
    if "pg_xact_commit_per_move" in result:
        line += (f"  pg xact/move {result['pg_xact_commit_per_move']}  PostgreSQL CPU "
                 f"{result['store_cpu_ms_per_move']} ms/move")
    return (line + f"  news/move {result['news_published_per_move']}  server CPU {result['server_cpu_percent']:.0f}%"
            f"  clients' CPU {result['clients_cpu_percent']:.0f}%  RSS {result['server_peak_rss_mib']:.0f} MiB  "
            f"load avg {result['load_average']:.1f}  "
            f"({result['moves']} moves, {result['matches_finished']} matches, {result['errors']} errors, "
            f"{result['reconnects']} reconnections: {result['why']})")


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[10, 100, 500])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--game", default="fool(players=4)")
    parser.add_argument("--think", type=float, nargs="*", default=[0.0],
                        help="mean seconds a client waits before moving (several: one run each)")
    parser.add_argument("--svg", action="store_true", help="ask for the SVG drawing in every message, as the page does")
    parser.add_argument("--sites", nargs="*", default=["sqlite:1"],
                        help="STORE:PROCESSES to serve from: sqlite:1, postgresql:1 (one --site process), "
                             "postgresql:N (--workers N); PostgreSQL is a throwaway server started here")
    parser.add_argument("--pg-fsync", choices=("on", "off"), default="on",
                        help="PostgreSQL's fsync (on: a commit waits for the disk, as in production)")
    parser.add_argument("--log", type=Path, default=None, help="a folder for the servers' output (one file a run)")
    parser.add_argument("--clients", type=int, default=2, help="client processes the seats are split over")
    parser.add_argument("--json", action="store_true", help="one JSON object per run, a line each")
    args = parser.parse_args()
    chosen = sites(args.sites)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the servers and PostgreSQL on the way out
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        tmp = Path(folder)
        postgres = None
        if any(store == "postgresql" for store, _ in chosen):
            from tests import postgres as pg

            bin_dir = pg.binaries()
            if bin_dir is None:
                raise SystemExit("PostgreSQL's server binaries are not installed (Debian's package postgresql)")
            pg.SETTINGS = pg.SETTINGS.replace("fsync=off", f"fsync={args.pg_fsync}").replace(
                "full_page_writes=off", f"full_page_writes={args.pg_fsync}")
            postgres = pg.PostgresServer(bin_dir)
            stack.callback(postgres.remove)
        for store, processes in chosen:
            for n in args.tables:
                for think in args.think:
                    server = Server(store, processes, tmp, postgres, args.log)
                    try:
                        result = run(server, n, args.seconds, args.game, think, args.svg, args.clients)
                    except RuntimeError as exc:  # one run's failure is reported, the others still run
                        result = {"store": store, "processes": processes, "tables": n, "think_s": think,
                                  "error": str(exc)}
                    finally:
                        server.stop()
                        if postgres is not None and store == "postgresql":
                            postgres.drop_database(server.db)
                    print(json.dumps(result) if args.json else show(result), flush=True)


if __name__ == "__main__":
    main()
