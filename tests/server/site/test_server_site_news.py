"""The site mode over news (docs/scaling.md): each process's lobby of the other processes' tables kept current from
news messages, not a store read per listing (read again after a news gap); and SIGTERM draining a process, its
tables handed over at once with every acknowledged move stored once. Two services on one store and one channel
stand for two processes (SQLite and PostgreSQL); two real processes on PostgreSQL for the drain."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from motley.server.play.bodies import table_request
from motley.server.play.service import Service, Stopping
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.site.leases import CLOSE_MOVED, Site
from motley.server.site.membership import SiteMembership
from motley.server.site.news import APPLICATION, LocalNews, News, PostgresNews
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web.testing import ServerProcess, ServerThread
from tests.postgres import execute
from tests.server.site.test_server_site import member
from tests.support import Viewer, stored_record

#: A lease long enough that a takeover within :data:`AT_ONCE` cannot be its expiry.
TTL = 6.0
#: Seconds within which news must have reached another process's lobby, or a handed-over table its new owner.
AT_ONCE = 1.0
BOTS = {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4, "bot_delay": 0.02}
ERRAND_BOTS = {"game": "fools_errand", "players": 2, "seats": [{"kind": "bot", "bot": "random"}] * 2,
               "bot_delay": 0.0}
OPEN = {"game": "fools_errand", "players": 2, "seats": [{"kind": "human", "open": True}, {"kind": "human"}]}


def process(url: str, news: News | None) -> Service:
    """One process of the site over the store at ``url``, on the channel ``news`` (shared: one site)."""
    return Service(Storage(url), Settings(None, 30.0, 0.0, pace=0.0, summary_wait=0.0), Thinkers(1),
                   membership=SiteMembership(Site(ttl=TTL, scan=60.0), news))


def with_listening_pair(url: str, body: Callable[[Service, Service], Awaitable[None]]) -> None:
    """Run ``body(a, b)`` on two processes of one site over the store at ``url`` and one news channel, both
    listening, then close both."""
    async def main() -> None:
        news = LocalNews()
        a, b = process(url, news), process(url, news)
        try:
            await member(a).listen()
            await member(b).listen()
            await body(a, b)
        finally:
            await a.close()
            await b.close()

    asyncio.run(main())


@contextmanager
def statements(service: Service) -> Iterator[list[str]]:
    """The SQL statements ``service``'s store runs while the block runs."""
    run: list[str] = []
    engine = service.store.storage.engine  # type: ignore[attr-defined]

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        run.append(sql)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield run
    finally:
        event.remove(engine, "before_cursor_execute", seen)


async def within(seconds: float, ready: Callable[[], Any]) -> float:
    """Seconds until the coroutine function ``ready()`` gives a true value (fails after ``seconds``)."""
    start = time.monotonic()
    while not await ready():
        assert time.monotonic() - start < seconds, "not within the time"
        await asyncio.sleep(0.005)
    return time.monotonic() - start


def test_a_table_made_on_one_process_is_in_the_others_lobby_at_once_without_a_store_read(store_url: str) -> None:
    """B makes a table: A lists it within :data:`AT_ONCE` from news, with no statement run on A's store for any
    listing; a seat taken on B and its cancel show on A the same way; a table whose news was lost (made by a
    process without news) shows after a news gap, which makes A read the store once."""
    async def main() -> None:
        news = LocalNews()
        a, b, mute = process(store_url, news), process(store_url, news), process(store_url, None)
        try:
            await member(a).listen()
            await member(b).listen()
            await a.listed_finished()  # the finished tables, read once
            with statements(a) as run:
                made = await b.create(table_request(OPEN), seed=3)

                async def listed() -> dict[str, Any] | None:
                    return {t["id"]: t for t in await a.listed_elsewhere()}.get(made.id)

                await within(AT_ONCE, listed)
                line = await listed()
                assert line is not None and line["names"] == [s.name for s in made.table.seats]
                assert line["free_seats"] == 1 and line["seats"] == [] and line["age"] >= 0
                await b.join(made, 0)
                await within(AT_ONCE, lambda: _free_seats(a, made.id, 0))
                for _ in range(20):
                    await a.listed_elsewhere()
                    await a.listed_finished()
                assert run == [], "a listing read the store"
                await b.cancel(made, "a test")
                await within(AT_ONCE, lambda: _gone(a, made.id))
            lost = await mute.create(table_request(OPEN), seed=4)  # nobody hears of it
            assert lost.id not in {t["id"] for t in await a.listed_elsewhere()}
            news._gap()  # what the channel hands every subscription when it reconnects (PostgresNews)
            await asyncio.sleep(0.01)
            with statements(a) as run:
                assert lost.id in {t["id"] for t in await a.listed_elsewhere()}
                assert run, "after a gap the lobby is read from the store"
        finally:
            await mute.close()
            await a.close()
            await b.close()

    asyncio.run(main())


def test_the_version_of_a_moving_table_reaches_the_other_lobbies_once_a_heartbeat(store_url: str) -> None:
    """A bots' table moves on B: A's line of it keeps the version it was made at until B's heartbeat sends the
    tables that moved (``progress``), then shows B's version, with no store read on A."""
    async def body(a: Service, b: Service) -> None:
        made = await b.create(table_request(BOTS), seed=11)
        await within(AT_ONCE, lambda: _listed(a, made.id))
        while made.table.version < 3:
            await asyncio.sleep(0.01)
        with statements(a) as run:
            assert {t["id"]: t for t in await a.listed_elsewhere()}[made.id]["version"] == 0
            member(b).announce_progress()
            version = made.table.version
            await within(AT_ONCE, lambda: _version(a, made.id, version))
            assert run == []

    with_listening_pair(store_url, body)


async def _version(service: Service, table_id: str, version: int) -> bool:
    line = {t["id"]: t for t in await service.listed_elsewhere()}.get(table_id)
    return line is not None and line["version"] == version


def test_a_finished_table_is_not_listed_again_when_its_seats_are_written_after_the_end(store_url: str) -> None:
    """A bots' table ends on B and leaves A's lobby; B writes its seats after the end (what a person opening the
    finished table through their link does): no line is sent, and A never lists it as unfinished again."""
    async def body(a: Service, b: Service) -> None:
        made = await b.create(table_request(ERRAND_BOTS), seed=5)
        await within(AT_ONCE, lambda: _listed(a, made.id))
        await within(60.0, lambda: _ended(a, made))
        await made.store_seats()
        await asyncio.sleep(0.2)
        assert await _gone(a, made.id), "a finished table listed as unfinished"

    with_listening_pair(store_url, body)


async def _ended(service: Service, live: Any) -> bool:
    return bool(live.table.state.is_terminal()) and await _gone(service, live.id)


async def _free_seats(service: Service, table_id: str, free: int) -> bool:
    lines = {t["id"]: t for t in await service.listed_elsewhere()}
    return table_id in lines and lines[table_id]["free_seats"] == free


async def _gone(service: Service, table_id: str) -> bool:
    return table_id not in {t["id"] for t in await service.listed_elsewhere()}


def test_a_draining_process_hands_its_tables_over_at_once_and_refuses_later_moves(store_url: str) -> None:
    """A drains (SIGTERM): its people's table and its bots' table are taken by B from news within
    :data:`AT_ONCE` (the lease's TTL is :data:`TTL`), A's sockets are closed with 1012, a move sent to A after the
    drain is refused ``not_stored`` and never stored, A makes no new table, and B's copies hold every move A
    stored."""
    async def body(a: Service, b: Service) -> None:
        people = await a.create(table_request(OPEN | {"seats": [{"kind": "human"}] * 2}), seed=5)
        bots = await a.create(table_request(BOTS), seed=6)
        viewers = [_StoppedViewer(0), _StoppedViewer(1)]
        for viewer in viewers:
            people.attach(viewer)
        while bots.table.version < 3:
            await asyncio.sleep(0.01)
        started = time.monotonic()
        assert sorted(await member(a).drain()) == sorted([people.id, bots.id])
        assert all(v.stopped == CLOSE_MOVED for v in viewers)
        mover = people.table.state.current_player()
        move = {"type": "move", "version": people.table.version, "action": people.table.state.legal_actions()[0]}
        await people.submit(viewers[mover], json.dumps(move))
        assert viewers[mover].last("error")["code"] == "not_stored"
        with pytest.raises(Stopping, match="stopping"):
            await a.create(table_request(OPEN), seed=7)
        await within(AT_ONCE, lambda: _drives(b, people.id, bots.id))
        assert time.monotonic() - started < AT_ONCE
        assert b.tables[people.id].table.version == 0  # the refused move was not stored
        assert b.tables[bots.id].table.record.moves[:bots.table.version] == bots.table.record.moves

    with_listening_pair(store_url, body)


def test_a_draining_process_answers_a_new_table_with_try_again_elsewhere(tmp_path: Any) -> None:
    """While a process drains, a request for a table is answered 503 saying the process is stopping (not that the
    store does not answer), with ``Retry-After``, and makes nothing."""
    with ServerThread(f"sqlite:///{tmp_path / 'drain.db'}", bot_delay=0.0) as server:
        service = server.app.state.service
        service.membership.draining = True
        answer = httpx.post(f"{server.base}/api/tables", json=BOTS, timeout=10)
        assert answer.status_code == 503, answer.text
        assert "stopping" in answer.json()["error"]["message"] and answer.headers["retry-after"] == "1"
        assert service.store.storage.load_all() == []


class _StoppedViewer(Viewer):
    """A :class:`Viewer` that records the close code it was stopped with."""

    stopped: int | None = None

    def stop(self, code: int, reason: str, flush: bool) -> None:
        self.stopped = code


async def _drives(service: Service, *tables: str) -> bool:
    return all(t in service.tables and t in member(service).held for t in tables)


def test_sigterm_of_the_owner_process_hands_its_match_over_at_once_with_every_move_once(postgres: Any) -> None:
    """Two ``motley serve --site`` processes on PostgreSQL, a lease of :data:`TTL`: a bots' table made on A is in
    B's lobby at once and watched through B (relayed to A); A gets SIGTERM mid-match: the socket is closed with
    1012, B drives the table well within the lease's TTL, A exits, and the match finishes on B with the versions
    the spectator saw never going back and the store holding the match's every move once (its log replays to
    the end, as long as the last version seen)."""
    url = postgres.create_database()
    a = ServerProcess(url, extra=["0.05"], lease_ttl=TTL).start()
    b = ServerProcess(url, extra=["0.05"], lease_ttl=TTL).start()
    try:
        table_id = httpx.post(f"{a.base}/api/tables", json=BOTS, timeout=10).json()["id"]
        listed = time.monotonic()
        while table_id not in {t["id"] for t in httpx.get(f"{b.base}/api/tables", timeout=10).json()}:
            assert time.monotonic() - listed < AT_ONCE, "B did not list A's table"
        seen = [0]
        with connect(f"{b.ws_base}/ws/{table_id}", open_timeout=10) as ws:  # relayed to A
            while seen[-1] < 5:
                seen.append(_state(ws)["version"])
            assert a.proc is not None
            a.proc.send_signal(signal.SIGTERM)
            termed = time.monotonic()
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    seen.append(_state(ws)["version"])
            assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_MOVED
        state, tries = _reconnect(b.ws_base, table_id)
        assert tries == 1, "the lease was still held when the socket was closed: the page had to try again"
        assert time.monotonic() - termed < AT_ONCE, "not taken over well within the lease's TTL"
        assert a.proc.wait(timeout=15) in (0, -signal.SIGTERM)  # Uvicorn raises the signal again once shut down
        with connect(f"{b.ws_base}/ws/{table_id}", open_timeout=10) as ws:
            seen.append(state["version"])
            while not state["terminal"]:
                state = _state(ws, timeout=60)
                seen.append(state["version"])
        assert seen == sorted(seen), "a version went back: an acknowledged move was lost"
    finally:
        a.kill()
        b.stop()
    record = stored_record(url, table_id)
    assert record is not None and record.finished
    assert Table(record).state.is_terminal() and len(record.moves) == seen[-1]
    postgres.drop_database(url)


def _state(ws: Any, timeout: float = 10) -> dict[str, Any]:
    """The next ``state`` message on ``ws``."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
        if message["type"] == "state":
            return message


def _reconnect(ws_base: str, table_id: str) -> tuple[dict[str, Any], int]:
    """The first ``state`` a spectator's socket to ``table_id`` gets, reconnecting as the page does after 1012
    (closed with ``elsewhere`` while no process drives the table), and the number of connections it took."""
    deadline = time.monotonic() + 30
    tries = 0
    while time.monotonic() < deadline:
        tries += 1
        try:
            with connect(f"{ws_base}/ws/{table_id}", open_timeout=5) as ws:
                return _state(ws, timeout=5), tries
        except (ConnectionClosed, TimeoutError, OSError):
            time.sleep(0.02)
    raise AssertionError("the table was not served again")



def test_after_the_news_connection_is_cut_the_lobby_is_read_again_and_right(postgres: Any) -> None:
    """Two processes on PostgreSQL, each with its own news connections: PostgreSQL ends them (as at a restart)
    while a table is made that no news tells of (by a process without news); once A listens again (a gap) its
    lobby is read from the store and lists that table, and news flows again afterwards."""
    url = postgres.create_database()

    async def main() -> None:
        a = process(url, PostgresNews(url, check_every=0.2, retry_max=0.2))
        b = process(url, PostgresNews(url, check_every=0.2, retry_max=0.2))
        mute = process(url, None)
        try:
            await member(a).listen()
            await member(b).listen()
            missed = await mute.create(table_request(OPEN), seed=8)
            assert not await _listed(a, missed.id)
            execute(url, ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :name",
                          {"name": APPLICATION}))
            await within(10, lambda: _reconnected(a))
            await within(AT_ONCE, lambda: _listed(a, missed.id))
            later = await b.create(table_request(OPEN), seed=9)
            await within(AT_ONCE, lambda: _listed(a, later.id))
        finally:
            await mute.close()
            await a.close()
            await b.close()

    asyncio.run(main())
    postgres.drop_database(url)


async def _reconnected(service: Service) -> bool:
    news = member(service).news
    return isinstance(news, PostgresNews) and news.reconnects > 0


async def _listed(service: Service, table_id: str) -> bool:
    return table_id in {t["id"] for t in await service.listed_elsewhere()}


class _Person:
    """A person's seat played over a WebSocket as fast as the table allows (the first legal move; ``continue`` at a
    deal's summary), keeping every move the server acknowledged: ``(move number, move)``, known once a ``state``
    one version on comes back (a refusal, ``not_stored``, is an ``error`` instead, and the move is made again)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.acked: list[tuple[int, str]] = []
        self.pending: tuple[int, str] | None = None
        self.state: dict[str, Any] = {}
        self.summaries: set[int] = set()

    def turn(self, ws: Any) -> bool:
        """Read one message and answer it; True once the match is over.

        Raises:
            ConnectionClosed: the socket closed (a pending move is then unknown until the store says).
        """
        message = json.loads(ws.recv(timeout=30))
        if message["type"] == "error":
            self.pending = None
            self._move(ws)
        elif message["type"] == "state":
            if self.pending is not None and message["version"] > self.pending[0]:
                self.acked.append((self.pending[0] + 1, self.pending[1]))
                self.pending = None
            self.state = message
            self._move(ws)
        return bool(self.state.get("terminal"))

    def _move(self, ws: Any) -> None:
        state = self.state
        if not state or state["terminal"] or self.pending is not None:
            return
        summary = state.get("summary")
        if summary is not None and summary["deal"] not in self.summaries:
            self.summaries.add(summary["deal"])
            ws.send(json.dumps({"type": "continue"}))
        elif state["current_player"] == self.seat and state["legal"]:
            choice = state["legal"][0]
            self.pending = (state["version"], choice["move"])
            ws.send(json.dumps({"type": "move", "version": state["version"], "action": choice["action"]}))


def test_sigterm_mid_match_loses_no_move_a_person_had_acknowledged_and_makes_none_twice(postgres: Any) -> None:
    """A person plays seat 0 of a table of bots on A; A gets SIGTERM just after one of the person's moves is sent:
    the socket closes with 1012, the person reconnects to B with the seat's link and plays on to the end. Every
    move the person saw acknowledged is in the store once, as its number, and the stored log replays to the end."""
    url = postgres.create_database()
    a = ServerProcess(url, extra=["0.02"], lease_ttl=TTL).start()
    b = ServerProcess(url, extra=["0.02"], lease_ttl=TTL).start()
    person = _Person(0)
    try:
        made = httpx.post(f"{a.base}/api/tables", timeout=10, json=BOTS | {
            "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3}).json()
        table_id, link = made["id"], made["seats"][0]["link"].replace("/table/", "/ws/")
        with connect(f"{a.ws_base}{link}", open_timeout=10) as ws, pytest.raises(ConnectionClosed) as closed:
            while True:
                assert not person.turn(ws), "the match ended before the signal"
                if len(person.acked) >= 3 and person.pending is not None:  # a move in flight
                    assert a.proc is not None
                    a.proc.send_signal(signal.SIGTERM)
                    while True:
                        person.turn(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_MOVED
        person.pending = None  # its fate is the store's: made again if it was refused
        with connect(f"{b.ws_base}{link}", open_timeout=10) as ws:
            while not person.turn(ws):
                pass
    finally:
        a.kill()
        b.stop()
    record = stored_record(url, table_id)
    assert record is not None and record.finished and Table(record).state.is_terminal()
    assert len(person.acked) > 3 and len(record.moves) == person.state["version"]
    for number, move in person.acked:
        assert record.moves[number - 1][:2] == (0, move), f"acknowledged move {number} is not in the store as made"
    postgres.drop_database(url)
