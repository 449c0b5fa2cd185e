"""The site's relays to the process that drives a table: a seat request forwarded there (:func:`forward`), and a
viewer's socket piped there frame by frame (:func:`relay_or_refuse`, :func:`relay`), with a bounded queue each way
(:class:`Pipe`) so a client that does not read is closed here as at the owner.

Both are marked relayed (:data:`~motley.server.site.leases.RELAYED`: never relayed again), name the client's
address and, in a site with a secret, are signed (:func:`~motley.server.site.signing.sign`), so the owner counts
the request against the client and believes nobody else's header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import WebSocketException

from motley.server.play import protocol
from motley.server.play.limits import ABORT, CLOSE_POLICY, TOO_MANY, TOO_SLOW, Limits
from motley.server.play.messages import ErrorMessage
from motley.server.play.service import Service
from motley.server.site import signing
from motley.server.site.leases import CLOSE_MOVED, FORWARDED_CLIENT, FORWARDED_TO, RELAYED
from motley.server.store.refusals import Refusal
from motley.server.store.writer import StoreError

#: Seconds a forwarded seat request waits for the owner's answer; seconds a relayed socket waits for the owner's
#: handshake.
FORWARD_TIMEOUT = 10
RELAY_OPEN_TIMEOUT = 5
#: Seconds a relayed socket's closing may wait for the client to take what is left (the frames the owner sent
#: before it closed, then the close).
CLOSE_FLUSH = 5.0

log = logging.getLogger("motley.server")


class OwnerUnreachable(Refusal):
    """HTTP 503: a seat request for a table another process of the site drives could not be forwarded there (the
    owner is unknown, did not answer, or the request was forwarded already)."""

    status = 503
    code = "elsewhere"
    words = "the table is served by another process of the site; try again"


async def forward(path: str, query: str, body: bytes, client: str, owner: str, address: str,
                  secret: bytes | None = None) -> tuple[int, Any, str | None]:
    """The answer of the process ``owner`` at ``address`` to a seat request (a ``POST`` of ``body`` to ``path``
    with ``query``), sent with the ``client``'s address and the owner's id (:data:`FORWARDED_TO`,
    :data:`FORWARDED_CLIENT`), marked relayed (never forwarded again) and, given the site's ``secret``, signed
    (:func:`signing.sign`): ``(status, answer, Retry-After)``, ``answer`` its JSON (its text if it is not JSON).

    Raises:
        OwnerUnreachable: if the owner does not answer within :data:`FORWARD_TIMEOUT` seconds.
    """
    target = signing.target_of(path, query)
    headers = {"content-type": "application/json", RELAYED: "1", FORWARDED_TO: owner, FORWARDED_CLIENT: client}
    if secret is not None:
        headers[signing.SIGNATURE] = signing.sign(secret, "POST", target, client, address, owner)
    sent = urllib.request.Request(f"http://{address}{target}", data=body, method="POST", headers=headers)

    def send() -> tuple[int, bytes, str | None]:
        try:
            with urllib.request.urlopen(sent, timeout=FORWARD_TIMEOUT) as answer:
                return int(answer.status), answer.read(), None
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), exc.headers.get("retry-after")

    try:
        status, text, retry_after = await asyncio.to_thread(send)
    except (OSError, TimeoutError):
        raise OwnerUnreachable("the table's process of the site is not answering; try again") from None
    try:
        answer: Any = json.loads(text)
    except ValueError:
        answer = text.decode("utf-8", "replace")
    return status, answer, retry_after


async def relay_or_refuse(ws: WebSocket, service: Service, table_id: str,
                          queue_messages: int = Limits.queue_messages) -> None:
    """The socket (accepted) of a table another process of the site drives: relayed to that process's address
    (:func:`relay`, at most ``queue_messages`` frames waiting each way), or, when none is known, it is relayed
    already, or the owner cannot be reached, answered ``elsewhere`` and closed with :data:`CLOSE_MOVED` (the page
    reconnects)."""
    process = None
    if ws.headers.get(RELAYED) is None:
        with contextlib.suppress(StoreError):
            process = await service.owner_process(table_id)
    secret = service.membership.secret
    if process is None or not await relay(ws, process, f"/ws/{table_id}", ws.url.query, secret, queue_messages):
        await refuse(ws, protocol.error(0, "elsewhere", "another process of the site serves this table; "
                                        "reconnect"), CLOSE_MOVED)


async def relay(ws: WebSocket, process: tuple[str, str], path: str, query: str, secret: bytes | None = None,
                queue_messages: int = Limits.queue_messages) -> bool:
    """Pipe the socket ``ws`` to the owner's socket at ``path`` of the ``process`` (its lease owner id and address,
    ``Storage.process_of``; ``query``: the client's, its seat token with it) frame by frame, both ways, until
    either side closes; the client's socket is then closed with the owner's close code and words
    (:data:`CLOSE_MOVED` if it had none, e.g. the owner died), so the page reconnects. The handshake is marked
    relayed, names the client's address and, given the site's ``secret``, is signed (:func:`signing.sign`).

    Each way has its own bounded queue (:class:`Pipe`): frames are read as they come and at most
    ``queue_messages`` wait for the other side, as at the owner (``Limits.queue_messages``). A client that does
    not read its frames is closed as the owner closes one (:data:`~motley.server.play.limits.CLOSE_POLICY`,
    :data:`~motley.server.play.limits.TOO_SLOW`), and one whose frames pile up before the owner takes them with
    :data:`~motley.server.play.limits.TOO_MANY`; the owner's socket is closed at once, so nothing piles up in
    this process's buffers (kernel or user) for a client that does not read.

    Returns False (nothing sent) if the owner could not be reached or refused the handshake."""
    client = ws.client.host if ws.client is not None else "unknown"
    owner, address = process
    target = signing.target_of(path, query)
    headers = {RELAYED: "1", "x-forwarded-for": client, FORWARDED_CLIENT: client}
    if secret is not None:
        headers[signing.SIGNATURE] = signing.sign(secret, "GET", target, client, address, owner)
    try:
        upstream = await ws_connect(f"ws://{address}{target}", open_timeout=RELAY_OPEN_TIMEOUT, max_size=1 << 20,
                                    additional_headers=headers)
    except (OSError, TimeoutError, WebSocketException):
        return False

    async def from_owner() -> None:
        async for frame in upstream:
            if not down.put(frame):
                log.warning("%s: closing a relayed viewer that does not read (%d messages waiting)", path,
                            queue_messages)
                return

    async def to_client(frame: str | bytes) -> None:
        await (ws.send_text(frame) if isinstance(frame, str) else ws.send_bytes(frame))

    async def from_client() -> None:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            if not up.put(message["text"] if message.get("text") is not None else message.get("bytes") or b""):
                return

    down = Pipe(queue_messages, to_client, (CLOSE_POLICY, TOO_SLOW))
    up = Pipe(queue_messages, upstream.send, (CLOSE_POLICY, TOO_MANY))
    readers = {asyncio.create_task(from_owner()): down, asyncio.create_task(from_client()): up}
    pipes = [*readers, down.start(), up.start()]
    try:
        done, _ = await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        if pipes[0] in done and down.closing is None:  # the owner closed: what it sent before goes first
            await down.flush(CLOSE_FLUSH)
    finally:
        for pipe in pipes:
            pipe.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)
        await upstream.close()
    closing = down.closing or up.closing
    if closing is None:
        ended = upstream.close_code not in (None, 1005, 1006)
        closing = (upstream.close_code or CLOSE_MOVED, upstream.close_reason or "") if ended else (CLOSE_MOVED, "")
    await close(ws, *closing)
    return True


async def close(ws: WebSocket, code: int, reason: str = "", timeout: float = CLOSE_FLUSH) -> None:
    """Close the socket ``ws`` with ``code`` and ``reason``; if the close has not gone out after ``timeout`` seconds
    (the client does not read, and its socket's buffers are full), drop the connection at once (the server's
    :data:`~motley.server.play.limits.ABORT` extension, where it has it), so its buffers are freed now, not when
    the client leaves."""
    try:
        await asyncio.wait_for(ws.close(code, reason), timeout)
        return
    except TimeoutError:
        pass
    except Exception:  # closed already
        return
    abort = ws.scope.get("extensions", {}).get(ABORT, {}).get("abort")
    if callable(abort):
        abort()


class Pipe:
    """One way of a relayed socket: frames taken as they come (:meth:`put`), at most ``size`` waiting, and a task
    (:meth:`start`) that hands them one by one to ``send`` (the other side's), waiting for it to take each.

    A frame that would be one too many is not kept: :meth:`put` says False and :attr:`closing` is ``close`` (the
    code and words the client's socket is closed with)."""

    def __init__(self, size: int, send: Callable[[str | bytes], Awaitable[None]], close: tuple[int, str]) -> None:
        self.queue: asyncio.Queue[str | bytes | None] = asyncio.Queue(maxsize=size)
        self.send = send
        self.close = close
        #: Why the relay closes the client's socket: ``close`` once the queue overflowed; None until then.
        self.closing: tuple[int, str] | None = None
        self.task: asyncio.Task[None] | None = None

    def put(self, frame: str | bytes) -> bool:
        """Keep ``frame`` for the other side; False (and :attr:`closing` set) if ``size`` frames wait already."""
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.closing = self.close
            return False
        return True

    def start(self) -> asyncio.Task[None]:
        """Start handing the frames on; returns the task (it ends after :meth:`flush`'s end mark, or by an error
        of ``send``: the other side went away)."""
        self.task = asyncio.get_running_loop().create_task(self._hand_on())
        return self.task

    async def flush(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for the frames waiting now to be taken."""
        if self.task is None:
            return
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
            await asyncio.wait((self.task,), timeout=timeout)

    async def _hand_on(self) -> None:
        while (frame := await self.queue.get()) is not None:
            await self.send(frame)


async def refuse(ws: WebSocket, message: ErrorMessage, code: int) -> None:
    """Send ``message`` (an ``error``) on the accepted socket ``ws`` and close it with ``code``."""
    await ws.send_text(protocol.encode(message))
    await ws.close(code)
