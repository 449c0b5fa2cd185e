"""A table's chat: short plain-text messages from its seats (and from spectators where the table's
``spectator_chat`` setting lets them), read by everyone at the table, kept with the table in the store so that a
reload, a restart or another process of a site shows them.

A message is checked by :func:`~motley.server.play.protocol.chat_text` (plain text, control and format characters
out, at most :data:`~motley.server.play.protocol.MAX_CHAT` characters); each connection may say
:data:`CHAT_BURST` messages at once and :data:`CHAT_RATE` a second after that (``chat_limited`` beyond). Only
text crosses: the pages show it as text, never as markup. Muting someone is the reader's own choice, kept in their
browser.
"""

from __future__ import annotations

import asyncio
import collections
import weakref
from collections.abc import Callable
from typing import Any

from motley.server.play.flights import Flights
from motley.server.play.messages import ChatLine, ChatLogMessage, ChatMessage
from motley.server.play.protocol import ProtocolError
from motley.server.store.writer import Store

#: Chat messages a connection may send at once, and a second after that (a token bucket).
CHAT_BURST = 5
CHAT_RATE = 0.5
#: The lines a table keeps in memory and sends on connecting (the store keeps them all).
CHAT_KEPT = 100
#: The longest name a chat line carries.
NAME_CHARACTERS = 80


class TableChat:
    """The chat of table ``table_id``: its last lines (loaded from ``store`` once, :meth:`lines`), and each
    connection's rate. ``store``: None keeps the chat in memory only (a table made in Python without a store);
    ``wall``: the wall clock of the lines' ``at``; ``clock``: the clock of the rate."""

    def __init__(self, table_id: str, store: Store | None, wall: Callable[[], float],
                 clock: Callable[[], float]) -> None:
        self.table_id = table_id
        self.store = store
        self.wall = wall
        self.clock = clock
        self._lines: collections.deque[ChatLine] | None = None if store is not None else collections.deque(
            maxlen=CHAT_KEPT)
        self._last = 0
        self._buckets: weakref.WeakKeyDictionary[Any, tuple[float, float]] = weakref.WeakKeyDictionary()
        self._loading: Flights[str, list[dict[str, Any]]] = Flights()  # one read for the connections meanwhile
        self._writing = asyncio.Lock()  # one line stored at a time: numbers and the order kept alike

    async def lines(self) -> list[ChatLine]:
        """The last :data:`CHAT_KEPT` lines, oldest first (read from the store the first time).

        Raises:
            StoreError: if the store could not be read.
        """
        if self._lines is None:  # one read for the connections that arrive meanwhile (a table's seats at once)
            store = self.store
            assert store is not None
            await self._loading.join(self.table_id, lambda: store.call(store.storage.chat_lines, self.table_id,
                                                                       CHAT_KEPT), self._loaded)
        assert self._lines is not None
        return list(self._lines)

    def _loaded(self, stored: list[dict[str, Any]]) -> None:
        """The stored lines were read: keep them (a failed read is not kept: the next connection reads again)."""
        if self._lines is None:  # not made a new table meanwhile
            self._lines = collections.deque((_line(row) for row in stored), maxlen=CHAT_KEPT)
            self._last = max([self._last] + [line["number"] for line in self._lines])

    def new_table(self) -> None:
        """The table was just made: it has no lines yet, and none need be read from the store."""
        if self._lines is None:
            self._lines = collections.deque(maxlen=CHAT_KEPT)

    async def log_message(self) -> ChatLogMessage:
        """``{"type": "chat_log", "lines"}``: what a connection is sent on connecting.

        Raises:
            StoreError: if the store could not be read.
        """
        return {"type": "chat_log", "lines": await self.lines()}

    def admit(self, conn: Any) -> bool:
        """May ``conn`` say something now? Takes one of its tokens if so (:data:`CHAT_BURST`, :data:`CHAT_RATE`)."""
        now = self.clock()
        tokens, at = self._buckets.get(conn, (float(CHAT_BURST), now))
        tokens = min(float(CHAT_BURST), tokens + (now - at) * CHAT_RATE)
        if tokens < 1.0:
            self._buckets[conn] = (tokens, now)
            return False
        self._buckets[conn] = (tokens - 1.0, now)
        return True

    async def say(self, conn: Any, seat: int | None, name: str, text: str) -> ChatMessage:
        """Store and keep ``text`` (already cleaned) said by ``seat`` (None: a spectator) named ``name``; returns
        the message to send to everyone at the table.

        Raises:
            ProtocolError: ``chat_limited`` when ``conn`` is over its rate (nothing is stored).
            StoreError: if the line could not be stored (it is not kept or sent then).
        """
        if not self.admit(conn):
            raise ProtocolError("chat_limited", "you are chatting faster than the table allows; wait a moment")
        async with self._writing:
            await self.lines()
            line: ChatLine = {"number": self._last + 1, "seat": seat, "name": name[:NAME_CHARACTERS], "text": text,
                              "at": round(self.wall(), 3)}
            if self.store is not None:
                await self.store.call(self.store.storage.add_chat_line, self.table_id, dict(line))
            self._last = line["number"]
            assert self._lines is not None
            self._lines.append(line)
        return {"type": "chat", **line}


def _line(row: dict[str, Any]) -> ChatLine:
    """A stored line (:meth:`~motley.server.store.chat.ChatRows.chat_lines`) as a message carries it."""
    return {"number": int(row["number"]), "seat": row["seat"], "name": str(row["name"]), "text": str(row["text"]),
            "at": float(row["at"])}
