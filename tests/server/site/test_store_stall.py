"""A store that stops answering altogether (every PostgreSQL process stopped with SIGSTOP: it holds its connections
and answers nothing, as a hung server or a network that drops packets without resets does) is waited for only so
long: during the stall a move is answered ``not_stored``, a request that needs the store 503 with ``Retry-After``,
and what is in memory (the lobby) is answered from memory, each within a bound; nothing a mover was told was not
stored is stored afterwards; a process of a site that cannot renew its leases fences itself within the lease's TTL.

The bounds asserted (:data:`BOUND`) are the point of these tests: generous beside the store's deadline
(:data:`motley.server.store.writer.DEADLINE`), far below the stall's length."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from motley.server.store.storage import Storage
from motley.server.web.testing import ServerProcess
from tests.postgres import PostgresServer, paused
from tests.server.play.test_server_restart import Mover
from tests.server.site.test_server_site import SiteMover, b_drives, stored_moves_numbered
from tests.server.site.test_site_recipe import _nginx, _site, needs_postgres
from tests.support import seat_tokens

#: Seconds within which a request is answered while the store is silent (the store's deadline is 2 s).
BOUND = 5.0
#: Seconds the store stays silent in a test: longer than :data:`BOUND` with room to spare.
STALL = 8.0
PEOPLE = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}

T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """``fn()`` and the seconds it took."""
    began = time.monotonic()
    result = fn()
    return result, time.monotonic() - began


def during_stall(stall: contextlib.AbstractContextManager[None], checks: Callable[[], T]) -> T:
    """Pause the store (``stall``: :func:`tests.postgres.paused`), run ``checks`` (in this thread), hold the stall
    until :data:`STALL` seconds have passed, then resume the store; returns what ``checks`` returned."""
    with stall:
        began = time.monotonic()
        result = checks()
        assert time.monotonic() - began < STALL, "the checks outlasted the stall: it proves nothing"
        time.sleep(max(0.0, STALL - (time.monotonic() - began)))
    return result


def test_a_silent_store_is_answered_within_bounds_and_nothing_refused_is_stored_later(
        postgres: PostgresServer) -> None:
    """One process on PostgreSQL, a table of four people with moves played. With the store stopped for 8 s: a
    move is answered ``not_stored`` (the table stays at its version), a new table is refused 503
    ``store_unavailable`` with ``Retry-After``, and the lobby lists the table from memory, each within 5 s. Once
    the store answers again the move is played, and the store holds exactly the acknowledged moves."""
    url = postgres.create_database()
    server = ServerProcess(url).start()
    try:
        created = httpx.post(f"{server.base}/api/tables", json=PEOPLE, timeout=10).json()
        table_id = created["id"]
        mover = Mover(server.ws_base, table_id, seat_tokens(created))
        while len(mover.acknowledged) < 3:
            assert mover.move() not in ("not_stored", "closed")  # "stale": a relayed seat heard of a move late

        def checks() -> list[tuple[Any, float]]:
            return [timed(mover.move),
                    timed(lambda: httpx.post(f"{server.base}/api/tables", json=PEOPLE, timeout=30)),
                    timed(lambda: httpx.get(f"{server.base}/api/tables", timeout=30))]

        (moved, move_took), (made, made_took), (lobby, lobby_took) = during_stall(postgres.paused(), checks)
        assert moved == "not_stored" and move_took < BOUND, (moved, move_took)
        assert made.status_code == 503 and made_took < BOUND, (made.status_code, made_took)
        assert made.json()["error"]["code"] == "store_unavailable" and int(made.headers["Retry-After"]) >= 1
        assert lobby.status_code == 200 and lobby_took < BOUND, (lobby.status_code, lobby_took)
        assert table_id in {line["id"] for line in lobby.json()}
        deadline = time.monotonic() + 30
        while len(mover.acknowledged) < 5 and time.monotonic() < deadline:
            if mover.move() != "ok":
                time.sleep(0.2)
        mover.close()
        assert len(mover.acknowledged) >= 5, "play did not go on once the store answered again"
        stored = stored_moves_numbered(url, table_id)
        assert set(mover.acknowledged) <= set(stored), "every acknowledged move is stored"
        assert [n for n, _, _ in stored] == list(range(1, len(stored) + 1))  # none twice, none missing
    finally:
        server.stop()
    postgres.drop_database(url)


def test_a_site_process_that_cannot_renew_its_leases_fences_itself_within_the_ttl(postgres: PostgresServer) -> None:
    """Two processes of a site (leases of 4 s) on PostgreSQL, a table of four people made on A, seats 0 and 1
    playing through A and seats 2 and 3 through B. With the store stopped for 8 s: a move through A and one
    relayed through B are answered ``not_stored``, the lobby of both processes within 5 s; and before the leases
    run out (4 s after the last renewal) A stops driving the table (its renewals do not answer). Once the store
    answers again the table is driven by one process and play goes on, with exactly the acknowledged moves
    stored."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=4.0).start()
    b = ServerProcess(url, lease_ttl=4.0).start()
    try:
        created = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()
        table_id = created["id"]
        tokens = seat_tokens(created)
        mover = SiteMover([f"{(a if seat < 2 else b).ws_base}/ws/{table_id}?token={token}"
                           for seat, token in enumerate(tokens)])
        while len(mover.acknowledged) < 2:
            assert mover.move() not in ("not_stored", "closed")  # "stale": a relayed seat heard of a move late

        def checks() -> dict[str, Any]:
            began = time.monotonic()
            found: dict[str, Any] = {"move": timed(mover.move)}
            with ThreadPoolExecutor(2) as pool:
                lobbies = list(pool.map(lambda server: timed(lambda: httpx.get(f"{server.base}/api/tables",
                                                                               timeout=30)), (a, b)))
            found["lobbies"] = lobbies
            while table_id in b_drives(a.base) and time.monotonic() - began < 4.0 + 1.0:
                time.sleep(0.1)
            found["fenced"] = table_id not in b_drives(a.base)
            found["fenced_after"] = time.monotonic() - began
            return found

        found = during_stall(postgres.paused(), checks)
        assert found["move"][0] in ("not_stored", "closed") and found["move"][1] < BOUND, found["move"]
        for lobby, took in found["lobbies"]:
            assert lobby.status_code == 200 and took < BOUND, (lobby.status_code, took)
        assert found["fenced"], f"A still drove the table {found['fenced_after']:.1f} s into the stall"
        deadline = time.monotonic() + 30
        before = len(mover.acknowledged)
        while len(mover.acknowledged) < before + 4 and time.monotonic() < deadline:
            if mover.move() in ("not_stored", "closed"):
                time.sleep(0.2)
        mover.close()
        assert len(mover.acknowledged) >= before + 4, "play did not go on once the store answered again"
        stored = stored_moves_numbered(url, table_id)
        assert set(mover.acknowledged) <= set(stored), "every acknowledged move is stored"
        assert [n for n, _, _ in stored] == list(range(1, len(stored) + 1))  # none twice, none missing
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def recipe_workers(folder: Path) -> list[int]:
    """The process ids of the ``motley serve --workers`` children that ``scripts/site`` runs in ``folder`` (the
    children of the ``serve`` process whose ``--db`` names the folder's socket)."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            found[int(entry.name)] = (int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]), command)
    serving = {pid for pid, (_, command) in found.items() if f"host={folder} " in command and " serve " in command}
    return sorted(pid for pid, (parent, command) in found.items() if parent in serving and "spawn_main" in command)


def lease_pid(url: str, table_id: str) -> int | None:
    """The process id in the holder (``host/pid``) of the table's live lease, or None."""
    storage = Storage(url)
    try:
        lease = storage.owner_of(table_id)
    finally:
        storage.close()
    return None if lease is None else int(lease.holder.rsplit("/", 1)[1])


def play_on(mover: SiteMover, moves: int, within: float = 40.0) -> None:
    """Play until ``moves`` more moves are acknowledged (refusals waited out), or fail after ``within`` seconds."""
    wanted = len(mover.acknowledged) + moves
    deadline = time.monotonic() + within
    while len(mover.acknowledged) < wanted and time.monotonic() < deadline:
        if mover.move() in ("not_stored", "closed"):
            time.sleep(0.2)
    assert len(mover.acknowledged) >= wanted, "play did not go on"


@needs_postgres
@pytest.mark.parametrize("front", ["nginx", "no-nginx"])
def test_the_local_recipe_survives_a_paused_process_and_a_silent_store(front: str) -> None:
    """``scripts/site`` (two worker processes on PostgreSQL, behind nginx or not), a table of four people played
    through its address. The process driving the table is stopped (SIGSTOP) for longer than its lease: the other
    takes the table over meanwhile, and once the stopped one goes on, play goes on through the address. Then the
    store is stopped for 8 s: a move is answered ``not_stored`` (or its socket closed, to connect again), the
    lobby from memory and a new table 503 with ``Retry-After``, each within 5 s; play goes on afterwards. The
    store holds every acknowledged move once, numbered without a gap."""
    if front == "nginx" and _nginx() is None:
        pytest.skip("nginx is not installed (Debian's nginx; ./scripts/setup installs it): the same checks run "
                    "without it")
    with _site(*(() if front == "nginx" else ("--no-nginx",))) as (base, folder, _lines):
        url = f"postgresql://motley@/motley?host={folder}"
        workers = recipe_workers(folder)
        assert len(workers) == 2, workers
        created = httpx.post(f"{base}/api/tables", json=PEOPLE, timeout=10).json()
        table_id = created["id"]
        ws_base = base.replace("http://", "ws://")
        mover = SiteMover([f"{ws_base}/ws/{table_id}?token={token}" for token in seat_tokens(created)])
        play_on(mover, 3)
        owner = lease_pid(url, table_id)
        assert owner in workers
        os.kill(owner, signal.SIGSTOP)
        try:
            deadline = time.monotonic() + 30
            while lease_pid(url, table_id) in (owner, None) and time.monotonic() < deadline:
                time.sleep(0.2)
            taker = lease_pid(url, table_id)
        finally:
            os.kill(owner, signal.SIGCONT)
        assert taker in workers and taker != owner, "the other process did not take the paused one's table"
        mover.broken = True  # connect again, as a page does once its socket goes quiet
        play_on(mover, 3)

        def checks() -> list[tuple[Any, float]]:
            return [timed(mover.move),
                    timed(lambda: httpx.get(f"{base}/api/tables", timeout=30)),
                    timed(lambda: httpx.post(f"{base}/api/tables", json=PEOPLE, timeout=30))]

        (moved, move_took), (lobby, lobby_took), (made, made_took) = during_stall(paused(folder / "data"), checks)
        assert moved in ("not_stored", "closed") and move_took < BOUND, (moved, move_took)
        assert lobby.status_code == 200 and lobby_took < BOUND, (lobby.status_code, lobby_took)
        assert made.status_code == 503 and made_took < BOUND, (made.status_code, made_took)
        assert int(made.headers["Retry-After"]) >= 1
        play_on(mover, 3)
        mover.close()
        stored = stored_moves_numbered(url, table_id)
        assert set(mover.acknowledged) <= set(stored), "every acknowledged move is stored"
        assert [n for n, _, _ in stored] == list(range(1, len(stored) + 1))  # none twice, none missing
