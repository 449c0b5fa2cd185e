"""The server's refusals: one base class, :class:`Refusal`, for every request the server turns down on purpose.

A refusal is raised where the server decides it (the store, the set of tables, the analyses, the web's routes) and
carries everything its answer needs: a ``code`` (a short name a program may branch on), an HTTP ``status``, the
words a person reads (:meth:`Refusal.message`) and, where asking again later helps, ``retry_after`` (seconds).
The web room turns every one of them into the same answer in one place (its exception handlers:
:mod:`motley.server.web.refusals`), ``{"error": {"code", "message"}}`` (:func:`body`), with ``Retry-After``
where it applies (:meth:`Refusal.headers`). A refusal's subclasses live in the lowest room that raises them; this
module is in the store room, the lowest, so every room may raise one.
"""

from __future__ import annotations

import math
from typing import Any


class Refusal(Exception):
    """A request turned down on purpose: ``status`` (HTTP), ``code`` (machine-readable, snake case) and the words
    of the answer. A subclass sets the three as class attributes; an instance may set its own ``status``
    (:meth:`__init__`'s keyword) or ``retry_after``.

    ``words`` is what the answer says when the exception has no message of its own, or when its message names the
    server's insides (``private``: a store failure names the database's error; the client gets ``words``).
    """

    status: int = 400
    code: str = "refused"
    words: str = "the request was refused"
    #: The exception's own message is for the server's log, not for the client (the answer says :attr:`words`).
    private: bool = False
    #: Seconds after which asking again may succeed (the answer's ``Retry-After``); None: no such time is known.
    retry_after: float | None = None

    def __init__(self, message: str = "", *, status: int | None = None, code: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        if retry_after is not None:
            self.retry_after = retry_after

    def message(self) -> str:
        """The words of the answer: the exception's message, or :attr:`words` when it has none or is
        :attr:`private`."""
        own = str(self)
        return self.words if self.private or not own else own

    def headers(self) -> dict[str, str]:
        """The answer's headers: ``Retry-After`` (whole seconds, rounded up, at least 1) when :attr:`retry_after`
        is set; else none."""
        if self.retry_after is None:
            return {}
        return {"Retry-After": str(max(1, math.ceil(self.retry_after)))}


def body(code: str, message: str) -> dict[str, Any]:
    """The body of every refusal answer: ``{"error": {"code": code, "message": message}}``."""
    return {"error": {"code": code, "message": message}}


def answer_of(refusal: Refusal) -> dict[str, Any]:
    """The body of the answer to ``refusal`` (:func:`body`)."""
    return body(refusal.code, refusal.message())


#: The code of an answer of HTTP status ``status`` that no :class:`Refusal` made (a path no route has, a method a
#: route does not take, a request FastAPI could not read).
STATUS_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
                409: "conflict", 413: "too_large", 415: "not_json", 422: "invalid_request", 429: "too_many",
                500: "server_error", 503: "unavailable"}


def code_of(status: int) -> str:
    """The code of a refusal of HTTP ``status`` made by no :class:`Refusal` (:data:`STATUS_CODES`; ``http_NNN``
    for another status)."""
    return STATUS_CODES.get(status, f"http_{status}")
