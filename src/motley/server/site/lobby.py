"""The lobby of one process of a site: the lines of the unfinished tables that other processes drive, kept current
through news (:mod:`motley.server.site.news`, topic :data:`TOPIC`) instead of read from the store at every listing
(docs/scaling.md).

The process driving a table publishes its lobby line (:func:`live_line`: public facts only, never a token) when
the table is made (``made``, ``rematch``: a rematch offered), taken over (``taken``), its seats change (``seats``:
a seat joined, declined, or its person arrived, which starts a table of people), and the table's version and stage
every heartbeat while it moves (``progress``, many tables in one message); and the table's id when it ends
(``finished``, ``cancelled``). Each process keeps the lines in a :class:`Lobby`. News is at most once, so the
lines are read again from the store (``Storage.running_headers``, :func:`stored_line`) at start-up, after a
``gap`` (the news connection was lost and is back, e.g. PostgreSQL restarted) and every :data:`REFRESH` seconds
(a message its publisher could not send); the finished tables' list is read again when one ends.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable
from typing import Any

from motley.core import MotleyError
from motley.core.registry import game_class
from motley.server.play import replays
from motley.server.play.live import LiveTable
from motley.server.store.records import Seat

__all__ = ["LEASES", "REFRESH", "TOPIC", "Lobby", "live_line", "stored_line"]

log = logging.getLogger("motley.server")

#: The news topic of lobby lines.
TOPIC = "lobby"
#: The news topic of leases handed over by a process that stops (SIGTERM): ``{"owner", "tables"}``.
LEASES = "leases"
#: Seconds after which a process reads its lobby lines from the store again, news or not.
REFRESH = 30.0
#: Events whose payload carries a table's ``line``.
LINE_EVENTS = frozenset({"made", "rematch", "taken", "seats"})
#: Events whose payload names a table (``table``) that left the unfinished ones.
END_EVENTS = frozenset({"finished", "cancelled"})


def live_line(live: LiveTable) -> dict[str, Any]:
    """The lobby line of an unfinished table driven here, as other processes list it (the keys of the transport's
    ``table_summary`` but ``age``, added when listed): public facts only; ``seats`` empty (who is connected is known
    to the owner alone)."""
    table = live.table
    return {"id": table.id, "game": table.game.name, "title": table.game.title, "players": len(table.seats),
            "version": table.version, "finished": False, "created": table.record.created, "seats": [],
            "free_seats": len(table.open_seats()), "names": [s.name for s in table.seats],
            "waiting_for": sum(1 for s in table.seats if s.kind == "human" and not s.ever_connected),
            "stage": replays.stage_of(table.state, table.version)}


def stored_line(header: dict[str, Any]) -> dict[str, Any]:
    """The lobby line (as :func:`live_line`'s) of an unfinished table from its stored header
    (``Storage.running_headers``: the stored seats, tokens included, which stay here); ``stage`` "in play", since
    where the match is is known to its owner alone."""
    seats = [Seat.from_stored(s) for s in header["seats"]]
    return {"id": header["id"], "game": header["game"], "title": game_class(header["game"]).title,
            "players": len(seats), "version": header["moves"], "finished": False, "created": header["created"],
            "seats": [], "free_seats": sum(1 for s in seats if s.refusal() is None), "names": [s.name for s in seats],
            "waiting_for": sum(1 for s in seats if s.kind == "human" and not s.ever_connected), "stage": "in play"}


class Lobby:
    """The lobby lines of the site's unfinished tables, by id, as news tells them (:meth:`apply`), and the newest
    finished tables' headers as last read (:attr:`finished`, None: to be read). ``clock``: seconds
    (:func:`time.monotonic`), for :data:`REFRESH`.

    Lines are *stale* (:attr:`stale`) until :meth:`loaded` installs a store read, after a :meth:`gap`, and
    :data:`REFRESH` seconds after the last read; messages that arrive while a read is under way (:meth:`loading`)
    are applied again over it, so a table that ended meanwhile is not listed again.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.lines: dict[str, dict[str, Any]] = {}
        self.finished: list[dict[str, Any]] | None = None
        #: How many times a table ended or news was lost (a read of :attr:`finished` begun before is not kept).
        self.ends = 0
        self._fresh_until = -math.inf
        self._meanwhile: list[dict[str, Any]] | None = None

    @property
    def stale(self) -> bool:
        """Must the lines be read from the store before they are listed?"""
        return self.clock() >= self._fresh_until

    def loading(self) -> None:
        """A store read of the lines begins: keep the messages that arrive until :meth:`loaded`."""
        self._meanwhile = []

    def loaded(self, headers: Iterable[dict[str, Any]]) -> None:
        """Install the lines read from the store (``Storage.running_headers``), then the messages received since
        :meth:`loading`; fresh for :data:`REFRESH` seconds."""
        meanwhile, self._meanwhile = self._meanwhile or [], None
        self.lines = {}
        for header in headers:
            try:
                self.lines[header["id"]] = stored_line(header)
            except (MotleyError, KeyError, ValueError, TypeError) as exc:  # a game not served here, a damaged row
                log.warning("table %s left out of the lobby: %s", header.get("id"), exc)
        for payload in meanwhile:
            self.apply(payload)
        self._fresh_until = self.clock() + REFRESH

    def failed(self) -> None:
        """The store read begun by :meth:`loading` failed: the lines stay as they were, and stale."""
        self._meanwhile = None

    def gap(self) -> None:
        """News may have been lost: read everything again before the next listing."""
        self._fresh_until = -math.inf
        self.finished = None
        self.ends += 1

    def apply(self, payload: Any) -> None:
        """Apply one :data:`TOPIC` message's payload: ``{"event": made|rematch|taken|seats, "line": {...}}``,
        ``{"event": "progress", "tables": {id: [version, stage]}}`` or ``{"event": finished|cancelled, "table": id}``;
        anything else is ignored (a newer process's event)."""
        if not isinstance(payload, dict):
            return
        if self._meanwhile is not None:
            self._meanwhile.append(payload)
        event = payload.get("event")
        if event in LINE_EVENTS and isinstance(line := payload.get("line"), dict) and isinstance(line.get("id"), str):
            self.lines[line["id"]] = line
        elif event == "progress" and isinstance(tables := payload.get("tables"), dict):
            for table_id, now in tables.items():
                line = self.lines.get(table_id)
                if line is not None and isinstance(now, list) and len(now) == 2:
                    line["version"], line["stage"] = now
        elif event in END_EVENTS and isinstance(table_id := payload.get("table"), str):
            self.lines.pop(table_id, None)
            self.finished = None
            self.ends += 1

    def listed(self, now: float, leave_out: Iterable[str] = ()) -> list[dict[str, Any]]:
        """The lines, each with its ``age`` (seconds since the table was made, ``now`` being the wall clock), less
        those of ``leave_out`` (the tables listed from memory)."""
        left = set(leave_out)
        return [line | {"age": max(0.0, now - line["created"])} for table_id, line in self.lines.items()
                if table_id not in left]
