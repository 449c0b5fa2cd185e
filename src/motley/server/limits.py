"""What one client may cost the server: the limits of ``motley serve`` and the small counters that keep them.

:class:`Limits` holds the numbers (``create_app(limits=...)``, ``motley serve --queue-messages ...``);
:class:`TokenBucket` is the message rate of one socket; :class:`InFlight` counts the heavy requests (replays,
records) each client address has under way; :class:`TableQuota` counts the unfinished tables each client
address created. See docs/security.md for what each limit protects against.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, fields

from motley.core import MotleyError

#: Seconds an unfinished table may go without a move and without a viewer before it is cancelled, so
#: abandoned tables do not hold the server (``create_app(idle_close=...)``, ``motley serve --idle-close``;
#: ``Service.tidy``); a finished table leaves the lobby's list that long after its last move (its replay stays).
IDLE_CLOSE = 3600.0
#: Bytes of built replay answers (indexes, steps, records of finished tables, as JSON) the server keeps, the
#: least recently used dropped first (:class:`motley.server.replays.Built`).
BUILT_BYTES = 64 * 1024 * 1024
#: Seconds a client refused for too many heavy requests at once is told to wait (``Retry-After``).
RETRY_AFTER = 1

@dataclass(frozen=True)
class Limits:
    """The server's limits; the defaults suit a small public server (a few dozen people at a time).

    Fields (all must be positive):
        queue_messages: messages waiting to be sent to one connection; a viewer that reads so slowly that
            one more would not fit is disconnected (close code 1008), never buffered without bound.
        messages_per_second: messages one socket may send per second, on average (a token bucket) ...
        message_burst: ... with up to this many at once. A message over the rate is refused with the
            error ``rate_limited`` and changes nothing.
        flood_strikes: refused (``rate_limited``) messages in a row after which the socket is closed (1008).
        tables_per_address: unfinished tables one client address may have created; the next request is
            refused with HTTP 429 until one of them ends. Behind a reverse proxy every client has the proxy's
            address unless the proxy's headers are trusted (``motley serve --forwarded-allow-ips``).
        sockets_per_table: open WebSockets (seats and spectators) of one table; the next one gets the error
            ``table_full`` and is closed (1013).
        request_bytes: the largest request body (a table request), in bytes; HTTP 413 beyond it.
        builds_per_address: replay, record and replay-step answers one client address may have being built at
            once (each in a worker thread; an answer already built is served from memory and not counted);
            the next is refused with HTTP 429 and ``Retry-After`` (:data:`RETRY_AFTER`) until one is done.

    Raises:
        MotleyError: for a field that is not a positive number (a whole number except
            ``messages_per_second``).
    """

    queue_messages: int = 64
    messages_per_second: float = 20.0
    message_burst: int = 40
    flood_strikes: int = 40
    tables_per_address: int = 10
    sockets_per_table: int = 200
    request_bytes: int = 20000
    builds_per_address: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            whole = f.name != "messages_per_second"
            if (isinstance(value, bool) or not isinstance(value, int if whole else (int, float))
                    or not value > 0):
                kind = "whole number" if whole else "number"
                raise MotleyError(f"limit '{f.name}' must be a positive {kind}; got {value!r}")


class TokenBucket:
    """A rate limit: ``rate`` tokens per second flow into a bucket of ``burst`` tokens (full at the start);
    each message takes one. ``clock`` (seconds, monotonic) is for tests."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> bool:
        """Take a token if there is one; False (and nothing taken) if the bucket is empty."""
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class InFlight:
    """Requests under way per client address, at most ``limit`` each: :meth:`take` a slot before the work,
    :meth:`give` it back after (whatever happened)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts: dict[str, int] = {}

    def take(self, address: str) -> bool:
        """Take a slot for ``address``; False (and nothing taken) if it has ``limit`` under way already."""
        count = self.counts.get(address, 0)
        if count >= self.limit:
            return False
        self.counts[address] = count + 1
        return True

    def give(self, address: str) -> None:
        """Give back a slot :meth:`take` gave ``address``."""
        left = self.counts.get(address, 0) - 1
        if left > 0:
            self.counts[address] = left
        else:
            self.counts.pop(address, None)


class TableQuota:
    """The unfinished tables each client address created, at most ``limit`` per address.

    A request calls :meth:`admit` before creating a table and :meth:`settle` after (with the new table's id,
    or None if none was made), so two requests at once cannot both take the last slot. Only this process's
    tables count (a restarted server starts from zero).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.tables: dict[str, list[str]] = {}
        self.pending: dict[str, int] = {}

    def admit(self, address: str, is_open: Callable[[str], bool]) -> bool:
        """May ``address`` create a table now? ``is_open(table_id)``: is that table unfinished? True takes a
        slot (give it back with :meth:`settle`); False takes nothing."""
        kept = [t for t in self.tables.get(address, []) if is_open(t)]
        if kept:
            self.tables[address] = kept
        else:
            self.tables.pop(address, None)
        if len(kept) + self.pending.get(address, 0) >= self.limit:
            return False
        self.pending[address] = self.pending.get(address, 0) + 1
        return True

    def settle(self, address: str, table_id: str | None) -> None:
        """The request admitted for ``address`` is over: it made ``table_id`` (None: it made none)."""
        left = self.pending.get(address, 0) - 1
        if left > 0:
            self.pending[address] = left
        else:
            self.pending.pop(address, None)
        if table_id is not None:
            self.tables.setdefault(address, []).append(table_id)
