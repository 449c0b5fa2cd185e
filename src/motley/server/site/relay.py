"""The site's relays to the process that drives a table: a seat request forwarded there (:func:`forward`), and a
viewer's socket piped there frame by frame (:func:`relay_or_refuse`, :func:`relay`).

Both are marked relayed (:data:`~motley.server.site.leases.RELAYED`: never relayed again), name the client's
address and, in a site with a secret, are signed (:func:`~motley.server.site.signing.sign`), so the owner counts
the request against the client and believes nobody else's header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
from typing import Any

from starlette.websockets import WebSocket
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import WebSocketException

from motley.server.play import protocol
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


async def relay_or_refuse(ws: WebSocket, service: Service, table_id: str) -> None:
    """The socket (accepted) of a table another process of the site drives: relayed to that process's address
    (:func:`relay`), or, when none is known, it is relayed already, or the owner cannot be reached, answered
    ``elsewhere`` and closed with :data:`CLOSE_MOVED` (the page reconnects)."""
    process = None
    if ws.headers.get(RELAYED) is None:
        with contextlib.suppress(StoreError):
            process = await service.owner_process(table_id)
    secret = service.membership.secret
    if process is None or not await relay(ws, process, f"/ws/{table_id}", ws.url.query, secret):
        await refuse(ws, protocol.error(0, "elsewhere", "another process of the site serves this table; "
                                        "reconnect"), CLOSE_MOVED)


async def relay(ws: WebSocket, process: tuple[str, str], path: str, query: str, secret: bytes | None = None) -> bool:
    """Pipe the socket ``ws`` to the owner's socket at ``path`` of the ``process`` (its lease owner id and address,
    ``Storage.process_of``; ``query``: the
    client's, its seat token with it) frame by frame, both ways, until either side closes; the client's socket
    is then closed with the owner's close code (:data:`CLOSE_MOVED` if it had none, e.g. the owner died), so the
    page reconnects. The handshake is marked relayed, names the client's address and, given the site's
    ``secret``, is signed (:func:`signing.sign`). Returns False (nothing sent) if the owner could not be reached
    or refused the handshake."""
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

    async def down() -> None:
        async for frame in upstream:
            await (ws.send_text(frame) if isinstance(frame, str) else ws.send_bytes(frame))

    async def up() -> None:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            await upstream.send(message["text"] if message.get("text") is not None else message.get("bytes") or b"")

    pipes = [asyncio.create_task(down()), asyncio.create_task(up())]
    try:
        await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pipe in pipes:
            pipe.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)
        await upstream.close()
    code = upstream.close_code if upstream.close_code not in (None, 1005, 1006) else CLOSE_MOVED
    with contextlib.suppress(Exception):
        await ws.close(code or CLOSE_MOVED)
    return True


async def refuse(ws: WebSocket, message: ErrorMessage, code: int) -> None:
    """Send ``message`` (an ``error``) on the accepted socket ``ws`` and close it with ``code``."""
    await ws.send_text(json.dumps(message))
    await ws.close(code)
