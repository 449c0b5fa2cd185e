"""The site mode of :class:`Service` (several processes over one store, docs/scaling.md): a table is driven only
by the process holding its lease; a dead owner's tables are taken over and finish with every move stored once; an
owner that lost its lease stops driving (at its heartbeat, or at once when the store refuses its move number).
Two services on one database stand for two processes, on SQLite and PostgreSQL, their leases on one fake clock
(:class:`~tests.support.FakeClock`): a lease expires when a test moves the clock, not after a wait."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from motley.server.play.bodies import table_request
from motley.server.play.limits import Limits, TablesRefused
from motley.server.play.membership import Alone
from motley.server.play.service import OwnedElsewhere, Service
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.site.leases import FORWARDED_CLIENT, FORWARDED_TO, Site
from motley.server.site.membership import SiteMembership
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web.app import create_app
from motley.server.web.reading import client_address
from motley.server.web.testing import ServerProcess
from tests.postgres import execute
from tests.server.play.test_server_restart import Mover
from tests.support import FakeClock, Viewer, seat_tokens, stored_record

#: A short lease, so that a test waits out a dead owner's.
TTL = 0.6
BOTS = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4}
PEOPLE = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human"}] * 2}


def service(url: str, limits: Limits | None = None, clock: FakeClock | None = None) -> Service:
    """One process of the site: its own store on ``url`` (its leases on ``clock``; None: the database's), a lease
    of :data:`TTL`."""
    return Service(Storage(url, clock=clock), Settings(None, 30.0, 0.0, pace=0.0, summary_wait=0.0), Thinkers(1),
                   membership=SiteMembership(Site(ttl=TTL, beat=TTL / 3, scan=0.1)), limits=limits)


def member(process: Service) -> SiteMembership:
    """The site membership of ``process``."""
    assert isinstance(process.membership, SiteMembership)
    return process.membership


def lease_clock(process: Service) -> FakeClock:
    """The fake clock of ``process``'s leases."""
    storage = process.store.storage
    assert isinstance(storage, Storage) and isinstance(storage.clock, FakeClock)
    return storage.clock


def die(dead: Service) -> None:
    """``dead`` stops as a killed process does: its drivers and heartbeat stop, its leases are not released."""
    for task in dead.tasks.values():
        task.cancel()


def with_pair(url: str, body: Callable[[Service, Service], Awaitable[None]], limits: Limits | None = None) -> None:
    """Run ``body(a, b)`` on two processes of one site over the store at ``url``, then close both."""
    async def main() -> None:
        clock = FakeClock()  # one database, one clock
        a, b = service(url, limits, clock), service(url, limits, clock)
        try:
            await body(a, b)
        finally:
            await a.close()
            await b.close()

    asyncio.run(main())


def stored_moves(url: str, table_id: str) -> list[tuple[int, str]]:
    record = stored_record(url, table_id)
    assert record is not None
    return [(seat, move) for seat, move, _actor in record.moves]


def test_the_app_is_one_process_by_default_and_a_member_of_the_site_with_one(tmp_path: Any) -> None:
    """``create_app`` hands the set of tables the one process's membership (:class:`Alone`) by default, and the
    site's (:class:`SiteMembership`, with this process's owner id and the site's secret) given a :class:`Site`."""
    site = Site(ttl=6.0, secret=b"s" * 32)
    alone = create_app(f"sqlite:///{tmp_path / 'alone.db'}").state.service
    member_ = create_app(f"sqlite:///{tmp_path / 'site.db'}", site=site).state.service
    try:
        assert isinstance(alone.membership, Alone) and alone.membership.owner is None
        assert isinstance(member_.membership, SiteMembership)
        assert member_.membership.owner == site.owner and member_.membership.secret == site.secret
    finally:
        asyncio.run(alone.close())
        asyncio.run(member_.close())


def test_a_table_is_driven_only_by_the_process_that_created_it(store_url: str) -> None:
    with_pair(store_url, _driven_only_by_its_creator)


async def _driven_only_by_its_creator(a: Service, b: Service) -> None:
    live = await a.create(table_request(PEOPLE), seed=3)
    assert live.id in member(a).held and live.id in a.tasks
    with pytest.raises(OwnedElsewhere):
        await b.get(live.id)
    assert live.id not in b.tables and live.id not in b.tasks
    assert await member(b).take_over() == 0  # its owner is alive: nothing to take


def test_a_table_made_by_one_process_is_listed_by_the_other(store_url: str) -> None:
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request(PEOPLE), seed=4)
        listed = {h["id"]: h for h in await b.listed_elsewhere()}
        assert list(listed) == [live.id] and listed[live.id]["names"] == [s.name for s in live.table.seats]
        assert await a.listed_elsewhere() == []  # its own are listed from memory

    with_pair(store_url, body)


def test_a_quota_of_unfinished_tables_reached_through_one_process_holds_on_the_other(store_url: str) -> None:
    """An address's unfinished tables are counted in the store: two made through A, the third asked of B is
    refused (for that address only), and once one of the two is cancelled B makes it."""
    async def body(a: Service, b: Service) -> None:
        request = table_request(PEOPLE)
        first = await a.create(request, client="203.0.113.7")
        await a.create(request, client="203.0.113.7")
        with pytest.raises(TablesRefused, match="already has 2 unfinished tables"):
            await b.create(request, client="203.0.113.7")
        assert len(b.tables) == 0
        await b.create(request, client="198.51.100.2")
        await a.cancel(first, "a test")
        await b.create(request, client="203.0.113.7")

    with_pair(store_url, body, Limits(tables_per_address=2, table_burst=10))


def test_the_creation_rate_of_an_address_is_the_same_from_every_process(store_url: str) -> None:
    """An address's bucket of creations is kept in the store: with a burst of 2, two tables made through A use it
    up, the third asked of B is refused with the wait until a token is back (for that address only)."""
    async def body(a: Service, b: Service) -> None:
        request = table_request(PEOPLE)
        for _ in range(2):
            await a.create(request, client="203.0.113.7")
        with pytest.raises(TablesRefused, match="creates tables too fast") as refused:
            await b.create(request, client="203.0.113.7")
        assert refused.value.retry_after is not None and 0 < refused.value.retry_after <= 60
        assert len(b.tables) == 0
        await b.create(request, client="198.51.100.2")

    with_pair(store_url, body, Limits(tables_per_address=10, table_burst=2, tables_per_minute=1))


def test_a_finished_or_cancelled_table_gives_its_lease_up(store_url: str) -> None:
    async def body(a: Service, b: Service) -> None:
        played = await a.create(table_request(BOTS), seed=6)
        cancelled = await a.create(table_request(PEOPLE), seed=8)
        await asyncio.wait_for(a.tasks[played.id], 30)
        await a.cancel(cancelled, "test")
        storage = a.store.storage
        assert isinstance(storage, Storage)
        assert await a.store.call(storage.owner_of, played.id) is None
        assert await a.store.call(storage.owner_of, cancelled.id) is None
        assert member(a).held == set()

    with_pair(store_url, body)


def test_a_dead_owners_table_is_taken_over_and_finishes_with_every_move_stored_once(store_url: str) -> None:
    async def body(a: Service, b: Service) -> None:
        await _taken_over(a, b, store_url)

    with_pair(store_url, body)


async def _taken_over(a: Service, b: Service, store_url: str) -> None:
    live = await a.create(table_request(BOTS), seed=5)
    for _ in range(500):
        if live.table.version >= 3:
            break
        await asyncio.sleep(0.01)
    die(a)
    assert live.table.version >= 3 and not live.table.state.is_terminal()
    played = list(live.table.record.moves)
    lease_clock(a).advance(TTL + 0.1)
    assert await member(b).take_over() == 1
    taken = b.tables[live.id]
    assert taken.table.record.moves[:len(played)] == played  # rebuilt from the store, the dead one's moves kept
    await asyncio.wait_for(b.tasks[live.id], 30)
    assert taken.table.state.is_terminal()
    assert stored_moves(store_url, live.id) == [(s, m) for s, m, _ in taken.table.record.moves]
    assert await member(a).heartbeat() == [live.id]  # the old owner hears it lost the table, and drops it
    assert live.id not in a.tables and live.closed


def test_a_table_its_owner_stopped_driving_is_not_kept_by_its_heartbeat_and_is_taken_over(store_url: str) -> None:
    """A process that stopped driving a table it still holds the lease of (self-fencing drops every table when the
    store did not answer for a while) lets that lease lapse at its next heartbeats, so that a scan claims the
    table and its bots play on, instead of renewing it forever for a table nobody drives."""
    async def body(a: Service, b: Service) -> None:
        live = await a.create(table_request(BOTS), seed=9)
        member(a).drop(live.id, "a test: as when the leases could not be renewed")
        for _ in range(4):  # its heartbeats go on over more than a lease's life
            await member(a).heartbeat()
            lease_clock(a).advance(TTL / 3)
        assert await member(b).take_over() == 1
        await asyncio.wait_for(b.tasks[live.id], 30)
        assert b.tables[live.id].table.state.is_terminal()

    with_pair(store_url, body)


def test_an_owner_whose_lease_was_taken_stops_when_its_move_number_is_refused(store_url: str) -> None:
    with_pair(store_url, _fenced)


async def _fenced(a: Service, b: Service) -> None:
    live = await a.create(table_request(PEOPLE), seed=7)
    viewers = [Viewer(0), Viewer(1)]
    for viewer in viewers:
        live.attach(viewer)
    await a.store.call(lambda: None)  # the seats the attaches wrote are stored while a's lease lasts
    lease_clock(a).advance(TTL + 0.1)  # a's heartbeat is late: b claims the table
    new = await b.get(live.id)
    assert new is not None and live.id in member(b).held
    mover = live.table.state.current_player()
    move = json.dumps({"type": "move", "version": new.table.version, "action": new.table.state.legal_actions()[0]})
    await new.submit(_seat(new, mover), move)  # b stores move 1
    await live.submit(viewers[mover], move)  # a, not knowing, tries move 1 too: refused as stored
    errors: list[Any] = [m for m in viewers[mover].messages if m.get("type") == "error"]
    assert errors and errors[-1]["code"] == "not_stored"
    assert live.id not in a.tables and live.closed and live.table.version == 0
    assert new.table.version == 1


def _seat(live: Any, seat: int) -> Viewer:
    viewer = Viewer(seat)
    live.attach(viewer)
    return viewer


def test_kill_9_of_the_owner_process_hands_its_table_to_another_and_the_match_finishes(postgres: Any) -> None:
    """Two ``motley serve --site`` processes on one PostgreSQL: the table made on A is listed by B and B relays
    its sockets to A; A killed mid-match, B takes the table over within about the lease's time and its
    bots finish it, every move stored once (the stored log replays to the end)."""
    url = postgres.create_database()
    a = ServerProcess(url, extra=["0.05"], lease_ttl=1.5).start()
    b = ServerProcess(url, extra=["0.05"], lease_ttl=1.5).start()
    try:
        made = httpx.post(f"{a.base}/api/tables", json=BOTS, timeout=10)
        assert made.status_code == 200, made.text
        table_id = made.json()["id"]
        lobby_b = {t["id"]: t for t in httpx.get(f"{b.base}/api/tables", timeout=10).json()}
        assert table_id in lobby_b and not lobby_b[table_id]["finished"]  # B lists the table A made
        assert first_message(b.ws_base, table_id)["type"] == "state"  # relayed to A
        time.sleep(0.5)
        before = {t["id"]: t for t in httpx.get(f"{a.base}/api/tables", timeout=10).json()}[table_id]
        a.kill()
        assert not before["finished"] and before["version"] > 0  # killed mid-match
        killed = time.monotonic()
        while time.monotonic() - killed < 15 and table_id not in b_drives(b.base):
            time.sleep(0.1)
        assert time.monotonic() - killed < 1.5 + 3.0, "the table was not taken over"
        listed = {t["id"]: t for t in httpx.get(f"{b.base}/api/tables", timeout=10).json()}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not listed[table_id]["finished"]:
            time.sleep(0.2)
            listed = {t["id"]: t for t in httpx.get(f"{b.base}/api/tables", timeout=10).json()}
        assert listed[table_id]["finished"]
    finally:
        a.kill()
        b.stop()
    record = stored_record(url, table_id)
    assert record is not None and record.finished
    assert Table(record).state.is_terminal()  # the log replays: no move missing, none twice
    postgres.drop_database(url)


def first_message(ws_base: str, table_id: str) -> dict[str, Any]:
    """The first message a spectator's socket to ``table_id`` gets."""
    with connect(f"{ws_base}/ws/{table_id}", open_timeout=10) as ws:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        return message


def b_drives(base: str) -> set[str]:
    """The tables the server at ``base`` drives itself (its lobby lines with seats; other processes' have none)."""
    return {t["id"] for t in httpx.get(f"{base}/api/tables", timeout=10).json() if t["seats"]}


def test_a_person_on_one_process_and_a_spectator_on_the_other_see_the_same_table(postgres: Any) -> None:
    """A table of two people made on A: seat 0 and a spectator connect to A, seat 1 and a spectator to B (relayed
    to A, the owner); the match is played to its end by moves made through either process. Every socket sees
    every version, and the relayed spectator gets exactly the messages the direct one gets, in the same order.

    (The server draws the deal, so the match may end after a few moves: the play stops at the terminal state.)"""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        made = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()
        table_id = made["id"]
        tokens = seat_tokens(made)
        with connect(f"{a.ws_base}/ws/{table_id}?token={tokens[0]}", open_timeout=10) as seat0, \
                connect(f"{b.ws_base}/ws/{table_id}?token={tokens[1]}", open_timeout=10) as seat1, \
                connect(f"{a.ws_base}/ws/{table_id}", open_timeout=10) as direct, \
                connect(f"{b.ws_base}/ws/{table_id}", open_timeout=10) as relayed:
            sockets = [Reader(seat0), Reader(seat1), Reader(direct), Reader(relayed)]
            views = play_to_the_end(sockets)
        assert all(v["terminal"] for v in views) and {v["version"] for v in views} == {views[0]["version"]}
        assert views[0]["version"] >= 1
        seen_direct, seen_relayed = (after_first_move(reader.seen) for reader in sockets[2:])
        assert seen_relayed == seen_direct and seen_direct[-1] == views[2]
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


class Reader:
    """A client socket and every message it received, in order."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seen: list[dict[str, Any]] = []

    def next_of(self, kind: str) -> dict[str, Any]:
        """The next message of type ``kind`` (TimeoutError after 10 s without one)."""
        while True:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
            self.seen.append(message)
            if message["type"] == kind:
                return message

    def next_state(self, at_least: int = 0) -> dict[str, Any]:
        """The next ``state`` message at version ``at_least`` or later (TimeoutError after 10 s without one)."""
        while True:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
            self.seen.append(message)
            if message["type"] == "state" and message["version"] >= at_least:
                return message


def play_to_the_end(sockets: list[Reader], moves: int = 200) -> list[dict[str, Any]]:
    """Play the table of ``sockets`` (seat 0's, seat 1's, then spectators') to its end, each person moving its
    first legal move, and return every socket's terminal state. Before each move every socket has the same
    newest version; a forced move the server plays itself is waited for."""
    views = [reader.next_state() for reader in sockets]
    for _ in range(moves):
        newest = max(v["version"] for v in views)  # a socket that connected later may have seen more
        views = [v if v["version"] == newest else r.next_state(newest) for v, r in zip(views, sockets, strict=True)]
        assert {v["version"] for v in views} == {newest}, "a socket skipped a version"
        assert len({v["current_player"] for v in views}) == 1
        if views[0]["terminal"]:
            return views
        mover = views[0]["current_player"]
        if views[mover]["legal"]:
            sockets[mover].ws.send(json.dumps({"type": "move", "version": newest,
                                               "action": views[mover]["legal"][0]["action"]}))
        views = [reader.next_state(newest + 1) for reader in sockets]  # the move, or the server's forced one
    raise AssertionError(f"the match did not end within {moves} moves")


def after_first_move(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` from the first one after the first move (version 1) up to the first terminal state."""
    kept = [m for m in messages if m.get("version", 0) >= 1]
    end = next(i for i, m in enumerate(kept) if m["type"] == "state" and m["terminal"])
    return kept[:end + 1]


def test_seat_requests_sent_to_the_other_process_are_answered_by_the_owner(postgres: Any) -> None:
    """A table made on A, its seat requests sent to B: B forwards them to A, so a decline and two joins through B
    change A's table (the seat links work on A's socket), and A's refusal (no seat left) comes back through B."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        made = httpx.post(f"{a.base}/api/tables", timeout=10, json={
            "game": "fools_errand", "players": 2, "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}).json()
        table_id, invited = made["id"], made["seats"][1]["link"].split("token=")[1]
        first = httpx.post(f"{b.base}/api/tables/{table_id}/join", timeout=10)
        assert first.status_code == 200 and first.json()["seat"] == 0, (first.status_code, first.text)
        declined = httpx.post(f"{b.base}/api/tables/{table_id}/decline", json={"token": invited}, timeout=10)
        assert declined.status_code == 200 and declined.json() == {"id": table_id, "seat": 1, "open": True}
        second = httpx.post(f"{b.base}/api/tables/{table_id}/join?seat=1", timeout=10)
        assert second.status_code == 200 and second.json()["seat"] == 1
        full = httpx.post(f"{b.base}/api/tables/{table_id}/join", timeout=10)
        assert full.status_code == 409 and "seat" in full.json()["error"]["message"]
        assert table_id in b_drives(a.base) and table_id not in b_drives(b.base)
        with connect(f"{a.ws_base}{second.json()['link'].replace('/table/', '/ws/')}", open_timeout=10) as seat1:
            assert Reader(seat1).next_state()["seat"] == 1
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def test_a_forwarded_client_address_is_believed_only_beside_this_processs_owner_id(tmp_path: Any) -> None:
    """The address a forwarding process names counts (its quota, its rate) only when the request carries this
    process's owner id; a client sending the headers itself with any other id is counted as itself."""
    site = service(f"sqlite:///{tmp_path / 'store.db'}")

    def asked(owner: str) -> str:
        headers = [(FORWARDED_TO.encode(), owner.encode()), (FORWARDED_CLIENT.encode(), b"203.0.113.7")]
        return client_address(Request({"type": "http", "headers": headers, "client": ("127.0.0.1", 5000)}), site)

    assert asked(member(site).site.owner) == "203.0.113.7"
    assert asked("0" * 16) == asked("") == "127.0.0.1"


def test_a_quota_reached_through_one_real_process_holds_on_the_other(postgres: Any) -> None:
    """Two processes of a site allowing 2 unfinished tables per address: two made through A, the third asked of
    B is refused with 429 and the quota's reason, and B has made nothing."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0, tables_per_address=2).start()
    b = ServerProcess(url, lease_ttl=6.0, tables_per_address=2).start()
    try:
        for _ in range(2):
            assert httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).status_code == 200
        refused = httpx.post(f"{b.base}/api/tables", json=PEOPLE, timeout=10)
        assert refused.status_code == 429 and "already has 2 unfinished tables" in refused.json()["error"]["message"]
        assert b_drives(b.base) == set() and len(b_drives(a.base)) == 2
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def test_a_rematch_asked_through_the_other_process_is_one_table_offered_to_every_seat_on_both(postgres: Any) -> None:
    """A match of two people made on A and played to its end (seat 0 on A, seat 1 through B, relayed), then seat
    1 and a spectator open the finished table on B (B's copy of it). The rematch asked through B alone reaches
    every socket on both processes (A's copy hears of it from the store); asked again through A and B at once,
    both answer the same table; one new table, driven by one process."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=6.0).start()
    b = ServerProcess(url, lease_ttl=6.0).start()
    try:
        made = httpx.post(f"{a.base}/api/tables", json=PEOPLE, timeout=10).json()
        table_id = made["id"]
        tokens = seat_tokens(made)
        with connect(f"{a.ws_base}/ws/{table_id}?token={tokens[0]}", open_timeout=10) as seat0, \
                connect(f"{b.ws_base}/ws/{table_id}?token={tokens[1]}", open_timeout=10) as seat1, \
                connect(f"{a.ws_base}/ws/{table_id}", open_timeout=10) as watcher:
            played = [Reader(seat0), Reader(seat1), Reader(watcher)]
            play_to_the_end(played)
            with connect(f"{b.ws_base}/ws/{table_id}?token={tokens[1]}", open_timeout=10) as seat1_on_b, \
                    connect(f"{b.ws_base}/ws/{table_id}", open_timeout=10) as watcher_on_b:
                later = [Reader(seat1_on_b), Reader(watcher_on_b)]
                assert all(r.next_state()["terminal"] for r in later)
                asked = httpx.post(f"{b.base}/api/tables/{table_id}/rematch", json={"token": tokens[1]}, timeout=10)
                assert asked.status_code == 200, asked.text
                new = asked.json()["id"]
                for reader, seat in zip([*played, *later], [0, 1, None, 1, None], strict=True):
                    offer = reader.next_of("rematch")
                    assert offer["table"] == new and offer["offered_by"] == 1
                    assert (offer["you"] is None) == (seat is None), "a seat's offer is its own new seat link"
                with ThreadPoolExecutor(2) as pool:
                    again = list(pool.map(lambda ask: httpx.post(
                        f"{ask[0].base}/api/tables/{table_id}/rematch", json={"token": ask[1]}, timeout=10),
                        [(a, tokens[0]), (b, tokens[1])]))
                assert [r.status_code for r in again] == [200, 200], [r.text for r in again]
                assert {r.json()["id"] for r in again} == {new}
        unfinished = [{t["id"] for t in httpx.get(f"{p.base}/api/tables", timeout=10).json() if not t["finished"]}
                      for p in (a, b)]
        assert unfinished == [{new}, {new}], "one new table, listed by both"
        assert driven_once(url, new, a, b)
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


class SiteMover(Mover):
    """The people of one table, each seat's socket on the process its link names (``links``: one ``ws://`` URL
    with the seat's token per seat): :meth:`move` as :meth:`Mover.move`, and when the server closes a socket
    (a process that stopped driving the table: 1012) every seat connects again through the same process, as
    the pages do."""

    def __init__(self, links: list[str]) -> None:
        self.links = links
        self.sockets = [connect(link, open_timeout=10).__enter__() for link in links]
        self.last = [self._latest(ws, None) for ws in self.sockets]
        self.acknowledged = []
        self.reconnections = 0
        self.broken = False

    def move(self) -> str:
        """:meth:`Mover.move`; ``"closed"`` if the server closed a socket (the move may or may not have been
        stored; it is not counted as acknowledged) or the seats could not connect again yet."""
        try:
            if self.broken:
                self.reconnect()
            return super().move()
        except (ConnectionClosed, OSError, TimeoutError):
            self.broken = True
            return "closed"

    def reconnect(self) -> None:
        """Connect every seat again and read its state; raises ConnectionClosed if the server refuses (a store
        that does not answer yet), and the next :meth:`move` tries again."""
        self.close()
        self.sockets = [connect(link, open_timeout=10).__enter__() for link in self.links]
        self.last = [self._latest(ws, None) for ws in self.sockets]
        self.broken = False
        self.reconnections += 1


def test_kill_9_of_the_owner_mid_match_of_people_loses_and_doubles_no_acknowledged_move(postgres: Any) -> None:
    """Two processes of a site on PostgreSQL: a table of four people made on A, seats 0 and 1 playing through A
    and seats 2 and 3 through B (relayed). A killed with SIGKILL mid-match: every seat connects again through B
    (as a page behind the proxy reaches a live process) and is refused until B has taken the table over, then
    the people play on through B; the store holds every move the people were told was made, once, numbered
    without a gap (compared with the clients' acknowledgements)."""
    url = postgres.create_database()
    a = ServerProcess(url, lease_ttl=1.5).start()
    b = ServerProcess(url, lease_ttl=1.5).start()
    try:
        people = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}
        created = httpx.post(f"{a.base}/api/tables", json=people, timeout=10).json()
        table_id = created["id"]
        tokens = seat_tokens(created)
        mover = SiteMover([f"{(a if seat < 2 else b).ws_base}/ws/{table_id}?token={token}"
                           for seat, token in enumerate(tokens)])
        while len(mover.acknowledged) < 5:
            assert mover.move() not in ("not_stored", "closed")
        a.kill()
        mover.links = [f"{b.ws_base}/ws/{table_id}?token={token}" for token in tokens]
        before = len(mover.acknowledged)
        deadline = time.monotonic() + 30
        while len(mover.acknowledged) < before + 8 and time.monotonic() < deadline:
            if mover.move() in ("not_stored", "closed"):
                time.sleep(0.2)
        mover.close()
        assert len(mover.acknowledged) >= before + 8, "play did not go on through B after A was killed"
        assert mover.reconnections >= 1 and table_id in b_drives(b.base)
        stored = stored_moves_numbered(url, table_id)
        assert set(mover.acknowledged) <= set(stored), "every acknowledged move is stored"
        assert [n for n, _, _ in stored] == list(range(1, len(stored) + 1))  # none twice, none missing
    finally:
        a.kill()
        b.stop()
    postgres.drop_database(url)


@pytest.mark.parametrize("ttl", [30.0, 1.5], ids=["leases-kept", "leases-lapse"])
def test_a_postgresql_restart_mid_match_across_two_processes_loses_and_doubles_no_move(
        postgres: Any, ttl: float) -> None:
    """Two processes of a site on PostgreSQL: a table of four people made on A, seats 0 and 1 playing through A
    and seats 2 and 3 through B (relayed), and a table of bots made on B. PostgreSQL stopped (``pg_ctl stop -m
    fast``) for 3 s and started: the moves made while it is down are refused as ``not_stored`` (or find their
    socket closed, once a short lease has lapsed: the process fenced itself off); then the people
    and the bots play on, and the store holds every acknowledged move once, numbered without a gap. With a
    lease longer than the outage each table stays with its owner; with a shorter one both processes stop
    driving their tables (self-fencing, the sockets closed with 1012 and connected again) and each table is
    claimed again by exactly one process, which drives it."""
    url = postgres.create_database()
    a = ServerProcess(url, extra=["0.05"], lease_ttl=ttl).start()  # bots move every 50 ms
    b = ServerProcess(url, extra=["0.05"], lease_ttl=ttl).start()
    try:
        people = {"game": "fool", "players": 4, "seats": [{"kind": "human"}] * 4}
        created = httpx.post(f"{a.base}/api/tables", json=people, timeout=10).json()
        table_id = created["id"]
        bots = httpx.post(f"{b.base}/api/tables", json=BOTS, timeout=10).json()["id"]
        tokens = seat_tokens(created)
        mover = SiteMover([f"{(a if seat < 2 else b).ws_base}/ws/{table_id}?token={token}"
                           for seat, token in enumerate(tokens)])
        while len(mover.acknowledged) < 5:
            assert mover.move() not in ("not_stored", "closed")
        owner = lease_of(url, table_id)
        postgres.stop("fast")
        try:
            stopped = time.monotonic()
            down = [outcome for outcome in (mover.move() for _ in range(8)) if outcome != "stale"]
            time.sleep(max(0.0, 3.0 - (time.monotonic() - stopped)))  # the bots try meanwhile, and are refused
        finally:
            postgres.start()
        assert down and set(down) <= {"not_stored", "closed"}, down
        # the owners keep a lease longer than the outage, so the first move is refused; a lease of 1.5 s lapses 1 s
        # after its last renewal, which may be before ``pg_ctl stop`` returns (the socket closed then)
        assert ttl <= 3.0 or down[0] == "not_stored", down
        bots_back = len(stored_moves_numbered(url, bots))
        deadline = time.monotonic() + 30
        while len(mover.acknowledged) < 12 and time.monotonic() < deadline:  # the people play on
            if mover.move() in ("not_stored", "closed"):
                time.sleep(0.2)
        while (len(stored_moves_numbered(url, bots)) < bots_back + 5 and not finished(b.base, bots)
               and time.monotonic() < deadline):
            time.sleep(0.1)  # and so do the bots
        mover.close()
        assert len(mover.acknowledged) >= 12
        assert {seat for _, seat, _ in mover.acknowledged} >= {0, 2}, "moves made through both processes"
        stored = stored_moves_numbered(url, table_id)
        assert set(mover.acknowledged) <= set(stored), "every acknowledged move is stored"
        assert [n for n, _, _ in stored] == list(range(1, len(stored) + 1))  # none twice, none missing
        bot_moves = stored_moves_numbered(url, bots)
        assert len(bot_moves) >= bots_back + 5 or finished(b.base, bots), "the bots played on after the restart"
        assert [n for n, _, _ in bot_moves] == list(range(1, len(bot_moves) + 1))
        if ttl > 3.0:
            assert lease_of(url, table_id) == owner and mover.reconnections == 0  # nothing moved
        assert driven_once(url, table_id, a, b)
        assert finished(b.base, bots) or driven_once(url, bots, a, b)
    finally:
        a.stop()
        b.stop()
    postgres.drop_database(url)


def driven_once(url: str, table_id: str, *processes: ServerProcess) -> bool:
    """Is ``table_id`` driven by exactly one of ``processes``, the one whose pid its lease in the store names?"""
    storage = Storage(url)
    try:
        lease = storage.owner_of(table_id)
    finally:
        storage.close()
    driving = [p for p in processes if table_id in b_drives(p.base)]
    return lease is not None and len(driving) == 1 and lease.holder.endswith(f"/{driving[0].pid()}")


def lease_of(url: str, table_id: str) -> str | None:
    """The owner id of the table's live lease in the store at ``url``, or None."""
    storage = Storage(url)
    try:
        lease = storage.owner_of(table_id)
    finally:
        storage.close()
    return None if lease is None else lease.owner


def stored_moves_numbered(url: str, table_id: str) -> list[tuple[int, int, str]]:
    """A table's stored moves ``(number, seat, move)`` in the order stored, read straight from the store."""
    rows = execute(url, ("SELECT number, seat, move FROM motley_moves WHERE table_id = :id ORDER BY id",
                         {"id": table_id}))[0]
    return [(int(n), int(s), str(m)) for n, s, m in rows]


def finished(base: str, table_id: str) -> bool:
    """Is ``table_id`` finished in the lobby of the server at ``base``?"""
    return any(t["id"] == table_id and t["finished"] for t in httpx.get(f"{base}/api/tables", timeout=10).json())
