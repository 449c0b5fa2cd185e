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

Who is at the table is :class:`~motley.server.play.presence.Seating`'s part of it, the driver's bots and timers and
the summary :class:`~motley.server.play.driver.Driver`'s (mixins of :class:`LiveTable`).

Besides ``state`` messages, the table sends ``seats`` (who is connected), ``rematch`` (the offer of a rematch:
:meth:`LiveTable.rematch_message`) and ``rematch_declined`` (``{"type", "seat", "name"}``: a person declined
their seat at the rematch, which is now open).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from motley.bots import Bot
from motley.core import MotleyError, State
from motley.server.play import protocol
from motley.server.play.chat import TableChat
from motley.server.play.driver import Driver, Summary, expiries
from motley.server.play.hints import HintDesk, forced_hint, hint, hint_args
from motley.server.play.messages import (
    HintAnswer,
    HintMessage,
    RematchDeclinedMessage,
    RematchMessage,
    SharedState,
)
from motley.server.play.presence import SEATS_INTERVAL, Connection, Presence, Seating
from motley.server.play.table import Finished, Move, Table
from motley.server.play.thinking import Thinkers
from motley.server.store.records import Seat, SeatRefused, new_token
from motley.server.store.writer import LeaseLost, MoveRow, Store, StoreError, StoreSilent

__all__ = ["SEAT_TRIES", "STORE_RETRY", "Connection", "LiveTable", "Offer", "Presence", "Summary", "TableLog"]

log = logging.getLogger("motley.server")

#: Seconds a driver waits before trying again after the store refused one of its moves (and a seat write waits
#: before its next try, :meth:`LiveTable.store_seats`).
STORE_RETRY = 1.0
#: Tries of a seat write the store refuses (a person's first connection, a claim) before the person is told
#: ``not_stored``; :data:`STORE_RETRY` seconds apart.
SEAT_TRIES = 3


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


class LiveTable(Seating, Driver):
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
                 wall: Callable[[], float] = time.time, thinkers: Thinkers | None = None,
                 chat_store: Store | None = None) -> None:
        self.table = table
        self.store = store
        self.clock = clock
        self.wall = wall
        self.thinkers = thinkers
        now = clock()
        self.presence = [Presence(away_since=now if seat.kind == "human" and seat.ever_connected else None,
                                  expiries=count)
                         for seat, count in zip(table.seats, expiries(table), strict=True)]
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
        self.hints = HintDesk(table.seats, (table.record.result or {}).get("hints"))
        #: What the people at the table said (:mod:`motley.server.play.chat`; kept in ``chat_store``).
        self.chat = TableChat(table.id, chat_store, wall, clock)

    @property
    def id(self) -> str:
        """The table's id."""
        return self.table.id

    # ---- seats (who is at them: :class:`Seating`, motley.server.play.presence) ------------------
    async def store_seats(self) -> None:
        """Store the table's seats as they are now (stored form) and return once they are stored. A write the store
        refuses is tried again :data:`STORE_RETRY` seconds later, with the seats as they are then, up to
        :data:`SEAT_TRIES` tries in all (as a bot's move is tried again: the store's refusals are often short,
        a locked database); one refused because another writer holds the table (:class:`LeaseLost`) is not, nor
        one it did not answer in time (:class:`StoreSilent`).

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
                if attempt == SEAT_TRIES or isinstance(exc, LeaseLost | StoreSilent):  # fenced off, or silent
                    raise
            await asyncio.sleep(STORE_RETRY)

    def shared(self) -> SharedState:
        """The viewer-independent part of a ``state`` message now (``deadline``: seconds left to a person's move,
        or None: no timer, a summary waits, or a bot plays this turn: a bot seat's, an away or idle person's stand-in;
        ``waiting_for``: :meth:`waiting_for`; ``summary``: :meth:`summary_info`)."""
        move_time = self.table.settings.move_time
        summary = self.summary_info()
        deadline = (max(0.0, self.turn_started + move_time - self.clock())
                    if move_time and summary is None and self._person_plays() else None)
        shared = self.table.shared(self.seat_info(), deadline)
        shared["waiting_for"] = self.waiting_for()
        shared["summary"] = summary
        shared["hints"] = list(self.hints.used) if self.table.settings.hints else None
        return shared

    def _person_plays(self) -> bool:
        """Is the turn a person's own (not a bot seat's, nor an away or idle person's, whose stand-in plays)?"""
        state = self.table.state
        if state.is_terminal():
            return False
        p = state.current_player()
        return self.table.seats[p].kind == "human" and not self.is_away(p) and not self.is_idle(p)

    # ---- waiting for people, rematches ---------------------------------------------------------
    def waiting_for(self) -> list[int]:
        """The person seats the bots still wait for (never connected), while the table's ``wait_for_people``
        holds (a person at the table pressing Start turns it off, stored); empty once the bots may move."""
        if not self.table.settings.wait_for_people or self.table.state.is_terminal():
            return []
        return [i for i, s in enumerate(self.table.seats)
                if s.kind == "human" and (not s.ever_connected or i in self._arrivals)]

    def rematch_message(self, seat: int | None) -> RematchMessage:
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
    def declined_message(table: Table, seat: int) -> RematchDeclinedMessage:
        """``{"type": "rematch_declined", "seat", "name"}``: seat ``seat`` of the rematch ``table`` was declined."""
        return {"type": "rematch_declined", "seat": seat, "name": table.seats[seat].name}

    def decline(self, seat: int) -> Seat:
        """The person invited to ``seat`` declines it: it becomes an open seat (anyone in the lobby may take it;
        the invite link stops working). The caller stores the seats, then tells the viewers
        (:meth:`announce_decline`).

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
        return seat_

    def announce_decline(self, seat: int) -> None:
        """Tell every viewer of this table and of the one it is the rematch of that ``seat`` was declined
        (``rematch_declined``), once the seats are stored."""
        message = self.declined_message(self.table, seat)
        old = self.rematch_of
        if old is not None and old.rematch is not None and old.rematch.table is self.table:
            old.rematch.declined.append(seat)
            for conn in old.viewers():
                conn.send(message)
        for conn in self.viewers():
            conn.send(message)
        self._wake()

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
            if msg.kind == "back":
                self._live_only(conn)
                self.back(conn)
                return
            if msg.kind == "why":
                if conn.seat is None:
                    raise protocol.ProtocolError("spectator", "spectators cannot move")
                conn.send(self.table.why_answer(conn.seat, msg.move or ""))
                return
            if msg.kind == "hint":
                await self.hint(conn)
                return
            if msg.kind == "chat":
                await self.say(conn, msg.text or "")
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

    async def say(self, conn: Connection, text: str) -> None:
        """``conn`` says ``text`` (cleaned by the protocol) at the table's chat: stored, then sent to every viewer.

        Raises:
            protocol.ProtocolError: ``chat_off`` for a spectator at a table without ``spectator_chat``,
                ``chat_limited`` beyond the connection's rate, ``not_stored`` if the line could not be stored
                (nobody is sent it).
        """
        if conn.seat is None and not self.table.settings.spectator_chat:
            raise protocol.ProtocolError("chat_off", "at this table only the players write in the chat")
        name = "Spectator" if conn.seat is None else self.table.seats[conn.seat].name
        try:
            message = await self.chat.say(conn, conn.seat, name, text)
        except StoreError:
            raise protocol.ProtocolError("not_stored", "Your message could not be stored, so nobody saw it; "
                                         "try again.") from None
        for viewer in self.viewers():
            viewer.send(message)

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
        shown = self.table.spec.shown_steps
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
        self.count_expiry(move)
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
                one, ``closed``, or ``not_stored`` (the count could not be stored; nothing counted).
        """
        table, state = self.table, self.table.state
        self._open_only()
        if conn.seat is not None:
            self._live_only(conn)
        version = table.version
        before = self.hints.take(table.settings.hints, state, version, conn.seat)
        assert conn.seat is not None
        seat = conn.seat
        try:
            await self.store_seats()  # counted before it is given: a restart or a takeover forgets neither
        except StoreError:
            self.hints.undo(seat, before)
            raise protocol.ProtocolError("not_stored", "Your hint could not be stored, so it was not given; "
                                         "try again.") from None
        self.broadcast()
        seed = f"{table.record.seed}-hint-{version}"
        answer = forced_hint(state, seat) if len(state.legal_actions()) == 1 else await self._search_hint(state, seat,
                                                                                                      seed)
        cards = table.spec.move_cards(answer["move"]) + await self._rest_of_give(state, seat, answer, seed)
        if table.version != version or table.state.is_terminal():
            return  # the turn passed while the bot thought: a late hint never arrives
        message: HintMessage = {"type": "hint", "version": version, "seat": seat, "cards": cards, **answer}
        conn.send(message)

    async def _search_hint(self, state: State, seat: int, seed: str) -> HintAnswer:
        """The searcher's hint for ``seat`` to move in ``state`` (more than one legal move), in a worker process
        (a worker thread without :attr:`thinkers`)."""
        args = hint_args(state, seat, seed)
        found = (await self.thinkers.run("a hint", hint, *args, lane="background") if self.thinkers is not None
                 else await asyncio.to_thread(hint, *args))
        return cast(HintAnswer, found)  # motley.bots.analysis.hint's documented keys

    async def _rest_of_give(self, state: State, seat: int, answer: HintAnswer, seed: str) -> list[str]:
        """The other cards of a give of several cards the hint begins (a Foolery exchange step, FY-R13: one card
        a move): on a copy of the state, the searcher's choice for each next card while the seat gives on; []
        for any other move. The hint rings the whole give."""
        if not answer["move"].startswith("give "):
            return []
        cards: list[str] = []
        after = state.clone()
        after.apply_action(answer["action"])
        while not after.is_terminal() and after.current_player() == seat:
            legal = after.legal_actions()
            if not all(after.action_to_string(a).startswith("give ") for a in legal):
                break
            action = legal[0] if len(legal) == 1 else (await self._search_hint(after, seat, seed))["action"]
            cards += self.table.spec.move_cards(after.action_to_string(action))
            after.apply_action(action)
        return cards

    async def _store_result(self, result: dict[str, Any]) -> None:
        """Mark the table finished in the store (with each seat's hints at a table with hints); a failure is
        logged (the moves are stored, so the table still replays to its end)."""
        if self.table.settings.hints:
            result = {**result, "hints": list(self.hints.used)}
        try:
            await self.store.finish(self.id, result)
        except StoreError as exc:
            log.error("table %s: result not stored: %s", self.id, exc)

    # ---- the driver (its bots and timers: :class:`Driver`, motley.server.play.driver) -----------
    def _wake(self) -> None:
        self.changed.set()

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
