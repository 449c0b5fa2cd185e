"""Every refusal of the HTTP API turned into its answer in one place, and that answer's place in the OpenAPI schema.

A route never builds an error answer: it raises a :class:`~motley.server.store.refusals.Refusal` (or lets one
raised below it go by), and the app's exception handlers (:func:`install`) answer it with the refusal's status,
``{"error": {"code", "message"}}`` (:class:`~motley.server.play.bodies.RefusalBody`) and ``Retry-After`` where it
applies. The same shape answers a path no route has and a method a route does not take (Starlette's
``HTTPException``), and a path or query parameter of the wrong type (FastAPI's 422: its first error, in words). The
answer of a seat request forwarded to the process of the site that drives the table (:class:`Forwarded`) is that
process's, passed on as it came.

The refusals the web room raises itself are here too (:class:`NoSuchTable`, :class:`NotFound`, :class:`BadRequest`,
:class:`TooLarge`, :class:`NotJson`, :class:`NotFinished`, :class:`NotYours`, :class:`TableOver`,
:class:`BuildsBusy`); the others are raised by the
rooms below (the store, the set of tables, the analyses, the site's relay).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from motley.server.play import bodies
from motley.server.play.limits import RETRY_AFTER
from motley.server.store.refusals import Refusal, answer_of, body, code_of

#: What each error status of the API means, as the OpenAPI schema says it (:func:`refusals`; a route may say more
#: of its own).
REFUSALS = {
    400: "the request is not well formed: the answer says what is wrong with it",
    403: "a cross-site request: its Origin is none of the server's public origins (the app's Origin check, plain "
         "text)",
    404: "no such table",
    409: "the table is not in a state that allows it: the answer says why",
    413: "the request body is larger than the limit",
    415: "the request body is not application/json",
    429: "this address has as many unfinished tables as it may have, or creates tables faster than its rate (then "
         "Retry-After says in how many seconds to try again)",
    503: "the table store is not answering (or not within its deadline, 2 s); try again (Retry-After)",
}
#: The plain-text answers any route may give before it runs: a ``Host`` the server does not answer to (the app's
#: Host check), and a client address that holds as many connections as it may (answered before its request is
#: read, with ``Retry-After``).
BEFORE_ANY_ROUTE = {
    400: "the Host header names none of the server's names (plain text, \"Invalid host header\": the app's Host "
         "check)",
    503: "the client's address holds as many connections as it may (plain text, with Retry-After; the server's "
         "connection limit, before the request is read)",
}
PLAIN_TEXT = {"text/plain": {"schema": {"type": "string"}}}
#: The one schema of every refusal's body in ``/openapi.json``.
REFUSAL_REF = {"$ref": f"#/components/schemas/{bodies.RefusalBody.__name__}"}


class NoSuchTable(Refusal):
    """HTTP 404: no table has this id."""

    status = 404
    code = "no_table"
    words = "no such table"


class NotFound(Refusal):
    """HTTP 404: no such file, game or picture."""

    status = 404
    code = "not_found"
    words = "not found"


class BadRequest(Refusal):
    """HTTP 400: the request is not well formed, or asks for what the server does not offer; the message says
    what is wrong (the field it names)."""

    status = 400
    code = "bad_request"
    words = "the request is not well formed"


class TooLarge(Refusal):
    """HTTP 413: the request body is larger than the route's limit."""

    status = 413
    code = "too_large"
    words = "request too large"


class NotJson(Refusal):
    """HTTP 415: the request body is not ``application/json``."""

    status = 415
    code = "not_json"
    words = "the request body must be application/json"


class NotFinished(Refusal):
    """HTTP 409: the table's match is still played, or was cancelled before its end; it has no record or replay."""

    status = 409
    code = "not_finished"
    words = "the table is still being played; watch it instead"


class NotYours(Refusal):
    """HTTP 403: the table may be cancelled only by the browser that made it (its browser key) or by a person at it
    (a seat link's token); the request brought neither."""

    status = 403
    code = "not_yours"
    words = ("only the browser that made this table, or a person with one of its seat links, may cancel it; "
             "leave it instead (forget it on your page)")


class TableOver(Refusal):
    """HTTP 409: the table's match is over already, or it was cancelled: there is nothing to cancel."""

    status = 409
    code = "table_over"
    words = "this table is over already (finished or cancelled): there is nothing to cancel"


class BuildsBusy(Refusal):
    """HTTP 429 with ``Retry-After``: the client's address has as many replay answers being built as it may."""

    status = 429
    code = "busy"
    words = "this address has replays being built already; try again in a moment"
    retry_after = RETRY_AFTER


class Forwarded(Exception):
    """The answer of the process of the site that drives a table to a seat request forwarded there: its
    ``status``, JSON ``answer`` and ``Retry-After``. Raised by the lookup of a seat request's table
    (:func:`motley.server.web.lookup.seat_table`) and answered as it came by :func:`install`'s handler."""

    def __init__(self, status: int, answer: Any, retry_after: str | None) -> None:
        super().__init__(status)
        self.status = status
        self.answer = answer
        self.retry_after = retry_after


def refused(refusal: Refusal) -> JSONResponse:
    """The answer to ``refusal``: its status, its body (:func:`~motley.server.store.refusals.answer_of`) and its
    headers (``Retry-After``)."""
    return JSONResponse(answer_of(refusal), status_code=refusal.status, headers=refusal.headers())


async def _refusal(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refusal)
    return refused(exc)


async def _http(_request: Request, exc: Exception) -> JSONResponse:
    """A refusal made by Starlette or FastAPI themselves (a path no route has, a method a route does not take)."""
    assert isinstance(exc, HTTPException)
    message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    return JSONResponse(body(code_of(exc.status_code), message), status_code=exc.status_code,
                        headers=dict(exc.headers or {}))


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 (a path or query parameter of the wrong type): its first error, in words."""
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    first = errors[0] if errors else {"loc": (), "msg": "the request is not valid"}
    loc = tuple(part for part in first.get("loc", ()) if part not in ("path", "query", "body", "header"))
    message = str(first.get("msg", "")).removeprefix("Value error, ")
    words = f"{bodies.where(loc)}: {message}" if loc else message
    return JSONResponse(body(code_of(422), words), status_code=422)


async def _forwarded(_request: Request, exc: Exception) -> JSONResponse:
    """The owner's answer to a forwarded seat request, as it came (a body that is not a JSON object: in the
    refusal's shape, with the owner's status)."""
    assert isinstance(exc, Forwarded)
    answer = exc.answer
    if not isinstance(answer, dict):
        answer = body(code_of(exc.status), str(answer))
    return JSONResponse(answer, status_code=exc.status,
                        headers={"Retry-After": exc.retry_after} if exc.retry_after else None)


def install(app: FastAPI) -> None:
    """Register the handlers that answer every refusal (:mod:`this module <motley.server.web.refusals>`) in
    ``app``, and its OpenAPI schema with every refusal's body the one schema (:func:`openapi`)."""
    app.add_exception_handler(Refusal, _refusal)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(Forwarded, _forwarded)

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi(app)
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]


def openapi(app: FastAPI) -> dict[str, Any]:
    """``app``'s OpenAPI schema, FastAPI's, with its 422 answers (a parameter of the wrong type) in the one refusal
    schema (:class:`~motley.server.play.bodies.RefusalBody`) instead of FastAPI's own, which are left out."""
    schema = get_openapi(title=app.title, version=app.version, openapi_version=app.openapi_version,
                         description=app.description, routes=app.routes)
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            invalid = operation.get("responses", {}).get("422")
            if invalid is not None:
                invalid["content"] = {"application/json": {"schema": dict(REFUSAL_REF)}}
    models = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        models.pop(name, None)
    return schema


def every_route() -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` every route has (:data:`BEFORE_ANY_ROUTE`: plain text); a route's own 400 or 503
    (:func:`refusals`) says both."""
    return {code: {"description": words, "content": dict(PLAIN_TEXT)} for code, words in BEFORE_ANY_ROUTE.items()}


def refusals(*codes: int, **said: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route's error answers: each status in ``codes`` with what it means
    (:data:`REFUSALS`, or the route's own words, ``said["e409"]`` for 409) and its body, the one refusal schema
    (:class:`~motley.server.play.bodies.RefusalBody`). 403, from the Origin check in front of every state-changing
    route, is plain text (where the route says its own ``e403``, the one refusal body too); a 400 or 503 may
    also be the plain-text answer of :data:`BEFORE_ANY_ROUTE`."""
    model: type[BaseModel] = bodies.RefusalBody
    answers: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        words = said.get(f"e{code}", REFUSALS[code])
        if code == 403 and "e403" in said:  # the route's own JSON refusal, or the Origin check's plain text
            answers[code] = {"description": f"{words}; or {REFUSALS[403]}", "model": model,
                             "content": dict(PLAIN_TEXT)}
        elif code == 403:
            answers[code] = {"description": words, "content": dict(PLAIN_TEXT)}
        elif code in BEFORE_ANY_ROUTE:
            answers[code] = {"description": f"{words}; or {BEFORE_ANY_ROUTE[code]}", "model": model,
                             "content": dict(PLAIN_TEXT)}
        else:
            answers[code] = {"description": words, "model": model}
        if code in (429, 503):
            answers[code]["headers"] = {"Retry-After": {"description": "seconds to wait before asking again",
                                                        "schema": {"type": "integer"}}}
    return answers


def contents(*media_types: str, what: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entry of a route's 200 answer that is not JSON: ``what`` it is, in any of
    ``media_types`` (text)."""
    return {200: {"description": what, "content": {t: {"schema": {"type": "string"}} for t in media_types}}}
