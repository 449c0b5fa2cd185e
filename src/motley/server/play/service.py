"""The set of tables of a server: the running ones in memory with their driver tasks, every one in the store.

:class:`Service` creates, loads (rebuilding from the event log), rematches, joins, cancels, tidies and evicts
tables; what happens at one table is :class:`~motley.server.play.live.LiveTable`'s, and the storage behind the
store is handed in (:class:`~motley.server.store.writer.TableStorage`; :class:`~.storage.Storage` is the
SQLAlchemy one).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from sqlalchemy import exc as sa_exc

from motley.core import MotleyError
from motley.server.play import replays
from motley.server.play.analyses import Analyses
from motley.server.play.bodies import RematchSeat, TableRequest
from motley.server.play.flights import Flights
from motley.server.play.limits import IDLE_CLOSE, Limits, TableGate, TablesRefused
from motley.server.play.live import LiveTable, Offer
from motley.server.play.requests import new_record, rematch_plan, rematch_record
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.site.leases import CLOSE_MOVED, Leases, Site
from motley.server.site.lobby import LEASES, TOPIC, Lobby, live_line
from motley.server.site.news import News, NewsUnavailable, Subscription
from motley.server.store.records import SeatRefused, Settings, TableRecord
from motley.server.store.refusals import Refusal
from motley.server.store.writer import (
    Creator,
    MoveRow,
    QuotaReached,
    RateReached,
    Store,
    StoreError,
    TableStorage,
    UnreadableTable,
)

log = logging.getLogger("motley.server")

#: Seconds a finished table stays in memory after its last viewer leaves.
FINISHED_TTL = 600.0
#: Finished tables kept in memory once they left :attr:`Service.tables` or were loaded from the store (the
#: least recently used go first; one that a socket watches is never dropped, so every socket shares one copy).
FINISHED_KEPT = 8
#: The ``result`` stored for a table cancelled for being idle (:meth:`Service.cancel`).
CANCELLED = "cancelled"
#: News messages waiting to be published (the site mode); past that, new ones are dropped (the other processes
#: read their lobby from the store again every :data:`~motley.server.site.lobby.REFRESH` seconds).
OUTBOX = 1000
#: Seconds a drain (:meth:`Service.drain`) waits to tell the others of the tables it hands over.
DRAIN_NEWS_WAIT = 2.0


#: What a draining process answers a request for a new table (a rematch included): another process makes it.
STOPPING = "this server process is stopping; try again: another one makes the table"


class Stopping(StoreError):
    """A table is not made because this process is draining (:meth:`Service.drain`) or could not claim the new
    table's lease; answered 503 with this message and ``Retry-After``, so the page or script asks again (and is
    served by another process of the site)."""

    code = "stopping"
    words = STOPPING
    private = False
    retry_after = 1


class OwnedElsewhere(Refusal, MotleyError):
    """The unfinished table is driven by another process of the site (it holds the table's lease; HTTP 503, the
    message naming the table's id is for the log)."""

    status = 503
    code = "elsewhere"
    words = "the table is served by another process of the site; try again"
    private = True


class _FencedLog:
    """The :class:`Store` as one table's log in the site mode: a move the store refuses because its number is
    stored already (``ux_motley_moves_table_number``: another process drove the table meanwhile) calls
    ``conflict`` before the refusal goes on to the mover; ``changed(event)`` is called once the seats
    (``"seats"``) or the result (``"finished"``) are written, so that the lobby of every process hears of it.
    Once :attr:`refusing` is set (a reason: the process hands the table over), every move is refused unstored."""

    def __init__(self, store: Store, conflict: Callable[[], None],
                 changed: Callable[[str], None] = lambda _event: None) -> None:
        self.store = store
        self.conflict = conflict
        self.changed = changed
        self.refusing: str | None = None

    async def add_move(self, row: MoveRow) -> None:
        """:meth:`Store.add_move`; a duplicate move number calls ``conflict``.

        Raises:
            StoreError: if the move was not stored (or :attr:`refusing` is set: it was not tried).
        """
        if self.refusing is not None:
            raise StoreError(self.refusing)
        try:
            await self.store.add_move(row)
        except StoreError as exc:
            if isinstance(exc.__cause__, sa_exc.IntegrityError):
                self.conflict()
            raise

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        """:meth:`Store.finish`."""
        await self.store.finish(table_id, result)
        self.changed("finished")

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """:meth:`Store.store_seats`."""
        await self.store.store_seats(table_id, seats)
        self.changed("seats")

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """:meth:`Store.save_seats`."""
        self.store.save_seats(table_id, seats)
        self.changed("seats")

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        """:meth:`Store.save_settings`."""
        self.store.save_settings(table_id, settings)


class Service:
    """Every table of the server: the running ones in memory (with their driver tasks), all in the store.

    ``storage``: the event-log storage (closed by :meth:`close`); ``defaults``: settings of new tables;
    ``thinkers``: where bots that search think (default: :class:`Thinkers` with one worker process per core
    but one). ``idle_close``: seconds an unfinished table may sit without a move and without a viewer before
    :meth:`tidy` cancels it (None: never); ``clock`` / ``wall``: the clocks of the tables' timers, of the
    table-creation rate (:attr:`gate`) and of :meth:`listed_finished` (see :class:`LiveTable`; tests inject their
    own). ``limits``: the tables a client address may create (``tables_per_address``, ``tables_per_minute``,
    ``table_burst``; None: :class:`Limits`' defaults), kept by :attr:`gate` for the requests that name their
    client (:meth:`create`, :meth:`rematch`). ``site``: this process's part in a site of several processes over
    one store (:class:`Site`; the storage must have leases, :class:`Leases`): an unfinished table is driven only
    while this process holds its lease (claimed on create and load, renewed by :meth:`site_loop`, which also
    takes over the tables whose owner died); None (the default): every table is driven here. ``news``: the site's
    news channel (:func:`~motley.server.site.news.open_news`; the site mode, started by :meth:`listen`): the lobby's
    lines of other processes' tables are kept from it (:class:`~motley.server.site.lobby.Lobby`) and handed-over leases
    heard at once; None: the lobby reads the store at each listing, orphans are found by the scan alone.

    A table has one copy in memory however many requests and sockets ask for it: the running ones (and the
    finished ones for :data:`FINISHED_TTL` after their match) in :attr:`tables`, the finished ones loaded
    again in :attr:`kept` (at most :data:`FINISHED_KEPT` not watched), and requests that arrive while a table
    is being loaded wait for that one load (:meth:`get`).
    """

    def __init__(self, storage: TableStorage, defaults: Settings, thinkers: Thinkers | None = None, *,
                 idle_close: float | None = IDLE_CLOSE, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, limits: Limits | None = None,
                 site: Site | None = None, news: News | None = None) -> None:
        self.store = Store(storage)
        self.defaults = defaults
        self.thinkers = thinkers or Thinkers()
        self.idle_close = idle_close
        self.clock = clock
        self.wall = wall
        self.gate = TableGate(limits or Limits(), clock)
        self.tables: dict[str, LiveTable] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        #: Finished tables out of :attr:`tables`, least recently used first (:meth:`keep`).
        self.kept: OrderedDict[str, LiveTable] = OrderedDict()
        #: The loads from the store in progress, by table id (:meth:`get`: one per table at a time).
        self.loading: Flights[str, LiveTable | None] = Flights()
        #: The analyses of finished matches, searched by :attr:`thinkers` (:class:`Analyses`).
        self.analyses = Analyses(self.store, self.thinkers)
        self.site = site
        if site is not None and not isinstance(storage, Leases):
            raise MotleyError("a site of several processes needs a store with leases (Storage)")
        self.leases: Leases | None = storage if site is not None and isinstance(storage, Leases) else None
        #: The tables whose lease this process holds (the site mode), as far as it knows.
        self.held: set[str] = set()
        #: :func:`time.monotonic` of the last heartbeat the store accepted (the site mode: self-fencing).
        self.renewed = time.monotonic()
        #: The heartbeat's own thread (the site mode): a renewal never waits behind the store thread's queue of
        #: moves and loads, which under load can be longer than the lease (then every table would be lost).
        self.beats = ThreadPoolExecutor(max_workers=1, thread_name_prefix="motley-leases") if site else None
        self.news = news if site is not None else None
        #: The lobby lines of the site's unfinished tables, kept from :attr:`news` (the site mode with news).
        self.lobby = Lobby(time.monotonic)
        #: Set by :meth:`drain`: no table is made, claimed or taken over here any more.
        self.draining = False
        self._outbox: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue(maxsize=OUTBOX)
        self._listening: list[asyncio.Task[None]] = []
        #: The version last published (``progress``) of each table driven here.
        self._published: dict[str, int] = {}

    async def resume(self) -> int:
        """Rebuild every unfinished table from its event log and start its driver; returns how many.

        A table whose stored row cannot be read, or whose log does not replay (a changed rule, a damaged
        row), is logged with its id and the reason and left stored, unserved; the others resume.

        In the site mode, only the tables no process owns are taken (:meth:`take_over`).

        Raises:
            StoreError: if the store cannot be read at all.
        """
        if self.site is not None:
            return await self.take_over()
        count = 0
        unreadable: list[tuple[str, str]] = []
        records = await self.store.call(self.store.storage.load_all, finished=False, unreadable=unreadable)
        for table_id, reason in unreadable:
            log.error("table %s not resumed: %s", table_id, reason)
        for record in records:
            if record.id in self.tables:  # a request loaded it meanwhile
                continue
            try:
                live = await self._rebuild(record)
            except Exception as exc:  # stays stored, unserved; one bad table never stops the server
                log.error("table %s not resumed: %s", record.id, exc)
                continue
            if record.id not in self.tables:
                self.tables[live.id] = live
                self.start(live)
                count += 1
        return count

    async def _rebuild(self, record: TableRecord) -> LiveTable:
        """A live table from its stored record, replayed in a worker thread (a long match takes a while, and
        the server answers meanwhile); not started.

        Raises:
            MotleyError: if the record does not replay (see :class:`Table`).
        """
        table = await asyncio.to_thread(Table, record)
        return self._live(table)

    def _live(self, table: Table) -> LiveTable:
        """A live table over ``table``, writing to the store (in the site mode through :class:`_FencedLog`)."""
        log_: Any = self.store
        if self.site is not None:
            table_id = table.id
            log_ = _FencedLog(self.store, lambda: self._conflict(table_id),
                              lambda event: self._announce_table(table_id, event))
        return LiveTable(table, log_, self.clock, self.wall, thinkers=self.thinkers)

    def start(self, live: LiveTable) -> None:
        """Start the table's driver task; once the match is over the table leaves memory (it stays stored)."""
        if not live.table.state.is_terminal():
            loop = asyncio.get_running_loop()
            task = loop.create_task(live.run())
            self.tasks[live.id] = task
            if self.site is not None:
                self.held.add(live.id)
            task.add_done_callback(lambda _t: self._ended(live))
            task.add_done_callback(lambda _t: loop.call_later(FINISHED_TTL, self.evict, live.id))

    def _ended(self, live: LiveTable) -> None:
        """The driver of ``live`` stopped: a match over gives its lease up (the site mode)."""
        if live.table.state.is_terminal():
            self._release(live.id)

    def _release(self, table_id: str) -> None:
        """Give up this process's lease of ``table_id`` (the site mode; nothing if it holds none), written
        without waiting: the table is over here."""
        if self.site is not None and self.leases is not None and table_id in self.held:
            self.held.discard(table_id)
            self.store.later(self.leases.release, table_id, self.site.owner)

    def evict(self, table_id: str) -> None:
        """Drop a finished table nobody watches from memory (:meth:`get` loads it again from the store)."""
        live = self.tables.get(table_id)
        if live is None or not live.table.state.is_terminal():
            return
        if live.viewers():
            asyncio.get_running_loop().call_later(FINISHED_TTL, self.evict, table_id)
            return
        del self.tables[table_id]
        self.tasks.pop(table_id, None)
        self.keep(live)

    def keep(self, live: LiveTable) -> None:
        """Keep the finished table ``live`` in :attr:`kept` (as the most recently used), then drop the least
        recently used ones nobody watches while more than :data:`FINISHED_KEPT` are kept (watched ones stay:
        a new socket must find the copy the others watch)."""
        self.kept[live.id] = live
        self.kept.move_to_end(live.id)
        for table_id, kept in list(self.kept.items()):
            if len(self.kept) <= FINISHED_KEPT:
                break
            if not kept.viewers():
                del self.kept[table_id]

    async def create(self, request: TableRequest, seed: int | None = None, *, client: str | None = None
                     ) -> LiveTable:
        """A new table from a lobby request (see :func:`~motley.server.play.requests.new_record`), stored and started.

        ``seed``: for tests and tools calling this in Python only (the web never passes one): the match's
        seed; None (always, from the web) draws it with :class:`random.SystemRandom`. ``client``: the address
        of the client asking, whose tables :attr:`gate` limits (None: no limit, for Python callers).

        Raises:
            MotleyError: naming the bad field of ``request``. TablesRefused: if ``client`` may not create a table
                now (:meth:`TableGate.admit`). StoreError: if the store refused the table. Nothing is made then.
        """
        record = new_record(request, self.defaults, seed)
        live = self._live(Table(record))
        self._refuse_if_draining()
        self._admit(client)
        made = None
        try:
            # the lease first: a stored table without a live lease is an orphan to the other processes' scans
            if not await self._claim(live.id):
                raise Stopping(STOPPING)
            with _quota_refusal():
                await self.store.call(self.store.storage.create_table, record, self._creator(client))
            self.tables[live.id] = live
            made = live.id
        finally:
            self._settle(client, made)
            if made is None:
                await self._unclaim(live.id)
        self.start(live)
        self._announce_table(live.id, "made")
        return live

    def _refuse_if_draining(self) -> None:
        """Refuse to make a table while the process stops (:meth:`drain`).

        Raises:
            Stopping: while draining (answered 503: try again, another process makes it).
        """
        if self.draining:
            raise Stopping(STOPPING)

    def _admit(self, client: str | None) -> None:
        """Admit ``client``'s request for a table (:meth:`TableGate.admit`); None is always admitted.

        Raises:
            TablesRefused: if it may not create one now.
        """
        if client is not None:
            self.gate.admit(client, self._unfinished)

    def _creator(self, client: str | None) -> Creator | None:
        """The site mode: ``client`` as the creator of a table, stored with it and held to its quota of unfinished
        tables and its creation rate kept in the store, so that both are the same from every process
        (docs/scaling.md); None
        without a site (the quota is :attr:`gate`'s, in memory) or a client."""
        if self.site is None or client is None:
            return None
        limits = self.gate.limits
        return Creator(client, limits.tables_per_address, limits.tables_per_minute, limits.table_burst)

    def _settle(self, client: str | None, table_id: str | None) -> None:
        """``client``'s admitted request is over: it made ``table_id`` (None: none)."""
        if client is not None:
            self.gate.settle(client, table_id)

    def _unfinished(self, table_id: str) -> bool:
        """Is the table running (in memory, its match not over, not cancelled)?"""
        live = self.tables.get(table_id)
        return live is not None and not live.table.state.is_terminal()

    async def rematch(self, live: LiveTable, token: str, seats: list[RematchSeat] | None = None, *,
                      client: str | None = None) -> LiveTable:
        """The rematch of a finished table, made once (asked again, by anyone, after a restart or at another copy
        of the table: the same one): a new table with the same game options and settings, and the seats asked
        for (``seats``: who sits where and the bots, :func:`~motley.server.play.requests.rematch_plan`; None: everyone
        where they sat, the same bots), stored with the offer on the old table's row
        (``TableStorage.create_rematch``, which makes one whatever the requests at once) and started (its bots
        wait for the people); every viewer of the old table is sent the offer as they read it
        (:meth:`LiveTable.announce_rematch`): nobody is moved to it. ``client``: the address asking, whose
        tables :attr:`gate` limits as for :meth:`create` (not asked when the rematch exists already).

        Raises:
            SeatRefused: for a ``token`` that is no seat's of the table, a match that is not over, ``seats``
                that differ from the offer already made, or a rematch made already that cannot be served now;
                nothing changes. MotleyError: naming what is wrong with ``seats``. TablesRefused: if ``client``
                may not create a table now. StoreError: if the store refused the new table.
        """
        asker = live.table.seat_of_token(token)
        if asker is None:
            raise SeatRefused("only a person at the table may ask for a rematch (this link's token is not valid)")
        if not live.table.state.is_terminal():
            raise SeatRefused("the match is not over")
        async with live.lock:
            offer = live.rematch
            if offer is None:  # made before a restart, or at another copy of this finished table
                stored = await self.store.call(self.store.storage.rematch, live.id)
                offer = None if stored is None else await self._restore_offer(live, stored)
            if offer is not None:
                return await self._offered(live, offer, seats)
            plan = rematch_plan(live.table, seats)
            record = rematch_record(live.table, self.defaults, plan)
            new = self._live(Table(record))
            self._refuse_if_draining()
            self._admit(client)
            made = None
            try:
                if not await self._claim(new.id):  # before the table is stored, as in :meth:`create`
                    raise Stopping(STOPPING)
                with _quota_refusal():
                    stored = await self.store.call(self.store.storage.create_rematch, live.id, record,
                                                   {"offered_by": asker, "plan": plan}, self._creator(client))
                if stored["table"] == new.id:
                    self.tables[new.id] = new
                    made = new.id
            finally:
                self._settle(client, made)
                if made is None:
                    await self._unclaim(new.id)
            if made is None:  # another copy of this finished table made it meanwhile
                return await self._offered(live, await self._restore_offer(live, stored), seats)
            self.start(new)
            self._announce_table(new.id, "rematch")
            new.rematch_of = live
            live.announce_rematch(Offer(new.table, asker, plan, _new_seats(plan, len(live.table.seats))))
            return new

    async def _stored_offer(self, live: LiveTable) -> None:
        """The rematch offered at the finished table ``live`` before it was loaded (before a restart, or at another
        server over the store), restored so that its viewers see it as they open the table; a rematch that cannot
        be read or served now is left to be found when someone asks for one (:meth:`rematch`)."""
        try:
            stored = await self.store.call(self.store.storage.rematch, live.id)
            if stored is not None:
                await self._restore_offer(live, stored)
        except (StoreError, SeatRefused) as exc:
            log.warning("the rematch offered at table %s is not shown: %s", live.id, exc)

    async def _offered(self, live: LiveTable, offer: Offer, seats: list[RematchSeat] | None) -> LiveTable:
        """The rematch ``offer`` made at ``live``, asked for again (with ``seats``, or None).

        Raises:
            SeatRefused: for ``seats`` other than the offer's, or a rematch table that cannot be served.
            StoreError: if the store cannot be read.
        """
        if seats is not None and rematch_plan(live.table, seats) != offer.plan:
            raise SeatRefused("a rematch with other seats has been offered already; accept or decline it")
        known = await self._rematch_table(offer.table.id)
        if known is None:
            raise SeatRefused("the rematch of this table was made, but it cannot be served now")
        return known

    async def _restore_offer(self, live: LiveTable, stored: dict[str, Any]) -> Offer:
        """The offer stored for ``live`` (``{"table", "offered_by", "plan"}``: ``TableStorage.rematch``) with
        its table, announced to ``live``'s viewers; its seats declined since are those whose invitation became
        an open seat.

        Raises:
            SeatRefused: if the rematch table cannot be served. StoreError: if the store cannot be read.
        """
        new = await self._rematch_table(str(stored["table"]))
        if new is None:
            raise SeatRefused("the rematch of this table was made, but it cannot be served now")
        plan: list[dict[str, Any]] = stored["plan"]
        old = live.table.seats
        declined = [i for i, entry in enumerate(plan) if entry["kind"] == "human" and not old[entry["from"]].open
                    and new.table.seats[i].open]
        offer = Offer(new.table, int(stored["offered_by"]), plan, _new_seats(plan, len(old)), declined)
        if new.rematch_of is None:
            new.rematch_of = live
        live.announce_rematch(offer)
        return offer

    async def _rematch_table(self, table_id: str) -> LiveTable | None:
        """The rematch table ``table_id`` (:meth:`get`); in the site mode, one another process drives is read
        from the store as a copy that is never driven here (its seats make the offer's message; its seat
        requests are forwarded to the owner). None if there is none.

        Raises:
            StoreError: if the store cannot be read.
        """
        try:
            return await self.get(table_id)
        except OwnedElsewhere:
            record = await self.store.call(self.store.storage.load, table_id)
            return None if record is None else await self._rebuild(record)

    async def offers(self) -> int:
        """The site mode: the finished tables in memory that somebody watches and that have no rematch yet read
        their rematch from the store, so that an offer made through another process (at its copy of the table)
        reaches the viewers here too (:meth:`_stored_offer`); returns how many got one. One store read per such
        table, at every scan (:meth:`site_loop`)."""
        watched = [live for live in [*self.tables.values(), *self.kept.values()]
                   if live.rematch is None and live.viewers() and live.table.state.is_terminal()]
        for live in watched:
            await self._stored_offer(live)
        return sum(live.rematch is not None for live in watched)

    async def decline(self, live: LiveTable, token: str) -> int:
        """The person whose seat link at ``live`` has ``token`` declines the seat (a rematch they were offered):
        it becomes an open seat, stored, and every viewer of both tables is told (:meth:`LiveTable.decline`);
        returns the seat.

        Raises:
            SeatRefused: for a token that is no seat's of this table, or a seat that cannot be declined (its
                person has joined, the match is over); nothing changes. The seats are stored without waiting.
        """
        seat = live.table.seat_of_token(token)
        if seat is None:
            raise SeatRefused("this link's token is not a seat of this table")
        live.decline(seat)
        self.store.save_seats(live.id, [s.stored() for s in live.table.seats])
        return seat

    async def get(self, table_id: str) -> LiveTable | None:
        """A table by id: in memory, or loaded from the store (an unfinished one is started, a finished one kept
        in :attr:`kept`); None if there is none, its stored row cannot be read or its log no longer replays.
        Requests for a table being loaded wait for that load (single flight): every caller gets the same copy.

        Raises:
            StoreError: if the store cannot be read. OwnedElsewhere: (the site mode) for an unfinished table
                another process drives.
        """
        live = self.tables.get(table_id)
        if live is None and table_id in self.kept:
            live = self.kept[table_id]
            self.kept.move_to_end(table_id)
        if live is not None or len(table_id) > 32:
            return live
        return await self.loading.join(table_id, lambda: self._load(table_id))

    async def _load(self, table_id: str) -> LiveTable | None:
        """The table ``table_id`` read from the store and rebuilt (see :meth:`get`); it is put in
        :attr:`tables` (unfinished: started) or :attr:`kept` (finished, or cancelled: closed).

        Raises:
            StoreError: if the store cannot be read. OwnedElsewhere: (the site mode) if another process holds the
                lease of the unfinished table.
        """
        try:
            record = await self.store.call(self.store.storage.load, table_id)
        except StoreError as exc:
            if not isinstance(exc.__cause__, UnreadableTable):
                raise
            log.error("table %s cannot be served: %s", table_id, exc.__cause__)
            return None
        if record is None:
            return None
        live = self.tables.get(table_id)  # resumed meanwhile
        if live is not None:
            return live
        try:
            rebuilt = await self._rebuild(record)
        except Exception as exc:  # a log that does not replay, a damaged row: no table to serve
            log.error("table %s cannot be served: %s", table_id, exc)
            return None
        live = self.tables.get(table_id)  # resumed meanwhile
        if live is not None:
            return live
        if record.finished and not rebuilt.table.state.is_terminal():  # cancelled (:meth:`cancel`): never driven
            stored = record.result or {}
            rebuilt.close(str(stored.get("reason") or "cancelled"))
            self.keep(rebuilt)
        elif rebuilt.table.state.is_terminal():
            await self._stored_offer(rebuilt)
            self.keep(rebuilt)
        else:
            if not await self._claim(table_id):
                raise OwnedElsewhere(f"table {table_id} is driven by another process of the site")
            live = self.tables.get(table_id)  # taken over meanwhile
            if live is not None:
                return live
            self.tables[rebuilt.id] = rebuilt
            self.start(rebuilt)
            self._announce_table(rebuilt.id, "taken")
        return rebuilt

    async def join(self, live: LiveTable, seat: int | None = None) -> int:
        """Claim an open seat of ``live`` for someone in the lobby (``seat``, or None: the first open one) and
        store the seats before answering (a refused write is tried again, :meth:`LiveTable.store_seats`); returns
        the seat, whose fresh token (:meth:`Table.claim`) is now its only one.

        Raises:
            SeatRefused: saying why (the match is over, the seat is by invitation, already claimed, ...);
                nothing changes. StoreError: if the store refused every try (the seat stays open, with its
                invite token).
        """
        table = live.table
        before = [replace(s) for s in table.seats]
        claimed = table.claim(seat)
        try:
            await live.store_seats()
        except StoreError:
            table.seats[claimed] = before[claimed]
            # a first connection stored meanwhile wrote the claim too: write the seats as they are again
            self.store.save_seats(live.id, [s.stored() for s in table.seats])
            raise
        return claimed

    async def finished_headers(self) -> list[dict[str, Any]]:
        """The newest finished tables in the store (``TableStorage.finished_headers``).

        Raises:
            StoreError: if the store cannot be read.
        """
        return await self.store.call(self.store.storage.finished_headers)

    async def listed_finished(self) -> list[dict[str, Any]]:
        """The finished tables the lobby lists: :meth:`finished_headers` less the cancelled ones and, with
        :attr:`idle_close`, those whose last move is older than that (their replays stay).

        Raises:
            StoreError: if the store cannot be read.
        """
        if self.news is None:
            headers = await self.finished_headers()
        else:  # the site mode with news: read again only once a table ended (a ``finished`` message) or news was lost
            cached, ends = self.lobby.finished, self.lobby.ends
            headers = cached if cached is not None and not self.lobby.stale else await self.finished_headers()
            if self.lobby.ends == ends:  # no table ended while it was read
                self.lobby.finished = headers
        oldest = None if self.idle_close is None else self.wall() - self.idle_close
        return [h for h in headers if not h.get("cancelled")
                and (oldest is None or (h.get("last_move") or h["created"]) >= oldest)]

    async def listed_elsewhere(self) -> list[dict[str, Any]]:
        """The site mode: the lobby lines (:func:`~motley.server.site.lobby.live_line`'s keys and ``age``) of the
        unfinished tables that other processes drive; empty without a site. With :attr:`news` they are kept from
        news (:class:`~motley.server.site.lobby.Lobby`: no store read, but at start, after a news gap and every
        :data:`~.lobby.REFRESH` seconds); without, read from the store (:meth:`Storage.running_headers`)
        each time.

        Raises:
            StoreError: if the store cannot be read.
        """
        headers = getattr(self.store.storage, "running_headers", None)
        if self.site is None or headers is None:
            return []
        if self.news is None:
            fresh = Lobby(self.clock)
            fresh.loaded(await self.store.call(headers))
            return fresh.listed(self.wall(), self.tables)
        if self.lobby.stale:
            await self._reload_lobby()
        return self.lobby.listed(self.wall(), self.tables)

    async def _reload_lobby(self) -> None:
        """Read the lobby's lines from the store again (:meth:`Lobby.loading`, :meth:`Lobby.loaded`).

        Raises:
            StoreError: if the store cannot be read (the lines stay stale).
        """
        headers = getattr(self.store.storage, "running_headers", None)
        if headers is None:
            return
        self.lobby.loading()
        try:
            rows: list[dict[str, Any]] = await self.store.call(headers)
        except BaseException:
            self.lobby.failed()
            raise
        self.lobby.loaded(rows)

    async def cancel(self, live: LiveTable, reason: str) -> None:
        """End an unfinished table without a result: its driver stops, it leaves :attr:`tables`, and it is
        stored as finished with ``{"cancelled": True, "reason": reason}`` (so it is never resumed; its moves
        stay). It waits for a move in flight (the table's lock), so no move is stored after it; from then on the
        table refuses moves with the reason (error ``closed``).

        Raises:
            StoreError: if the store refused the change; the table then stays as it was (running).
        """
        async with live.lock:  # no move is in flight: the cancel is the table's last write
            await self.store.finish(live.id, {CANCELLED: True, "reason": reason})
            live.close(reason)
        self.tables.pop(live.id, None)
        task = self.tasks.pop(live.id, None)
        if task is not None:
            task.cancel()
        self._release(live.id)
        self._published.pop(live.id, None)
        self._announce({"event": "cancelled", "table": live.id})
        log.info("table %s cancelled: %s", live.id, reason)

    async def tidy(self) -> list[str]:
        """Cancel every unfinished table idle (:meth:`LiveTable.idle_for`) for :attr:`idle_close` seconds or
        more; returns their ids. A table the store refuses to cancel is logged and tried again next time."""
        if self.idle_close is None:
            return []
        cancelled = []
        for live in list(self.tables.values()):
            if live.table.state.is_terminal() or live.closed or live.idle_for() < self.idle_close:
                continue
            never = [s.name for s in live.table.seats if s.kind == "human" and not s.ever_connected]
            reason = (f"nobody moved or watched for {self.idle_close:.0f} s"
                      + (f"; never connected: {', '.join(never)}" if never else ""))
            try:
                await self.cancel(live, reason)
            except StoreError as exc:
                log.error("table %s not cancelled: %s", live.id, exc)
                continue
            cancelled.append(live.id)
        return cancelled

    async def tidy_loop(self) -> None:
        """:meth:`tidy` every ``idle_close / 10`` seconds (at least 1, at most 60) until cancelled; does
        nothing without :attr:`idle_close`."""
        if self.idle_close is None:
            return
        interval = min(60.0, max(1.0, self.idle_close / 10))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.tidy()
            except Exception:  # the loop never stops for one bad table
                log.exception("tidying the tables failed")

    # ---- the site mode: leases (docs/scaling.md) -------------------------------------------------------------
    async def _claim(self, table_id: str) -> bool:
        """Claim the lease of ``table_id`` for this process; True without a site.

        Raises:
            StoreError: if the store refused the claim.
        """
        if self.site is None or self.leases is None:
            return True
        if self.draining:
            return False
        return await self.store.call(self.leases.claim, table_id, self.site.owner, self.site.ttl)

    async def _unclaim(self, table_id: str) -> None:
        """Give up the lease claimed for a table that was not made after all (nothing without a site; a store
        that does not answer leaves it to expire)."""
        if self.site is not None and self.leases is not None:
            with contextlib.suppress(StoreError):
                await self.store.call(self.leases.release, table_id, self.site.owner)

    async def heartbeat(self) -> list[str]:
        """Renew this process's leases; drop (:meth:`drop`) the tables whose lease another process took, and
        every table if no renewal succeeded for ``ttl`` minus a beat (self-fencing: the store may be cut off
        while others take them over). Returns the tables dropped."""
        if self.site is None or self.leases is None:
            return []
        try:
            lost = await self._renew(set(self.held))
        except StoreError as exc:
            if time.monotonic() - self.renewed < self.site.ttl - self.site.every:
                return []
            log.error("leases not renewed for %.1f s (%s): no table is driven here until they are",
                      time.monotonic() - self.renewed, exc)
            lost = set(self.held)
        else:
            self.renewed = time.monotonic()
        for table_id in lost:
            self.drop(table_id, "another process of the site drives this table now")
        return sorted(lost)

    async def _renew(self, held: set[str]) -> set[str]:
        """``Leases.renew`` of this process's leases on the heartbeat's own thread; returns those of ``held`` lost.

        Raises:
            StoreError: whatever the store raised, wrapped (the original is its ``__cause__``).
        """
        assert self.site is not None and self.leases is not None and self.beats is not None
        renew = functools.partial(self.leases.renew, self.site.owner, self.site.ttl, held)
        try:
            return await asyncio.get_running_loop().run_in_executor(self.beats, renew)
        except Exception as exc:
            cause = getattr(exc, "orig", None) or exc  # the driver's error in one line, as Store.call says it
            raise StoreError(f"renew failed: {type(cause).__name__}: {str(cause).partition(chr(10))[0]}") from exc

    async def take_over(self) -> int:
        """Claim and rebuild (:meth:`get`) every unfinished table no process owns (its owner died or let it go),
        timers carried over as after a restart; returns how many this process took. A table another process
        claims first is left to it.

        Raises:
            StoreError: if the store cannot be read.
        """
        if self.site is None or self.leases is None or self.draining:
            return 0
        taken = 0
        for table_id in await self.store.call(self.leases.unowned):
            if table_id in self.tables:
                continue
            try:
                live = await self.get(table_id)
            except OwnedElsewhere:
                continue
            if live is not None and table_id in self.tables:
                log.info("table %s taken over", table_id)
                taken += 1
        return taken

    def drop(self, table_id: str, reason: str) -> None:
        """Stop driving ``table_id`` here (its lease is lost): its driver stops, it leaves memory, and its sockets
        are closed with :data:`CLOSE_MOVED` so that the pages reconnect to the table's owner."""
        self.held.discard(table_id)
        self._published.pop(table_id, None)
        live = self.tables.pop(table_id, None)
        task = self.tasks.pop(table_id, None)
        if task is not None:
            task.cancel()
        if live is None:
            return
        live.closed = True
        live.changed.set()
        for conn in live.viewers():
            stop = getattr(conn, "stop", None)
            if stop is not None:
                stop(CLOSE_MOVED, "the table moved to another process; reconnect", True)
        log.warning("table %s dropped: %s", table_id, reason)

    def _conflict(self, table_id: str) -> None:
        """A move of ``table_id`` was refused as stored already: another process moved there. Drop the table,
        then load it again from the store if this process still (or again) owns it."""
        self.drop(table_id, "a move number was stored already by another process")

        async def reload() -> None:
            with contextlib.suppress(OwnedElsewhere, StoreError):
                await self.get(table_id)

        asyncio.get_running_loop().create_task(reload())

    async def owner_process(self, table_id: str) -> tuple[str, str] | None:
        """The site mode: the owner id and address of the process driving ``table_id`` (None: none known, or no
        site).

        Raises:
            StoreError: if the store cannot be read.
        """
        if self.site is None or self.leases is None:
            return None
        return await self.store.call(self.leases.process_of, table_id)

    # ---- the site mode: news (docs/scaling.md) --------------------------------------------------------------
    async def listen(self) -> None:
        """Start following the site's :attr:`news` (nothing without it): subscribe to the lobby's lines and to
        handed-over leases, start the tasks that apply what comes and publish this process's news, and once the
        channel listens, read the lobby from the store. A channel that cannot be started is tried again until it
        is (this waits meanwhile); until the lobby is read, each listing reads the store."""
        if self.news is None or self._listening:
            return
        lobby, leases = self.news.subscribe(TOPIC), self.news.subscribe(LEASES)
        self._listening = [asyncio.create_task(self._follow_lobby(lobby), name="motley-lobby-news"),
                           asyncio.create_task(self._follow_leases(leases), name="motley-lease-news"),
                           asyncio.create_task(self._send_news(), name="motley-news-out")]
        while True:
            try:
                await self.news.start()
                break
            except NewsUnavailable as exc:
                log.warning("%s: the lobby reads the store until news comes", exc)
        with contextlib.suppress(StoreError):
            await self._reload_lobby()

    async def _follow_lobby(self, subscription: Subscription) -> None:
        """Apply each lobby message to :attr:`lobby`; a gap makes it read the store again."""
        async for message in subscription:
            if message.gap:
                self.lobby.gap()
            else:
                self.lobby.apply(message.payload)

    async def _follow_leases(self, subscription: Subscription) -> None:
        """Take over at once the tables another process hands over (:meth:`drain`), after a random moment under
        0.05 s so that several survivors share them; a gap (the message may be lost) looks once too."""
        async for message in subscription:
            payload = message.payload if isinstance(message.payload, dict) else {}
            if self.site is None or payload.get("owner") == self.site.owner or self.draining:
                continue
            await asyncio.sleep(random.uniform(0.0, 0.05))
            try:
                taken = await self.take_over()
            except StoreError as exc:
                log.warning("handed-over tables not taken yet (the scan tries again): %s", exc)
                continue
            log.info("%d tables handed over by another process taken", taken)

    def _announce(self, payload: dict[str, Any]) -> None:
        """Queue ``payload`` for the lobby's news topic (nothing without :attr:`news`; dropped when
        :data:`OUTBOX` messages wait already: the others' lobbies read the store again in time)."""
        if self.news is None:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self._outbox.put_nowait((TOPIC, payload))

    def _announce_table(self, table_id: str, event: str) -> None:
        """Tell the site's lobbies of ``event`` at the table ``table_id`` driven here: its line
        (:func:`live_line`) for ``made``, ``rematch``, ``taken``, ``seats``; its id for ``finished``."""
        if event == "finished":
            self._published.pop(table_id, None)
            self._announce({"event": event, "table": table_id})
            return
        live = self.tables.get(table_id)
        if live is not None and self.news is not None:
            self._published[table_id] = live.table.version
            self._announce({"event": event, "line": live_line(live)})

    def announce_progress(self) -> None:
        """Tell the site's lobbies the version and stage of every table driven here that moved since the last
        time (``progress`` messages of at most 100 tables each), so that the lines stay as current as the
        heartbeat without a message per move."""
        moved: dict[str, list[Any]] = {}
        for table_id, live in self.tables.items():
            version = live.table.version
            if self._published.get(table_id, version) != version and not live.table.state.is_terminal():
                self._published[table_id] = version
                moved[table_id] = [version, replays.stage_of(live.table.state, version)]
                if len(moved) == 100:
                    self._announce({"event": "progress", "tables": moved})
                    moved = {}
        if moved:
            self._announce({"event": "progress", "tables": moved})

    async def _send_news(self) -> None:
        """Publish the queued news in order; one that cannot be sent is logged and dropped."""
        assert self.news is not None
        while True:
            topic, payload = await self._outbox.get()
            try:
                await self.news.publish(topic, payload)
            except (NewsUnavailable, ValueError) as exc:
                log.warning("news not published (%s): %s", topic, exc)

    async def drain(self) -> list[str]:
        """Hand this process's tables over before it stops (SIGTERM; the site mode): make, claim or take over no
        table any more; at each table it drives, wait for the move in flight (the table's lock), then refuse
        every later move unstored (``not_stored``: the page makes it again at the new owner) and stop the driver;
        give every lease up, tell the other processes which tables they are (news :data:`LEASES`: they claim them
        at once instead of after the lease's TTL), then close the tables' sockets with 1012 so that the pages
        reconnect (:meth:`drop`). Returns the tables handed over. No acknowledged move is lost (each was stored
        before it was shown) and none is made twice (later ones are refused here; the store's move numbers fence
        the rest)."""
        if self.site is None or self.leases is None:
            return []
        self.draining = True
        handed = [live for table_id, live in list(self.tables.items()) if table_id in self.held]
        for live in handed:
            async with live.lock:
                if isinstance(live.store, _FencedLog):
                    live.store.refusing = "this server process is stopping; the table moves to another one"
                live.closed = True
                live.changed.set()
            task = self.tasks.pop(live.id, None)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        tables = sorted(self.held)
        try:
            await self.store.call(self.leases.release, None, self.site.owner)
        except StoreError as exc:
            log.warning("leases not released (they expire by themselves): %s", exc)
        self.held.clear()
        if self.news is not None and tables:
            try:
                await asyncio.wait_for(self.news.publish(LEASES, {"owner": self.site.owner, "tables": tables[:100]}),
                                       DRAIN_NEWS_WAIT)
            except (NewsUnavailable, TimeoutError) as exc:
                log.warning("handed-over tables not announced (the others' scan finds them): %s", exc)
        for live in handed:
            self.drop(live.id, "this server process stops; another one drives the table")
        log.info("%d tables handed over", len(tables))
        return tables

    async def site_loop(self) -> None:
        """The site mode's background work until cancelled: :meth:`heartbeat` every ``Site.every`` seconds, and
        :meth:`take_over` and :meth:`offers` every ``Site.scan`` seconds (after a random part of it, so that the
        survivors of a dead process share its tables); nothing without a site."""
        if self.site is None:
            return
        site = self.site
        if site.address is not None and self.leases is not None:
            await self.store.call(self.leases.register, site.owner, site.address)
        listening = asyncio.create_task(self.listen(), name="motley-news-start")  # the leases are kept meanwhile
        listening.add_done_callback(lambda task: None if task.cancelled() or task.exception() is None
                                    else log.error("news not followed: %s", task.exception()))
        try:
            await self._keep_leases(site)
        finally:
            listening.cancel()

    async def _keep_leases(self, site: Site) -> None:
        """:meth:`site_loop`'s loop: heartbeats (and ``progress`` news after each) and scans, until cancelled."""
        next_beat = next_scan = time.monotonic()
        while True:
            await asyncio.sleep(min(site.scan, site.every) * random.uniform(0.5, 1.0))
            try:
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + site.every
                    await self.heartbeat()
                    self.announce_progress()
                if time.monotonic() >= next_scan:
                    next_scan = time.monotonic() + site.scan
                    await self.take_over()
                    await self.offers()
            except Exception:  # the loop never stops for one bad table or a store that does not answer
                log.exception("the site's leases could not be kept")

    async def close(self) -> None:
        """Stop every driver task, wait for the writes already made, give up this process's leases (the site
        mode), and close the store."""
        for live in self.tables.values():
            live.closed = True
            live.changed.set()
        for task in self.tasks.values():
            task.cancel()
        for task in self.tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.analyses.close()
        self.thinkers.close()
        if self.beats is not None:
            self.beats.shutdown(wait=True)
        for task in self._listening:
            task.cancel()
        if self.news is not None:
            await self.news.close()
        if self.site is not None and self.leases is not None:
            try:
                await self.store.call(self.leases.release, None, self.site.owner)
                await self.store.call(self.leases.unregister, self.site.owner)
            except StoreError as exc:
                log.warning("leases not released (they expire by themselves): %s", exc)
        await asyncio.to_thread(self.store.close)


@contextlib.contextmanager
def _quota_refusal() -> Iterator[None]:
    """A store call refused because the address has its quota of unfinished tables in the store
    (:class:`QuotaReached`) or has used its bucket of creations there (:class:`RateReached`, with the wait), the
    site mode, raised as :class:`TablesRefused`, as :class:`TableGate` refuses."""
    try:
        yield
    except StoreError as exc:
        if isinstance(exc.__cause__, QuotaReached):
            raise TablesRefused(str(exc.__cause__)) from None
        if isinstance(exc.__cause__, RateReached):
            raise TablesRefused(str(exc.__cause__), retry_after=exc.__cause__.wait) from None
        raise


def _new_seats(plan: list[dict[str, Any]], seats: int) -> list[int | None]:
    """Each of the old table's ``seats`` seats' seat at the rematch of ``plan`` (None: not a person seat there)."""
    moved = {entry["from"]: i for i, entry in enumerate(plan) if entry["kind"] == "human"}
    return [moved.get(i) for i in range(seats)]
