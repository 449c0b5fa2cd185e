"""What one client address may hold open: Uvicorn's HTTP and WebSocket protocols with a request-header
deadline and a bound on open connections per address (docs/security.md, *Connections*).

Uvicorn times out an idle keep-alive connection (``timeout_keep_alive``) but not one whose request header never
ends: a client that sends half a header, or nothing, holds its connection (and a file descriptor) for ever, and
enough of them starve every other client (slowloris). ASGI middleware cannot help, since the app only sees a
request once its header is complete. So the guard sits in the protocol, the object Uvicorn makes for each TCP
connection: :func:`uvicorn_settings` gives ``uvicorn.Config``/``uvicorn.run`` the protocol classes (``http=``,
``ws=``) and the keep-alive timeout of a :class:`~motley.server.play.limits.Limits`.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, cast

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from motley.server.play.limits import ABORT, Limits

#: The answer to a connection beyond ``Limits.connections_per_address`` (its request is not parsed).
REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
           b"content-length: 38\r\nconnection: close\r\nretry-after: 10\r\n\r\n"
           b"too many connections from this address")
#: Seconds a refused connection may take to send the first bytes of its request; then it gets :data:`REFUSED`
#: anyway and is closed. A refused connection is answered when its request arrives (read and dropped) rather than
#: at once: closed before its request, a connection is reset when the request reaches it and the client may lose
#: the answer. Short, since it holds a file meanwhile.
LINGER = 0.5


def peer_address(transport: asyncio.BaseTransport) -> str | None:
    """The client's IP address of ``transport`` (``"127.0.0.1"``, ``"::1"``), None when it has none (a Unix
    socket). It is the TCP peer: behind a reverse proxy, the proxy's address."""
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else None


class ConnectionGuard:
    """The open connections of one server, by client address, at most ``per_address`` each.

    A connection is counted from :meth:`admit` until :meth:`release`, whichever protocol holds it then (an HTTP
    connection upgraded to a WebSocket stays counted until the socket closes). A transport found closed at the
    next :meth:`admit` of its address is dropped too, so a missed release cannot lock an address out.
    """

    def __init__(self, per_address: int, header_timeout: float) -> None:
        self.per_address = per_address
        self.header_timeout = header_timeout
        self.open: dict[str, set[asyncio.BaseTransport]] = {}

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count ``transport``'s connection; False (nothing counted) if its address already has
        ``per_address`` open."""
        address = peer_address(transport)
        if address is None:
            return True
        held = {t for t in self.open.get(address, ()) if not t.is_closing()}
        if len(held) >= self.per_address:
            self.open[address] = held
            return False
        held.add(transport)
        self.open[address] = held
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        """``transport``'s connection is closed (a transport never admitted, or released already: nothing)."""
        address = peer_address(transport)
        held = self.open.get(address or "", set())
        held.discard(transport)
        if not held:
            self.open.pop(address or "", None)

    def count(self, address: str) -> int:
        """Connections counted for ``address`` now."""
        return len(self.open.get(address, ()))


class GuardedHTTP(asyncio.Protocol):
    """Mixed into one of Uvicorn's HTTP protocols (:class:`~uvicorn.protocols.http.h11_impl.H11Protocol`,
    httptools'): a connection beyond ``guard.per_address`` is answered :data:`REFUSED` and closed (its request
    dropped unparsed; :data:`LINGER`); a request
    header must be complete ``guard.header_timeout`` seconds after the connection opens, or after the first
    byte of a later request on it, or the connection is closed without an answer.

    Uvicorn's protocols keep the request in progress as ``cycle`` (None before the first): the connection
    waits for a header while there is none or its response is complete, and stops being this protocol's when
    a WebSocket upgrade hands the transport on."""

    guard: ClassVar[ConnectionGuard]
    _deadline: asyncio.TimerHandle | None = None
    _watched: asyncio.Transport | None = None
    _refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._watched = cast(asyncio.Transport, transport)  # uvloop's transports are not asyncio's classes
        if not self.guard.admit(transport):
            self._refuse()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self._answer_refused()  # the request, read and dropped
            return
        if self._deadline is None and self._waiting():
            self._arm()  # the first byte of a later request on a kept-alive connection
        super().data_received(data)
        if not self._waiting():
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._watched is not None:
            self.guard.release(self._watched)
        super().connection_lost(exc)

    def _refuse(self) -> None:
        """Answer :data:`REFUSED` and close the connection when its request arrives, or :data:`LINGER` seconds
        from now."""
        self._refused = True
        asyncio.get_running_loop().call_later(LINGER, self._answer_refused)

    def _answer_refused(self) -> None:
        if self._watched is not None and not self._watched.is_closing():
            self._watched.write(REFUSED)
            self._watched.close()

    def _waiting(self) -> bool:
        """Is the connection this protocol's and waiting for (the rest of) a request header?"""
        transport = self._watched
        if transport is None or transport.is_closing() or transport.get_protocol() is not self:
            return False
        cycle = getattr(self, "cycle", None)
        return cycle is None or bool(cycle.response_complete)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = asyncio.get_running_loop().call_later(self.guard.header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        """The header deadline passed: close the connection if it is still waiting for a header."""
        self._deadline = None
        if self._waiting() and self._watched is not None:
            self._watched.close()


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """Uvicorn's WebSocket protocol, releasing its connection from the guard when the socket closes, and offering
    the app a way to drop the connection at once (the scope extension :data:`~motley.server.play.limits.ABORT`:
    the transport's ``abort``), for a client that does not read and so would never take a close."""

    guard: ClassVar[ConnectionGuard]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # the app's task starts later and reads it then
        if scope is not None:
            scope.setdefault("extensions", {})[ABORT] = {"abort": self.transport.abort}

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.guard.release(self.transport)


def http_protocol() -> type[asyncio.Protocol]:
    """The HTTP protocol class Uvicorn would choose itself (``http="auto"``): httptools' if installed, else h11's."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools comes with uvicorn[standard]
        return H11Protocol
    return HttpToolsProtocol


def uvicorn_settings(limits: Limits, http: type[asyncio.Protocol] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.Config`` or ``uvicorn.run`` that keep ``limits``' connection limits:
    ``http`` and ``ws`` (protocol classes sharing one new :class:`ConnectionGuard`, so one per server) and
    ``timeout_keep_alive`` (seconds). ``http``: the HTTP protocol to guard (default: :func:`http_protocol`;
    :class:`~uvicorn.protocols.http.h11_impl.H11Protocol` or httptools' ``HttpToolsProtocol``)."""
    guard = ConnectionGuard(limits.connections_per_address, float(limits.header_timeout))
    base = http or http_protocol()
    guarded_http = type(f"Guarded{base.__name__}", (GuardedHTTP, base), {"guard": guard})
    guarded_ws = type("GuardedWebSocketProtocol", (GuardedWebSocket,), {"guard": guard})
    return {"http": guarded_http, "ws": guarded_ws, "timeout_keep_alive": limits.keep_alive}
