"""A table's log in a site: :class:`FencedLog`, the :class:`~motley.server.store.writer.Store` with the table's lease
(a fencing token, :class:`~motley.server.store.leases.Fence`) carried by every write of the table
(:mod:`motley.server.site.membership` gives each table driven here one; docs/scaling.md)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from motley.server.store.leases import Fence, StaleLease
from motley.server.store.writer import LeaseLost, MoveRow, Store, StoreError, fenced

__all__ = ["FencedLog"]

log = logging.getLogger("motley.server")


class FencedLog:
    """The :class:`Store` as one table's log in a site. Every write that changes the table goes through here and
    carries the table's lease as ``fence(self)`` gives it
    (:meth:`~motley.server.site.membership.SiteMembership.fence`: this process's owner id and the epoch of its
    claim, for the copy of the table driven here; None for a table not driven here, a finished one: written without
    a lease), and the store refuses it in the same transaction once that lease is no longer the table's. A write
    refused because another process holds the table now, or the lease expired (:class:`LeaseLost`), calls ``lost``
    before the refusal goes on to the writer; ``changed(event, table_id)`` is called once the seats (``"seats"``)
    or the result (``"finished"``, or ``"cancelled"``) are written, so that the lobby of every process hears of it.
    Once :attr:`refusing` is set (a reason: the process hands the table over, or dropped this copy of it), every
    write is refused unstored."""

    def __init__(self, store: Store, table_id: str, lost: Callable[[str], None],
                 changed: Callable[[str, str], None], fence: Callable[[FencedLog], Fence | None] = lambda _: None
                 ) -> None:
        self.store = store
        self.table_id = table_id
        self.lost = lost
        self.changed = changed
        self.fence = fence
        self.refusing: str | None = None

    def _lease(self) -> Fence | None:
        """The fence of the next write.

        Raises:
            LeaseLost: if :attr:`refusing` is set (nothing is tried).
        """
        if self.refusing is not None:
            raise LeaseLost(self.refusing)
        return self.fence(self)

    async def _fenced(self, write: Awaitable[None]) -> None:
        """Await ``write``; a lost lease calls ``lost``."""
        try:
            await write
        except LeaseLost:
            self.lost(self.table_id)
            raise

    def _hear(self, job: asyncio.Future[Any] | None) -> None:
        """Call ``lost`` if the write of ``job`` (not awaited) is refused under a lease no longer the table's."""
        if job is not None:
            job.add_done_callback(lambda done: self.lost(self.table_id) if not done.cancelled()
                                  and isinstance(done.exception(), StaleLease) else None)

    async def add_move(self, row: MoveRow) -> None:
        """:meth:`Store.add_move` under the table's lease; a lost lease calls ``lost``.

        Raises:
            LeaseLost: if the lease is no longer this process's (nothing stored).
            StoreError: if the move was not stored (or :attr:`refusing` is set: it was not tried).
        """
        fence = self._lease()
        await self._fenced(self.store.add_move(row, fence))

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        """:meth:`Store.finish` (the match's result, or a cancel: ``{"cancelled": true, "reason"}``) under the
        table's lease."""
        fence = self._lease()
        await self._fenced(self.store.finish(table_id, result, fence))
        self.changed("cancelled" if result.get("cancelled") is True else "finished", table_id)

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """:meth:`Store.store_seats` under the table's lease."""
        fence = self._lease()
        await self._fenced(self.store.store_seats(table_id, seats, fence))
        self.changed("seats", table_id)

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """:meth:`Store.save_seats` under the table's lease (a copy no longer driven here writes nothing)."""
        if self._quiet_lease():
            self._hear(self.store.later(self.store.storage.update_seats, table_id, seats, **fenced(self.fence(self))))
            self.changed("seats", table_id)

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        """:meth:`Store.save_settings` under the table's lease (a copy no longer driven here writes nothing)."""
        if self._quiet_lease():
            self._hear(self.store.later(self.store.storage.update_settings, table_id, settings,
                                        **fenced(self.fence(self))))

    def _quiet_lease(self) -> bool:
        """May a write that nobody waits for go to the store? False (logged) for a copy no longer driven here."""
        try:
            self._lease()
        except StoreError as exc:
            log.warning("table %s: write not made: %s", self.table_id, exc)
            return False
        return True
