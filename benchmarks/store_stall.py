"""What a site answers while its store is silent (docs/scaling.md, "Deadlines"): two ``motley serve --site``
processes A and B on one throwaway PostgreSQL (:mod:`tests.postgres`), a table of four people made on A with a few
moves played, and a finished table in the store that neither process has in memory. Then every PostgreSQL process
is stopped with SIGSTOP for ``STALL`` seconds (it holds its connections and answers nothing, as a hung server or a
partition without resets), and one second into the stall these are asked at once, each timed until answered:

- a move of the seat to move through A (``not_stored`` expected), on a socket connected before the stall;
- ``POST /api/tables`` on A (a new table: 503 expected);
- ``GET /api/tables`` (the lobby) on A and on B, ``GET /`` (the first page) on A;
- a seat's WebSocket (its first message): on A the first connection of one seat and again of another (connected
  before the stall), on B (relayed to A) a seat's and a spectator's;
- ``GET /api/tables/ID/record`` of the finished table not in memory (503 expected);

and A's lobby is polled for the moment A stops driving its table (self-fencing: its lease renewals do not answer).
Prints one line per probe: what it was answered and after how many seconds (``timeout`` past 60 s).

Run: ``PYTHONPATH=src:. .venv/bin/python benchmarks/store_stall.py [STALL] [LEASE_TTL]`` (default 20 s, 6 s).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from tests.postgres import PostgresServer, binaries
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from motley.server.store.storage import Storage
from motley.server.web.testing import ServerProcess, store_finished_match

PEOPLE = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}
#: Seconds a probe waits for its answer.
PATIENCE = 60.0


def first_message(link: str) -> str:
    """The first message's type (or code) of a socket to ``link``, or how it was refused."""
    try:
        with connect(link, open_timeout=PATIENCE) as ws:
            message = json.loads(ws.recv(timeout=PATIENCE))
            return str(message.get("code") or message["type"])
    except TimeoutError:
        return "timeout"
    except (OSError, WebSocketException) as exc:
        return f"refused ({type(exc).__name__}: {str(exc)[:40]})"


def seated(link: str) -> tuple[ClientConnection, dict[str, Any]]:
    """A seat's socket to ``link``, connected (before the stall), and the state it was sent first."""
    ws = connect(link, open_timeout=10).__enter__()
    state: dict[str, Any] = json.loads(ws.recv(timeout=10))
    assert state["type"] == "state" and state["legal"], state
    return ws, state


def move(ws: ClientConnection, state: dict[str, Any]) -> str:
    """Send the seat's first legal move of ``state`` on ``ws`` and return the answer: ``state`` (played), the
    error's code, or ``timeout``."""
    try:
        ws.send(json.dumps({"type": "move", "version": state["version"], "action": state["legal"][0]["action"]}))
        while True:
            answer = json.loads(ws.recv(timeout=PATIENCE))
            if answer["type"] == "error":
                return str(answer["code"])
            if answer["type"] == "state" and answer["version"] > state["version"]:
                return "state"
    except TimeoutError:
        return "timeout"
    except (OSError, WebSocketException) as exc:
        return f"refused ({type(exc).__name__})"


def http(method: str, url: str, **kwargs: Any) -> str:
    """The status of a request (with its error code and ``Retry-After``, if any), or ``timeout``."""
    try:
        answer = httpx.request(method, url, timeout=PATIENCE, **kwargs)
    except httpx.TimeoutException:
        return "timeout"
    code = ""
    if answer.status_code >= 400 and answer.headers.get("content-type", "").startswith("application/json"):
        code = f" {answer.json().get('error', {}).get('code')}"
    retry = f" Retry-After {answer.headers['retry-after']}" if "retry-after" in answer.headers else ""
    return f"{answer.status_code}{code}{retry}"


def timed(fn: Callable[[], str]) -> tuple[str, float]:
    began = time.monotonic()
    return fn(), time.monotonic() - began


def to_move(base: str, table_id: str) -> int:
    """The seat to move at ``table_id`` (read through a spectator's socket at ``base``)."""
    with connect(f"{base}/ws/{table_id}", open_timeout=10) as ws:
        return int(json.loads(ws.recv(timeout=10))["current_player"])


def main(stall: float, ttl: float) -> None:
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    a = b = None
    try:
        url = server.create_database()
        storage = Storage(url)
        finished = store_finished_match(storage, {"game": "fool", "players": 4,
                                                  "seats": [{"kind": "bot", "bot": "random"}] * 4}, seed=7).id
        storage.close()
        a = ServerProcess(url, lease_ttl=ttl).start()
        b = ServerProcess(url, lease_ttl=ttl).start()
        created = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()
        table_id = created["id"]
        tokens = [str(seat["link"]).split("token=")[1] for seat in created["seats"]]
        seat = to_move(a.ws_base, table_id)
        on_a = seated(f"{a.ws_base}/ws/{table_id}?token={tokens[seat]}")
        link_a, link_b = f"{a.ws_base}/ws/{table_id}?token=", f"{b.ws_base}/ws/{table_id}?token="
        first_message(link_a + tokens[(seat + 2) % 4])  # a seat connected before the stall
        probes: dict[str, Callable[[], str]] = {
            "move through A": lambda: move(*on_a),
            "create a table on A": lambda: http("POST", f"{a.base}/api/tables", json=PEOPLE),
            "lobby GET on A": lambda: http("GET", f"{a.base}/api/tables"),
            "lobby GET on B": lambda: http("GET", f"{b.base}/api/tables"),
            "first page on A": lambda: http("GET", f"{a.base}/"),
            "seat socket on A, first": lambda: first_message(link_a + tokens[(seat + 1) % 4]),
            "seat socket on A, again": lambda: first_message(link_a + tokens[(seat + 2) % 4]),
            "seat socket on B, first": lambda: first_message(link_b + tokens[(seat + 3) % 4]),
            "spectator on B": lambda: first_message(f"{b.ws_base}/ws/{table_id}"),
            "record not in memory": lambda: http("GET", f"{a.base}/api/tables/{finished}/record"),
        }
        with ThreadPoolExecutor(len(probes)) as pool, on_a[0]:
            with server.paused():
                stopped = time.monotonic()
                time.sleep(1.0)
                jobs = {name: pool.submit(timed, probe) for name, probe in probes.items()}
                fenced = None
                while time.monotonic() - stopped < stall:
                    if fenced is None and not a_drives(a.base, table_id):
                        fenced = time.monotonic() - stopped
                    time.sleep(0.2)
            results = {name: job.result() for name, job in jobs.items()}
        print(f"store silent (SIGSTOP) for {stall:g} s, leases of {ttl:g} s; probes sent 1 s into the stall")
        for name, (answer, took) in results.items():
            print(f"  {name:28s} {took:6.2f} s  {answer}")
        print(f"  {'A stops driving its table':28s} "
              + (f"{fenced:6.2f} s into the stall" if fenced is not None else f"not within the {stall:g} s stall"))
    finally:
        for process in (a, b):
            if process is not None:
                process.stop()
        server.remove()


def a_drives(base: str, table_id: str) -> bool:
    """Does the server at ``base`` list ``table_id`` as its own (its lobby line has seats)? True when its lobby
    does not answer within 1 s (nothing is known then)."""
    try:
        return any(t["id"] == table_id and t["seats"] for t in httpx.get(f"{base}/api/tables", timeout=1).json())
    except httpx.HTTPError:
        return True


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stall", nargs="?", type=float, default=20.0)
    parser.add_argument("ttl", nargs="?", type=float, default=6.0)
    args = parser.parse_args()
    main(args.stall, args.ttl)
