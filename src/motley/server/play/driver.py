"""What a table does by itself: its driver (:meth:`Driver.run`) plays the bots' moves, every seat's forced move at the
table's pace, and the move of a person whose timer ran out or who is away past the grace time; the summary at the
end of a deal holds the table until the people have read it or its time is up.

:class:`Driver` is the part of :class:`~motley.server.play.live.LiveTable` that does it (a mixin; what it needs of the
live table is :class:`DrivenTable`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from motley.bots import Bot, make_bot
from motley.core.play import choose
from motley.server.play import protocol
from motley.server.play.messages import SummaryInfo
from motley.server.play.presence import Connection, Presence
from motley.server.play.table import Move, Table
from motley.server.play.thinking import Thinkers
from motley.server.play.web_bots import is_fast

__all__ = ["DrivenTable", "Driver", "Summary", "expiries"]


@dataclass
class Summary:
    """The summary of deal ``deal`` (from 1), shown since ``started`` (clock time): the people who have read it
    (``read``: seats that sent ``continue``)."""

    deal: int
    started: float
    read: set[int] = field(default_factory=set)


def expiries(table: Table) -> list[int]:
    """Each seat's move timers that ran out in a row at the end of ``table``'s log (:attr:`Presence.expiries`, as
    :meth:`Driver.count_expiry` counts them), so a table loaded again (after a restart) goes on as it was."""
    counts = [0] * len(table.seats)
    for entry in table.log:
        if entry.actor == "seat":
            counts[entry.seat] = 0
        elif entry.actor in ("timer", "idle"):
            counts[entry.seat] += 1
    return counts


class DrivenTable(Protocol):
    """What :class:`Driver` needs of the live table."""

    table: Table
    presence: list[Presence]
    summary: Summary | None
    clock: Callable[[], float]
    turn_started: float
    retry_at: float
    closed: bool
    bots: dict[int, Bot]
    rng: random.Random
    thinkers: Thinkers | None
    changed: asyncio.Event
    lock: asyncio.Lock

    def waiting_for(self) -> list[int]: ...

    def broadcast(self) -> None: ...

    async def play(self, move: Move) -> None: ...

    def _wake(self) -> None: ...

    async def _drive(self, reason: str) -> None: ...

    def summary_waiting(self) -> list[int]: ...

    def summary_until(self) -> float | None: ...

    def summary_next(self) -> float | None: ...

    def _back_by(self, presence: Presence) -> float | None: ...

    def summary_holds(self) -> bool: ...

    def _settle_summary(self) -> None: ...

    def next_auto(self) -> tuple[float, str] | None: ...

    def bot_for(self, seat: int) -> Bot: ...

    def is_idle(self, seat: int) -> bool: ...

    async def _play_auto(self, seat: int, version: int, action: int, actor: str) -> None: ...


class Driver:
    """The summary at the end of a deal, and the driver's bots and timers (a mixin of
    :class:`~motley.server.play.live.LiveTable`)."""

    summary: Summary | None
    turn_started: float

    def summary_waiting(self: DrivenTable) -> list[int]:
        """The person seats the summary waits for: not yet read it (``continue``), and connected or gone for less
        than the grace time (a page reloaded during the summary finds it still shown)."""
        if self.summary is None:
            return []
        return [i for i, (seat, presence) in enumerate(zip(self.table.seats, self.presence, strict=True))
                if seat.kind == "human" and i not in self.summary.read
                and (presence.connections or self._back_by(presence) is not None)]

    def _back_by(self: DrivenTable, presence: Presence) -> float | None:
        """Clock time until which a person gone from the table still counts as reading the summary (the grace
        time after they left), or None: connected, never connected, or gone longer."""
        if presence.connections or presence.away_since is None:
            return None
        end = presence.away_since + self.table.settings.grace
        return end if self.clock() < end else None

    def summary_next(self: DrivenTable) -> float | None:
        """Clock time the summary shown must be looked at again: its time runs out, or a person who left while
        it was shown stops counting as a reader; None: it waits without limit (or none is shown)."""
        times = [t for t in [self.summary_until()] + [self._back_by(p) for p in self.presence] if t is not None]
        return min(times) if self.summary is not None and times else None

    def summary_until(self: DrivenTable) -> float | None:
        """Clock time the summary shown ends by itself; None: it waits without limit (or none is shown)."""
        limit = self.table.settings.summary_wait
        return None if self.summary is None or limit is None else self.summary.started + limit

    def summary_holds(self: DrivenTable) -> bool:
        """Does a summary hold the table now (somebody still reading it, and time left)?"""
        until = self.summary_until()
        return (self.summary is not None and bool(self.summary_waiting())
                and (until is None or self.clock() < until))

    def summary_info(self: DrivenTable) -> SummaryInfo | None:
        """``{"deal", "waiting", "until"}`` of the summary shown (``until``: seconds left, None: no limit), or
        None when there is none."""
        if self.summary is None:
            return None
        until = self.summary_until()
        return {"deal": self.summary.deal, "waiting": self.summary_waiting(),
                "until": None if until is None else max(0.0, until - self.clock())}

    def _settle_summary(self: DrivenTable) -> None:
        """End the summary shown once it no longer holds the table: the turn's clock starts now, every viewer
        is told, and the driver goes on."""
        if self.summary is None or self.summary_holds():
            return
        self.summary = None
        self.turn_started = self.clock()
        self.broadcast()
        self._wake()

    def read_summary(self: DrivenTable, conn: Connection) -> None:
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

    def next_auto(self: DrivenTable) -> tuple[float, str] | None:
        """When (clock time) and why the driver should act next: ``"bot"``; ``"forced"`` (a forced move, at
        the table's ``pace``, a bot's at most its ``bot_delay``, once no person is waited for); ``"timer"``;
        ``"away"``; ``"idle"`` (a person's stand-in after expiries in a row, :meth:`Seating.is_idle`, at ``bot_delay``);
        ``"summary"`` (the end of the summary shown). None if never (a summary that waits without
        limit holds everything)."""
        state = self.table.state
        if state.is_terminal() or self.closed:
            return None
        if self.summary is not None:
            until = self.summary_next()
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
            if seat.kind == "human" and self.is_idle(p):
                options.append((start + settings.bot_delay, "idle"))
        if not options:
            return None
        when, reason = min(options)
        return max(when, self.retry_at), reason

    def count_expiry(self: DrivenTable, move: Move) -> None:
        """Count the move timers that ran out in a row on ``move``'s seat (:attr:`Presence.expiries`): a move of
        the person's own ends the row; one their stand-in made for a timer (or while idle) adds to it."""
        presence = self.presence[move.seat]
        if move.actor == "seat":
            presence.expiries = 0
        elif move.actor in ("timer", "idle"):
            presence.expiries += 1

    def bot_for(self: DrivenTable, seat: int) -> Bot:
        """The bot that plays ``seat`` (its own, or a human seat's stand-in), made once."""
        if seat not in self.bots:
            self.bots[seat] = make_bot(self.table.seats[seat].bot, self.table.game)
        return self.bots[seat]

    async def auto_move(self: DrivenTable, reason: str) -> None:
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

    async def random_move(self: DrivenTable, reason: str) -> None:
        """Play a uniformly random legal move for the seat to move (a bot that failed).

        Raises:
            StoreError: if the store refused the move.
        """
        state = self.table.state
        legal = state.legal_actions()
        await self._play_auto(state.current_player(), self.table.version, legal[self.rng.randrange(len(legal))],
                              reason)

    async def _play_auto(self: DrivenTable, seat: int, version: int, action: int, actor: str) -> None:
        async with self.lock:
            if self.table.version == version and not self.closed:  # nobody moved while the bot thought
                await self.play(self.table.prepare(seat, action, actor))

    async def run(self: DrivenTable) -> None:
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
