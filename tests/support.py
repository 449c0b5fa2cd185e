"""Test helpers shared by the tests of every game and of the server."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import httpx
import pytest

import motley
from motley.core import State
from motley.core.inference import InferenceSupport, InferredChain, PlayerModel
from motley.server.play.bodies import table_request
from motley.server.play.messages import ServerMessage
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.store.records import Settings, TableRecord
from motley.server.store.storage import Storage

if TYPE_CHECKING:  # the web app is imported only by the tests that start a server
    from motley.server.web.testing import ServerThread

#: Debian's Chromium, driven by Playwright in the browser tests, and its headless flags (no background
#: networking: this machine's closed network refuses it).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: Marks a browser test module: skipped where Chromium is not installed.
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="Debian's chromium is not installed (scripts/setup-browser installs it)")


class Viewer:
    """A table connection (:class:`motley.server.play.live.Connection`) that keeps every message it is sent."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.messages: list[dict[str, Any]] = []
        self.stopped: int | None = None

    def send(self, message: ServerMessage) -> None:
        self.messages.append(cast("dict[str, Any]", message))  # read by the tests as the JSON object it is

    def stop(self, code: int, reason: str, flush: bool) -> None:
        """Closed by the server with ``code`` (kept in :attr:`stopped`)."""
        self.stopped = code

    def last(self, kind: str) -> dict[str, Any]:
        """The newest message of type ``kind``."""
        return next(m for m in reversed(self.messages) if m["type"] == kind)


class FakeClock:
    """A clock that moves only when told (:meth:`advance`): seconds, starting at ``start`` (by default now, since
    the epoch, so that it can stand for a wall clock: a store's lease clock, ``Storage(url, clock=...)``)."""

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` on."""
        self.now += seconds


def play_random(state: State, rng: random.Random, steps: int) -> State:
    """Apply up to ``steps`` uniformly random legal actions (stops at the end of the match)."""
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def in_threads(work: Callable[[int], None], count: int = 3) -> None:
    """Run ``work(0)`` .. ``work(count - 1)`` in as many threads at once; fails with every error any of them raised
    (an assertion in a thread is otherwise lost)."""
    failures: list[BaseException] = []

    def guarded(seed: int) -> None:
        try:
            work(seed)
        except BaseException as error:  # handed to the main thread
            failures.append(error)

    threads = [threading.Thread(target=guarded, args=(seed,)) for seed in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


def run_pure_python(probe: str) -> subprocess.CompletedProcess[str]:
    """Python code ``probe`` run in a fresh interpreter with ``MOTLEY_PURE_PYTHON=1`` (the games' compiled parts left
    out, which is decided at import) and this checkout's sources first; its output captured."""
    env = {**os.environ, "MOTLEY_PURE_PYTHON": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)


def play_out(state: State, rng: random.Random, limit: int = 100_000) -> State:
    """Play random legal actions until the match ends; fails if it does not end within ``limit`` moves."""
    play_random(state, rng, limit)
    assert state.is_terminal(), f"match did not end within {limit} moves"
    return state


#: Player counts under test per game; any other registered game is tested at its extremes.
PLAYER_COUNTS = {"fools_errand": [2], "fool": [4, 5, 8], "foolery": [3, 5, 7]}


def game_configs() -> list[Any]:
    """pytest params ``(game, players)`` for every registered game, ids like ``fool-5``."""
    table = dict(PLAYER_COUNTS)
    for name in motley.registered_games():
        if name not in table:
            cls = motley.core.registry.game_class(name)
            table[name] = sorted({cls.min_players, cls.max_players})
    return [pytest.param(name, n, id=f"{name}-{n}")
            for name, counts in table.items() if name in motley.registered_games() for n in counts]


def summary_line(output: str, start: str) -> str:
    """The one line of ``output`` that starts with ``start`` (``"Final scores:"``); fails when there is none."""
    lines = [line for line in output.splitlines() if line.startswith(start)]
    assert len(lines) == 1, f"expected one line starting {start!r} in:\n{output[-3000:]}"
    return lines[0]


def assert_scores_named(line: str, scores: list[int], you: int) -> None:
    """Every seat's points appear in ``line``, the person's own seat as "you" and no seat number for it."""
    assert f"you {scores[you]}" in line, line
    assert f"seat {you} " not in line, line
    for seat, points in enumerate(scores):
        if seat != you:
            assert f"seat {seat} {points}" in line, line


def children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def flat_chain_gap(state: State, observer: int, support: InferenceSupport,
                   holdings: Callable[[State], Iterable[tuple[int, int]]]) -> float:
    """The largest gap between an inference chain with a flat likelihood and the game's sampler at ``state``:
    over every (seat, card) that ``holdings(world)`` lists for a world, the difference of the share of the
    chain's worlds (2,000, after 300 of burn-in) and of the sampler's (4,000) in which it holds. ``support`` is
    the game's ``InferenceSupport``; a symmetric proposal gives sampling noise alone (a few hundredths)."""
    flat = dataclasses.replace(support, log_likelihood=lambda world, seat, model: 0.0)
    sample = state.game.determinizer(state.observation(observer))
    rng = random.Random(1)
    uniform = Counter(key for _ in range(4000) for key in holdings(sample(rng)))
    chain = InferredChain(sample, observer, PlayerModel(flat), 4)
    for _ in range(300):
        chain(rng)
    chained = Counter(key for _ in range(2000) for key in holdings(chain(rng)))
    return max(abs(chained[key] / 2000 - uniform[key] / 4000) for key in uniform.keys() | chained.keys())



def store_random_match(storage: Storage, request: dict[str, Any], seed: int) -> Table:
    """A table made from the lobby ``request`` (as ``POST /api/tables`` takes it) played to its end with random
    moves (``seed`` seeds the deal and the moves), stored in ``storage`` as a server stores it (header, each move,
    result); returns the finished table (its tokens included)."""
    record = new_record(table_request(request), Settings(bot_delay=0.0), seed)
    storage.create_table(record)
    table = Table(record)
    rng = random.Random(seed)
    while not table.state.is_terminal():
        seat = table.state.current_player()
        move = table.prepare(seat, rng.choice(table.state.legal_actions()), "seat")
        storage.add_move(record.id, move.number, seat, move.text, "seat")
        table.apply(move)
    storage.finish(record.id, {"scores": table.state.scores()})
    return table


def finished_by_bots(base: str, request: dict[str, Any], wait: float = 120.0) -> str:
    """The id of a table made from ``request`` at the server at ``base`` (every seat a bot), once its match is over
    (its record is served), polled every 0.2 s for at most ``wait`` seconds."""
    table_id: str = httpx.post(f"{base}/api/tables", json=request, timeout=10).json()["id"]
    deadline = time.monotonic() + wait
    while httpx.get(f"{base}/api/tables/{table_id}/record", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.2)
    return table_id


def stored_record(url: str, table_id: str) -> TableRecord | None:
    """The table's record as the store at ``url`` holds it now, or None; read through a store opened for this
    read alone, as another process would."""
    storage = Storage(url)
    try:
        return storage.load(table_id)
    finally:
        storage.close()


def seat_tokens(created: dict[str, Any]) -> list[str]:
    """The seat tokens of a table as ``POST /api/tables`` answered its creation (each seat's link names its
    token; every seat must be a person's)."""
    return [str(seat["link"]).split("token=")[1] for seat in created["seats"]]


def create_table(server: ServerThread, game: str, people: list[str], bots: int, **extra: Any) -> dict[str, Any]:
    """A table of ``game`` made through ``server``'s API: the people (by name), then ``bots`` random bots; no bot
    delay, no pace (``extra``: more request fields). Returns the API's answer (the table's id and seat links)."""
    seats = [{"kind": "human", "name": n} for n in people] + [{"kind": "bot", "bot": "random"}] * bots
    spec = {"game": game, "players": len(seats), "bot_delay": 0, "pace": 0, "seats": seats, **extra}
    answer = httpx.post(f"{server.base}/api/tables", json=spec, timeout=10)
    assert answer.status_code == 200, answer.text
    return cast("dict[str, Any]", answer.json())


def benchmark_module(name: str) -> ModuleType:
    """The script ``benchmarks/{name}.py`` loaded as the module ``benchmarks.{name}`` (once; registered, as a
    dataclass there looks its module up by name), so tests can check its parts where they are."""
    key = f"benchmarks.{name}"
    if key in sys.modules:
        return sys.modules[key]
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module
