"""One news channel for the server processes of a site: publish a small JSON message on a topic, and every process
subscribed to that topic (the publisher's own included) receives it.

Two implementations of :class:`News`: :class:`LocalNews` within one process (a SQLite store serves one process),
and :class:`PostgresNews` over PostgreSQL's ``LISTEN``/``NOTIFY`` (psycopg 3's asynchronous connection; the
``postgres`` extra), for several processes on one or several machines sharing one PostgreSQL store.
:func:`open_news` picks the one that fits a ``--db`` value.

The channel carries news, not state: a message says *that* something changed (a table made, a seat taken, a
quota spent) so that other processes refresh what they show; the store stays the truth. Delivery is at most once:
messages published while a listener's connection is down are lost, so after it reconnects every subscription
receives a :class:`Message` with ``gap=True``, meaning "re-read from the store what you keep of this topic"
(docs/scaling.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from sqlalchemy.engine import URL

from motley.core.errors import MotleyError
from motley.server.store import counters
from motley.server.store.storage import store_url

__all__ = ["LocalNews", "Message", "News", "NewsUnavailable", "PostgresNews", "Subscription", "open_news"]

log = logging.getLogger("motley.server")

#: The most bytes one encoded message may take: PostgreSQL's ``NOTIFY`` refuses payloads of 8000 bytes or more.
MAX_BYTES = 7999
#: The most characters of a topic.
MAX_TOPIC = 64
#: The ``application_name`` of the channel's connections (``pg_stat_activity`` shows them by it).
APPLICATION = "motley-news"
#: Messages a subscription holds before its reader takes them; past that the oldest are dropped and a gap marked.
QUEUE = 1000


@dataclass(frozen=True)
class Message:
    """A message as received: its ``topic`` and ``payload`` (a JSON value, as published), or, with ``gap`` true
    (payload None), word that messages of the topic may have been lost (the listener reconnected, or the reader
    fell :data:`QUEUE` messages behind)."""

    topic: str
    payload: Any
    gap: bool = False


class NewsUnavailable(MotleyError):
    """A message could not be published: the database behind the channel is unreachable (its error named)."""


class Subscription:
    """The messages of one topic, in the order received: ``async for message in subscription`` (ends when it is
    closed, or the news channel is), or :meth:`get`. An ``async with`` block closes it at its end."""

    def __init__(self, hub: _Hub, topic: str) -> None:
        self.topic = topic
        self._hub = hub
        self._queue: asyncio.Queue[Message | None] = asyncio.Queue()
        self._held = 0  # messages queued (not counting the end marker)
        self.closed = False

    def _put(self, message: Message) -> None:
        if self.closed:
            return
        if self._held >= QUEUE:  # a reader this far behind re-reads the store anyway: drop, and say so
            while not self._queue.empty():
                self._queue.get_nowait()
            self._held = 0
            message = Message(self.topic, None, gap=True)
        self._held += 1
        self._queue.put_nowait(message)

    async def get(self, timeout: float | None = None) -> Message:
        """The next message.

        Raises:
            TimeoutError: none came within ``timeout`` seconds.
            StopAsyncIteration: the subscription is closed and has no more messages.
        """
        message = await asyncio.wait_for(self._queue.get(), timeout)
        if message is None:
            self._queue.put_nowait(None)  # stays closed for the next reader
            raise StopAsyncIteration
        self._held -= 1
        return message

    def close(self) -> None:
        """Stop receiving; a reader gets the messages already queued, then the end."""
        if not self.closed:
            self.closed = True
            self._hub._drop(self)
            self._queue.put_nowait(None)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Message:
        return await self.get()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        self.close()


class News(Protocol):
    """A news channel: :meth:`start` before use, :meth:`close` at the end."""

    async def start(self) -> None:
        """Be ready: once it returns, a message published anywhere on the channel reaches the subscriptions."""

    async def publish(self, topic: str, payload: Any) -> None:
        """Send ``payload`` (a JSON value; encoded with its envelope at most :data:`MAX_BYTES` bytes) to every
        subscription to ``topic``, in every process; raises ValueError for a bad topic or payload and
        :class:`NewsUnavailable` when it could not be sent."""

    def subscribe(self, topic: str) -> Subscription:
        """A subscription to ``topic``, receiving from now on."""

    async def close(self) -> None:
        """Stop listening, close the connections, and end every subscription."""


class _Hub:
    """What both channels share: the subscriptions of this process, by topic, and the encoding of messages."""

    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = {}

    def subscribe(self, topic: str) -> Subscription:
        """A subscription to ``topic``, receiving from now on (see :meth:`News.subscribe`)."""
        _check_topic(topic)
        subscription = Subscription(self, topic)
        self._subscriptions.setdefault(topic, set()).add(subscription)
        return subscription

    def _drop(self, subscription: Subscription) -> None:
        subscribers = self._subscriptions.get(subscription.topic, set())
        subscribers.discard(subscription)
        if not subscribers:
            self._subscriptions.pop(subscription.topic, None)

    def _deliver(self, topic: str, payload: Any) -> None:
        for subscription in list(self._subscriptions.get(topic, ())):
            subscription._put(Message(topic, payload))

    def _receive(self, text: str) -> None:
        """Deliver an encoded message; one that is not ours (someone else's ``NOTIFY``) is logged and dropped."""
        counters.add("news_received")
        try:
            decoded = json.loads(text)
            topic, payload = decoded["topic"], decoded["payload"]
        except (ValueError, TypeError, KeyError):
            log.warning("news: a message that is not motley's was dropped: %.80r", text)
            return
        if isinstance(topic, str):
            self._deliver(topic, payload)

    def _gap(self) -> None:
        for subscribers in list(self._subscriptions.values()):
            for subscription in list(subscribers):
                subscription._put(Message(subscription.topic, None, gap=True))

    def _end(self) -> None:
        for subscribers in list(self._subscriptions.values()):
            for subscription in list(subscribers):
                subscription.close()


def _check_topic(topic: str) -> None:
    if not isinstance(topic, str) or not 0 < len(topic) <= MAX_TOPIC:
        raise ValueError(f"a news topic is a string of 1 to {MAX_TOPIC} characters, not {topic!r:.80}")


def encode(topic: str, payload: Any) -> str:
    """A message as sent: ``{"topic": ..., "payload": ...}`` in compact JSON.

    Raises:
        ValueError: for a bad topic, a payload that is not JSON (NaN included), or one over :data:`MAX_BYTES`.
    """
    _check_topic(topic)
    counters.add("news_published")
    try:
        text = json.dumps({"topic": topic, "payload": payload}, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a news payload is a JSON value: {exc}") from None
    if len(text.encode()) > MAX_BYTES:
        raise ValueError(f"a news message is at most {MAX_BYTES} bytes (PostgreSQL's NOTIFY), not "
                         f"{len(text.encode())}: send what changed, not the state")
    return text


class LocalNews(_Hub):
    """The news channel of one process (a SQLite store): a message goes straight to this process's
    subscriptions, encoded and decoded as :class:`PostgresNews` would, so what one refuses the other does."""

    async def start(self) -> None:
        """Nothing to start."""

    async def publish(self, topic: str, payload: Any) -> None:
        """See :meth:`News.publish`; delivered before it returns."""
        self._receive(encode(topic, payload))

    async def close(self) -> None:
        """End every subscription."""
        self._end()


class PostgresNews(_Hub):
    """The news channel of a site on PostgreSQL: ``NOTIFY`` on one channel (``channel``), ``LISTEN`` on it from
    one connection per process, which a task keeps open: when it is lost (PostgreSQL restarted, a network cut
    found by a ``SELECT 1`` every ``check_every`` seconds without news) the task connects again, waiting 0.05 s
    and doubling up to ``retry_max`` s between tries, and once listening again hands every subscription a gap.
    Publishing uses a second connection (reconnected, and the message sent once more, if it was lost).

    ``url``: the store's URL (``postgresql://...``, as ``--db`` takes it) or a libpq connection string.
    """

    def __init__(self, url: str | URL, *, channel: str = "motley_news", check_every: float = 5.0,
                 retry_max: float = 2.0, connect_timeout: int = 5) -> None:
        super().__init__()
        parsed = store_url(url) if isinstance(url, str) and "://" in url else url
        self._conninfo = (parsed.set(drivername="postgresql").render_as_string(hide_password=False)
                          if isinstance(parsed, URL) else str(parsed))
        if not channel.isidentifier() or len(channel) > 63:
            raise ValueError(f"a PostgreSQL channel name is an identifier of at most 63 characters: {channel!r}")
        self.channel, self.check_every, self.retry_max = channel, check_every, retry_max
        self.connect_timeout = connect_timeout
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._sender: Any = None  # psycopg.AsyncConnection, opened on first publish
        self._send_lock = asyncio.Lock()
        self.reconnects = 0  # how many times the listener connected again after a loss

    async def start(self, timeout: float = 10.0) -> None:
        """Start listening; returns once the channel is listened to.

        Raises:
            NewsUnavailable: not listening within ``timeout`` seconds (the database is unreachable).
        """
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="motley-news")
        try:
            await asyncio.wait_for(self._listening.wait(), timeout)
        except TimeoutError:
            raise NewsUnavailable(f"news: not listening to PostgreSQL after {timeout:g} s") from None

    async def _connect(self) -> Any:
        import psycopg

        return await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True,
                                                     connect_timeout=self.connect_timeout,
                                                     application_name=APPLICATION)

    async def _listen(self) -> None:
        """The listener task: connect, ``LISTEN``, deliver what comes; on a lost connection, again."""
        import psycopg

        delay, first = 0.05, True
        while True:
            try:
                async with await self._connect() as conn:
                    await conn.execute(f"LISTEN {self.channel}")  # an identifier checked in __init__
                    self._listening.set()
                    if not first:
                        self.reconnects += 1
                        self._gap()
                    first, delay = False, 0.05
                    while True:
                        async for note in conn.notifies(timeout=self.check_every):
                            self._receive(note.payload)
                        await conn.execute("SELECT 1")  # no news for a while: is the connection alive?
            except (psycopg.Error, OSError) as exc:  # lost, refused, or closed under it
                self._listening.clear()
                log.warning("news: listening to PostgreSQL failed (%s); again in %.2f s",
                            str(exc).splitlines()[0] if str(exc) else type(exc).__name__, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.retry_max)

    async def publish(self, topic: str, payload: Any) -> None:
        """See :meth:`News.publish`. ``NOTIFY`` is sent at once (autocommit); a lost connection is opened again
        and the message sent once more.

        Raises:
            ValueError: for a bad topic or payload (see :func:`encode`); nothing is sent.
            NewsUnavailable: the database could not be reached.
        """
        import psycopg

        text = encode(topic, payload)
        async with self._send_lock:
            for attempt in (1, 2):
                try:
                    if self._sender is None or self._sender.closed:
                        self._sender = await self._connect()
                    await self._sender.execute("SELECT pg_notify(%s, %s)", (self.channel, text))
                    return
                except (psycopg.Error, OSError) as exc:
                    await self._drop_sender()
                    if attempt == 2:
                        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                        raise NewsUnavailable(f"news: cannot publish on {topic!r}: {reason}") from None

    async def _drop_sender(self) -> None:
        if self._sender is not None:
            with contextlib.suppress(Exception):
                await self._sender.close()
            self._sender = None

    async def close(self) -> None:
        """Stop the listener task, close both connections, end every subscription."""
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        async with self._send_lock:
            await self._drop_sender()
        self._end()


def open_news(db: str) -> News:
    """The news channel that fits the store ``db`` (a ``--db`` value, see :func:`~.storage.store_url`):
    :class:`PostgresNews` for PostgreSQL, :class:`LocalNews` for SQLite (one process).

    Raises:
        BadStoreUrl, MissingExtraError: see :func:`~motley.server.store.storage.store_url`.
    """
    url = store_url(db)
    return PostgresNews(url) if url.get_backend_name() == "postgresql" else LocalNews()
