"""Tables in play: storage, bots, timers and one driver task per table, around the pure tables.

The server is the only authority. Every move goes the same way (:meth:`LiveTable.play`): the pure
:class:`~motley.server.table.Table` checks it, the :class:`Store` writes it to the event log in its worker
thread (the event loop never waits on the database), and only then does the table apply it and every
connected viewer get its own message. A move is never applied twice (one lock per table, the version
checked under it); a move that cannot be stored is not applied, and a person who made it gets an error.

A driver task per table (:meth:`LiveTable.run`) plays the bot seats, and plays for a human seat whose move
timer ran out or who has been disconnected longer than the grace time; the person takes over again simply
by moving (or reconnecting).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, Protocol, TypeVar

from motley.bots import Bot, make_bot
from motley.core import Game, MotleyError, load_game
from motley.core.options import check_served
from motley.core.play import choose
from motley.core.registry import game_class
from motley.server import protocol
from motley.server.limits import IDLE_CLOSE
from motley.server.storage import Storage, UnreadableTable
from motley.server.table import Finished, Move, Seat, SeatRefused, Settings, Table, TableRecord, new_token
from motley.server.thinking import Thinkers

log = logging.getLogger("motley.server")

#: Bot kinds fast enough to run in the event loop; any other kind runs in a worker thread.
FAST_BOTS = ("random", "heuristic")
#: Seconds a finished table stays in memory after its last viewer leaves.
FINISHED_TTL = 600.0
#: Seconds a driver waits before trying again after the store refused one of its moves.
STORE_RETRY = 1.0
#: The most ISMCTS simulations per move a web table's bot may use (a search of a few seconds at most).
MAX_SIMULATIONS = 5000
#: The ``result`` stored for a table cancelled for being idle (:meth:`Service.cancel`).
CANCELLED = "cancelled"
#: Least seconds between two ``seats`` messages of one table (connects and disconnects meanwhile share one).
SEATS_INTERVAL = 0.2

P = ParamSpec("P")
R = TypeVar("R")


class Connection(Protocol):
    """A viewer of a table: a seat (``seat`` 0..N-1) or a spectator (``seat`` None)."""

    seat: int | None

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (a JSON-able dict) for the viewer; never blocks."""


class StoreError(Exception):
    """The store failed a call (database unreachable, disk full, ...); the message names the call."""


def _reason(exc: BaseException) -> str:
    """A store failure in one line: the driver's own error (``sqlite3.OperationalError: database is locked``),
    not SQLAlchemy's several lines with the statement and its parameters."""
    cause = getattr(exc, "orig", None) or exc
    return f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"


#: A move as stored: ``(table_id, number, seat, move string, actor)``.
MoveRow = tuple[str, int, int, str, str]


class Store:
    """:class:`Storage` off the event loop: every call runs in one worker thread, one at a time, in the order
    the calls were made (so a table's writes stay ordered, and SQLite has one writer).

    Moves are written in groups (:meth:`add_move`): while one group is being written, the moves made
    meanwhile wait and go together in the next transaction, so under load the thread does one commit per
    group instead of one per move.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="motley-store")
        self._waiting: list[tuple[MoveRow, asyncio.Future[None]]] = []
        self._writing = False

    async def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` (a Storage method) in the worker thread.

        Raises:
            StoreError: whatever ``fn`` raised, wrapped (the original is its ``__cause__``).
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, functools.partial(fn, *args, **kwargs))
        except Exception as exc:
            raise StoreError(f"{getattr(fn, '__name__', fn)} failed: {_reason(exc)}") from exc

    async def add_move(self, row: MoveRow) -> None:
        """Store one move (with the moves of other tables made meanwhile); returns once it is committed.

        Raises:
            StoreError: if the move was not stored (the database's error is its ``__cause__``).
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._waiting.append((row, done))
        if not self._writing:
            self._write_group(loop)
        await done

    def _write_group(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand every waiting move to the worker thread as one group."""
        group, self._waiting = self._waiting, []
        self._writing = True
        try:
            job = loop.run_in_executor(self._thread, self._write, [row for row, _ in group])
        except RuntimeError as exc:  # the store is closed
            self._writing = False
            self._settle(group, [exc] * len(group))
            return
        job.add_done_callback(lambda finished: self._written(loop, group, finished))

    def _write(self, rows: list[MoveRow]) -> list[Exception | None]:
        """In the worker thread: store ``rows`` in one transaction, or (if that fails) each in its own, so one
        bad move fails alone. Returns each row's error, or None."""
        try:
            self.storage.add_moves(rows)
            return [None] * len(rows)
        except Exception as exc:
            if len(rows) == 1:
                return [exc]
        errors: list[Exception | None] = []
        for row in rows:
            try:
                self.storage.add_moves([row])
                errors.append(None)
            except Exception as exc:
                errors.append(exc)
        return errors

    def _written(self, loop: asyncio.AbstractEventLoop, group: list[tuple[MoveRow, asyncio.Future[None]]],
                 job: asyncio.Future[list[Exception | None]]) -> None:
        """On the loop: tell each mover of ``group`` how its write went, then write the moves made meanwhile."""
        self._writing = False
        errors: list[Exception | None] = (job.result() if not job.cancelled() and job.exception() is None
                                          else [RuntimeError("the store was closed")] * len(group))
        self._settle(group, errors)
        if self._waiting:
            self._write_group(loop)

    @staticmethod
    def _settle(group: list[tuple[MoveRow, asyncio.Future[None]]], errors: list[Exception | None]) -> None:
        for (_, done), error in zip(group, errors, strict=True):
            if done.done():
                continue
            if error is None:
                done.set_result(None)
            else:
                failure = StoreError(f"add_move failed: {_reason(error)}")
                failure.__cause__ = error
                done.set_exception(failure)

    def later(self, fn: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> None:
        """``fn(*args, **kwargs)`` (a Storage method) in the worker thread, after the calls already made, without
        waiting for it (call it on the event loop); a failure is logged."""
        try:
            job = asyncio.get_running_loop().run_in_executor(self._thread, functools.partial(fn, *args, **kwargs))
        except RuntimeError as exc:  # the store is closed
            log.error("store call %s not made: %s", getattr(fn, "__name__", fn), exc)
            return
        job.add_done_callback(functools.partial(_log_failure, getattr(fn, "__name__", fn)))

    def close(self) -> None:
        """Wait for the calls already made, then release the connection pool."""
        self._thread.shutdown(wait=True)
        self.storage.close()


def _log_failure(name: object, job: asyncio.Future[Any]) -> None:
    """Log the error of a store call nobody waits for (:meth:`Store.later`)."""
    if not job.cancelled() and job.exception() is not None:
        log.error("store call %s failed: %s", name, job.exception())


@dataclass
class Presence:
    """Who is at a seat: its open connections, and since when (clock time) none, if its person had connected
    (the seat's ``Seat.ever_connected``)."""

    connections: list[Connection] = field(default_factory=list)
    away_since: float | None = None


class LiveTable:
    """A table in play: the pure :class:`Table`, its viewers, its turn clock, its bots and its driver.

    ``clock``: the clock of the timers (seconds, :func:`time.monotonic`); ``wall``: the wall clock (seconds
    since the epoch, :func:`time.time`), read once here to carry the stored start of the current turn over to
    ``clock``: a table rebuilt after a restart keeps the time its seat had left. A person seat that had
    connected before (stored) counts as gone since now, so its stand-in plays once the grace time is over
    unless the person reconnects. ``thinkers``: the worker processes where bots that search think.
    """

    def __init__(self, table: Table, store: Store, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, thinkers: Thinkers | None = None) -> None:
        self.table = table
        self.store = store
        self.clock = clock
        self.wall = wall
        self.thinkers = thinkers
        now = clock()
        self.presence = [Presence(away_since=now if seat.kind == "human" and seat.ever_connected else None)
                         for seat in table.seats]
        self.spectators: list[Connection] = []
        self.bots: dict[int, Bot] = {}
        self.rng = random.Random(table.record.seed)
        self.turn_started = now - max(0.0, wall() - table.record.turn_began())
        self.retry_at = 0.0
        self.rematch: Table | None = None
        self.changed = asyncio.Event()
        self.lock = asyncio.Lock()
        self.closed = False
        self.seats_interval = SEATS_INTERVAL
        self._seats_due: asyncio.TimerHandle | None = None
        self._seats_sent = float("-inf")
        #: Clock time of the last move, connection or disconnection (:meth:`idle_for`).
        self.touched = now

    @property
    def id(self) -> str:
        """The table's id."""
        return self.table.id

    # ---- viewers ----------------------------------------------------------------------------
    def attach(self, conn: Connection) -> None:
        """Add a viewer and send it the table as it is now (with the table's params and settings)."""
        if conn.seat is None:
            self.spectators.append(conn)
        else:
            seat = self.presence[conn.seat]
            seat.connections.append(conn)
            seat.away_since = None
            self._connected(conn.seat)
        self.touched = self.clock()
        first = self.table.message(conn.seat, self.shared())
        first.update(params=self.table.game.params, settings=self.table.settings.as_dict(),
                     commitment=self.table.commitment)
        conn.send(first)
        if self.rematch is not None:
            conn.send(self.rematch_message(conn.seat))
        self._wake()
        self._seats_changed()

    def _connected(self, seat: int) -> None:
        """Note (and store, without waiting) that the person of ``seat`` has connected, the first time."""
        if not self.table.seats[seat].ever_connected:
            self.table.seats[seat].ever_connected = True
            self.store.later(self.store.storage.update_seats, self.id, [s.stored() for s in self.table.seats])

    def detach(self, conn: Connection) -> None:
        """Remove a viewer; a seat left without connections starts its grace time."""
        if conn.seat is None:
            with contextlib.suppress(ValueError):
                self.spectators.remove(conn)
        else:
            seat = self.presence[conn.seat]
            with contextlib.suppress(ValueError):
                seat.connections.remove(conn)
            if not seat.connections:
                seat.away_since = self.clock()
        self.touched = self.clock()
        self._wake()
        self._seats_changed()

    def idle_for(self) -> float:
        """Seconds since the last move, connection or disconnection while nobody is connected; 0 while
        someone (a seat or a spectator) is."""
        return 0.0 if self.viewers() else max(0.0, self.clock() - self.touched)

    def viewers(self) -> list[Connection]:
        """Every connection: the seats' and the spectators'."""
        return [c for seat in self.presence for c in seat.connections] + list(self.spectators)

    def is_away(self, seat: int) -> bool:
        """Is a human seat disconnected for longer than the grace time (so its bot plays)?"""
        p, s = self.presence[seat], self.table.seats[seat]
        return (s.kind == "human" and s.ever_connected and not p.connections
                and p.away_since is not None and self.clock() - p.away_since >= self.table.settings.grace)

    def seat_info(self) -> list[dict[str, Any]]:
        """Public facts about every seat, with who is connected and who is away (never a token)."""
        return self.table.seat_info([bool(p.connections) for p in self.presence],
                                    [self.is_away(i) for i in range(len(self.presence))])

    def shared(self) -> dict[str, Any]:
        """The viewer-independent part of a ``state`` message now (``deadline``: seconds left, or None;
        ``waiting_for``: :meth:`waiting_for`)."""
        move_time = self.table.settings.move_time
        deadline = max(0.0, self.turn_started + move_time - self.clock()) if move_time else None
        shared = self.table.shared(self.seat_info(), deadline)
        shared["waiting_for"] = self.waiting_for()
        return shared

    def waiting_for(self) -> list[int]:
        """The person seats the bots still wait for (never connected), while the table's ``wait_for_people``
        holds (a person at the table pressing Start turns it off, stored); empty once the bots may move."""
        if not self.table.settings.wait_for_people or self.table.state.is_terminal():
            return []
        return [i for i, s in enumerate(self.table.seats) if s.kind == "human" and not s.ever_connected]

    def rematch_message(self, seat: int | None) -> dict[str, Any]:
        """``{"type": "rematch", "table", "link"}``: where the viewer of ``seat`` plays (or, None, watches) the
        rematch of this table (:attr:`rematch`, which must be set): a person seat's own new seat link."""
        assert self.rematch is not None
        new = self.rematch
        token = new.seats[seat].token if seat is not None else None
        return {"type": "rematch", "table": new.id,
                "link": f"/table/{new.id}?token={token}" if token else f"/table/{new.id}"}

    def announce_rematch(self, new: Table) -> None:
        """Remember the rematch ``new`` and send every viewer its own link to it (see :meth:`rematch_message`)."""
        self.rematch = new
        for conn in self.viewers():
            conn.send(self.rematch_message(conn.seat))

    def start(self, conn: Connection) -> None:
        """A person at the table starts the match without waiting for the others to connect: the bots move.

        Raises:
            protocol.ProtocolError: ``spectator`` for a spectator's connection; nothing changes.
        """
        if conn.seat is None:
            raise protocol.ProtocolError("spectator", "spectators cannot start the match")
        settings = self.table.settings
        if settings.wait_for_people:
            settings.wait_for_people = False  # stored, so a restarted server does not wait again
            self.store.later(self.store.storage.update_settings, self.id, settings.as_dict())
            self.broadcast()
            self._wake()

    def broadcast(self) -> None:
        """Send every viewer its own message for the current version (built once per seat)."""
        shared = self.shared()
        for seat, presence in enumerate(self.presence):
            if presence.connections:
                message = self.table.message(seat, shared)
                for conn in presence.connections:
                    conn.send(message)
        if self.spectators:
            message = self.table.message(None, shared)
            for conn in self.spectators:
                conn.send(message)

    def _seats_changed(self) -> None:
        """Someone connected or left: one ``seats`` message goes to every viewer on a later turn of the event
        loop, at least :attr:`seats_interval` seconds after the previous one; the changes meanwhile share it
        (so K connects cost O(K) messages, not one to every viewer per connect)."""
        if self._seats_due is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._seats_sent + self.seats_interval - loop.time())
        self._seats_due = loop.call_later(delay, self._send_seats_update)

    def _send_seats_update(self) -> None:
        """Send every viewer the seats as they are now (see :meth:`_seats_changed`)."""
        self._seats_due = None
        self._seats_sent = asyncio.get_running_loop().time()
        info = {"type": "seats", "version": self.table.version, "seats": self.seat_info()}
        for conn in self.viewers():
            conn.send(info)

    # ---- moves ------------------------------------------------------------------------------
    async def submit(self, conn: Connection, text: Any) -> None:
        """Handle one raw client message from ``conn``: a move is stored, applied and broadcast; anything
        wrong (including a move the store refused) is answered with an error message, and changes nothing."""
        try:
            msg = protocol.parse(text)
            if msg.kind == "ping":
                conn.send({"type": "pong", "version": self.table.version})
                return
            if msg.kind == "start":
                self.start(conn)
                return
            if msg.kind == "why":
                if conn.seat is None:
                    raise protocol.ProtocolError("spectator", "spectators cannot move")
                conn.send({"type": "why", "version": self.table.version, "move": msg.move,
                           "reason": self.table.why(conn.seat, msg.move or "")})
                return
            if conn.seat is None:
                raise protocol.ProtocolError("spectator", "spectators cannot move")
            if msg.seat is not None and msg.seat != conn.seat:
                raise protocol.ProtocolError("wrong_seat", f"this connection plays seat {conn.seat} only")
            async with self.lock:
                await self.play(self.table.check(conn.seat, msg))
        except StoreError:
            conn.send(protocol.error(self.table.version, "not_stored",
                                     "the move could not be stored, so it was not played; try again"))
        except protocol.ProtocolError as exc:
            conn.send(protocol.error(self.table.version, exc.code, exc.message))

    async def play(self, move: Move) -> None:
        """Store ``move``, then apply it and tell every viewer. The caller holds :attr:`lock` and made
        ``move`` under it (so the version it was checked at is still the table's).

        Raises:
            StoreError: if the store refused the move; nothing is applied.
        """
        try:
            await self.store.add_move((self.id, move.number, move.seat, move.text, move.actor))
        except StoreError as exc:
            log.error("table %s: move %d (%r) not stored, not played: %s", self.id, move.number, move.text, exc)
            raise
        events = self.table.apply(move)
        self.turn_started = self.touched = self.clock()
        self.table.record.moved_at = self.wall()
        for event in events:
            if isinstance(event, Finished):
                await self._store_result(event.result)
        self.broadcast()
        self._wake()

    async def _store_result(self, result: dict[str, Any]) -> None:
        """Mark the table finished in the store; a failure is logged (the moves are stored, so the table
        still replays to its end)."""
        try:
            await self.store.call(self.store.storage.finish, self.id, result)
        except StoreError as exc:
            log.error("table %s: result not stored: %s", self.id, exc)

    # ---- the driver: bots, timers, disconnected seats -----------------------------------------
    def _wake(self) -> None:
        self.changed.set()

    def next_auto(self) -> tuple[float, str] | None:
        """When (clock time) and why a bot should move next: ``"bot"``, ``"timer"`` or ``"away"``; None if never."""
        state = self.table.state
        if state.is_terminal() or self.closed:
            return None
        p = state.current_player()
        seat, presence, settings = self.table.seats[p], self.presence[p], self.table.settings
        start = self.turn_started
        options: list[tuple[float, str]] = []
        if seat.kind == "bot" and not self.waiting_for():
            options.append((start + settings.bot_delay, "bot"))
        else:
            if settings.move_time:
                options.append((start + settings.move_time, "timer"))
            if seat.ever_connected and not presence.connections and presence.away_since is not None:
                options.append((max(presence.away_since + settings.grace, start + settings.bot_delay), "away"))
        if not options:
            return None
        when, reason = min(options)
        return max(when, self.retry_at), reason

    def bot_for(self, seat: int) -> Bot:
        """The bot that plays ``seat`` (its own, or a human seat's stand-in), made once."""
        if seat not in self.bots:
            self.bots[seat] = make_bot(self.table.seats[seat].bot, self.table.game)
        return self.bots[seat]

    async def auto_move(self, reason: str) -> None:
        """Let the seat's bot choose the move of the seat to move, and play it if nobody moved meanwhile.

        The bot draws from ``random.Random(f"{seed}-{version}")``. A fast bot (:data:`FAST_BOTS`) moves in the
        event loop; any other bot thinks in a worker process of :attr:`thinkers` (from the seat's observation
        only), or, without thinkers, in a worker thread on a clone of the state. A forced move (one legal
        action) is played without thinking.

        Raises:
            MotleyError: if the bot fails or chooses an illegal move. StoreError: if the store refused the move.
        """
        table, state = self.table, self.table.state
        seat, version = state.current_player(), table.version
        spec, seed = table.seats[seat].bot, f"{table.record.seed}-{version}"
        if spec.split("(")[0].strip().lower() in FAST_BOTS:
            action = choose(state, self.bot_for(seat), random.Random(seed), skip_forced=False)
        elif len(legal := state.legal_actions()) == 1:  # a search bot's legal list, built only for it
            action = legal[0]
        elif self.thinkers is not None:
            action = await self.thinkers.choose(table.game.name, table.game.params, spec, state.observation(seat),
                                                legal, seed)
        else:
            action = await asyncio.to_thread(choose, state.clone(), self.bot_for(seat), random.Random(seed), False)
        await self._play_auto(seat, version, action, "bot" if reason == "bot" else reason)

    async def random_move(self, reason: str) -> None:
        """Play a uniformly random legal move for the seat to move (a bot that failed).

        Raises:
            StoreError: if the store refused the move.
        """
        state = self.table.state
        legal = state.legal_actions()
        await self._play_auto(state.current_player(), self.table.version, legal[self.rng.randrange(len(legal))],
                              reason)

    async def _play_auto(self, seat: int, version: int, action: int, actor: str) -> None:
        async with self.lock:
            if self.table.version == version and not self.closed:  # nobody moved while the bot thought
                await self.play(self.table.prepare(seat, action, actor))

    async def run(self) -> None:
        """The driver loop: sleep until the next automatic move is due (or something changes), then play it."""
        while not self.closed and not self.table.state.is_terminal():
            due = self.next_auto()
            self.changed.clear()
            timeout = None if due is None else max(0.0, due[0] - self.clock())
            if timeout is None or timeout > 0:
                try:
                    await asyncio.wait_for(self.changed.wait(), timeout)
                    continue
                except TimeoutError:
                    pass
            due = self.next_auto()
            if due is not None and due[0] <= self.clock() + 1e-3:
                await self._drive(due[1])
                await asyncio.sleep(0)  # between automatic moves, every other task and request gets its turn

    async def _drive(self, reason: str) -> None:
        """One automatic move; a broken bot never stalls a table, a refused write is tried again later (the
        store's refusal is logged by :meth:`play`), and any other failure is logged and tried again later:
        the driver itself never stops before the match ends."""
        try:
            try:
                await self.auto_move(reason)
            except (MotleyError, ValueError, RuntimeError, OSError) as exc:
                log.warning("table %s: bot of seat %s failed (%s); playing a random move", self.id,
                            self.table.state.current_player(), exc)
                await self.random_move(reason)
        except StoreError:
            self.retry_at = self.clock() + STORE_RETRY
        except Exception:
            log.exception("table %s: automatic move failed; trying again in %.0f s", self.id, STORE_RETRY)
            self.retry_at = self.clock() + STORE_RETRY
        else:
            if self.retry_at:
                log.info("table %s: automatic moves go on", self.id)
            self.retry_at = 0.0


# ---- every table of the server ----------------------------------------------------------------------
class Service:
    """Every table of the server: the running ones in memory (with their driver tasks), all in the store.

    ``storage``: the event-log store (closed by :meth:`close`); ``defaults``: settings of new tables;
    ``thinkers``: where bots that search think (default: :class:`Thinkers` with one worker process per core
    but one). ``idle_close``: seconds an unfinished table may sit without a move and without a viewer before
    :meth:`tidy` cancels it (None: never); ``clock`` / ``wall``: the clocks of the tables' timers and of
    :meth:`listed_finished` (see :class:`LiveTable`; tests inject their own).
    """

    def __init__(self, storage: Storage, defaults: Settings, thinkers: Thinkers | None = None, *,
                 idle_close: float | None = IDLE_CLOSE, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.store = Store(storage)
        self.defaults = defaults
        self.thinkers = thinkers or Thinkers()
        self.idle_close = idle_close
        self.clock = clock
        self.wall = wall
        self.tables: dict[str, LiveTable] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    async def resume(self) -> int:
        """Rebuild every unfinished table from its event log and start its driver; returns how many.

        A table whose stored row cannot be read, or whose log does not replay (a changed rule, a damaged
        row), is logged with its id and the reason and left stored, unserved; the others resume.

        Raises:
            StoreError: if the store cannot be read at all.
        """
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
        return LiveTable(table, self.store, self.clock, self.wall, thinkers=self.thinkers)

    def start(self, live: LiveTable) -> None:
        """Start the table's driver task; once the match is over the table leaves memory (it stays stored)."""
        if not live.table.state.is_terminal():
            loop = asyncio.get_running_loop()
            task = loop.create_task(live.run())
            self.tasks[live.id] = task
            task.add_done_callback(lambda _t: loop.call_later(FINISHED_TTL, self.evict, live.id))

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

    async def create(self, spec: Any, seed: int | None = None) -> LiveTable:
        """A new table from a lobby request (see :func:`new_record`), stored and started.

        ``seed``: for tests and tools calling this in Python only (the web never passes one): the match's
        seed; None (always, from the web) draws it with :class:`random.SystemRandom`.

        Raises:
            MotleyError: naming the bad field of ``spec``. StoreError: if the store refused the table.
        """
        record = new_record(spec, self.defaults, seed)
        live = LiveTable(Table(record), self.store, self.clock, self.wall, thinkers=self.thinkers)
        await self.store.call(self.store.storage.create_table, record)
        self.tables[live.id] = live
        self.start(live)
        return live

    async def rematch(self, live: LiveTable, token: str) -> LiveTable:
        """The rematch of a finished table, made once (asked again, the same one): a new table with the same
        game options, settings, names, bots and open seats (:func:`rematch_record`), stored and started; every
        viewer of the old table is sent its own link to it (:meth:`LiveTable.announce_rematch`).

        Raises:
            SeatRefused: for a ``token`` that is no seat's of the table, or a match that is not over; nothing
                changes. StoreError: if the store refused the new table.
        """
        if live.table.seat_of_token(token) is None:
            raise SeatRefused("only a person at the table may ask for a rematch (this link's token is not valid)")
        if not live.table.state.is_terminal():
            raise SeatRefused("the match is not over")
        async with live.lock:
            if live.rematch is not None:
                known = await self.get(live.rematch.id)
                if known is not None:
                    return known
            record = rematch_record(live.table, self.defaults)
            new = LiveTable(Table(record), self.store, thinkers=self.thinkers)
            await self.store.call(self.store.storage.create_table, record)
            self.tables[new.id] = new
            self.start(new)
            live.announce_rematch(new.table)
            return new

    async def get(self, table_id: str) -> LiveTable | None:
        """A table by id: running, or loaded from the store (a finished one is not kept, an unfinished one is
        started); None if there is none, its stored row cannot be read or its log no longer replays.

        Raises:
            StoreError: if the store cannot be read.
        """
        live = self.tables.get(table_id)
        if live is not None or len(table_id) > 32:
            return live
        try:
            record = await self.store.call(self.store.storage.load, table_id)
        except StoreError as exc:
            if not isinstance(exc.__cause__, UnreadableTable):
                raise
            log.error("table %s cannot be served: %s", table_id, exc.__cause__)
            return None
        if record is None:
            return None
        live = self.tables.get(table_id)  # loaded by another request meanwhile
        if live is not None:
            return live
        try:
            rebuilt = await self._rebuild(record)
        except Exception as exc:  # a log that does not replay, a damaged row: no table to serve
            log.error("table %s cannot be served: %s", table_id, exc)
            return None
        live = self.tables.get(table_id)  # loaded by another request, or resumed, meanwhile
        if live is not None:
            return live
        if record.finished and not rebuilt.table.state.is_terminal():  # cancelled (:meth:`cancel`): never driven
            rebuilt.closed = True
        elif not rebuilt.table.state.is_terminal():
            self.tables[rebuilt.id] = rebuilt
            self.start(rebuilt)
        return rebuilt

    async def join(self, live: LiveTable, seat: int | None = None) -> int:
        """Claim an open seat of ``live`` for someone in the lobby (``seat``, or None: the first open one) and
        store the seats; returns the seat, whose fresh token (:meth:`Table.claim`) is now its only one.

        Raises:
            SeatRefused: saying why (the match is over, the seat is by invitation, already claimed, ...);
                nothing changes. StoreError: if the store refused the change (the seat stays open, with its
                invite token).
        """
        table = live.table
        before = [replace(s) for s in table.seats]
        claimed = table.claim(seat)
        try:
            await self.store.call(self.store.storage.update_seats, live.id, [s.stored() for s in table.seats])
        except StoreError:
            table.seats[claimed] = before[claimed]
            # a first connection stored meanwhile wrote the claim too: write the seats as they are again
            self.store.later(self.store.storage.update_seats, live.id, [s.stored() for s in table.seats])
            raise
        return claimed

    async def finished_headers(self) -> list[dict[str, Any]]:
        """The newest finished tables in the store (``Storage.finished_headers``).

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
        headers = await self.finished_headers()
        oldest = None if self.idle_close is None else self.wall() - self.idle_close
        return [h for h in headers if not h.get("cancelled")
                and (oldest is None or (h.get("last_move") or h["created"]) >= oldest)]

    async def cancel(self, live: LiveTable, reason: str) -> None:
        """End an unfinished table without a result: its driver stops, it leaves :attr:`tables`, and it is
        stored as finished with ``{"cancelled": True, "reason": reason}`` (so it is never resumed; its moves
        stay). Viewers still connected get nothing more.

        Raises:
            StoreError: if the store refused the change; the table then stays as it was (running).
        """
        await self.store.call(self.store.storage.finish, live.id, {CANCELLED: True, "reason": reason})
        live.closed = True
        live.changed.set()
        self.tables.pop(live.id, None)
        task = self.tasks.pop(live.id, None)
        if task is not None:
            task.cancel()
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

    async def close(self) -> None:
        """Stop every driver task, wait for the writes already made, and close the store."""
        for live in self.tables.values():
            live.closed = True
            live.changed.set()
        for task in self.tasks.values():
            task.cancel()
        for task in self.tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.thinkers.close()
        await asyncio.to_thread(self.store.close)


# ---- creating tables -------------------------------------------------------------------------------
def bot_spec(kind: Any, strength: Any) -> str:
    """A safe bot spec from lobby input: ``random``, ``heuristic``, ``best`` (the game's strongest bot, a search
    within one second per move) or ``ismcts`` with a strength.

    Raises:
        MotleyError: for any other kind (programs, i.e. external bots, never come from the web), or an
            ISMCTS strength that is not a whole number in 10..:data:`MAX_SIMULATIONS`.
    """
    if kind == "random":
        return "random"
    if kind in ("heuristic", "best"):
        return str(kind)
    if kind == "ismcts":
        sims = 300 if strength is None else strength
        if isinstance(sims, bool) or not isinstance(sims, int) or not 10 <= sims <= MAX_SIMULATIONS:
            raise MotleyError(f"ISMCTS strength (simulations per move) must be 10..{MAX_SIMULATIONS}")
        return f"ismcts(simulations={sims})"
    raise MotleyError(f"unknown bot {kind!r}; the bots are random, heuristic, ismcts and best")


def stand_in(game_name: str) -> str:
    """The bot that plays a human seat's moves on a timeout or a long disconnect: ``heuristic`` if the game
    has one, else ``random``."""
    try:
        make_bot("heuristic", load_game(game_name))
        return "heuristic"
    except MotleyError:
        return "random"


def new_record(spec: Any, defaults: Settings, seed: int | None = None) -> TableRecord:
    """Check a table request from the lobby and make its record (tokens and the seed drawn here).

    ``spec``: ``{"game", "players", "options": {...}, "seats": [{"kind": "human"|"bot", "bot", "strength",
    "name", "open"}], "move_time", "grace", "bot_delay", "wait_for_people"}``; missing fields take
    defaults. A request never chooses the seed (whoever knew it could predict every hand): a ``seed`` field
    is refused. ``seed`` (the argument,
    for tests and tools in Python only) fixes it; None draws it with :class:`random.SystemRandom`.

    Raises:
        MotleyError: naming the bad field (unknown game or option, bad value, bad seat list or bot, a
            ``seed`` field).
    """
    if not isinstance(spec, dict):
        raise MotleyError("a table request is a JSON object")
    if "seed" in spec:
        raise MotleyError("'seed' cannot be set: the server draws every table's seed, and reveals it in the "
                          "record when the match ends")
    name = spec.get("game")
    if not isinstance(name, str):
        raise MotleyError("'game' must be a game name")
    cls = game_class(name)
    options = spec.get("options") or {}
    if not isinstance(options, dict):
        raise MotleyError("'options' must be an object")
    params = dict(options)
    if spec.get("players") is not None:
        params["players"] = spec["players"]
    game = load_game(name, **params)
    check_served(game.options, game.params)
    seats = _seats(spec.get("seats"), game, cls.title)
    settings = _settings(spec, defaults)
    return TableRecord(id=secrets.token_hex(6), game=name, params=game.params, seed=_seed(seed),
                       seats=seats, settings=settings.as_dict(), created=time.time())


def rematch_record(table: Table, defaults: Settings) -> TableRecord:
    """A new table record for the rematch of ``table``: the same game and options, settings (the bots wait for
    the people again, even if Start was pressed at the old table), person names and open flags, and the same
    bots (their specs and names); fresh tokens, id and seed.

    Raises:
        MotleyError: if the old table's options are no longer accepted (a server whose limits changed).
    """
    seats = [{"kind": "human", "name": s.name, "open": s.open} if s.kind == "human"
             else {"kind": "bot", "bot": "random"} for s in table.seats]
    record = new_record({"game": table.game.name, "options": dict(table.game.params), "seats": seats,
                         **table.settings.as_dict(), "wait_for_people": defaults.wait_for_people}, defaults)
    for stored, old in zip(record.seats, table.seats, strict=True):
        if old.kind == "bot":
            stored.update(bot=old.bot, name=old.name)
    return record


def _seats(seats_in: Any, game: Game, title: str) -> list[dict[str, Any]]:
    """The stored seat list from the lobby's ``seats`` (default: one person, heuristic bots); tokens are
    drawn here for the human seats. A person seat's ``open`` (default false): true lets anyone in the lobby
    claim it (:meth:`Table.claim`), false keeps it to its invite link.

    Raises:
        MotleyError: for a list that is not one entry per seat, or a bad seat, bot or ``open`` value.
    """
    n = game.num_players
    if seats_in is None:
        seats_in = [{"kind": "human"}] + [{"kind": "bot", "bot": "heuristic"}] * (n - 1)
    if not isinstance(seats_in, list) or len(seats_in) != n:
        raise MotleyError(f"'seats' must list the {n} seats of {title}")
    seats = []
    substitute = stand_in(game.name)
    for i, s in enumerate(seats_in):
        if not isinstance(s, dict) or s.get("kind") not in ("human", "bot"):
            raise MotleyError(f"seat {i} must be {{'kind': 'human'}} or {{'kind': 'bot', 'bot': ...}}")
        label, is_open = s.get("name"), s.get("open", False)
        if not isinstance(is_open, bool) or (is_open and s["kind"] != "human"):
            raise MotleyError(f"seat {i}: 'open' must be true or false, and true only for a person seat")
        if s["kind"] == "human":
            label = label if isinstance(label, str) and label.strip() else f"Player {i + 1}"
            seats.append(Seat(kind="human", bot=substitute, name=label[:30], token=new_token(),
                              open=is_open).stored())
        else:
            spec_text = bot_spec(s.get("bot", "heuristic"), s.get("strength"))
            make_bot(spec_text, game)  # raises for a game without a heuristic bot
            seats.append(Seat(kind="bot", bot=spec_text, name="", claimed=True).stored())
    return bot_names(seats)


def bot_names(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``seats`` (stored form) with each bot seat named by its kind, "Bot (heuristic)"; when several bots share
    a kind they are told apart by number, "Bot 2 (heuristic)", "Bot 3 (heuristic)" (the seat's number from 1)."""
    kinds = [s["bot"].split("(")[0] for s in seats if s["kind"] == "bot"]
    for i, seat in enumerate(seats):
        if seat["kind"] == "bot":
            kind = seat["bot"].split("(")[0]
            seat["name"] = f"Bot ({kind})" if kinds.count(kind) == 1 else f"Bot {i + 1} ({kind})"
    return seats


def _settings(spec: dict[str, Any], defaults: Settings) -> Settings:
    """The table's settings: ``spec``'s ``move_time`` (None: no timer), ``grace`` and ``bot_delay``, else the
    defaults.

    Raises:
        MotleyError: for a value that is not a number of seconds in its range.
    """
    settings = Settings(defaults.move_time, defaults.grace, defaults.bot_delay, defaults.wait_for_people)
    wait = spec.get("wait_for_people", defaults.wait_for_people)
    if not isinstance(wait, bool):
        raise MotleyError("'wait_for_people' must be true or false")
    settings.wait_for_people = wait
    for key, low, high in (("move_time", 1.0, 3600.0), ("grace", 0.0, 3600.0), ("bot_delay", 0.0, 10.0)):
        value = spec.get(key, getattr(settings, key))
        if value is None and key == "move_time":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise MotleyError(f"'{key}' must be a number of seconds in {low:g}..{high:g}")
        setattr(settings, key, float(value))
    return settings


def _seed(seed: Any) -> int:
    """The seed given (by Python code, never by a web request), or a random one when ``seed`` is None.

    Raises:
        MotleyError: for anything but a whole number in 0..2**62-1.
    """
    if seed is None:
        seed = random.SystemRandom().randrange(2**62)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise MotleyError("'seed' must be a whole number in 0..2**62-1")
    return seed
