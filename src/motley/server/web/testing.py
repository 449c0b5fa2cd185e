"""Running a real server for tests and benchmarks: Uvicorn in a background thread or a child process."""

from __future__ import annotations

import functools
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import uvicorn

from motley.server.play.bodies import table_request
from motley.server.play.limits import Limits
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings, TableRecord
from motley.server.store.writer import TableStorage
from motley.server.web.app import create_app
from motley.server.web.connections import uvicorn_settings

#: The limits of the test and benchmark servers unless a test sets its own: scripted clients move as fast as
#: the server answers and one address creates every table, so only the outgoing queue keeps its default.
OPEN_LIMITS = Limits(messages_per_second=1e6, message_burst=10**6, flood_strikes=10**6, tables_per_address=10**6,
                     sockets_per_table=10**5, tables_per_minute=1e9, table_burst=10**6,
                     connections_per_address=10**6)


def free_port() -> int:
    """An unused TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(base: str, timeout: float = 20.0) -> None:
    """Block until ``GET base/api/games`` answers.

    Raises:
        TimeoutError: if it does not answer within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/games", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"server at {base} did not start")


#: Does the table page fit its screen now? A script for ``page.evaluate`` (Playwright) answering ``{"centre",
#: "labels", "trick", "tap", "upper"}``: whether a trick card covers the centre text (the round, the lead), whether a
#: card covers a trick's name label, whether a play of the trick is off the screen or under the docked hand, the
#: narrowest visible width of a hand card (px; the part the next card leaves), and the smallest share of an
#: upper-row card a tap reaches (two or three rows). Used by the browser tests and ``benchmarks/table_fit.py``.
TABLE_FIT = """() => {
  const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => [e, e.getBoundingClientRect()]);
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const head = document.querySelector('.center-head');
  const cards = boxes('.table-trick .card');
  const centre = head ? cards.some(([, r]) => meets(r, head.getBoundingClientRect())) : false;
  const labels = boxes('.table-trick .who').some(([e, r]) => {
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return r.width > 0 && !!hit && !!hit.closest('.card');
  });
  const dock = document.querySelector('.dock');
  const dockTop = dock ? dock.getBoundingClientRect().top : innerHeight;
  const dockLeft = dock ? dock.getBoundingClientRect().left : 0;
  const trick = boxes('.table-trick .tplay').some(([, r]) => r.top < 0 || r.left < 0 || r.right > innerWidth
    || r.bottom > innerHeight || (r.bottom > dockTop && r.right > dockLeft));
  let tap = Infinity;
  for (const row of document.querySelectorAll('.hand-row')) {
    const cs = [...row.children].map((c) => c.getBoundingClientRect());
    cs.forEach((r, k) => {
      tap = Math.min(tap, k + 1 < cs.length ? Math.min(r.width, cs[k + 1].left - r.left) : r.width); });
  }
  let upper = 1;
  const rows = document.querySelectorAll('.hand-row');
  if (rows.length > 1) for (const c of rows[0].children) {
    const r = c.getBoundingClientRect(); let hit = 0, all = 0;
    const right = c.nextElementSibling ? Math.min(r.right, c.nextElementSibling.getBoundingClientRect().left) : r.right;
    for (let x = r.left + 2; x < right - 1; x += 4) for (let y = r.top + 2; y < r.bottom - 1; y += 4) {
      all += 1; const e = document.elementFromPoint(x, y); if (e && c.contains(e)) hit += 1; }
    if (all) upper = Math.min(upper, hit / all);
  }
  return {centre, labels, trick, tap: tap === Infinity ? null : Math.round(tap), upper: Math.round(upper * 100) / 100};
}"""

#: The seed of the generator that draws a :class:`ServerThread`'s table seeds.
TEST_SEEDS = 20261128


def table_seeds(seed: int = TEST_SEEDS) -> Callable[[], int]:
    """A test server's source of new tables' seeds (``create_app(seeds=...)``): a generator seeded with ``seed``."""
    return functools.partial(random.Random(seed).randrange, 2**62)


class ServerThread:
    """``motley serve`` in a daemon thread of this process (``with ServerThread(db) as server: server.base``);
    ``settings`` go to :func:`create_app` (``limits`` defaults to :data:`OPEN_LIMITS`, ``seeds`` to a generator
    seeded with :data:`TEST_SEEDS`, so that a test's deals are the same at every run: a match that the deal
    decides before anyone moves, as one Fool's Errand deal in about 900 is, is then never a matter of luck)."""

    def __init__(self, db: str, **settings: Any) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        limits = settings.setdefault("limits", OPEN_LIMITS) or Limits()
        settings.setdefault("seeds", table_seeds())
        self.app = create_app(db, host="127.0.0.1", port=self.port, **settings)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                ws_max_size=1 << 20, lifespan="on", **uvicorn_settings(limits))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        wait_until_up(self.base)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


#: The :class:`ServerProcess` instances made so far in this process (each draws its table seeds from its own number).
_PROCESSES = itertools.count()


class ServerProcess:
    """``motley serve`` as a child process (so a test can kill it with SIGKILL mid-game), with
    :data:`OPEN_LIMITS` and its table seeds drawn as a :class:`ServerThread`'s (from :data:`TEST_SEEDS` and the
    number of processes made before it in this test run, so two processes of a site deal differently); ``extra``:
    ``[bot_delay]`` (seconds, default 0); ``lease_ttl``: given, the process is one of a site (``--site
    --lease-ttl``); ``tables_per_address``: that quota instead of the open one; ``site_secret``: the site's secret
    file (``--site-secret``); ``log``: a file that gets the process's output (default: none kept);
    ``queue_messages``: that bound instead of the open limits' (``--queue-messages``)."""

    def __init__(self, db: str, port: int | None = None, extra: list[str] | None = None,
                 lease_ttl: float | None = None, tables_per_address: int | None = None,
                 site_secret: str | None = None, log: str | None = None, queue_messages: int | None = None) -> None:
        self.site_secret = site_secret
        self.queue_messages = queue_messages or OPEN_LIMITS.queue_messages
        self.log = log
        self.port = port or free_port()
        self.tables_per_address = tables_per_address or OPEN_LIMITS.tables_per_address
        self.db = db
        self.extra = extra or []
        self.lease_ttl = lease_ttl
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.seeds = TEST_SEEDS + next(_PROCESSES)

    def start(self, timeout: float = 20.0) -> ServerProcess:
        """Start it and wait until it answers (at most ``timeout`` seconds, then TimeoutError)."""
        code = ("import functools, sys; import motley.server as server; "
                "from motley.server.web.testing import table_seeds; "
                f"server.create_app = functools.partial(server.create_app, seeds=table_seeds({self.seeds})); "
                "from motley.cli.serve import serve; "
                "serve(host='127.0.0.1', port=int(sys.argv[1]), db=sys.argv[2], move_time=None, grace=30.0, "
                "bot_delay=float(sys.argv[3]), allow_origin=None, forwarded_allow_ips=None, "
                f"tables_per_address={self.tables_per_address}, "
                f"tables_per_minute={OPEN_LIMITS.tables_per_minute}, table_burst={OPEN_LIMITS.table_burst}, "
                f"sockets_per_table={OPEN_LIMITS.sockets_per_table}, "
                f"messages_per_second={OPEN_LIMITS.messages_per_second}, "
                f"message_burst={OPEN_LIMITS.message_burst}, queue_messages={self.queue_messages}, "
                f"connections_per_address={OPEN_LIMITS.connections_per_address}, "
                f"site={self.lease_ttl is not None}, lease_ttl={self.lease_ttl or 6.0}, "
                "site_secret=None if sys.argv[4] == '' else __import__('pathlib').Path(sys.argv[4]))")
        delay = self.extra[0] if self.extra else "0.0"
        with open(self.log or os.devnull, "ab") as output:
            self.proc = subprocess.Popen([sys.executable, "-c", code, str(self.port), self.db, delay,
                                          self.site_secret or ""],
                                         stdout=output, stderr=output, env=os.environ.copy())
        wait_until_up(self.base, timeout)
        return self

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as when a machine dies."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM and wait."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def pid(self) -> int:
        """The child's process id."""
        assert self.proc is not None
        return self.proc.pid


def store_finished_match(storage: TableStorage, request: dict[str, Any], seed: int) -> TableRecord:
    """A table made from the lobby ``request`` (a dict, as ``POST /api/tables`` takes) played to its end with
    uniformly random moves (``seed`` seeds the deal and the moves), written to ``storage`` as a finished table,
    as a server leaves it; returns its record. A server started on that storage has it out of memory, as after
    a restart.

    Raises:
        MotleyError: for a bad ``request``.
    """
    record = new_record(table_request(request), Settings(None, 30.0, 0.0), seed=seed)
    table = Table(record)
    storage.create_table(record)
    rng = random.Random(seed)
    state = table.state
    while not state.is_terminal():
        seat = state.current_player()
        action = rng.choice(state.legal_actions())
        record.moves.append((seat, state.action_to_string(action), "bot"))
        state.apply_action(action)
    storage.add_moves([(record.id, number, seat, move, actor)
                       for number, (seat, move, actor) in enumerate(record.moves, start=1)])
    storage.finish(record.id, {"scores": state.scores(), "returns": state.returns()})
    record.finished = True
    return record
