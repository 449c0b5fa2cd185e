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
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

from motley.core import MotleyError
from motley.server.play.analyses import Analyses
from motley.server.play.bodies import RematchSeat, TableRequest
from motley.server.play.flights import Flights
from motley.server.play.limits import IDLE_CLOSE, Limits, TableGate, TablesRefused
from motley.server.play.live import LiveTable
from motley.server.play.membership import CLOSE_MOVED, Alone, Membership
from motley.server.play.rematches import Rematches
from motley.server.play.requests import new_record
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.store.records import Settings, TableRecord
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


class Service:
    """Every table of the server: the running ones in memory (with their driver tasks), all in the store.

    ``storage``: the event-log storage (closed by :meth:`close`); ``defaults``: settings of new tables;
    ``thinkers``: where bots that search think (default: :class:`Thinkers`, a worker process per core but one).
    ``idle_close``: seconds an unfinished table may sit without a move and without a viewer before :meth:`tidy`
    cancels it (None: never); ``clock`` / ``wall``: the process's clocks (tests inject their own): the tables'
    timers (:class:`LiveTable`), the creation rate (:attr:`gate`), :meth:`listed_finished`, the membership's
    heartbeat and lobby. ``limits``: the tables a client address may create (None: :class:`Limits`' defaults),
    kept by :attr:`gate` for the requests that name their client (:meth:`create`, :meth:`rematch`).
    ``membership``: which tables this process may drive, the log each one writes through, the news of the other
    processes' lobbies (:class:`~motley.server.play.membership.Membership`); default
    :class:`~motley.server.play.membership.Alone`, the one process of its store, which drives every table.
    ``seeds``: draws new tables' seeds (None: :class:`random.SystemRandom`; tests give a seeded generator).

    A table has one copy in memory however many requests and sockets ask for it: the running ones (and the
    finished ones for :data:`FINISHED_TTL` after their match) in :attr:`tables`, the finished ones loaded
    again in :attr:`kept` (at most :data:`FINISHED_KEPT` not watched), and requests that arrive while a table
    is being loaded wait for that one load (:meth:`get`).
    """

    def __init__(self, storage: TableStorage, defaults: Settings, thinkers: Thinkers | None = None, *,
                 idle_close: float | None = IDLE_CLOSE, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, limits: Limits | None = None,
                 membership: Membership | None = None, seeds: Callable[[], int] | None = None) -> None:
        self.store = Store(storage)
        self.seeds = seeds
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
        #: The rematches of finished tables (:class:`Rematches`).
        self.rematches = Rematches(self)
        self.membership: Membership = membership if membership is not None else Alone()
        self.membership.serve(self)
        #: The last good answers of the lobby's store reads (:func:`remembered`).
        self._remembered: dict[str, list[dict[str, Any]]] = {}
        self.store.stored_late = functools.partial(reload, self)

    def seed(self) -> int | None:
        """A new table's seed from :attr:`seeds` (None: let the table draw its own)."""
        return None if self.seeds is None else self.seeds()

    async def resume(self) -> int:
        """Take this process's unfinished tables at its start (:meth:`Membership.resume`: alone, every one; else
        those no other process drives); returns how many.

        Raises:
            StoreError: if the store cannot be read at all.
        """
        return await self.membership.resume()

    async def rebuild(self, record: TableRecord) -> LiveTable:
        """A live table from its stored record, replayed in a worker thread (a long match takes a while, and
        the server answers meanwhile); not started.

        Raises:
            MotleyError: if the record does not replay (see :class:`Table`).
        """
        table = await asyncio.to_thread(Table, record)
        return self.live(table)

    def live(self, table: Table) -> LiveTable:
        """A live table over ``table``, writing through the log its membership gives it (:meth:`Membership.log`)."""
        return LiveTable(table, self.membership.log(table.id), self.clock, self.wall, thinkers=self.thinkers,
                         chat_store=self.store)

    def start(self, live: LiveTable) -> None:
        """Start the table's driver task; once the match is over the table leaves memory (it stays stored) and its
        membership lets it go (:meth:`Membership.release`)."""
        if not live.table.state.is_terminal():
            loop = asyncio.get_running_loop()
            task = loop.create_task(live.run())
            self.tasks[live.id] = task
            task.add_done_callback(lambda _t: self._ended(live))
            task.add_done_callback(lambda _t: loop.call_later(FINISHED_TTL, self.evict, live.id))

    def _ended(self, live: LiveTable) -> None:
        """The driver of ``live`` stopped: a match over is given up by the membership."""
        if live.table.state.is_terminal():
            self.membership.release(live.id)

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

    async def create(self, request: TableRequest, seed: int | None = None, *, client: str | None = None,
                     owner: str | None = None) -> LiveTable:
        """A new table from a lobby request (see :func:`~motley.server.play.requests.new_record`), stored and started.

        ``seed``: for tests and tools in Python only: the match's seed (None, always from the web: drawn).
        ``client``: the address of the client asking, whose tables :attr:`gate` limits (None: no limit, for Python
        callers). ``owner``: the digest of the browser key that owns the table (:mod:`.owners`; None: none).

        Raises:
            MotleyError: naming the bad field of ``request``. TablesRefused: if ``client`` may not create a table
                now (:meth:`TableGate.admit`). StoreError: if the store refused the table. Nothing is made then.
        """
        record = new_record(request, self.defaults, self.seed() if seed is None else seed, owner)
        live = self.live(Table(record))
        live.chat.new_table()

        async def stored(creator: Creator | None) -> bool:
            await self.store.call(self.store.storage.create_table, record, creator)
            return True

        await self.make(live, client, stored)
        self.start(live)
        self.membership.publish("made", live.id)
        return live

    async def make(self, live: LiveTable, client: str | None,
                   stored: Callable[[Creator | None], Awaitable[bool]]) -> bool:
        """Make the new table ``live`` (not started) for ``client``: admitted (:attr:`gate`), claimed by the
        membership first (a stored table without a live lease is an orphan to the other processes' scans), then
        stored by ``stored(creator)``, which returns whether it stored this table (False: another one was made
        instead); once stored it is in :attr:`tables`. Returns whether it was made (if not, the claim is given up).

        Raises:
            Stopping: while the process drains, or if the claim was refused. TablesRefused: if ``client`` may not
                create a table now (here, or as the store counts). StoreError: if the store refused it.
        """
        if self.membership.draining:
            raise Stopping(STOPPING)
        if client is not None:
            self.gate.admit(client, self._unfinished)
        made = None
        try:
            if not await self.membership.claim(live.id):
                raise Stopping(STOPPING)
            limits = self.gate.limits
            creator = self.membership.creator(client, limits.tables_per_address, limits.tables_per_minute,
                                              limits.table_burst)
            with _quota_refusal():
                if await stored(creator):
                    self.tables[live.id] = live
                    made = live.id
        finally:
            if client is not None:
                self.gate.settle(client, made)
            if made is None:
                await self.membership.unclaim(live.id)
        return made is not None

    def _unfinished(self, table_id: str) -> bool:
        """Is the table running (in memory, its match not over, not cancelled)?"""
        live = self.tables.get(table_id)
        return live is not None and not live.table.state.is_terminal()

    async def rematch(self, live: LiveTable, token: str, seats: list[RematchSeat] | None = None, *,
                      client: str | None = None) -> LiveTable:
        """The rematch of the finished table ``live``, made once (:meth:`Rematches.rematch`).

        Raises:
            SeatRefused, MotleyError, TablesRefused, StoreError: see :meth:`Rematches.rematch`.
        """
        return await self.rematches.rematch(live, token, seats, client=client)

    async def offers(self) -> int:
        """The rematches offered elsewhere at the finished tables watched here (:meth:`Rematches.offers`)."""
        return await self.rematches.offers()

    async def decline(self, live: LiveTable, token: str) -> int:
        """Decline the seat of ``token`` at ``live``, a rematch (:meth:`Rematches.decline`); returns the seat.

        Raises:
            SeatRefused, StoreError: see :meth:`Rematches.decline`.
        """
        return await self.rematches.decline(live, token)

    async def copy_of(self, table_id: str) -> LiveTable | None:
        """The table ``table_id`` (:meth:`get`); one another process drives is read from the store as a copy that is
        never driven here (its seat requests are forwarded to the owner). None if there is none.

        Raises:
            StoreError: if the store cannot be read.
        """
        try:
            return await self.get(table_id)
        except OwnedElsewhere:
            record = await self.store.call(self.store.storage.load, table_id)
            return None if record is None else await self.rebuild(record)

    async def get(self, table_id: str) -> LiveTable | None:
        """A table by id: in memory, or loaded from the store (an unfinished one is started, a finished one kept
        in :attr:`kept`); None if there is none, its stored row cannot be read or its log no longer replays.
        Requests for a table being loaded wait for that load (single flight): every caller gets the same copy.

        Raises:
            StoreError: if the store cannot be read. OwnedElsewhere: for an unfinished table
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
            StoreError: if the store cannot be read. OwnedElsewhere: if another process (:class:`Membership`) holds the
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
            rebuilt = await self.rebuild(record)
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
            await self.rematches.stored_offer(rebuilt)
            self.keep(rebuilt)
        else:
            taken = await _take(self, rebuilt, record)
            return taken if taken is not None else await self._load(table_id)  # None: ended meanwhile
        return rebuilt

    async def join(self, live: LiveTable, seat: int | None = None, name: str | None = None) -> int:
        """Claim an open seat of ``live`` (``seat``, or None: the first open one) named ``name`` (:meth:`Table.claim`),
        store the seats (:meth:`LiveTable.store_seats`) and answer the seat, whose fresh token is now its only one.

        Raises:
            SeatRefused: saying why (the match is over, the seat is by invitation, already claimed, ...);
                nothing changes. StoreError: if the store refused every try (the seat stays open, with its
                invite token).
        """
        table = live.table
        before = [replace(s) for s in table.seats]
        claimed = table.claim(seat, name)
        try:
            await live.store_seats()
        except StoreError:
            table.seats[claimed] = before[claimed]
            # a first connection stored meanwhile wrote the claim too: write the seats as they are again
            live.store.save_seats(live.id, [s.stored() for s in table.seats])
            raise
        live.broadcast()  # the viewers see the seat taken, under its new name
        return claimed

    async def listed_finished(self) -> list[dict[str, Any]]:
        """The finished tables the lobby lists: the newest finished tables in the store (read or kept by the
        membership, :meth:`Membership.finished_headers`) less the cancelled ones and, with :attr:`idle_close`,
        those whose last move is older than that (their replays stay). A store that does not answer is not waited
        for: the list last read is answered (:func:`remembered`)."""
        headers = await remembered(self._remembered, "finished", self.membership.finished_headers)
        oldest = None if self.idle_close is None else self.wall() - self.idle_close
        return [h for h in headers if not h.get("cancelled")
                and (oldest is None or (h.get("last_move") or h["created"]) >= oldest)]

    async def listed_elsewhere(self) -> list[dict[str, Any]]:
        """The lobby lines of the unfinished tables that other processes drive
        (:meth:`Membership.listed`); empty for the one process of its store. A store that does not answer is not
        waited for: the lines last read are answered (:func:`remembered`)."""
        return await remembered(self._remembered, "elsewhere", self.membership.listed)

    async def owner_process(self, table_id: str) -> tuple[str, str] | None:
        """The owner id and address of the process driving ``table_id`` (:meth:`Membership.process_of`; None:
        none known, or no other process).

        Raises:
            StoreError: if the store cannot be read.
        """
        return await self.membership.process_of(table_id)

    async def cancel(self, live: LiveTable, reason: str) -> None:
        """End an unfinished table without a result: its driver stops, it leaves :attr:`tables`, and it is
        stored as finished with ``{"cancelled": True, "reason": reason}`` (so it is never resumed; its moves
        stay). It waits for a move in flight (the table's lock), so no move is stored after it; from then on the
        table refuses moves with the reason (error ``closed``).

        Raises:
            StoreError: if the store refused the change; the table then stays as it was (running).
        """
        async with live.lock:  # no move is in flight: the cancel is the table's last write
            await live.store.finish(live.id, {CANCELLED: True, "reason": reason})
            live.close(reason)
        self.tables.pop(live.id, None)
        task = self.tasks.pop(live.id, None)
        if task is not None:
            task.cancel()
        self.membership.release(live.id)
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

    def drop(self, table_id: str, reason: str) -> None:
        """Stop driving ``table_id`` here (another process drives it, or this one stops): its driver stops, it
        leaves memory, and its sockets are closed with :data:`CLOSE_MOVED` so that the pages reconnect to the
        table's owner (the membership calls this; :meth:`Membership.release` is not)."""
        live = self.tables.pop(table_id, None)
        task = self.tasks.pop(table_id, None)
        if task is not None:
            task.cancel()
        if live is None:
            return
        live.closed = True
        live.changed.set()
        for conn in live.viewers():
            conn.stop(CLOSE_MOVED, "the table moved to another process; reconnect", True)
        log.warning("table %s dropped: %s", table_id, reason)

    async def drain(self) -> list[str]:
        """Hand this process's tables over before it stops (:meth:`Membership.drain`); returns them."""
        return await self.membership.drain()

    async def close(self) -> None:
        """Stop every driver task, wait for the writes already made, close the membership (it gives up what it
        holds), and close the store."""
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
        await self.membership.close()
        await asyncio.to_thread(self.store.close)


async def _take(service: Service, rebuilt: LiveTable, record: TableRecord) -> LiveTable | None:
    """Claim the unfinished table ``rebuilt`` (from ``record``) that :meth:`Service._load` read, and drive it here
    (started, announced as ``taken``): the copy read again after the claim where it changed
    (:func:`_as_claimed`), or the copy driven here already if another load took it meanwhile. None if its old
    owner finished it before the claim (read it again).

    Raises:
        OwnedElsewhere: if another process holds its lease. StoreError: if the store refused the claim or a read.
    """
    if not await service.membership.claim(record.id):
        raise OwnedElsewhere(f"table {record.id} is driven by another process of the site")
    live = service.tables.get(record.id)  # taken over meanwhile
    if live is not None:
        return live
    try:
        claimed = await _as_claimed(service, rebuilt, record)
    except Exception:  # not driven here after all: a lease held for it would be renewed for nothing
        await service.membership.unclaim(record.id)
        raise
    if claimed is not None:
        service.tables[claimed.id] = claimed
        service.start(claimed)
        service.membership.publish("taken", claimed.id)
    return claimed


async def _as_claimed(service: Service, rebuilt: LiveTable, record: TableRecord) -> LiveTable | None:
    """``rebuilt`` (from ``record``, read before the claim of its lease), or the table read again after the claim
    if it changed meanwhile: its old owner may have written it (a move, a seat) while its lease lasted, and a claim
    waits for such a write (:meth:`~motley.server.store.leases.LeaseRows.fence_holds`), so what is read after it
    is the table as its old owner left it; what a viewer was shown there is never newer than what is driven here.
    None if the old owner finished it meanwhile (the claim is given up). The one process of its store (no owner
    id) is the only writer: nothing to read again.

    Raises:
        StoreError: if the store cannot be read.
    """
    if service.membership.owner is None:
        return rebuilt
    again = await service.store.call(service.store.storage.load, record.id)
    if again is None or (again.moves, again.seats, again.settings, again.finished) == (
            record.moves, record.seats, record.settings, record.finished):
        return rebuilt
    if again.finished:
        await service.membership.unclaim(record.id)
        return None
    return await service.rebuild(again)


async def remembered(memory: dict[str, list[dict[str, Any]]], name: str,
                     read: Callable[[], Awaitable[list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """``await read()``, kept in ``memory`` as the last good answer of ``name``; when the store fails it (within its
    deadline), that last answer instead (empty if it never answered): the lobby is answered from memory while the
    store is silent."""
    try:
        answer = await read()
    except StoreError as exc:
        log.warning("lobby listed from memory (%s): %s", name, exc)
        return memory.get(name, [])
    memory[name] = answer
    return answer


def reload(service: Service, row: MoveRow) -> None:
    """A move of ``row``'s table was stored after its mover was told it was not (the store answered its commit
    after the deadline, ``Store.stored_late``): the table in memory lacks it, so drop the table
    (:meth:`Service.drop`: the pages reconnect) and load it again from the store, where it has the move."""
    table_id = row[0]
    service.drop(table_id, f"move {row[1]} was stored after it was refused as not stored: loaded again")

    async def again() -> None:
        with contextlib.suppress(OwnedElsewhere, StoreError):
            await service.get(table_id)

    asyncio.get_running_loop().create_task(again())


async def tidy_loop(service: Service) -> None:
    """:meth:`Service.tidy` every ``idle_close / 10`` seconds (at least 1, at most 60) until cancelled; does nothing
    without ``Service.idle_close``."""
    if service.idle_close is None:
        return
    interval = min(60.0, max(1.0, service.idle_close / 10))
    while True:
        await asyncio.sleep(interval)
        try:
            await service.tidy()
        except Exception:  # the loop never stops for one bad table
            log.exception("tidying the tables failed")


@contextlib.contextmanager
def _quota_refusal() -> Iterator[None]:
    """A store call refused because the address has its quota of unfinished tables in the store
    (:class:`QuotaReached`) or has used its bucket of creations there (:class:`RateReached`, with the wait), the
    limits the membership keeps there, raised as :class:`TablesRefused`, as :class:`TableGate` refuses."""
    try:
        yield
    except StoreError as exc:
        if isinstance(exc.__cause__, QuotaReached):
            raise TablesRefused(str(exc.__cause__)) from None
        if isinstance(exc.__cause__, RateReached):
            raise TablesRefused(str(exc.__cause__), retry_after=exc.__cause__.wait) from None
        raise
