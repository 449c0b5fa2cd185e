"""What one client may cost the server: the limits of ``motley serve`` and the small counters that keep them.

:class:`Limits` holds the numbers (``create_app(limits=...)``, ``motley serve --queue-messages ...``);
:class:`TokenBucket` is a rate (the messages of one socket, the tables one client address creates);
:class:`InFlight` counts the heavy requests (replays, records) each client address has under way;
:class:`TableQuota` counts the unfinished tables each client address created; :class:`TableGate` is both
limits on making a table (a new one or a rematch). See docs/security.md for what each limit protects against.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, fields

from motley.core import MotleyError
from motley.server.store.refusals import Refusal

#: Seconds an unfinished table may go without a move and without a viewer before it is cancelled, so
#: abandoned tables do not hold the server (``create_app(idle_close=...)``, ``motley serve --idle-close``;
#: ``Service.tidy``); a finished table leaves the lobby's list that long after its last move (its replay stays).
IDLE_CLOSE = 3600.0
#: Bytes of built replay answers (indexes, steps, records of finished tables, as JSON) the server keeps, the
#: least recently used dropped first (:class:`motley.server.play.replays.Built`).
BUILT_BYTES = 64 * 1024 * 1024
#: Seconds a client refused for too many heavy requests at once is told to wait (``Retry-After``).
RETRY_AFTER = 1
#: The WebSocket close of a viewer past a bound of :class:`Limits`: its code (a policy broken) and its words, for a
#: viewer that does not read (``queue_messages`` waiting) and for one that keeps sending over its rate or faster
#: than its messages are taken. The same wherever the socket ends: at the table's process or at a relay.
CLOSE_POLICY = 1008
TOO_SLOW = "too slow: too many messages waiting"
TOO_MANY = "too many messages"
#: The ASGI scope extension (``scope["extensions"][ABORT]["abort"]``: a function) by which the server's WebSocket
#: protocol (``web/connections.GuardedWebSocket``) lets a socket be dropped at once, its unsent bytes with it: a
#: client that does not read never takes a close, and its socket would hold the kernel's send buffer (megabytes)
#: for as long as the client stays.
ABORT = "motley.abort"

#: The fields of :class:`Limits` that may be fractions (the others are whole numbers).
RATES = ("messages_per_second", "tables_per_minute")


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
        tables_per_minute: tables (new ones and rematches) one client address may create per minute, on
            average (a token bucket per address) ...
        table_burst: ... with up to this many at once; the next request is refused with HTTP 429 and
            ``Retry-After`` (seconds until it may try again).
        header_timeout: seconds a connection may take to send a request's header, from when it opens or from the
            first byte of a later request on it; then it is closed (slowloris; :mod:`motley.server.web.connections`).
        keep_alive: seconds an idle HTTP connection is kept open between requests (Uvicorn's
            ``timeout_keep_alive``).
        connections_per_address: open connections (HTTP and WebSocket) from one client address; the next one is
            answered 503 and closed. Behind a reverse proxy every connection comes from the proxy's address:
            raise it there and let the proxy bound each client (docs/security.md).
        builds_per_address: replay, record and replay-step answers one client address may have being built at
            once (each in a worker thread; an answer already built is served from memory and not counted);
            the next is refused with HTTP 429 and ``Retry-After`` (:data:`RETRY_AFTER`) until one is done.

    Raises:
        MotleyError: for a field that is not a positive number (a whole number except those of
            :data:`RATES`).
    """

    queue_messages: int = 64
    messages_per_second: float = 20.0
    message_burst: int = 40
    flood_strikes: int = 40
    tables_per_address: int = 10
    sockets_per_table: int = 200
    request_bytes: int = 20000
    tables_per_minute: float = 10.0
    table_burst: int = 10
    header_timeout: int = 10
    keep_alive: int = 5
    connections_per_address: int = 64
    builds_per_address: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            whole = f.name not in RATES
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

    def wait(self) -> float:
        """Seconds until the bucket holds a token again, as of the last :meth:`take` (0 if it holds one)."""
        return max(0.0, (1.0 - self.tokens) / self.rate)

    def full_at(self) -> float:
        """Clock time at which the bucket is full again (if nothing is taken meanwhile)."""
        return self.stamp + (self.burst - self.tokens) / self.rate


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


class TablesRefused(Refusal):
    """A client address may not create a table now (HTTP 429); the message says why. ``retry_after``: seconds
    until it may try again (None: once one of its unfinished tables has ended). Its code says which limit:
    ``too_fast`` (the rate, with ``Retry-After``) or ``too_many_tables`` (the quota of unfinished tables)."""

    status = 429
    code = "too_many_tables"
    words = "this address may not create a table now"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message, retry_after=retry_after, code=None if retry_after is None else "too_fast")

    def retry_header(self) -> dict[str, str]:
        """The ``Retry-After`` header of the refusal (whole seconds, rounded up), or none (:meth:`headers`)."""
        return self.headers()


class TableGate:
    """Whether a client address may create a table (a new one or a rematch) now: it has fewer than
    ``limits.tables_per_address`` unfinished tables (a :class:`TableQuota`), and its bucket of
    ``limits.table_burst`` tables, refilled at ``limits.tables_per_minute``, holds one (a :class:`TokenBucket`
    per address).

    A request calls :meth:`admit` before it makes a table and :meth:`settle` after (with the table's id, or
    None if it made none). The buckets are kept in the order they were last used, and one that is full again
    (its address idle for ``table_burst / tables_per_minute`` minutes at most) is forgotten: a fresh bucket is
    the same. So the memory held is one bucket per address that created a table in that time. ``clock``
    (seconds, monotonic) is for tests. Only this process's tables count (a restarted server starts afresh).
    """

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.quota = TableQuota(limits.tables_per_address)
        self.clock = clock
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def admit(self, address: str, is_open: Callable[[str], bool]) -> None:
        """Take a slot of ``address``'s quota and a token of its bucket (give the slot back with :meth:`settle`).

        Raises:
            TablesRefused: if the address has its quota of unfinished tables, or has created its burst of tables
                too fast (with ``retry_after``); nothing is taken.
        """
        if not self.quota.admit(address, is_open):
            raise TablesRefused(f"this address already has {self.limits.tables_per_address} unfinished tables; "
                                "finish one first")
        bucket = self._bucket(address)
        if not bucket.take():
            self.quota.settle(address, None)
            wait = bucket.wait()
            raise TablesRefused(f"this address creates tables too fast (at most {self.limits.table_burst} at "
                                f"once, {self.limits.tables_per_minute:g} a minute); try again in "
                                f"{math.ceil(wait)} s", retry_after=wait)

    def settle(self, address: str, table_id: str | None) -> None:
        """The request admitted for ``address`` is over: it made ``table_id`` (None: it made none)."""
        self.quota.settle(address, table_id)

    def _bucket(self, address: str) -> TokenBucket:
        """The bucket of ``address`` (a full one for an address not seen lately), now the most recently used;
        the buckets full again are forgotten first."""
        now = self.clock()
        while self.buckets:
            oldest = next(iter(self.buckets.values()))
            if oldest.full_at() > now:
                break
            self.buckets.popitem(last=False)
        bucket = self.buckets.pop(address, None)
        if bucket is None:
            bucket = TokenBucket(self.limits.tables_per_minute / 60.0, self.limits.table_burst, self.clock)
        self.buckets[address] = bucket
        return bucket
