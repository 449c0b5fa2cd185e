"""A store that stops answering altogether (every PostgreSQL process stopped with SIGSTOP: it holds its connections
and answers nothing, as a hung server or a network that drops packets without resets does) is waited for only so
long: during the stall a move is answered ``not_stored``, a request that needs the store 503 with ``Retry-After``,
and what is in memory (the lobby) is answered from memory, each within a bound; nothing a mover was told was not
stored is stored afterwards; a process of a site that cannot renew its leases fences itself within the lease's TTL.

The bounds asserted (:data:`BOUND`) are the point of these tests: generous beside the store's deadline
(:data:`motley.server.store.writer.DEADLINE`), far below the stall's length."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import httpx

from motley.server.web.testing import ServerProcess
from tests.postgres import PostgresServer
from tests.server.play.test_server_restart import Mover
from tests.server.site.test_server_site import SiteMover, b_drives, stored_moves_numbered
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


def during_stall(postgres: PostgresServer, checks: Callable[[], T]) -> T:
    """Pause the store, run ``checks`` (in this thread), hold the stall until :data:`STALL` seconds have passed,
    then resume the store; returns what ``checks`` returned."""
    with postgres.paused():
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
            assert mover.move() == "ok"

        def checks() -> list[tuple[Any, float]]:
            return [timed(mover.move),
                    timed(lambda: httpx.post(f"{server.base}/api/tables", json=PEOPLE, timeout=30)),
                    timed(lambda: httpx.get(f"{server.base}/api/tables", timeout=30))]

        (moved, move_took), (made, made_took), (lobby, lobby_took) = during_stall(postgres, checks)
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
            assert mover.move() == "ok"

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

        found = during_stall(postgres, checks)
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
