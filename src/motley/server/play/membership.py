"""A process's membership of a site, as the set of tables sees it: the one protocol between
:class:`~motley.server.play.service.Service` (the set of tables) and whatever decides which tables this process
drives.

:class:`Membership` is what the set of tables asks of it (claim a table, give it up, the log a table writes
through, who created it, news for the other processes' lobbies, the background work, the drain); :class:`TableSet`
is what it may ask of the set of tables (a table by id, drop one, the tables in memory, the store, the clock).
:class:`Alone` is the membership of the one process of its store: it drives every table, claims always succeed,
nothing is published. The site's (leases, a heartbeat, takeovers, news, the drain) is
:class:`motley.server.site.membership.SiteMembership`, handed to the service by the app (``motley serve --site``).

Every write that changes a table goes through the log the membership gives it (:meth:`Membership.log`), so a
site's log can carry the table's lease with each write (a fencing token) and refuse it once the lease is lost.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from motley.server.play.live import LiveTable, TableLog
from motley.server.store.records import TableRecord
from motley.server.store.writer import Creator, Store

log = logging.getLogger("motley.server")

__all__ = ["CLOSE_MOVED", "Alone", "Membership", "TableSet"]

#: WebSocket close code of a socket whose table moved to another process (a service restart: reconnect).
CLOSE_MOVED = 1012


class TableSet(Protocol):
    """What a membership needs of the set of tables it serves (:class:`~motley.server.play.service.Service`)."""

    store: Store
    #: The clock of the process (seconds, :func:`time.monotonic`): heartbeats, the lobby's freshness, timers.
    clock: Callable[[], float]
    #: The wall clock (seconds since the epoch, :func:`time.time`).
    wall: Callable[[], float]
    tables: dict[str, LiveTable]
    tasks: dict[str, asyncio.Task[None]]
    kept: OrderedDict[str, LiveTable]

    async def get(self, table_id: str) -> LiveTable | None:
        """A table by id, loaded (and claimed, when unfinished) if it is not in memory; None if there is none.
        Raises ``OwnedElsewhere`` for an unfinished table another process drives, ``StoreError`` if the store
        cannot be read."""

    def drop(self, table_id: str, reason: str) -> None:
        """Stop driving ``table_id`` here: its driver stops, it leaves memory, its sockets are told it moved."""

    async def rebuild(self, record: TableRecord) -> LiveTable:
        """A live table from its stored record, not started. Raises ``MotleyError`` if the record does not
        replay."""

    def start(self, live: LiveTable) -> None:
        """Start the table's driver."""

    async def offers(self) -> int:
        """Read the rematches offered elsewhere at the finished tables watched here; returns how many."""


class Membership(Protocol):
    """This process's membership of a site. The set of tables is handed it once (:meth:`serve`); then it asks it
    whether it may drive a table (:meth:`claim`), tells it when it stops (:meth:`release`, :meth:`unclaim`),
    writes every table through :meth:`log`, and tells it what the other processes' lobbies should hear
    (:meth:`publish`)."""

    #: This process's id in the site (its lease owner), None alone: a forwarded request naming it is trusted.
    owner: str | None
    #: The site's shared secret of the internal requests (None: not signed), never shown.
    secret: bytes | None
    #: True once the process drains (:meth:`drain`): it makes, claims and takes over no table any more.
    draining: bool

    def serve(self, tables: TableSet) -> None:
        """Serve ``tables`` (called once, by the set of tables).

        Raises:
            MotleyError: if the set of tables' store cannot keep what this membership needs (leases).
        """

    def log(self, table_id: str) -> TableLog:
        """The log the table ``table_id``, driven here, writes through: every write that changes it."""

    async def claim(self, table_id: str) -> bool:
        """May this process drive ``table_id`` (claimed now, or already its own)? False: another process does,
        or this one drains.

        Raises:
            StoreError: if the store refused the claim.
        """

    async def unclaim(self, table_id: str) -> None:
        """Give up the claim of a table that was not made after all (never raises)."""

    def release(self, table_id: str) -> None:
        """The table ``table_id`` is over here (finished, cancelled): give it up without waiting."""

    def creator(self, client: str | None, quota: int | None, per_minute: float | None, burst: int
                ) -> Creator | None:
        """Who creates a table, as the store counts it against the client's limits (None: the limits are kept
        in memory, by the set of tables)."""

    async def process_of(self, table_id: str) -> tuple[str, str] | None:
        """The owner id and address of the process driving ``table_id`` (None: none known, or none but this one).

        Raises:
            StoreError: if the store cannot be read.
        """

    def publish(self, event: str, table_id: str) -> None:
        """Tell the other processes' lobbies of ``event`` at the table ``table_id``: ``made``, ``rematch``,
        ``taken``, ``seats`` (its line), ``finished``, ``cancelled`` (it left the unfinished ones)."""

    async def resume(self) -> int:
        """Take this process's tables at its start; returns how many it drives.

        Raises:
            StoreError: if the store cannot be read.
        """

    async def listed(self) -> list[dict[str, Any]]:
        """The lobby lines of the unfinished tables other processes drive (with their ``age``).

        Raises:
            StoreError: if the store cannot be read.
        """

    async def finished_headers(self) -> list[dict[str, Any]]:
        """The newest finished tables' headers (``TableStorage.finished_headers``), read or kept.

        Raises:
            StoreError: if the store cannot be read.
        """

    async def run(self) -> None:
        """The membership's background work, until cancelled (returns at once when it has none)."""

    async def drain(self) -> list[str]:
        """Hand this process's tables over before it stops; returns them."""

    async def close(self) -> None:
        """Stop the background work and give up what this process holds (before the store closes)."""


class Alone:
    """The membership of the one process of its store: every table is driven here, written straight to the store,
    and nothing is claimed, published or handed over."""

    owner: str | None = None
    secret: bytes | None = None
    draining = False

    def __init__(self) -> None:
        self._tables: TableSet | None = None

    @property
    def tables(self) -> TableSet:
        """The set of tables served (:meth:`serve`)."""
        assert self._tables is not None, "Alone.serve was not called"
        return self._tables

    def serve(self, tables: TableSet) -> None:
        """Serve ``tables``."""
        self._tables = tables

    def log(self, table_id: str) -> TableLog:
        """The store itself."""
        return self.tables.store

    async def claim(self, table_id: str) -> bool:
        """Always: every table is driven here."""
        return True

    async def unclaim(self, table_id: str) -> None:
        """Nothing to give up."""

    def release(self, table_id: str) -> None:
        """Nothing to give up."""

    def creator(self, client: str | None, quota: int | None, per_minute: float | None, burst: int
                ) -> Creator | None:
        """None: the set of tables keeps the limits in memory."""
        return None

    async def process_of(self, table_id: str) -> tuple[str, str] | None:
        """None: no other process."""
        return None

    def publish(self, event: str, table_id: str) -> None:
        """Nobody else to tell."""

    async def resume(self) -> int:
        """Rebuild every unfinished table of the store from its event log and start its driver; returns how many.

        A table whose stored row cannot be read, or whose log does not replay (a changed rule, a damaged
        row), is logged with its id and the reason and left stored, unserved; the others resume.

        Raises:
            StoreError: if the store cannot be read at all.
        """
        tables = self.tables
        count = 0
        unreadable: list[tuple[str, str]] = []
        records = await tables.store.call_within(  # every table at once: however long it takes
            None, functools.partial(tables.store.storage.load_all, finished=False, unreadable=unreadable), "load_all")
        for table_id, reason in unreadable:
            log.error("table %s not resumed: %s", table_id, reason)
        for record in records:
            if record.id in tables.tables:  # a request loaded it meanwhile
                continue
            try:
                live = await tables.rebuild(record)
            except Exception as exc:  # stays stored, unserved; one bad table never stops the server
                log.error("table %s not resumed: %s", record.id, exc)
                continue
            if record.id not in tables.tables:
                tables.tables[live.id] = live
                tables.start(live)
                count += 1
        return count


    async def listed(self) -> list[dict[str, Any]]:
        """None: every table is listed from memory."""
        return []

    async def finished_headers(self) -> list[dict[str, Any]]:
        """Read from the store at each listing."""
        store = self.tables.store
        return await store.call(store.storage.finished_headers)

    async def run(self) -> None:
        """No background work."""

    async def drain(self) -> list[str]:
        """Nothing to hand over: the tables resume from the store at the next start."""
        return []

    async def close(self) -> None:
        """Nothing held."""
