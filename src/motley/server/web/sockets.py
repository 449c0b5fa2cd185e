"""The WebSocket of a table's viewer: ``/ws/{id}?token=...&svg=1`` (see :mod:`motley.server.play.protocol`).

With ``svg=1`` every ``state`` message carries ``svg`` (the table as the viewer sees it) and an SVG per legal move,
made once per seat and version for the table's viewers (:class:`~motley.server.web.drawings.Drawings`). The limits
of :class:`~motley.server.play.limits.Limits` apply: a table has at most ``sockets_per_table`` sockets
(``table_full``, close 1013), a socket sends at most ``messages_per_second`` (``rate_limited``; close 1008 if it
keeps on) and a viewer that does not read has at most ``queue_messages`` waiting (close 1008). A table another
process of the site drives is relayed there (:func:`motley.server.site.relay.relay_or_refuse`), under the same
bound on what waits for the client.

A refusal here is a protocol ``error`` message and a close code, not an HTTP answer: the socket is open already.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from motley.server.play import protocol
from motley.server.play.limits import CLOSE_POLICY, TOO_MANY, TOO_SLOW, Limits, TokenBucket
from motley.server.play.live import Connection, LiveTable
from motley.server.play.messages import ErrorMessage, ServerMessage
from motley.server.play.service import OwnedElsewhere
from motley.server.site.relay import close, refuse, relay_or_refuse
from motley.server.store.writer import StoreError
from motley.server.web.context import Context
from motley.server.web.drawings import Drawings

log = logging.getLogger("motley.server")

#: WebSocket close code of a table full of viewers (a viewer too slow to read, or flooding: ``CLOSE_POLICY``).
CLOSE_TRY_LATER = 1013
#: Seconds the messages queued before the server closes a socket may take to go out.
CLOSE_FLUSH = 5.0

router = APIRouter()


class SocketConnection:
    """A WebSocket viewer: messages go through a bounded queue and a writer task, so a slow client never blocks
    a table, and one that does not read is disconnected instead of buffered without bound.

    ``label`` names the connection in log lines (the table id); ``limits``: the queue length and the rate of
    the client's messages (:meth:`admit`); ``drawings``: the table's, shared by its viewers that draw (``svg``;
    None: this connection's own).
    """

    def __init__(self, ws: WebSocket, seat: int | None, svg: bool, limits: Limits, label: str = "",
                 drawings: Drawings | None = None) -> None:
        self.ws = ws
        self.seat = seat
        self.svg = svg
        self.drawings = drawings if drawings is not None or not svg else Drawings()
        self.label = label
        self.flood_strikes = limits.flood_strikes
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=limits.queue_messages)
        self.bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        self.strikes = 0
        #: Why the server closes the socket: ``(close code, reason)``; None while it is open.
        self.closing: tuple[int, str] | None = None
        self.receiving = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writer task (:attr:`task`)."""
        self.task = asyncio.get_running_loop().create_task(self.writer())

    def send(self, message: ServerMessage) -> None:
        """Queue a message (as JSON text; drawn first when the viewer asked for SVG). A full queue (the client
        does not read) closes the connection (:meth:`stop`); a closing one takes nothing more."""
        if self.closing is not None:
            return
        text = protocol.encode(self.drawings(message) if self.drawings is not None else message)
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("table %s: closing a viewer that does not read (%d messages waiting)", self.label,
                        self.queue.qsize())
            self.stop(CLOSE_POLICY, TOO_SLOW, flush=False)

    def admit(self) -> bool:
        """May the client's next message be handled (is it within its rate)? If not, answer it with
        :meth:`refuse`."""
        if self.bucket.take():
            self.strikes = 0
            return True
        return False

    def refuse(self, message: ErrorMessage) -> None:
        """Answer a message over the rate with ``message`` (an error); after ``Limits.flood_strikes`` refusals
        in a row the connection is closed (:meth:`stop`, the queue flushed first)."""
        self.send(message)
        self.strikes += 1
        if self.strikes >= self.flood_strikes:
            log.warning("table %s: closing a viewer that keeps sending over its rate", self.label)
            self.stop(CLOSE_POLICY, TOO_MANY, flush=True)

    def stop(self, code: int, reason: str, flush: bool) -> None:
        """Close the connection with ``code`` and ``reason``: after the messages already queued (``flush``, if
        they fit) or at once, dropping them."""
        if self.closing is not None:
            return
        self.closing = (code, reason)
        if flush:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
                return
        if self.task is not None:
            self.task.cancel()

    async def writer(self) -> None:
        """Send queued messages until the ``None`` sentinel or a closed socket."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self.ws.send_text(text)
            except Exception:  # a closed socket: the reader side will notice and detach
                return


@router.websocket("/ws/{table_id}")
async def ws_endpoint(ws: WebSocket, table_id: str, web: Context) -> None:
    """A viewer's socket: a seat (by its ``token``) or a spectator; refused with a protocol ``error`` and a close
    code for a table the store cannot give (1011), none (4404), a token of no seat (4403), a full table or an
    arrival not stored (1013)."""
    service, limits = web.service, web.limits
    await ws.accept()
    try:
        live = await service.get(table_id)
    except StoreError:
        await refuse(ws, protocol.error(0, "unavailable", "the table store is not answering"), 1011)
        return
    except OwnedElsewhere:
        await relay_or_refuse(ws, service, table_id, limits.queue_messages)
        return
    if live is None:
        await refuse(ws, protocol.error(0, "no_table", "no such table"), 4404)
        return
    token = ws.query_params.get("token")
    seat = live.table.seat_of_token(token) if token else None
    if token and seat is None:
        await refuse(ws, protocol.error(live.table.version, "bad_token",
                                        "this link's token is not valid for this table"), 4403)
        return
    if len(live.viewers()) >= limits.sockets_per_table:
        await refuse(ws, protocol.error(live.table.version, "table_full",
                                        f"this table has {limits.sockets_per_table} viewers already; "
                                        "try again later"), CLOSE_TRY_LATER)
        return
    try:
        await live.arrive(seat)  # a person's first connection is stored before the seat is shown
    except StoreError:
        await refuse(ws, protocol.error(live.table.version, "not_stored",
                                        "your arrival at the seat could not be stored, so the seat is not "
                                        "shown yet; try again"), CLOSE_TRY_LATER)
        return
    svg = ws.query_params.get("svg") == "1"
    await _serve(ws, live, SocketConnection(ws, seat, svg, limits, live.id, web.drawings_of(live) if svg else None))


async def _serve(ws: WebSocket, live: LiveTable, conn: SocketConnection) -> None:
    """Attach ``conn`` to the table and hand it every client message until the socket closes, or until the
    server closes it (:attr:`SocketConnection.closing`: a slow reader or a flood)."""
    conn.start()
    assert conn.task is not None
    connection: Connection = conn
    live.attach(connection)
    try:
        chat = await live.chat.log_message()
        if chat["lines"]:  # a table nobody spoke at sends nothing more on connecting
            connection.send(chat)
    except StoreError:  # the chat is shown from the next line said on; the table itself is served
        log.warning("table %s: its chat could not be read", live.id)
    reader = asyncio.create_task(_read(ws, live, conn))
    try:
        await asyncio.wait((reader, conn.task), return_when=asyncio.FIRST_COMPLETED)
    finally:
        live.detach(connection)
        if conn.receiving:  # waiting for the client; never cancel a move half-way (it may be stored already)
            reader.cancel()
        if conn.closing is None:
            conn.task.cancel()
        else:  # the messages queued before a flood's close go first, if the client takes them soon
            await asyncio.wait((conn.task,), timeout=CLOSE_FLUSH)
            conn.task.cancel()
        await asyncio.gather(reader, conn.task, return_exceptions=True)
        if conn.closing is not None:  # dropped if the client does not take the close (it does not read)
            await close(ws, *conn.closing)


async def _read(ws: WebSocket, live: LiveTable, conn: SocketConnection) -> None:
    """Hand the client's messages to the table, within the socket's rate (``rate_limited`` beyond it),
    until the socket closes or the server closes it."""
    connection: Connection = conn
    try:
        while conn.closing is None:
            conn.receiving = True
            message = await ws.receive()
            conn.receiving = False
            if message["type"] == "websocket.disconnect":
                return
            if not conn.admit():
                conn.refuse(protocol.error(live.table.version, "rate_limited",
                                           "too many messages; wait a moment before sending more"))
                continue
            await live.submit(connection, message.get("text") if message.get("text") is not None
                              else message.get("bytes"))
    except (WebSocketDisconnect, RuntimeError):
        pass
