"""A table's stored record types: the record itself (header and move log), its settings and its seats.

They are data only, shared by the store (:mod:`motley.server.store.writer`) and the play room
(:mod:`motley.server.play`), which builds a live table from them.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from motley.core import MotleyError
from motley.server.store.refusals import Refusal


def new_token() -> str:
    """A fresh secret seat token (24 URL-safe characters, 144 random bits)."""
    return secrets.token_urlsafe(18)


@dataclass
class TableRecord:
    """One stored table: its header and its moves ``(seat, move string, actor)`` in order.

    ``created``: wall-clock time (seconds since the epoch) the table was made; ``moved_at``: wall-clock time
    the last move was stored (None: no move, or not known), so the current turn began at :meth:`turn_began`.
    ``owner``: the digest of the key of the browser that made the table (64 hex digits, ``play.owners``; None: made
    without one, or before migration 0007), by which that browser finds and cancels its unfinished tables.
    """

    id: str
    game: str
    params: dict[str, Any]
    seed: int
    seats: list[dict[str, Any]]
    settings: dict[str, Any]
    created: float
    finished: bool = False
    result: dict[str, Any] | None = None
    moves: list[tuple[int, str, str]] = field(default_factory=list)
    moved_at: float | None = None
    owner: str | None = None

    def turn_began(self) -> float:
        """Wall-clock time (seconds since the epoch) the current turn began: when the last move was stored, or
        the table's creation when no move was made (or its time is not known)."""
        return self.moved_at if self.moves and self.moved_at is not None else self.created


#: The settings of a table stored before a setting existed, so it behaves as it did: its bots did not wait for
#: the people, a person's forced move waited for the person, and the end of a deal did not wait.
#: A table stored before ``expiries_to_stand_in`` existed never hands a seat to its stand-in for expiries.
STORED_BEFORE = {"wait_for_people": False, "pace": None, "summary_wait": 0.0, "expiries_to_stand_in": None}


@dataclass
class Settings:
    """Per-table settings. Times in seconds; ``move_time`` None = no move timer. ``wait_for_people``: bots do
    not move until every person seat has connected once (or a person at the table starts the match).
    ``pace``: a forced move (the only legal one), of any seat, is played by the driver this long after its turn
    began (a bot seat's after ``bot_delay`` if that is shorter; None: only a bot seat's, after ``bot_delay``, as
    before the setting existed). ``summary_wait``: how
    long the end of a deal waits for the people to read its summary (0: not at all; None: without limit).
    ``hints``: a friendly table: each person may ask for the strongest bot's choice, once per decision
    (:mod:`motley.server.play.hints`); off unless chosen when the table is made. ``spectator_chat``: spectators
    may write in the table's chat too (the seats always may; everyone reads it; :mod:`motley.server.play.chat`).
    ``expiries_to_stand_in``: after this many move timers in a row ran out on a person, their stand-in plays for
    them (at ``bot_delay``, not at the end of each timer) until they move or say they are back (None: never). A
    table stored before a setting existed takes it from :data:`STORED_BEFORE` (see :class:`Table`)."""

    move_time: float | None = None
    grace: float = 30.0
    bot_delay: float = 0.8
    wait_for_people: bool = True
    pace: float | None = 0.7
    summary_wait: float | None = 30.0
    hints: bool = False
    spectator_chat: bool = False
    expiries_to_stand_in: int | None = 2

    def as_dict(self) -> dict[str, Any]:
        """JSON form, as stored."""
        return {"move_time": self.move_time, "grace": self.grace, "bot_delay": self.bot_delay,
                "wait_for_people": self.wait_for_people, "pace": self.pace, "summary_wait": self.summary_wait,
                "hints": self.hints, "spectator_chat": self.spectator_chat,
                "expiries_to_stand_in": self.expiries_to_stand_in}


@dataclass
class Seat:
    """One seat: ``kind`` ``"human"`` or ``"bot"``, the bot spec (for a human seat: the stand-in bot).

    A person seat is ``open`` (anyone in the lobby may claim it, once) or by invitation (only its invite
    link's ``token`` works). ``claimed``: taken from the lobby (its token was then replaced by a fresh one,
    so the invite link no longer works); ``ever_connected``: its person has connected at least once. All
    three are stored, so a restarted server knows them. ``hints``: the hints its person had (a table with
    hints), and ``hinted_at`` the table's version when the last one was given (one hint a decision), stored so
    that a restart, a takeover or a drain forgets neither.
    """

    kind: str
    bot: str
    name: str
    token: str | None = None
    claimed: bool = False
    open: bool = False
    ever_connected: bool = False
    hints: int = 0
    hinted_at: int | None = None

    @classmethod
    def from_stored(cls, stored: dict[str, Any]) -> Seat:
        """The seat of a stored seat entry (:meth:`stored`); a table stored before seats could be open has no
        ``open`` / ``ever_connected`` keys: such a seat is by invitation and counts as never connected.

        Raises:
            KeyError: for an entry without ``kind``, ``bot`` or ``name``.
        """
        hints, hinted_at = stored.get("hints"), stored.get("hinted_at")
        return cls(kind=stored["kind"], bot=stored["bot"], name=stored["name"], token=stored.get("token"),
                   claimed=bool(stored.get("claimed")), open=stored.get("open") is True,
                   ever_connected=stored.get("ever_connected") is True,
                   hints=hints if type(hints) is int and hints >= 0 else 0,
                   hinted_at=hinted_at if type(hinted_at) is int else None)

    def stored(self) -> dict[str, Any]:
        """JSON form, as stored (the token included: storage is the server's own)."""
        return {"kind": self.kind, "bot": self.bot, "name": self.name, "token": self.token, "claimed": self.claimed,
                "open": self.open, "ever_connected": self.ever_connected, "hints": self.hints,
                "hinted_at": self.hinted_at}

    def refusal(self) -> str | None:
        """Why the lobby may not hand this seat out (the reason, in words), or None if it may: a bot seat, a
        seat by invitation, a seat already claimed or whose invited person has connected."""
        if self.kind != "human":
            return "the seat is played by a bot"
        if not self.open:
            return "the seat is by invitation (only its invite link works)"
        if self.claimed or self.ever_connected:
            return "the seat is already claimed"
        return None


class SeatRefused(Refusal, MotleyError):
    """The lobby may not hand out the seat asked for (or any seat of the table); the message says why (HTTP 409)."""

    status = 409
    code = "seat_refused"
    words = "the seat cannot be had"
