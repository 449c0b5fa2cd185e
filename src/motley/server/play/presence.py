"""Who is at a table: its viewers (:class:`Connection`, seats' and spectators'), each seat's :class:`Presence`, a
person's first arrival stored before the seat is shown, the ``seats`` messages, and how long the table has been idle.

:class:`Seating` is the part of :class:`~motley.server.play.live.LiveTable` that keeps them (a mixin; what it needs of
the live table is :class:`SeatedTable`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from motley.server.play import protocol
from motley.server.play.messages import (
    RematchDeclinedMessage,
    RematchMessage,
    SeatInfo,
    SeatsMessage,
    ServerMessage,
    SharedState,
    StateMessage,
    TableSettings,
)
from motley.server.play.table import Table
from motley.server.store.writer import StoreError

__all__ = ["SEATS_INTERVAL", "Connection", "Presence", "SeatedTable", "Seating"]

#: Least seconds between two ``seats`` messages of one table (connects and disconnects meanwhile share one).
SEATS_INTERVAL = 0.2


class Connection(Protocol):
    """A viewer of a table: a seat (``seat`` 0..N-1) or a spectator (``seat`` None)."""

    seat: int | None

    def send(self, message: ServerMessage) -> None:
        """Queue ``message`` for the viewer; never blocks."""

    def stop(self, code: int, reason: str, flush: bool) -> None:
        """Close the viewer's connection with the WebSocket close ``code`` and ``reason``: after the messages
        already queued (``flush``) or at once; never blocks."""


@dataclass
class Presence:
    """Who is at a seat: its open connections, the one that plays (``live``: the seat's live page), and since
    when (clock time) none, if its person had connected (the seat's ``Seat.ever_connected``)."""

    connections: list[Connection] = field(default_factory=list)
    away_since: float | None = None
    live: Connection | None = None
    #: The seat's moves in a row that its stand-in made because the move timer ran out (``"timer"``, ``"idle"``);
    #: from :attr:`Settings.expiries_to_stand_in` on, the stand-in plays for the person (:meth:`Seating.is_idle`).
    expiries: int = 0


class _Offer(Protocol):
    """A rematch offered at the table, as the viewers are told of it."""

    @property
    def table(self) -> Table: ...

    @property
    def declined(self) -> list[int]: ...


class _Log(Protocol):
    def save_seats(self, table_id: str, seats: list[dict[str, Any]]) -> None: ...


class SeatedTable(Protocol):
    """What :class:`Seating` needs of the live table."""

    table: Table
    presence: list[Presence]
    spectators: list[Connection]
    clock: Callable[[], float]
    touched: float
    turn_started: float
    seats_interval: float
    _seats_due: asyncio.TimerHandle | None
    _seats_sent: float
    _arrivals: dict[int, asyncio.Task[None]]
    _opening: set[int]

    @property
    def id(self) -> str: ...

    @property
    def store(self) -> _Log: ...

    @property
    def rematch(self) -> _Offer | None: ...

    def waiting_for(self) -> list[int]: ...

    async def store_seats(self) -> None: ...

    def shared(self) -> SharedState: ...

    def broadcast(self) -> None: ...

    def showing_time(self, steps: int) -> float: ...

    def rematch_message(self, seat: int | None) -> RematchMessage: ...

    @staticmethod
    def declined_message(table: Table, seat: int) -> RematchDeclinedMessage: ...

    def _wake(self) -> None: ...

    def _settle_summary(self) -> None: ...

    async def arrive(self, seat: int | None) -> None: ...

    async def _store_arrival(self, seat: int, waited: bool) -> None: ...

    def with_live(self, conn: Connection, message: StateMessage) -> StateMessage: ...

    def _connected(self, seat: int) -> bool: ...

    def _show_opening(self) -> bool: ...

    def viewers(self) -> list[Connection]: ...

    def is_away(self, seat: int) -> bool: ...

    def is_idle(self, seat: int) -> bool: ...

    def grace_left(self, seat: int) -> float | None: ...

    def seat_info(self) -> list[SeatInfo]: ...

    def _seats_changed(self) -> None: ...

    def _send_seats_update(self) -> None: ...


class Seating:
    """The viewers of a live table and who is at each seat (a mixin of
    :class:`~motley.server.play.live.LiveTable`)."""

    _seats_due: asyncio.TimerHandle | None
    _seats_sent: float
    touched: float
    turn_started: float

    async def arrive(self: SeatedTable, seat: int | None) -> None:
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

    async def _store_arrival(self: SeatedTable, seat: int, waited: bool) -> None:
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

    def attach(self: SeatedTable, conn: Connection) -> None:
        """Add a viewer and send it the table as it is now (with the table's params and settings, and
        ``"opening": true`` when this person's arrival starts the match: :meth:`_show_opening`). The server
        awaits :meth:`arrive` first; a person seat attached without it (a caller in Python) is marked connected
        here and stored without waiting."""
        before, opened = None, False
        if conn.seat is None:
            self.spectators.append(conn)
        else:
            seat = self.presence[conn.seat]
            if not seat.connections:  # the person is back: their stand-in stops playing for them
                seat.expiries = 0
            seat.connections.append(conn)
            seat.away_since = None
            before, seat.live = seat.live, conn  # the newest connection plays
            opened = self._connected(conn.seat)
        self.touched = self.clock()
        shared = self.shared()
        first = self.with_live(conn, self.table.message(conn.seat, shared))
        first["params"] = self.table.game.params
        first["settings"] = cast(TableSettings, self.table.settings.as_dict())
        first["commitment"] = self.table.commitment
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

    def with_live(self: SeatedTable, conn: Connection, message: StateMessage) -> StateMessage:
        """``message`` (a ``state`` message) for ``conn``: a seat connection's says whether it is the seat's live
        page (``live``); a spectator's is unchanged. ``message`` itself is not changed (viewers share it)."""
        if conn.seat is None:
            return message
        return {**message, "live": self.presence[conn.seat].live is conn}

    def claim(self: SeatedTable, conn: Connection) -> None:
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

    def _connected(self: SeatedTable, seat: int) -> bool:
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

    def _show_opening(self: SeatedTable) -> bool:
        """Every person is at the table before the first move: the pages show the opening (what the deal played by
        itself before the first decision, ``GameSpec.shown_steps(None, state)`` steps, one per ``pace``), and the
        first automatic move waits for it. False (nothing to show) for a game without steps or a table without
        pace."""
        shown = self.table.spec.shown_steps
        wait = 0.0 if self.table.version != 0 or shown is None else self.showing_time(shown(None, self.table.state) + 1)
        if not wait:
            return False
        self.turn_started = self.clock() + wait
        self._wake()
        return True

    def detach(self: SeatedTable, conn: Connection) -> None:
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
                if self.table.seats[conn.seat].ever_connected:  # the seats say so once the grace time is over
                    asyncio.get_running_loop().call_later(self.table.settings.grace + 0.05, self._seats_changed)
            if seat.live is conn:  # the newest page left of the seat plays now
                seat.live = seat.connections[-1] if seat.connections else None
                if seat.live is not None:
                    seat.live.send(self.with_live(seat.live, self.table.message(conn.seat, self.shared())))
        self.touched = self.clock()
        self._settle_summary()
        self._wake()
        self._seats_changed()

    def idle_for(self: SeatedTable) -> float:
        """Seconds since the last move, connection or disconnection while nobody is connected; 0 while
        someone (a seat or a spectator) is."""
        return 0.0 if self.viewers() else max(0.0, self.clock() - self.touched)

    def viewers(self: SeatedTable) -> list[Connection]:
        """Every connection: the seats' and the spectators'."""
        return [c for seat in self.presence for c in seat.connections] + list(self.spectators)

    def is_away(self: SeatedTable, seat: int) -> bool:
        """Is a human seat disconnected for longer than the grace time (so its bot plays)?"""
        p, s = self.presence[seat], self.table.seats[seat]
        return (s.kind == "human" and s.ever_connected and not p.connections
                and p.away_since is not None and self.clock() - p.away_since >= self.table.settings.grace)

    def is_idle(self: SeatedTable, seat: int) -> bool:
        """Does ``seat``'s stand-in play for its person because the move timer ran out on them
        ``Settings.expiries_to_stand_in`` times in a row (until they move, say they are back or reconnect)?"""
        limit = self.table.settings.expiries_to_stand_in
        return (limit is not None and self.table.seats[seat].kind == "human"
                and self.presence[seat].expiries >= limit)

    def grace_left(self: SeatedTable, seat: int) -> float | None:
        """Seconds before the stand-in takes over from ``seat``'s person, who lost the connection (:meth:`is_away`
        from then on); None if they are connected, away already, or never connected."""
        p, s = self.presence[seat], self.table.seats[seat]
        if s.kind != "human" or not s.ever_connected or p.connections or p.away_since is None:
            return None
        left = p.away_since + self.table.settings.grace - self.clock()
        return left if left > 0 else None

    def back(self: SeatedTable, conn: Connection) -> None:
        """The person of ``conn``'s seat is back (``back``): their stand-in stops playing for them
        (:meth:`is_idle`); every viewer is told.

        Raises:
            protocol.ProtocolError: ``spectator`` for a spectator's connection.
        """
        if conn.seat is None:
            raise protocol.ProtocolError("spectator", "spectators have no seat to come back to")
        if self.presence[conn.seat].expiries:
            self.presence[conn.seat].expiries = 0
            self.broadcast()
            self._wake()

    def seat_info(self: SeatedTable) -> list[SeatInfo]:
        """Public facts about every seat, with who is connected, who is away, how long before the stand-in takes
        over from who lost the connection, and who is idle (never a token)."""
        seats = range(len(self.presence))
        return self.table.seat_info([bool(p.connections) for p in self.presence], [self.is_away(i) for i in seats],
                                    [self.grace_left(i) for i in seats], [self.is_idle(i) for i in seats])

    def _seats_changed(self: SeatedTable) -> None:
        """Someone connected or left: one ``seats`` message goes to every viewer on a later turn of the event
        loop, at least :attr:`seats_interval` seconds after the previous one; the changes meanwhile share it
        (so K connects cost O(K) messages, not one to every viewer per connect)."""
        if self._seats_due is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._seats_sent + self.seats_interval - loop.time())
        self._seats_due = loop.call_later(delay, self._send_seats_update)

    def _send_seats_update(self: SeatedTable) -> None:
        """Send every viewer the seats as they are now (see :meth:`_seats_changed`)."""
        self._seats_due = None
        self._seats_sent = asyncio.get_running_loop().time()
        info: SeatsMessage = {"type": "seats", "version": self.table.version, "seats": self.seat_info()}
        for conn in self.viewers():
            conn.send(info)


def _retrieved(task: asyncio.Task[None]) -> None:
    """Take the outcome of a seat write (:meth:`LiveTable.arrive`) whose waiters may all have left, so a refusal
    nobody awaits any more is not reported as never retrieved (it was logged by :meth:`LiveTable.store_seats`)."""
    if not task.cancelled():
        task.exception()
