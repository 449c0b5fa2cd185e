"""Reading a request: its body (``application/json``, within a size limit), its JSON (guarded: size, depth, number
length), its shape (a :mod:`~motley.server.play.bodies` model), the browser's key (:func:`owner_in`) and the client's
address. Each refuses what it cannot read with a :class:`~motley.server.store.refusals.Refusal` naming the problem
(400, 413, 415)."""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import Iterator
from typing import Annotated, Any, TypeVar

from fastapi import Header, Request
from pydantic import BaseModel

from motley.core import MotleyError, jsonsafe
from motley.server.play import bodies
from motley.server.play.limits import Limits
from motley.server.play.owners import KEY, owner_of
from motley.server.play.service import Service
from motley.server.site.leases import FORWARDED_CLIENT, FORWARDED_TO
from motley.server.store.refusals import Refusal
from motley.server.web.refusals import BadRequest, NotJson, TooLarge

#: A request model a route's body is checked by.
Checked = TypeVar("Checked", bound=BaseModel)

#: Largest table request accepted by default, in bytes (``Limits.request_bytes``); its deepest nesting and
#: longest number (digits).
MAX_REQUEST = Limits.request_bytes
REQUEST_DEPTH = 16
REQUEST_DIGITS = 40
#: Largest rematch or decline request, in bytes (a token and, for a rematch, up to 16 seats).
SMALL_REQUEST = 4000


async def body_of(request: Request, limit: int) -> bytes:
    """The request body, read no further than ``limit`` bytes.

    Raises:
        NotJson: unless it is ``application/json``. TooLarge: beyond ``limit`` (a declared ``Content-Length``
            over it is refused before anything is read).
    """
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise NotJson()
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise TooLarge()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge()
    return bytes(body)


def parsed(body: bytes, what: str, limit: int, depth: int) -> Any:
    """``body`` as guarded JSON (:func:`motley.core.jsonsafe.loads`: at most ``limit`` bytes, ``depth`` deep,
    :data:`REQUEST_DIGITS` digits a number); ``what`` names it in the refusal.

    Raises:
        TooLarge: for a body over ``limit``. BadRequest: for JSON that does not parse or is nested too deep.
    """
    try:
        return jsonsafe.loads(body, what, max_bytes=limit, max_depth=depth, max_digits=REQUEST_DIGITS)
    except jsonsafe.JSONInputError as exc:
        raise (TooLarge if exc.reason == "too_large" else BadRequest)(str(exc)) from None


async def json_of(request: Request, what: str, limit: int = SMALL_REQUEST, depth: int = 4) -> Any:
    """The JSON of the request's body (:func:`body_of`, then :func:`parsed`): a rematch or a decline by default
    (at most :data:`SMALL_REQUEST` bytes, 4 deep).

    Raises:
        NotJson, TooLarge, BadRequest: as :func:`body_of` and :func:`parsed`.
    """
    return parsed(await body_of(request, limit), what, limit, depth)


def shaped(model: type[Checked], body: Any, shape: str = "") -> Checked:
    """``body`` checked by ``model`` (:func:`motley.server.play.bodies.validated`).

    Raises:
        BadRequest: saying the request's ``shape`` (when given) and what is wrong with it.
    """
    with as_bad_request(f"{shape}: " if shape else ""):
        return bodies.validated(model, body)


@contextlib.contextmanager
def as_bad_request(prefix: str = "") -> Iterator[None]:
    """A request the code inside refuses as a :class:`~motley.core.MotleyError` that is no
    :class:`~motley.server.store.refusals.Refusal` (a field of a table request, an option, ``seats`` of a
    rematch) raised as :class:`BadRequest` (HTTP 400) with its words after ``prefix``; a refusal goes on as it is.
    """
    try:
        yield
    except Refusal:
        raise
    except MotleyError as exc:
        raise BadRequest(f"{prefix}{exc}") from None


def client_address(request: Request, service: Service | None = None) -> str:
    """The client's address as the server sees it (behind a trusted proxy, the one its headers name); for a seat
    request forwarded by another process of ``service``'s site (:func:`motley.server.web.lookup.seat_table`), the
    address that process named: in a site with a secret, taken from a validly signed request only, by the app's
    :class:`~motley.server.site.signing.SignedChannel` (a header of anyone else is not believed); without one,
    trusted only when the request carries this process's owner id (:data:`FORWARDED_TO`)."""
    member = service.membership if service is not None else None
    proof, named = request.headers.get(FORWARDED_TO), request.headers.get(FORWARDED_CLIENT)
    if member is not None and member.owner is not None and member.secret is None and proof is not None and named \
            and hmac.compare_digest(proof, member.owner):
        return named
    return request.client.host if request.client is not None else "unknown"


#: The header that carries the browser's key (``GET /api/my-tables``, ``POST /api/tables``).
KEY_HEADER = "X-Motley-Key"
#: A key in this header, in the OpenAPI schema: one of another shape is refused as a parameter of the wrong type
#: is (422, its words naming the header).
KeyHeader = Annotated[str | None, Header(alias=KEY_HEADER, pattern=f"^{KEY.pattern}$",
                                         description="the browser's key: 22 to 128 URL-safe characters the page "
                                                     "draws once and keeps")]


def owner_in(key: str | None, where: str = KEY_HEADER) -> str | None:
    """The digest of the browser key ``key`` (:func:`~motley.server.play.owners.owner_of`), sent in ``where`` (the
    :data:`KEY_HEADER` header, or a body's field); None: none was sent.

    Raises:
        BadRequest: for a malformed key.
    """
    if key is None:
        return None
    with as_bad_request(f"{where}: "):
        return owner_of(key)


def owner_required(key: str | None) -> str:
    """The digest of the browser key ``key`` sent in the :data:`KEY_HEADER` header (:func:`owner_in`).

    Raises:
        BadRequest: for a key that is missing or malformed.
    """
    owner = owner_in(key)
    if owner is None:
        raise BadRequest(f"send the browser's key in the {KEY_HEADER} header (the page draws it once and keeps it)")
    return owner
