"""The signed internal channel of a site across machines (docs/scaling.md, docs/security.md).

The processes of a site talk to each other over HTTP: a WebSocket for a table another process drives is relayed to
the owner's internal address, and a seat request (join, rematch, decline) is forwarded there, naming the client's
address. On one machine those addresses are loopback ones; across machines anyone who reaches them could pose as a
process of the site. With a shared secret (``motley serve --site --site-secret FILE``, or :data:`SECRET_ENV`)
every internal request and relayed WebSocket handshake carries :data:`SIGNATURE`::

    x-motley-signature: v2;t=<unix seconds>;n=<32 hex digits>;s=<64 hex digits>

``s`` is HMAC-SHA256 (key: the secret) over :func:`signed_text`: the method, the path and query, the forwarded
client's address (``x-motley-client``, empty if none), the receiving process's internal address and its lease
owner id (so a request signed for one process is refused by another, and by the same address's next process: the
owner id is drawn anew at every start, so a request captured before a restart does not pass after it, though
the nonces taken live only in memory), the timestamp ``t`` and the random nonce ``n``. The receiver
(:class:`SignedChannel`, the app's innermost middleware) refuses with 403, before any route runs, a request that
claims to be internal (it carries ``x-motley-relayed`` or a signature) whose signature is missing, malformed, wrong,
more than :data:`WINDOW` seconds away from its own clock, or replayed (a nonce it took already); a valid one's
client address becomes the request's client (``scope["client"]``). The forwarded client header of anyone without
a valid signature is not believed (:func:`motley.server.web.reading.client_address`).

The channel is authenticated, not encrypted: a party that can read the internal traffic sees the seat tokens in
it. Across an untrusted network, carry it over a private network or a tunnel (WireGuard, an SSH tunnel, TLS).
The secret itself is never sent, shown, logged or kept in a ``repr``.
"""

from __future__ import annotations

import hashlib
import heapq
import hmac
import ipaddress
import logging
import os
import secrets
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from motley.core import MotleyError
from motley.server.site.leases import FORWARDED_CLIENT, RELAYED
from motley.server.store.refusals import body

#: The header of a signed internal request.
SIGNATURE = "x-motley-signature"
#: Seconds a signature's timestamp may be away from the receiver's clock (the machines' clocks must agree to
#: within that, e.g. by NTP).
WINDOW = 30.0
#: The fewest bytes a site secret may have (``openssl rand -hex 32`` gives 64 characters).
MIN_SECRET = 32
#: The environment variable that may hold the site secret itself (instead of ``--site-secret FILE``).
SECRET_ENV = "MOTLEY_SITE_SECRET"
#: Seconds between two warnings about refused internal requests (a stranger must not fill the log).
WARN_EVERY = 60.0

log = logging.getLogger("motley.server")


class SignatureRefused(Exception):
    """An internal request's signature is missing, malformed, wrong, stale or replayed (the message says which)."""


def signed_text(method: str, target: str, client: str, destination: str, process: str, timestamp: int,
                nonce: str) -> bytes:
    """The bytes a signature covers: ``method`` (``GET`` for a WebSocket handshake), ``target`` (path and
    ``?query``), the forwarded ``client`` address ('' for none), the receiving process's internal address
    ``destination`` (``host:port``) and lease owner id ``process`` (new at each start of a process),
    ``timestamp`` (Unix seconds) and ``nonce``, one per line after a version line."""
    return "\n".join(("motley-site-v2", method.upper(), target, client, destination, process, str(timestamp),
                      nonce)).encode()


def sign(secret: bytes, method: str, target: str, client: str, destination: str, process: str,
         now: float | None = None, nonce: str | None = None) -> str:
    """The :data:`SIGNATURE` header value for a request of ``method`` to ``target`` at the process ``destination``
    whose lease owner id is ``process`` (as the store names the owner of a table: ``Storage.process_of``),
    forwarding the address ``client``; ``now`` (Unix seconds, default the clock) and ``nonce`` (default 16 random
    bytes in hex) are for tests."""
    timestamp = int(time.time() if now is None else now)
    nonce = secrets.token_hex(16) if nonce is None else nonce
    mac = hmac.new(secret, signed_text(method, target, client, destination, process, timestamp, nonce),
                   hashlib.sha256)
    return f"v2;t={timestamp};n={nonce};s={mac.hexdigest()}"


def target_of(path: str, query: str) -> str:
    """The signed target: ``path``, and ``?query`` when there is one."""
    return f"{path}?{query}" if query else path


class Verifier:
    """Checks the signatures sent to one process: the site ``secret``, this process's internal address
    ``destination`` and lease owner id ``process``, the ``window`` (seconds) and the ``clock`` (Unix seconds).
    Remembers each nonce it accepted until its timestamp leaves the window (memory: one entry per internal request
    of the last minute); a restarted process has another owner id, so what it accepted before needs no memory."""

    def __init__(self, secret: bytes, destination: str, process: str, window: float = WINDOW,
                 clock: Callable[[], float] = time.time) -> None:
        self._secret = secret
        self.destination = destination
        self.process = process
        self.window = window
        self.clock = clock
        self._seen: set[str] = set()
        self._expiry: list[tuple[float, str]] = []

    def __repr__(self) -> str:
        return f"Verifier(destination={self.destination!r}, window={self.window})"

    def check(self, method: str, target: str, client: str, header: str | None) -> None:
        """Accept the signature ``header`` of a request (``method``, ``target``, forwarded ``client``) and take
        its nonce.

        Raises:
            SignatureRefused: for a missing or malformed header, a signature that is not the secret's over this
                request for this process, a timestamp more than :attr:`window` seconds from the clock, or a
                nonce taken already (a replay); nothing is remembered then.
        """
        if not header:
            raise SignatureRefused("the internal request is not signed")
        fields = {name: value for name, _, value in (part.partition("=") for part in header.split(";")[1:])}
        timestamp, nonce, mac = fields.get("t", ""), fields.get("n", ""), fields.get("s", "")
        if not (header.startswith("v2;") and timestamp.isdigit() and 16 <= len(nonce) <= 64 and nonce.isalnum()
                and len(mac) == 64):
            raise SignatureRefused("the internal request's signature is malformed")
        expected = hmac.new(self._secret, signed_text(method, target, client, self.destination, self.process,
                                                      int(timestamp), nonce), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, mac):
            raise SignatureRefused("the internal request's signature is wrong (another secret or process, or "
                                   "altered)")
        now = self.clock()
        if abs(now - int(timestamp)) > self.window:
            raise SignatureRefused(f"the internal request's signature is more than {self.window:g} s old or ahead "
                                   "(are the machines' clocks set?)")
        self._forget(now)
        if nonce in self._seen:
            raise SignatureRefused("the internal request's signature was used already (a replay)")
        self._seen.add(nonce)
        heapq.heappush(self._expiry, (int(timestamp) + self.window, nonce))

    def _forget(self, now: float) -> None:
        """Drop the nonces whose timestamps left the window (they would be refused as stale anyway)."""
        while self._expiry and self._expiry[0][0] < now:
            self._seen.discard(heapq.heappop(self._expiry)[1])


class SignedChannel:
    """ASGI middleware of a site with a secret: a request or WebSocket handshake carrying :data:`RELAYED` or
    :data:`SIGNATURE` must be signed for this process (:class:`Verifier`), else it is refused with HTTP 403 (a
    JSON ``detail`` naming what is wrong; a handshake is closed before it opens, which is a 403 too) and reaches
    no route; a signed one's :data:`FORWARDED_CLIENT` becomes ``scope["client"]``. Other requests pass
    untouched. Refusals are logged as a warning at most once per :data:`WARN_EVERY` seconds, with their count."""

    def __init__(self, app: ASGIApp, verifier: Verifier) -> None:
        self.app = app
        self.verifier = verifier
        self.refused = 0
        self.warned = -WARN_EVERY

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if headers.get(RELAYED) is None and headers.get(SIGNATURE) is None:
            await self.app(scope, receive, send)
            return
        client = headers.get(FORWARDED_CLIENT, "")
        method = scope.get("method", "GET") if scope["type"] == "http" else "GET"
        target = target_of(scope["path"], scope.get("query_string", b"").decode("latin-1"))
        try:
            self.verifier.check(method, target, client, headers.get(SIGNATURE))
        except SignatureRefused as exc:
            self._note(scope, str(exc))
            await _refuse(scope, receive, send, str(exc))
            return
        if client:
            scope["client"] = (client, 0)
        await self.app(scope, receive, send)

    def _note(self, scope: Scope, reason: str) -> None:
        """Count a refusal; warn (peer and reason, never a header's value) if none was warned of lately."""
        self.refused += 1
        now = time.monotonic()
        if now - self.warned >= WARN_EVERY:
            peer = scope.get("client") or ("unknown", 0)
            log.warning("internal request from %s refused (%d refused since the last warning): %s",
                        peer[0], self.refused, reason)
            self.warned, self.refused = now, 0


async def _refuse(scope: Scope, receive: Receive, send: Send, reason: str) -> None:
    """Answer 403 with ``reason``: a JSON body for HTTP (every refusal's, :func:`~motley.server.store.refusals.body`;
    the middleware is outside the app's handlers), a handshake closed before it opens for a WebSocket."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": 1008, "reason": "internal request refused"})
        return
    await JSONResponse(body("internal_refused", f"internal request refused: {reason}"), 403)(scope, receive, send)


def load_secret(file: Path | None, environ: Mapping[str, str] | None = None) -> bytes | None:
    """The site secret: the contents of ``file`` (surrounding whitespace stripped), else the value of
    :data:`SECRET_ENV` in ``environ`` (default ``os.environ``), else None.

    Raises:
        MotleyError: for a ``file`` that cannot be read, or a secret of fewer than :data:`MIN_SECRET` bytes (the
            message gives its length and where it came from, never the secret).
    """
    environ = os.environ if environ is None else environ
    if file is not None:
        try:
            secret, source = file.read_bytes().strip(), f"the site secret in {file}"
        except OSError as exc:
            raise MotleyError(f"cannot read the site secret file {file}: {exc.strerror or exc}") from None
    elif environ.get(SECRET_ENV):
        secret, source = environ[SECRET_ENV].strip().encode(), f"the site secret in {SECRET_ENV}"
    else:
        return None
    if len(secret) < MIN_SECRET:
        raise MotleyError(f"{source} has {len(secret)} bytes; a site secret needs at least {MIN_SECRET} "
                          "(e.g. `openssl rand -hex 32`)")
    return secret


def is_loopback(address: str) -> bool:
    """Is the host of ``address`` (``host:port``, ``[v6]:port``) this machine's loopback (``localhost``,
    127.0.0.0/8, ::1)? A name other than ``localhost`` is not."""
    host = address.rsplit(":", 1)[0] if address.count(":") == 1 or address.startswith("[") else address
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
