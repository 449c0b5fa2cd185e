"""The store off the event loop: one writer thread in front of the event-log storage.

:class:`TableStorage` is what the server needs of a storage (:class:`motley.server.store.storage.Storage` is the
SQLAlchemy one; a test may hand in its own); :class:`Store` makes its calls in one worker thread, in order,
and writes moves in groups. The live tables write through it (:class:`motley.server.play.live.TableLog`) and the
set of tables reads and creates tables through it (:class:`motley.server.play.service.Service`).

Every awaited call has a deadline (:data:`DEADLINE`, from when the thread begins it): a store that does not
answer at all (a hung server, a network partition that drops without resets) fails the call with
:class:`StoreSilent` (a :class:`StoreError`) when it runs out, so a mover hears ``not_stored`` and a request is
answered 503 within seconds. A call waiting in the thread's queue waits as long as the thread answers the calls
before it (a busy store: up to :data:`QUEUE_PATIENCE`), and fails once the call under way is past its deadline (a
silent store). A thread stuck in a socket read cannot be stopped; the caller gives up and answers,
and the thread, when the store answers again, finds its call's deadline passed before its next statement or commit
(:func:`check_deadline`, called by the storage's engine) and rolls it back, so a call answered as failed is not
stored afterwards. Meanwhile later calls fail at once (:meth:`Store.stalled`) instead of each waiting out its
deadline, and the calls queued behind the stuck one whose callers gave up are never made.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, ParamSpec, Protocol, TypeVar

from motley.server.store.deadlines import Call, CallAbandoned, within
from motley.server.store.leases import Fence, StaleLease
from motley.server.store.records import TableRecord
from motley.server.store.refusals import Refusal

log = logging.getLogger("motley.server")

P = ParamSpec("P")
R = TypeVar("R")

#: Seconds an awaited store call may take once the store's thread begins it, before it fails with
#: :class:`StoreSilent` (a mover is answered ``not_stored``, a request 503 with ``Retry-After``).
DEADLINE = 2.0
#: Seconds a call may wait in the store thread's queue while the thread answers the calls before it (a busy store,
#: not a silent one), before it is refused; a call waiting behind one the store does not answer is refused once
#: that one is past its deadline (:meth:`Store.stalled`).
QUEUE_PATIENCE = 10.0
#: Seconds after which a request refused because the store did not answer says to try again (``Retry-After``).
STORE_RETRY_AFTER = 2.0

#: A move as stored: ``(table_id, number, seat, move string, actor)``.
MoveRow = tuple[str, int, int, str, str]


class UnreadableTable(ValueError):
    """A stored table whose row cannot be read (JSON that does not parse, a field of the wrong type)."""


class Creator(NamedTuple):
    """Who creates a table, for the per-address limits kept in the store (a site of several processes): the
    client ``address`` stored on the table's row; ``quota``, the most unfinished tables it may have (None:
    recorded, not limited); its creation rate, a token bucket of ``burst`` tables refilled at ``per_minute``
    (``per_minute`` None: no rate)."""

    address: str
    quota: int | None = None
    per_minute: float | None = None
    burst: int = 1


class RateReached(Refusal):
    """The creating address has used its bucket of table creations kept in the store (nothing was stored);
    ``wait``: seconds until it holds a token again (HTTP 429 with ``Retry-After``)."""

    status = 429
    code = "too_fast"
    words = "this address creates tables too fast; try again later"

    def __init__(self, burst: int, per_minute: float, wait: float) -> None:
        super().__init__(f"this address creates tables too fast (at most {burst} at once, {per_minute:g} a "
                         f"minute); try again in {math.ceil(wait)} s", retry_after=wait)
        self.wait = wait


class QuotaReached(Refusal):
    """The creating address has its quota of unfinished tables in the store (nothing was stored; HTTP 429)."""

    status = 429
    code = "too_many_tables"
    words = "this address has as many unfinished tables as it may have; finish one first"

    def __init__(self, address: str, quota: int) -> None:
        super().__init__(f"this address already has {quota} unfinished tables; finish one first")
        self.address = address
        self.quota = quota


class TableStorage(Protocol):
    """The event-log storage as the server uses it. Every call blocks until it is done (the :class:`Store`
    makes them in its worker thread); any exception is a failure of the storage."""

    def create_table(self, record: TableRecord, creator: Creator | None = None) -> None:
        """Store a new table (its header; ``record.moves`` is empty), with its ``creator``'s address; raises
        :class:`QuotaReached` (nothing stored) if that address has its quota of unfinished tables."""

    def create_rematch(self, table_id: str, record: TableRecord, offer: dict[str, Any],
                       creator: Creator | None = None) -> dict[str, Any]:
        """Store ``record`` as the rematch of table ``table_id`` (its header, with ``offer``: ``{"offered_by",
        "plan"}``) unless that table has one already, atomically; returns the stored offer ``{"table",
        "offered_by", "plan"}``, this one or the earlier one. ``creator`` as for :meth:`create_table`."""

    def rematch(self, table_id: str) -> dict[str, Any] | None:
        """The rematch offered at a table, ``{"table", "offered_by", "plan"}``, or None."""

    def add_chat_line(self, table_id: str, line: dict[str, Any]) -> None:
        """Store one chat line of a table (:class:`~motley.server.store.chat.ChatRows`); refused if its number is
        stored already."""

    def chat_lines(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` chat lines of a table, oldest first."""

    def save_analysis(self, table_id: str, seat: int, result: dict[str, Any]) -> dict[str, Any]:
        """Store the analysis of ``seat``'s decisions at a finished table unless one is stored already; returns the
        stored one (this, or the earlier)."""

    def analysis(self, table_id: str, seat: int) -> dict[str, Any] | None:
        """The stored analysis of ``seat``'s decisions at a table, or None."""

    def add_moves(self, moves: Sequence[MoveRow], fences: Mapping[str, Fence] | None = None) -> None:
        """Append moves to their tables' logs in one transaction: all are stored, or (on an error) none; raises
        :class:`DuplicateMove` when a move's number is stored already, :class:`StaleLease` when a table of
        ``fences`` (the lease each table's moves are made under; the :class:`Store` passes them only in a site)
        is no longer leased under its fence."""

    def update_seats(self, table_id: str, seats: list[dict[str, Any]], fence: Fence | None = None) -> None:
        """Rewrite a table's seat list (stored form), under ``fence`` (:class:`StaleLease` as for
        :meth:`add_moves`)."""

    def update_settings(self, table_id: str, settings: dict[str, Any], fence: Fence | None = None) -> None:
        """Rewrite a table's settings (stored form), under ``fence``."""

    def finish(self, table_id: str, result: dict[str, Any], fence: Fence | None = None) -> None:
        """Mark a table finished with its result, under ``fence``."""

    def load(self, table_id: str) -> TableRecord | None:
        """One table with its moves, or None; raises :class:`UnreadableTable` for a row that cannot be read."""

    def load_all(self, finished: bool | None = None, unreadable: list[tuple[str, str]] | None = None
                 ) -> list[TableRecord]:
        """Every table (or the unfinished / finished ones), oldest first; an unreadable one is left out and
        ``(table id, reason)`` appended to ``unreadable``."""

    def owned(self, owner: str) -> list[str]:
        """The ids of the unfinished tables whose ``owner`` (the digest of the creating browser's key,
        :attr:`TableRecord.owner`) is this one, newest first."""

    def finished_headers(self) -> list[dict[str, Any]]:
        """The newest finished tables, headers only (``{"id", "game", "players", "created", "moves", "names",
        "last_move", "cancelled"}``)."""

    def close(self) -> None:
        """Release the storage's connections."""


class StoreError(Refusal):
    """The store failed a call (database unreachable, disk full, ...); the message names the call (for the log: a
    request it fails is answered HTTP 503 with :attr:`words`)."""

    status = 503
    code = "store_unavailable"
    words = "the table store is not answering; try again"
    private = True
    retry_after = STORE_RETRY_AFTER


class StoreSilent(StoreError):
    """The store did not answer a call within its deadline, or its thread is stuck past another call's (the call
    was not made): a store that is silent, not one that refused; trying again at once does not help."""


class DuplicateMove(Exception):
    """A move's number is stored already for its table: another writer stored that move (nothing was stored).
    Raised by :meth:`TableStorage.add_moves`."""


class LeaseLost(StoreError):
    """A table's write refused because another writer holds the table now: the lease the write carried is no
    longer the table's (:class:`StaleLease`: in a site of several processes, another process took the table's
    lease over, or the lease expired), or its move number was stored already (:class:`DuplicateMove`). Nothing
    of the write was stored; the writer must stop driving the table."""


def _failure(name: object, error: BaseException) -> StoreError:
    """The :class:`StoreError` of the storage's ``error`` in the call ``name``: :class:`LeaseLost` for a write
    another writer fenced off."""
    kind = LeaseLost if isinstance(error, DuplicateMove | StaleLease) else StoreError
    failure = kind(f"{name} failed: {_reason(error)}")
    failure.__cause__ = error
    return failure


def _reason(exc: BaseException) -> str:
    """A store failure in one line: the driver's own error (``sqlite3.OperationalError: database is locked``),
    not SQLAlchemy's several lines with the statement and its parameters."""
    cause = getattr(exc, "orig", None) or exc
    return f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"


class Store:
    """:class:`TableStorage` off the event loop: every call runs in one worker thread, one at a time, in the
    order the calls were made (so a table's writes stay ordered, and SQLite has one writer).

    Moves are written in groups (:meth:`add_move`): while one group is being written, the moves made
    meanwhile wait and go together in the next transaction, so under load the thread does one commit per
    group instead of one per move.

    ``deadline``: seconds an awaited call (:meth:`call`, :meth:`add_move`) may take once the thread begins it
    (None: no bound), see the module's docstring.
    """

    def __init__(self, storage: TableStorage, deadline: float | None = DEADLINE) -> None:
        self.storage = storage
        self.deadline = deadline
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="motley-store")
        self._waiting: list[_Move] = []
        #: The moves being written (the group in the thread), and the timer of :meth:`_watch_moves`.
        self._group: list[_Move] = []
        self._watchdog: asyncio.TimerHandle | None = None
        #: Seat rewrites waiting their turn in the thread, by table and fence (:meth:`store_seats`).
        self._queued_seats: dict[tuple[str, Fence | None], _QueuedSeats] = {}
        self._seats_lock = threading.Lock()
        #: Held while a call begins in the thread or a caller gives up on one that has not (:class:`Call`).
        self._calls_lock = threading.Lock()
        self._writing = False
        #: When (:func:`time.monotonic`) the call under way in the thread began; None: none is.
        self._began: float | None = None
        #: Called on the event loop with a move that was stored after its mover was told it was not (a commit sent
        #: before the deadline and answered after it): the table in memory lacks a stored move (None: nothing
        #: done; the next move at that number is refused as stored already).
        self.stored_late: Callable[[MoveRow], None] | None = None

    def stalled(self) -> float:
        """Seconds by which the call under way in the store's thread has run longer than :attr:`deadline` (0.0: it
        has not, or none is under way, or there is no deadline): a store that does not answer. Awaited calls fail
        at once meanwhile, instead of each waiting out its deadline behind it."""
        began = self._began
        if began is None or self.deadline is None:
            return 0.0
        return max(0.0, time.monotonic() - began - self.deadline)

    def _run(self, seconds: float | None, fn: Callable[[], R], call: Call | None = None) -> R:
        """In the worker thread: ``fn()`` within ``seconds`` from now (:func:`within`; None: no bound), its start
        kept for :meth:`stalled` and in ``call``; not made if everyone waiting for ``call`` gave up."""
        with self._calls_lock:
            if call is not None and call.waiting <= 0:
                raise CallAbandoned("not made: whoever asked for the call gave up before it began")
            began = self._began = time.monotonic()
            if call is not None:
                call.began = began
        try:
            return within(None if seconds is None else began + seconds, fn)
        finally:
            self._began = None

    def _give_up(self, call: Call, seconds: float) -> str | None:
        """Why the caller waiting ``seconds`` for ``call`` gives up now, or None (it waits on): the call began and
        ran past its deadline (the store does not answer it: it is rolled back when it does), or it has not begun
        and the thread is stuck past another call's deadline, or has been busy for :data:`QUEUE_PATIENCE` (the
        caller no longer waits for it: it is not made unless others wait)."""
        now = time.monotonic()
        with self._calls_lock:
            if call.began is not None:
                return f"the store did not answer within {seconds:g} s" if now - call.began > seconds else None
            stalled = self.stalled()
            if stalled <= 0.0 and now - call.submitted <= QUEUE_PATIENCE:
                return None
            call.waiting -= 1
        if stalled > 0.0:
            return f"the store has not answered a call for {stalled:.1f} s past its deadline"
        return f"the store was busy for {QUEUE_PATIENCE:g} s with the calls before it"

    async def _outlast(self, waited: asyncio.Future[R], call: Call, seconds: float, name: object) -> R:
        """``waited``'s result (of ``call``), waited for while the store answers: looked at four times a deadline
        (:meth:`_give_up`).

        Raises:
            StoreSilent: when the caller gives up.
        """
        while True:
            try:
                async with asyncio.timeout(seconds / 4):  # not wait_for: on 3.11 it can swallow a cancellation
                    return await asyncio.shield(waited)
            except TimeoutError:
                why = self._give_up(call, seconds)
                if why is not None:
                    raise StoreSilent(f"{name} failed: {why}") from None

    def _refuse_if_stalled(self, name: object) -> None:
        """Raise :class:`StoreSilent` at once if the store's thread is stuck past a deadline (:meth:`stalled`)."""
        late = self.stalled()
        if late > 0.0:
            raise StoreSilent(f"{name} not made: the store has not answered a call for {late:.1f} s past its "
                              "deadline")

    async def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` (a :class:`TableStorage` method) in the worker thread, within :attr:`deadline`.

        Raises:
            LeaseLost: for a write under a lease that is no longer the table's (:class:`StaleLease`).
            StoreError: whatever else ``fn`` raised, wrapped (the original is its ``__cause__``).
            StoreSilent: the store did not answer within the deadline (the call is rolled back when it does, or
                never made), or its thread is stuck past another call's deadline (the call is not made).
        """
        return await self.call_within(self.deadline, functools.partial(fn, *args, **kwargs),
                                      getattr(fn, "__name__", fn))

    async def call_within(self, seconds: float | None, fn: Callable[[], R], name: object = None) -> R:
        """``fn()`` in the worker thread, given up after ``seconds`` (None: however long it takes, as a start-up's
        read of every table); ``name`` names it in errors. Raises :class:`StoreError` as :meth:`call` does."""
        name = name or getattr(fn, "__name__", fn)
        job, call = self._submit(seconds, fn, name)
        return await self._wait(job, call, seconds, name)

    def _submit(self, seconds: float | None, fn: Callable[[], R], name: object) -> tuple[asyncio.Future[R], Call]:
        """Queue ``fn()`` for the worker thread, to be answered within ``seconds`` of its start (None: whenever).

        Raises:
            StoreSilent: the store's thread is stuck past another call's deadline (the call is not queued).
            StoreError: the store is closed.
        """
        if seconds is not None:
            self._refuse_if_stalled(name)
        call = Call(time.monotonic())
        try:
            job = asyncio.get_running_loop().run_in_executor(self._thread, self._run, seconds, fn, call)
        except RuntimeError as exc:  # the store is closed
            raise _failure(name, exc) from exc
        job.add_done_callback(_retrieved)  # every caller may have given up: their error was theirs to tell
        return job, call

    async def _wait(self, job: asyncio.Future[R], call: Call, seconds: float | None, name: object) -> R:
        """The result of the queued call ``job`` (:meth:`_outlast`; ``seconds`` None: however long it takes). A
        caller that gives up before the call began leaves it to others waiting for it (it is made only if some
        do)."""
        try:
            if seconds is None:
                return await job
            return await self._outlast(job, call, seconds, name)
        except StoreSilent:
            raise
        except Exception as exc:
            raise _failure(name, exc) from exc

    async def add_move(self, row: MoveRow, fence: Fence | None = None) -> None:
        """Store one move (with the moves of other tables made meanwhile) under ``fence`` (the table's lease in a
        site; None: no lease checked); returns once it is committed.

        Raises:
            LeaseLost: if the lease is no longer ``fence``'s or the move's number was stored already (another
                writer drives the table); nothing was stored.
            StoreError: if the move was not stored (the database's error is its ``__cause__``).
            StoreSilent: the store did not answer within :attr:`deadline` (the write is then rolled back when it
                does, or never made).
        """
        if self.deadline is not None:
            self._refuse_if_stalled("add_move")
        loop = asyncio.get_running_loop()
        move = _Move(row, fence, loop.create_future(), time.monotonic())
        self._waiting.append(move)
        if not self._writing:
            self._write_group(loop)
        if self.deadline is not None and self._watchdog is None:
            self._watchdog = loop.call_later(self.deadline / 4, self._watch_moves, loop)
        await move.done  # the mover going away (a driver stopped) cancels it: nobody hears how it went

    def _watch_moves(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the loop, four times a deadline while moves wait (one timer for all of them, not one each): fail
        those whose movers give up (:meth:`_give_up`; a move not handed to the thread yet is judged as a call that
        has not begun) with :class:`StoreSilent`, told apart from a mover that went away (:meth:`_settle`)."""
        self._watchdog = None
        assert self.deadline is not None
        pending = [move for move in self._waiting + self._group if not move.done.done()]
        for move in pending:
            why = self._give_up(move.group or Call(move.submitted), self.deadline)
            if why is not None:
                move.done.set_exception(StoreSilent(f"add_move failed: {why}"))
        if any(not move.done.done() for move in pending):
            self._watchdog = loop.call_later(self.deadline / 4, self._watch_moves, loop)

    def _write_group(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand every waiting move whose mover still waits to the worker thread as one group (one call)."""
        group = [move for move in self._waiting if not move.done.done()]
        self._waiting = []
        if not group:
            return
        self._writing = True
        call = Call(min(move.submitted for move in group), waiting=len(group))
        for move in group:
            move.group = call
        self._group = group
        rows = [(move.row, move.fence) for move in group]
        try:
            job = loop.run_in_executor(self._thread, self._run, self.deadline, functools.partial(self._write, rows),
                                       call)
        except RuntimeError as exc:  # the store is closed
            self._writing = False
            self._settle(group, [exc] * len(group))
            return
        job.add_done_callback(lambda finished: self._written(loop, group, finished))

    def _write(self, rows: list[tuple[MoveRow, Fence | None]]) -> list[Exception | None]:
        """In the worker thread: store ``rows`` (each with its table's fence) in one transaction, or (if that
        fails, or two rows of one table carry different fences) each in its own, so one bad move fails alone.
        Returns each row's error, or None."""
        fences = {row[0]: fence for row, fence in rows if fence is not None}
        if len(rows) == 1 or all(fence is None or fences[row[0]] == fence for row, fence in rows):
            try:
                self._add([row for row, _ in rows], fences)
                return [None] * len(rows)
            except Exception as exc:
                if len(rows) == 1:
                    return [exc]
        errors: list[Exception | None] = []
        for row, fence in rows:
            try:
                self._add([row], {} if fence is None else {row[0]: fence})
                errors.append(None)
            except Exception as exc:
                errors.append(exc)
        return errors

    def _add(self, rows: list[MoveRow], fences: dict[str, Fence]) -> None:
        """``TableStorage.add_moves``, given ``fences`` only where there are some (a storage of one process's
        need not take them)."""
        if fences:
            self.storage.add_moves(rows, fences)
        else:
            self.storage.add_moves(rows)

    def _written(self, loop: asyncio.AbstractEventLoop, group: list[_Move],
                 job: asyncio.Future[list[Exception | None]]) -> None:
        """On the loop: tell each mover of ``group`` how its write went, then write the moves made meanwhile."""
        self._writing = False
        self._group = []
        errors: list[Exception | None] = (job.result() if not job.cancelled() and job.exception() is None
                                          else [RuntimeError("the store was closed")] * len(group))
        self._settle(group, errors)
        if self._waiting:
            self._write_group(loop)

    def _settle(self, group: list[_Move], errors: list[Exception | None]) -> None:
        for move, error in zip(group, errors, strict=True):
            row, done = move.row, move.done
            if done.done():
                if error is None and not done.cancelled() and isinstance(done.exception(), StoreSilent):
                    # its mover was told it failed: its commit was sent before the deadline and answered after it
                    log.error("table %s: move %d stored after its mover was told it was not (the store answered "
                              "its commit late)", row[0], row[1])
                    if self.stored_late is not None:
                        self.stored_late(row)
                continue
            if error is None:
                done.set_result(None)
            else:
                done.set_exception(_failure("add_move", error))

    def later(self, fn: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[Any] | None:
        """``fn(*args, **kwargs)`` (a :class:`TableStorage` method) in the worker thread, after the calls already
        made, without waiting for it (call it on the event loop) and without a deadline (made however late the
        store answers); a failure is logged. Returns the call's future (the storage's own exception, unwrapped),
        for a caller that wants to hear how it went; None if the store is closed (logged)."""
        try:
            job = asyncio.get_running_loop().run_in_executor(self._thread, self._run, None,
                                                             functools.partial(fn, *args, **kwargs))
        except RuntimeError as exc:  # the store is closed
            log.error("store call %s not made: %s", getattr(fn, "__name__", fn), exc)
            return None
        job.add_done_callback(functools.partial(_log_failure, getattr(fn, "__name__", fn)))
        return job

    async def finish(self, table_id: str, result: dict[str, Any], fence: Fence | None = None) -> None:
        """Mark the table finished with ``result`` under ``fence`` (None: no lease checked); returns once it is
        stored.

        Raises:
            LeaseLost: if the table's lease is no longer ``fence``'s. StoreError: if the storage refused it.
        """
        await self.call(self.storage.finish, table_id, result, **fenced(fence))

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]], fence: Fence | None = None) -> None:
        """Rewrite the table's seats (stored form) after the calls already made, under ``fence``; returns once
        they are stored. A rewrite of the same table's seats under the same fence that still waits its turn in
        the thread writes these instead (the newer list, whole), and this call waits for it: a table's people
        connecting at once make one write, not one each.

        Raises:
            LeaseLost: if the table's lease is no longer ``fence``'s. StoreError: if the storage refused it.
            StoreSilent: as for :meth:`call`.
        """
        key = (table_id, fence)
        with self._seats_lock:
            queued = self._queued_seats.get(key)
            if queued is not None:
                queued.seats = seats
        if queued is None:
            queued = _QueuedSeats(seats)

            def write() -> None:
                with self._seats_lock:
                    if self._queued_seats.get(key) is queued:
                        del self._queued_seats[key]
                    latest = queued.seats
                self.storage.update_seats(table_id, latest, **fenced(fence))

            queued.job, queued.call = self._submit(self.deadline, write, "update_seats")
            with self._seats_lock:
                self._queued_seats[key] = queued
        else:
            with self._calls_lock:
                if queued.call is not None:
                    queued.call.waiting += 1
        assert queued.job is not None and queued.call is not None
        await self._wait(queued.job, queued.call, self.deadline, "update_seats")

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """Rewrite the table's seats (stored form) after the calls already made, without waiting (see
        :meth:`later`; a site's table writes them under its lease, ``FencedLog``)."""
        self.later(self.storage.update_seats, table_id, seats)

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        """Rewrite the table's settings (stored form) after the calls already made, without waiting (see
        :meth:`later`; a site's table writes them under its lease, ``FencedLog``)."""
        self.later(self.storage.update_settings, table_id, settings)

    def close(self) -> None:
        """Wait for the calls already made, then release the connection pool."""
        self._thread.shutdown(wait=True)
        self.storage.close()


class _QueuedSeats:
    """A rewrite of one table's seats waiting its turn in the store's thread: the list it will write (the newest
    asked for) and its job."""

    def __init__(self, seats: list[dict[str, Any]]) -> None:
        self.seats = seats
        self.job: asyncio.Future[None] | None = None
        self.call: Call | None = None


class _Move:
    """A move waiting to be written: its row and fence, the future its mover awaits, when it was asked for, and
    the call of the group it is written in (None until the group is handed to the thread)."""

    __slots__ = ("done", "fence", "group", "row", "submitted")

    def __init__(self, row: MoveRow, fence: Fence | None, done: asyncio.Future[None], submitted: float) -> None:
        self.row = row
        self.fence = fence
        self.done = done
        self.submitted = submitted
        self.group: Call | None = None


def _retrieved(job: asyncio.Future[Any]) -> None:
    """Mark a finished call's error as heard (its callers told theirs, or gave up before it ended)."""
    if not job.cancelled():
        job.exception()


def _log_failure(name: object, job: asyncio.Future[Any]) -> None:
    """Log the error of a store call nobody waits for (:meth:`Store.later`)."""
    if not job.cancelled() and job.exception() is not None:
        log.error("store call %s failed: %s", name, job.exception())


def fenced(fence: Fence | None) -> dict[str, Any]:
    """The keyword of a write's ``fence``, only where there is one (a storage of one process's need not take
    it)."""
    return {} if fence is None else {"fence": fence}
