"""A table in play: the pure :class:`~motley.server.play.table.Table` with its viewers, turn clock, bots and driver.

Every move goes the same way (:meth:`LiveTable.play`): the pure table checks it, the table's log
(:class:`TableLog`: the :class:`~motley.server.store.writer.Store`, or a fake) writes it, and only then does the table
apply it and every viewer (:class:`Connection`: a socket, or a fake) get its own message. A move is never
applied twice (one lock per table, the version checked under it); a move that cannot be stored is not
applied, and a person who made it gets an error.

A driver task per table (:meth:`LiveTable.run`) plays the bot seats, plays every seat's forced move (the only
legal one) after ``Settings.pace``, and plays for a human seat whose move timer ran out or who has been
disconnected longer than the grace time; the person takes over again simply by moving (or reconnecting). A move
that the pages show in several steps (``GameSpec.shown_steps``: automatic plays, one per ``pace``)
starts the next turn once they are shown (:meth:`LiveTable.showing_time`), so no automatic move overtakes them.

When a deal of the match ends and the match goes on, the table waits for the people to read its summary
(:class:`Summary`, ``Settings.summary_wait``): no automatic move and no move timer until every connected person
has sent ``continue`` or the time is up. A seat may be open in several connections (tabs); one of them is the
seat's live page (:attr:`Presence.live`, the newest unless another sends ``claim``), and only it may move.

Besides ``state`` messages, the table sends ``seats`` (who is connected), ``rematch`` (the offer of a rematch:
:meth:`LiveTable.rematch_message`) and ``rematch_declined`` (``{"type", "seat", "name"}``: a person declined
their seat at the rematch, which is now open).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from motley.bots import Bot, make_bot
from motley.core import MotleyError
from motley.core.play import choose
from motley.core.registry import game_spec
from motley.server.play import protocol
from motley.server.play.hints import HintDesk, forced_hint, hint, hint_args
from motley.server.play.table import Finished, Move, Table, move_cards
from motley.server.play.thinking import Thinkers
from motley.server.play.web_bots import is_fast
from motley.server.store.records import Seat, SeatRefused, new_token
from motley.server.store.writer import MoveRow, StoreError

log = logging.getLogger("motley.server")

#: Seconds a driver waits before trying again after the store refused one of its moves (and a seat write waits
#: before its next try, :meth:`LiveTable.store_seats`).
STORE_RETRY = 1.0
#: Tries of a seat write the store refuses (a person's first connection, a claim) before the person is told
#: ``not_stored``; :data:`STORE_RETRY` seconds apart.
SEAT_TRIES = 3
#: Least seconds between two ``seats`` messages of one table (connects and disconnects meanwhile share one).
SEATS_INTERVAL = 0.2


class Connection(Protocol):
    """A viewer of a table: a seat (``seat`` 0..N-1) or a spectator (``seat`` None)."""

    seat: int | None

    def send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (a JSON-able dict) for the viewer; never blocks."""

    def stop(self, code: int, reason: str, flush: bool) -> None:
        """Close the viewer's connection with the WebSocket close ``code`` and ``reason``: after the messages
        already queued (``flush``) or at once; never blocks."""


class TableLog(Protocol):
    """Where a live table writes what happens at it (the :class:`~motley.server.store.writer.Store`; a test may hand
    in a fake). The three awaited calls raise :class:`~motley.server.store.writer.StoreError` when the write failed;
    the two others return at once, after queueing the write behind those already made."""

    async def add_move(self, row: MoveRow) -> None:
        """Store one move; returns once it is stored."""

    async def finish(self, table_id: str, result: dict[str, Any]) -> None:
        """Mark the table finished with ``result``; returns once it is stored."""

    async def store_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """Rewrite the table's seats (stored form); returns once they are stored."""

    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None:
        """Rewrite the table's seats (stored form), without waiting."""

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        """Rewrite the table's settings (stored form), without waiting."""


@dataclass
class Presence:
    """Who is at a seat: its open connections, the one that plays (``live``: the seat's live page), and since
    when (clock time) none, if its person had connected (the seat's ``Seat.ever_connected``)."""

    connections: list[Connection] = field(default_factory=list)
    away_since: float | None = None
    live: Connection | None = None


@dataclass
class Summary:
    """The summary of deal ``deal`` (from 1), shown since ``started`` (clock time): the people who have read it
    (``read``: seats that sent ``continue``)."""

    deal: int
    started: float
    read: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Offer:
    """A rematch offered at this table: the new table, who offered it (old seat), the seats as asked
    (:func:`~motley.server.play.requests.rematch_plan`), each old seat's new seat (None: not a person seat there),
    and the seats of the new table declined since."""

    table: Table
    offered_by: int
    plan: list[dict[str, Any]]
    new_seats: list[int | None]
    declined: list[int] = field(default_factory=list)


class LiveTable:
    """A table in play: the pure :class:`Table`, its viewers, its turn clock, its bots and its driver.

    ``store``: where it writes (:class:`TableLog`); its viewers come and go as connections (:class:`Connection`,
    :meth:`attach`, :meth:`detach`). ``clock``: the clock of the timers (seconds, :func:`time.monotonic`);
    ``wall``: the wall clock (seconds since the epoch, :func:`time.time`), read once here to carry the stored
    start of the current turn over to ``clock``: a table rebuilt after a restart keeps the time its seat had
    left. A person seat that had connected before (stored) counts as gone since now, so its stand-in plays once
    the grace time is over unless the person reconnects. ``thinkers``: the worker processes where bots that
    search think.
    """

    def __init__(self, table: Table, store: TableLog, clock: Callable[[], float] = time.monotonic,
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
        self.rematch: Offer | None = None
        #: The table this one is the rematch of, while it is in memory (told of declines here).
        self.rematch_of: LiveTable | None = None
        self.summary: Summary | None = None
        self.changed = asyncio.Event()
        self.lock = asyncio.Lock()
        self.closed = False
        #: Why the table was closed before its end (:meth:`Service.cancel`), in words; None while it is open.
        self.closed_because: str | None = None
        self.seats_interval = SEATS_INTERVAL
        self._seats_due: asyncio.TimerHandle | None = None
        self._seats_sent = float("-inf")
        #: Clock time of the last move, connection or disconnection (:meth:`idle_for`).
        self.touched = now
        #: The seats whose person's first connection is being stored (:meth:`arrive`): the write in flight.
        self._arrivals: dict[int, asyncio.Task[None]] = {}
        #: The seats whose stored arrival starts the opening (:meth:`_show_opening`): their next attach says so.
        self._opening: set[int] = set()
        #: The hints each seat had (a table with ``Settings.hints``; :mod:`motley.server.play.hints`).
        self.hints = HintDesk(len(table.seats), (table.record.result or {}).get("hints"))

    @property
    def id(self) -> str:
        """The table's id."""
        return self.table.id

    # ---- viewers ----------------------------------------------------------------------------
    async def arrive(self, seat: int | None) -> None:
        """Store that the person of ``seat`` has connected (``Seat.ever_connected``), the first time, before the
        connection is attached (:meth:`attach`) and shown the seat: from then on, and after any restart, the lobby
        can no longer claim the seat and its invite link keeps working. Nothing to do for a spectator
        (``seat`` None) or a person who connected before; a second tab that connects while the first one's write
        is in flight waits for that write.

        The seat counts as connected in memory at once (a join meanwhile is refused; the bots still wait for the
        person until the write is stored); a write the store refuses is tried again (:meth:`store_seats`).

        Raises:
            StoreError: if the store refused every try: the seat is as it was (never connected; the lobby may
                claim it if it is open, the invite link works), and the connection must not be shown the seat
                (the socket answers ``not_stored``).
        """
        if seat is None:
            return
        pending = self._arrivals.get(seat)
        if pending is None:
            if self.table.seats[seat].ever_connected:
                return
            waited = bool(self.waiting_for())
            self.table.seats[seat].ever_connected = True  # no await before this: a join meanwhile is refused
            pending = asyncio.get_running_loop().create_task(self._store_arrival(seat, waited))
            pending.add_done_callback(_retrieved)
            self._arrivals[seat] = pending
        await asyncio.shield(pending)  # a connection that gives up waiting leaves the write to finish

    async def _store_arrival(self, seat: int, waited: bool) -> None:
        """Store the seats with ``seat``'s person connected (set by :meth:`arrive`); on success, the last person
        the bots ``waited`` for starts the opening (:meth:`_show_opening`, said by their first message).

        Raises:
            StoreError: if the store refused every try; ``ever_connected`` is unset again (and the seats are written
                as they are once more, without waiting: a claim of another seat stored meanwhile carried it).
        """
        try:
            await self.store_seats()
        except StoreError:
            self.table.seats[seat].ever_connected = False
            self.store.save_seats(self.id, [s.stored() for s in self.table.seats])
            raise
        finally:
            del self._arrivals[seat]
        if waited and not self.waiting_for() and self._show_opening():
            self._opening.add(seat)
        self._wake()

    async def store_seats(self) -> None:
        """Store the table's seats as they are now (stored form) and return once they are stored. A write the store
        refuses is tried again :data:`STORE_RETRY` seconds later, with the seats as they are then, up to
        :data:`SEAT_TRIES` tries in all (as a bot's move is tried again: the store's refusals are often short,
        a locked database).

        Raises:
            StoreError: the store's last refusal.
        """
        for attempt in range(1, SEAT_TRIES + 1):
            try:
                await self.store.store_seats(self.id, [s.stored() for s in self.table.seats])
                if attempt > 1:
                    log.info("table %s: seats stored at try %d", self.id, attempt)
                return
            except StoreError as exc:
                log.error("table %s: seats not stored (try %d of %d): %s", self.id, attempt, SEAT_TRIES, exc)
                if attempt == SEAT_TRIES:
                    raise
            await asyncio.sleep(STORE_RETRY)

    def attach(self, conn: Connection) -> None:
        """Add a viewer and send it the table as it is now (with the table's params and settings, and
        ``"opening": true`` when this person's arrival starts the match: :meth:`_show_opening`). The server
        awaits :meth:`arrive` first; a person seat attached without it (a caller in Python) is marked connected
        here and stored without waiting."""
        before, opened = None, False
        if conn.seat is None:
            self.spectators.append(conn)
        else:
            seat = self.presence[conn.seat]
            seat.connections.append(conn)
            seat.away_since = None
            before, seat.live = seat.live, conn  # the newest connection plays
            opened = self._connected(conn.seat)
        self.touched = self.clock()
        shared = self.shared()
        first = self.with_live(conn, self.table.message(conn.seat, shared))
        first.update(params=self.table.game.params, settings=self.table.settings.as_dict(),
                     commitment=self.table.commitment)
        if opened:  # this person was the last one the table waited for: their page shows the opening
            first["opening"] = True
        conn.send(first)
        if before is not None:  # the seat's page until now learns it no longer plays
            before.send(self.with_live(before, self.table.message(before.seat, shared)))
        if opened:  # the pages that waited for this person start showing the opening
            self.broadcast()
        if self.rematch is not None:
            conn.send(self.rematch_message(conn.seat))
            for declined in self.rematch.declined:
                conn.send(self.declined_message(self.rematch.table, declined))
        self._wake()
        self._seats_changed()

    def with_live(self, conn: Connection, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` (a ``state`` message) for ``conn``: a seat connection's says whether it is the seat's live
        page (``live``); a spectator's is unchanged. ``message`` itself is not changed (viewers share it)."""
        if conn.seat is None:
            return message
        return {**message, "live": self.presence[conn.seat].live is conn}

    def claim(self, conn: Connection) -> None:
        """Make ``conn`` its seat's live page ("Play here"); the page that was live gets a state message saying
        it no longer is (``live`` false), and ``conn`` one saying it is.

        Raises:
            protocol.ProtocolError: ``spectator`` for a spectator's connection.
        """
        if conn.seat is None:
            raise protocol.ProtocolError("spectator", "spectators have no seat to play")
        presence = self.presence[conn.seat]
        before, presence.live = presence.live, conn
        shared = self.shared()
        message = self.table.message(conn.seat, shared)
        for viewer in (before, conn) if before is not None and before is not conn else (conn,):
            viewer.send(self.with_live(viewer, message))

    def _connected(self, seat: int) -> bool:
        """True if this connection's person starts the opening's showing (:meth:`_show_opening`): the last person
        the bots waited for, whose arrival :meth:`arrive` stored, or (a caller that attached without it) the
        first connection of a seat, noted here and stored without waiting."""
        if seat in self._opening:
            self._opening.discard(seat)
            return True
        if self.table.seats[seat].ever_connected:
            return False
        waited = bool(self.waiting_for())
        self.table.seats[seat].ever_connected = True
        self.store.save_seats(self.id, [s.stored() for s in self.table.seats])
        return waited and not self.waiting_for() and self._show_opening()

    def _show_opening(self) -> bool:
        """Every person is at the table before the first move: the pages show the opening (what the deal played by
        itself before the first decision, ``GameSpec.shown_steps(None, state)`` steps, one per ``pace``), and the
        first automatic move waits for it. False (nothing to show) for a game without steps or a table without
        pace."""
        shown = game_spec(self.table.game.name).shown_steps
        wait = 0.0 if self.table.version != 0 or shown is None else self.showing_time(shown(None, self.table.state) + 1)
        if not wait:
            return False
        self.turn_started = self.clock() + wait
        self._wake()
        return True

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
            if seat.live is conn:  # the newest page left of the seat plays now
                seat.live = seat.connections[-1] if seat.connections else None
                if seat.live is not None:
                    seat.live.send(self.with_live(seat.live, self.table.message(conn.seat, self.shared())))
        self.touched = self.clock()
        self._settle_summary()
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
        """The viewer-independent part of a ``state`` message now (``deadline``: seconds left, or None, and
        None while a summary waits; ``waiting_for``: :meth:`waiting_for`; ``summary``: :meth:`summary_info`)."""
        move_time = self.table.settings.move_time
        summary = self.summary_info()
        deadline = (max(0.0, self.turn_started + move_time - self.clock()) if move_time and summary is None
                    else None)
        shared = self.table.shared(self.seat_info(), deadline)
        shared["waiting_for"] = self.waiting_for()
        shared["summary"] = summary
        shared["hints"] = list(self.hints.used) if self.table.settings.hints else None
        return shared

    # ---- the summary at the end of a deal ----------------------------------------------------
    def summary_waiting(self) -> list[int]:
        """The person seats the summary waits for: connected, and not yet read it (``continue``)."""
        if self.summary is None:
            return []
        return [i for i, (seat, presence) in enumerate(zip(self.table.seats, self.presence, strict=True))
                if seat.kind == "human" and presence.connections and i not in self.summary.read]

    def summary_until(self) -> float | None:
        """Clock time the summary shown ends by itself; None: it waits without limit (or none is shown)."""
        limit = self.table.settings.summary_wait
        return None if self.summary is None or limit is None else self.summary.started + limit

    def summary_holds(self) -> bool:
        """Does a summary hold the table now (somebody still reading it, and time left)?"""
        until = self.summary_until()
        return (self.summary is not None and bool(self.summary_waiting())
                and (until is None or self.clock() < until))

    def summary_info(self) -> dict[str, Any] | None:
        """``{"deal", "waiting", "until"}`` of the summary shown (``until``: seconds left, None: no limit), or
        None when there is none."""
        if self.summary is None:
            return None
        until = self.summary_until()
        return {"deal": self.summary.deal, "waiting": self.summary_waiting(),
                "until": None if until is None else max(0.0, until - self.clock())}

    def _settle_summary(self) -> None:
        """End the summary shown once it no longer holds the table: the turn's clock starts now, every viewer
        is told, and the driver goes on."""
        if self.summary is None or self.summary_holds():
            return
        self.summary = None
        self.turn_started = self.clock()
        self.broadcast()
        self._wake()

    def read_summary(self, conn: Connection) -> None:
        """A person has read the summary (``continue``); the table goes on once every connected person has.

        Raises:
            protocol.ProtocolError: ``spectator`` for a spectator's connection.
        """
        if conn.seat is None:
            raise protocol.ProtocolError("spectator", "spectators do not hold up the table")
        if self.summary is None or conn.seat in self.summary.read:
            return
        self.summary.read.add(conn.seat)
        if self.summary_holds():
            self.broadcast()
        else:
            self._settle_summary()

    def waiting_for(self) -> list[int]:
        """The person seats the bots still wait for (never connected), while the table's ``wait_for_people``
        holds (a person at the table pressing Start turns it off, stored); empty once the bots may move."""
        if not self.table.settings.wait_for_people or self.table.state.is_terminal():
            return []
        return [i for i, s in enumerate(self.table.seats)
                if s.kind == "human" and (not s.ever_connected or i in self._arrivals)]

    def rematch_message(self, seat: int | None) -> dict[str, Any]:
        """``{"type": "rematch", "table", "link", "offered_by", "seats", "you"}``: the rematch offered at this
        table (:attr:`rematch`, which must be set) as the viewer of ``seat`` (None: a spectator) reads it:
        ``link`` is the person's own new seat link (``you``: their new seat), for anyone else (a spectator, a
        person who has no seat at the rematch) the watch link (``you`` None); ``offered_by``: the old seat that
        offered it; ``seats``: the new table's seats, ``{"name", "kind", "bot"}`` (never a token)."""
        assert self.rematch is not None
        offer, new = self.rematch, self.rematch.table
        you = offer.new_seats[seat] if seat is not None else None
        token = new.seats[you].token if you is not None else None
        return {"type": "rematch", "table": new.id,
                "link": f"/table/{new.id}?token={token}" if token else f"/table/{new.id}",
                "offered_by": offer.offered_by, "you": you if token else None,
                "seats": [{"name": s.name, "kind": s.kind, "bot": s.bot if s.kind == "bot" else None}
                          for s in new.seats]}

    def announce_rematch(self, offer: Offer) -> None:
        """Remember the rematch ``offer`` and send every viewer its own message of it (:meth:`rematch_message`)."""
        self.rematch = offer
        for conn in self.viewers():
            conn.send(self.rematch_message(conn.seat))

    @staticmethod
    def declined_message(table: Table, seat: int) -> dict[str, Any]:
        """``{"type": "rematch_declined", "seat", "name"}``: seat ``seat`` of the rematch ``table`` was declined."""
        return {"type": "rematch_declined", "seat": seat, "name": table.seats[seat].name}

    def decline(self, seat: int) -> Seat:
        """The person invited to ``seat`` declines it: it becomes an open seat (anyone in the lobby may take it;
        the invite link stops working), and every viewer of this table and of the one it is the rematch of is
        told (``rematch_declined``). The caller stores the seats.

        Raises:
            SeatRefused: once the seat's person has connected, for a bot's seat or once the match is over.
        """
        seat_ = self.table.seats[seat]
        if self.table.state.is_terminal():
            raise SeatRefused("the match is over")
        if seat_.kind != "human":
            raise SeatRefused("the seat is played by a bot")
        if seat_.ever_connected or seat_.claimed:
            raise SeatRefused("the seat's person has joined the table already; leave it instead")
        seat_.open, seat_.token = True, new_token()
        message = self.declined_message(self.table, seat)
        old = self.rematch_of
        if old is not None and old.rematch is not None and old.rematch.table is self.table:
            old.rematch.declined.append(seat)
            for conn in old.viewers():
                conn.send(message)
        for conn in self.viewers():
            conn.send(message)
        self._wake()
        return seat_

    def start(self, conn: Connection) -> None:
        """A person at the table starts the match without waiting for the others to connect: the bots move.

        Raises:
            protocol.ProtocolError: ``spectator`` for a spectator's connection; nothing changes.
        """
        if conn.seat is None:
            raise protocol.ProtocolError("spectator", "spectators cannot start the match")
        self._live_only(conn)
        settings = self.table.settings
        if settings.wait_for_people:
            waited = bool(self.waiting_for())
            settings.wait_for_people = False  # stored, so a restarted server does not wait again
            self.store.save_settings(self.id, settings.as_dict())
            if waited:
                self._show_opening()
            self.broadcast()
            self._wake()

    def close(self, because: str) -> None:
        """The table ends before its end (cancelled, :meth:`Service.cancel`, or rebuilt after a cancel): its driver
        stops and it refuses every move, start and continue with ``because``."""
        self.closed, self.closed_because = True, because
        self.changed.set()

    def _open_only(self) -> None:
        """Refuse a move, ``start`` or ``continue`` at a table closed before its end.

        Raises:
            protocol.ProtocolError: ``closed``, saying why it was closed.
        """
        if self.closed_because is not None and not self.table.state.is_terminal():
            raise protocol.ProtocolError("closed", f"This table was closed ({self.closed_because or 'cancelled'}); "
                                                   "it takes no more moves.")

    def _live_only(self, conn: Connection) -> None:
        """Refuse a move, ``start`` or ``continue`` from a seat connection that is not its seat's live page.

        Raises:
            protocol.ProtocolError: ``elsewhere``.
        """
        live = None if conn.seat is None else self.presence[conn.seat].live
        if live is not None and live is not conn:
            raise protocol.ProtocolError("elsewhere", "This seat is being played in another tab.")

    def broadcast(self) -> None:
        """Send every viewer its own message for the current version (built once per seat)."""
        shared = self.shared()
        for seat, presence in enumerate(self.presence):
            if presence.connections:
                message = self.table.message(seat, shared)
                for conn in presence.connections:
                    conn.send(self.with_live(conn, message))
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
            if msg.kind in ("move", "start", "continue"):
                self._open_only()
            if msg.kind == "start":
                self.start(conn)
                return
            if msg.kind == "claim":
                self.claim(conn)
                return
            if msg.kind == "why":
                if conn.seat is None:
                    raise protocol.ProtocolError("spectator", "spectators cannot move")
                conn.send(self.table.why_answer(conn.seat, msg.move or ""))
                return
            if msg.kind == "hint":
                await self.hint(conn)
                return
            if conn.seat is None:
                raise protocol.ProtocolError("spectator", "spectators cannot move" if msg.kind == "move"
                                             else "spectators do not hold up the table")
            self._live_only(conn)
            if msg.kind == "continue":
                self.read_summary(conn)
                return
            if msg.seat is not None and msg.seat != conn.seat:
                raise protocol.ProtocolError("wrong_seat", f"this connection plays seat {conn.seat} only")
            async with self.lock:
                self._open_only()  # cancelled while this move waited for the lock
                await self.play(self.table.check(conn.seat, msg))
        except StoreError:
            conn.send(protocol.error(self.table.version, "not_stored",
                                     "the move could not be stored, so it was not played; try again"))
        except protocol.ProtocolError as exc:
            conn.send(protocol.error(self.table.version, exc.code, exc.message, exc.reason))

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
        deal = self.table.state.deal_number()
        shown = game_spec(self.table.game.name).shown_steps
        before = self.table.state.clone() if shown is not None else None
        events = self.table.apply(move)
        self.touched = self.clock()
        steps = 1 if shown is None or before is None else shown(before, self.table.state)
        self.turn_started = self.touched + self.showing_time(steps)
        self.table.record.moved_at = self.wall()
        for event in events:
            if isinstance(event, Finished):
                await self._store_result(event.result)
        self._after_move(move, deal)
        self.broadcast()
        self._wake()

    def showing_time(self, steps: int) -> float:
        """Seconds the viewers' pages take to show a move of ``steps`` steps (``GameSpec.shown_steps``) beyond its
        first: ``(steps - 1) × pace`` (0 without a pace). The next turn starts after them, so the next automatic
        move waits ``bot_delay`` (a forced one ``pace``, a move timer its time) from the last step shown."""
        pace = self.table.settings.pace
        return max(0, steps - 1) * pace if pace else 0.0

    def _after_move(self, move: Move, deal: int) -> None:
        """Show the summary of deal ``deal`` (from 0) if ``move`` ended it and the match goes on (the state's
        ``deal_number`` moved on), unless the table does not wait (``summary_wait`` 0). A person who moves while
        a summary is shown has read it."""
        state = self.table.state
        if self.summary is not None and move.actor == "seat":
            self.summary.read.add(move.seat)
        if not state.is_terminal() and state.deal_number() != deal and self.table.settings.summary_wait != 0:
            self.summary = Summary(deal + 1, self.clock())
        if self.summary is not None and not self.summary_holds():
            self.summary = None

    async def hint(self, conn: Connection) -> None:
        """Answer a person's ``hint`` (:mod:`motley.server.play.hints`): the strongest bot's choice for the seat's
        current decision, searched from the seat's information state in a worker process (in a worker thread
        without :attr:`thinkers`), sent to ``conn`` alone unless the turn passed meanwhile; the hint is counted
        and every viewer is sent the new count.

        Raises:
            protocol.ProtocolError: as :meth:`HintDesk.take`, ``elsewhere`` from a page that is not the seat's live
                one, or ``closed``.
        """
        table, state = self.table, self.table.state
        self._open_only()
        if conn.seat is not None:
            self._live_only(conn)
        version = table.version
        self.hints.take(table.settings.hints, state, version, conn.seat)
        assert conn.seat is not None
        seat = conn.seat
        self.broadcast()
        if len(state.legal_actions()) == 1:
            answer = forced_hint(state, seat)
        else:
            args = hint_args(state, seat, f"{table.record.seed}-hint-{version}")
            answer = (await self.thinkers.run("a hint", hint, *args) if self.thinkers is not None
                      else await asyncio.to_thread(hint, *args))
        if table.version != version or table.state.is_terminal():
            return  # the turn passed while the bot thought: a late hint never arrives
        conn.send({"type": "hint", "version": version, "seat": seat, "cards": move_cards(table.game.name,
                                                                                         answer["move"]), **answer})

    async def _store_result(self, result: dict[str, Any]) -> None:
        """Mark the table finished in the store (with each seat's hints at a table with hints); a failure is
        logged (the moves are stored, so the table still replays to its end)."""
        if self.table.settings.hints:
            result = {**result, "hints": list(self.hints.used)}
        try:
            await self.store.finish(self.id, result)
        except StoreError as exc:
            log.error("table %s: result not stored: %s", self.id, exc)

    # ---- the driver: bots, timers, disconnected seats -----------------------------------------
    def _wake(self) -> None:
        self.changed.set()

    def next_auto(self) -> tuple[float, str] | None:
        """When (clock time) and why the driver should act next: ``"bot"``; ``"forced"`` (a forced move, at
        the table's ``pace``, a bot's at most its ``bot_delay``, once no person is waited for); ``"timer"``;
        ``"away"``; ``"summary"`` (the end of the summary shown). None if never (a summary that waits without
        limit holds everything)."""
        state = self.table.state
        if state.is_terminal() or self.closed:
            return None
        if self.summary is not None:
            until = self.summary_until()
            return None if until is None else (until, "summary")
        p = state.current_player()
        seat, presence, settings = self.table.seats[p], self.presence[p], self.table.settings
        start = self.turn_started
        options: list[tuple[float, str]] = []
        if settings.pace is not None and not self.waiting_for() and len(state.legal_actions()) == 1:
            # any seat's only move, at the table's pace (a bot's no later than its other moves)
            pace = min(settings.pace, settings.bot_delay) if seat.kind == "bot" else settings.pace
            options.append((start + pace, "forced"))
        elif seat.kind == "bot" and not self.waiting_for():
            options.append((start + settings.bot_delay, "bot"))
        if seat.kind != "bot" or self.waiting_for():
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

        The bot draws from ``random.Random(f"{seed}-{version}")``. A fast bot
        (:func:`~motley.server.play.web_bots.is_fast`) moves in the event loop; any other bot thinks in a worker
        process of :attr:`thinkers` (from the seat's observation only), or, without thinkers, in a worker
        thread on a clone of the state. A forced move (one legal action) is played without thinking.

        Raises:
            MotleyError: if the bot fails or chooses an illegal move. StoreError: if the store refused the move.
        """
        table, state = self.table, self.table.state
        seat, version = state.current_player(), table.version
        spec, seed = table.seats[seat].bot, f"{table.record.seed}-{version}"
        if reason == "forced":
            actor = "bot" if table.seats[seat].kind == "bot" else "forced"
            await self._play_auto(seat, version, state.legal_actions()[0], actor)
            return
        if is_fast(spec):
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
        """One automatic move (or, ``reason`` ``"summary"``, the end of a summary whose time is up); a broken
        bot never stalls a table, a refused write is tried again later (the store's refusal is logged by
        :meth:`play`), and any other failure is logged and tried again later: the driver itself never stops
        before the match ends."""
        if reason == "summary":
            self._settle_summary()
            return
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


def _retrieved(task: asyncio.Task[None]) -> None:
    """Take the outcome of a seat write (:meth:`LiveTable.arrive`) whose waiters may all have left, so a refusal
    nobody awaits any more is not reported as never retrieved (it was logged by :meth:`LiveTable.store_seats`)."""
    if not task.cancelled():
        task.exception()
