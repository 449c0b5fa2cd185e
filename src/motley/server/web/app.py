"""The FastAPI app of ``motley serve``: a :class:`~motley.server.play.service.Service` over the store, the
routes of :mod:`motley.server.web.routes` and the socket of :mod:`motley.server.web.sockets` (see there for the
HTTP and WebSocket API), every refusal answered by the handlers of :mod:`motley.server.web.refusals` (one body,
``{"error": {"code", "message"}}``), and three middlewares:
:class:`OriginCheck` (no cross-site WebSocket or POST), :class:`HostCheck` (Starlette's ``TrustedHostMiddleware``:
no ``Host`` but the server's own names, so no DNS rebinding) and :class:`SecurityHeaders`; in a site with a
secret, a fourth: :class:`~motley.server.site.signing.SignedChannel` (internal requests signed)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import motley
from motley.core import MotleyError
from motley.server.play.limits import IDLE_CLOSE, Limits
from motley.server.play.membership import Alone, Membership
from motley.server.play.service import Service, tidy_loop
from motley.server.play.thinking import Thinkers
from motley.server.site.leases import Site
from motley.server.site.membership import SiteMembership
from motley.server.site.news import open_news
from motley.server.site.signing import SignedChannel, Verifier
from motley.server.store.records import Settings
from motley.server.store.storage import Storage
from motley.server.web import refusals
from motley.server.web.context import Web
from motley.server.web.routes import router

#: Headers of every HTTP response: scripts, styles, images and sockets from this server only, no framing,
#: no ``Referer`` (a table link carries its seat's token in the query string), no type sniffing.
SECURITY_HEADERS = (
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; "
                                 b"img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                                 b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
)
#: Methods that change something (an ``Origin`` check applies to them).
CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: An origin as ``--allow-origin`` takes it: ``http`` or ``https``, a host name or address, maybe a port.
ORIGIN = re.compile(r"https?://[a-z0-9.\-]+(:[0-9]{1,5})?|https?://\[[0-9a-f:.]+\](:[0-9]{1,5})?")
#: A host name as ``--allow-host`` takes it: a name, an IPv4 address, an IPv6 address in brackets, ``*.``
#: before a domain (its subdomains), or ``*`` alone (any host: no check).
HOST = re.compile(r"\*|(\*\.)?[a-z0-9\-]+(\.[a-z0-9\-]+)*|\[[0-9a-f:.]+\]")
#: The loopback names a server always answers to (with its port, they are also its own origins).
LOOPBACK = ("127.0.0.1", "localhost")
#: Bind addresses that mean "every interface": no one name of the server follows from them.
EVERY_INTERFACE = frozenset({"", "0.0.0.0", "::", "[::]"})


def normal_origin(origin: str) -> str:
    """An origin in the form a browser sends it: lower case, no trailing slash, no default port."""
    origin = origin.strip().lower().rstrip("/")
    for scheme, port in (("http://", ":80"), ("https://", ":443")):
        if origin.startswith(scheme) and origin.endswith(port):
            return origin[: -len(port)]
    return origin


def allowed_origin(origin: str) -> str:
    """``origin`` checked and in the form a browser sends it (:func:`normal_origin`).

    Raises:
        MotleyError: for anything but ``http(s)://HOST[:PORT]`` (no path), e.g. a bare host name.
    """
    normal = normal_origin(origin)
    if ORIGIN.fullmatch(normal) is None:
        raise MotleyError(f"an allowed origin is scheme://host[:port], e.g. https://cards.example.org; got {origin!r}")
    return normal


def allowed_host(host: str) -> str:
    """``host`` checked and lower case, an IPv6 address in brackets (``::1`` -> ``[::1]``), the form of the
    ``Host`` header without its port.

    Raises:
        MotleyError: for anything but a host name, an address, ``*.DOMAIN`` or ``*`` (e.g. one with a port).
    """
    name = host.strip().lower()
    if ":" in name and not name.startswith("["):
        name = f"[{name}]"
    if HOST.fullmatch(name) is None:
        raise MotleyError(f"an allowed host is a name or address without port, '*.DOMAIN' or '*', e.g. "
                          f"cards.example.org; got {host!r}")
    return name


def origin_host(origin: str) -> str:
    """The host of an origin checked by :func:`allowed_origin`: ``https://[::1]:8000`` -> ``[::1]``."""
    netloc = origin.split("://", 1)[1]
    return netloc.rsplit("]", 1)[0] + "]" if netloc.startswith("[") else netloc.split(":", 1)[0]


def local_names(host: str) -> list[str]:
    """The host names a server bound to the address ``host`` answers to by default: :data:`LOOPBACK`, and
    ``host`` itself unless it means every interface (:data:`EVERY_INTERFACE`), IPv6 in brackets."""
    names = list(LOOPBACK)
    if host.strip().lower() not in EVERY_INTERFACE:
        names.append(allowed_host(host))
    return list(dict.fromkeys(names))


def local_origins(host: str, port: int) -> list[str]:
    """The origins of a server bound to ``host``:``port`` by default: ``http://NAME:PORT`` for each of
    :func:`local_names`, as a browser sends them (:func:`normal_origin`)."""
    return [normal_origin(f"http://{name}:{port}") for name in local_names(host)]


class OriginCheck:
    """Refuse a cross-site WebSocket handshake (closed before it opens: HTTP 403) or state-changing request
    (HTTP 403): one whose ``Origin`` header is none of ``allow_origins``, the server's configured public
    origins (by default :func:`local_origins`; never one read from the request's own ``Host`` header, which a
    DNS-rebinding page controls). A request without ``Origin`` (scripts, curl; browsers always send it on
    these requests) is let through."""

    def __init__(self, app: ASGIApp, allow_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = frozenset(allowed_origin(o) for o in allow_origins)

    def allows(self, scope: Scope) -> bool:
        """Is the request of ``scope`` from an allowed origin's pages, or from no browser page?"""
        origin = Headers(scope=scope).get("origin")
        return origin is None or normal_origin(origin) in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        checked = scope["type"] == "websocket" or (scope["type"] == "http" and scope["method"] in CHANGING)
        if not checked or self.allows(scope):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008, "reason": "cross-site request refused"})
        else:
            response = PlainTextResponse("cross-site request refused: this Origin is not allowed", 403)
            await response(scope, receive, send)


class HostCheck(TrustedHostMiddleware):
    """Starlette's ``TrustedHostMiddleware`` (``allowed_hosts``: names, ``*.DOMAIN``, ``*``; any other ``Host``
    gets HTTP 400 "Invalid host header"), with a refused WebSocket handshake closed before it opens (HTTP 403,
    as :class:`OriginCheck` does) instead of answered in HTTP, which Uvicorn's WebSocket protocol logs as an
    error: a stranger could fill the log."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await super().__call__(scope, receive, send)
            return
        refused = False

        async def close_instead(message: Message) -> None:
            nonlocal refused
            if message["type"] == "websocket.http.response.start":
                refused = True
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008, "reason": "unknown host"})
            elif not (refused and message["type"] == "websocket.http.response.body"):
                await send(message)

        await super().__call__(scope, receive, close_instead)


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response (a header the route set itself is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(db: str = "sqlite:///motley.db", move_time: float | None = None, grace: float = 30.0,
               bot_delay: float = 0.8, limits: Limits | None = None, allow_origins: Iterable[str] = (),
               searches: int | None = None, idle_close: float | None = IDLE_CLOSE, pace: float = 0.7,
               summary_wait: float | None = 30.0, host: str = "127.0.0.1", port: int = 8000,
               allow_hosts: Iterable[str] = (), site: Site | None = None,
               seeds: Callable[[], int] | None = None) -> FastAPI:
    """The web app over the store at ``db`` (a SQLAlchemy URL); the defaults (seconds; ``move_time`` None =
    no move timer) apply to new tables. ``limits``: what one client may cost (None: :class:`Limits`'
    defaults); ``host``, ``port``: the address the server is bound to (its default origins and host names
    are :func:`local_origins` and :func:`local_names`); ``allow_origins``: the public origins besides those
    whose pages may open sockets and create tables (:class:`OriginCheck`), e.g. ``https://cards.example.org``
    behind a proxy (their hosts are allowed too); ``allow_hosts``: other ``Host`` names to answer to
    (:func:`allowed_host`; a request naming any other host gets 400, a WebSocket 403: :class:`HostCheck`);
    ``searches``: bot searches at once, each in a worker process (default: one
    per core but one); ``idle_close``: seconds an unfinished table may sit without a move and without a viewer
    before it is cancelled (None: never; :meth:`Service.tidy`); ``pace``: seconds before a forced move is played;
    ``summary_wait``: seconds the end of a deal waits for the people (0: no wait; None: without limit).
    ``site``: this process's part in a site of several processes over one store (:class:`Site`: tables driven
    only under their lease, orphans taken over, the lobby and handed-over leases kept through the site's news,
    :func:`~motley.server.site.news.open_news`; docs/scaling.md; with a ``secret``, internal requests must be
    signed: :class:`~motley.server.site.signing.SignedChannel`); None: the one process of its store.
    ``seeds``: where new tables' seeds come from (None: :class:`random.SystemRandom`; for tests, :class:`Service`).
    ``app.state.service`` is the :class:`Service`.

    On start it serves at once and resumes every unfinished table in the background (a table asked for
    before its turn is loaded on demand); on shutdown it stops the tables and closes the store.

    Raises:
        MotleyError: for an origin in ``allow_origins`` that is not ``http(s)://HOST[:PORT]``, a host in
            ``allow_hosts`` that :func:`allowed_host` refuses, or ``searches`` below 1.
    """
    origins = [*local_origins(host, port), *(allowed_origin(o) for o in allow_origins)]
    hosts = [*local_names(host), *(origin_host(o) for o in origins), *(allowed_host(h) for h in allow_hosts)]
    thinkers = Thinkers(searches)
    defaults = Settings(move_time, grace, bot_delay, pace=pace, summary_wait=summary_wait)
    membership: Membership = Alone() if site is None else SiteMembership(site, open_news(db))
    service = Service(Storage(db), defaults, thinkers, idle_close=idle_close, limits=limits, membership=membership,
                      seeds=seeds)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The engines' precomputed tables are long-lived: freeze them out of the cyclic GC, and collect
        # less often, so a full collection never pauses every table for long.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        resuming = asyncio.create_task(service.resume())
        resuming.add_done_callback(_report_resume)
        tidying = asyncio.create_task(tidy_loop(service))
        leasing = asyncio.create_task(membership.run())
        yield
        tidying.cancel()
        leasing.cancel()
        resuming.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await resuming
        await service.close()

    # /docs is the server's own page over /openapi.json: FastAPI's would load Swagger UI from a CDN, which
    # the pages' Content-Security-Policy (and a server without the internet) refuses
    app = FastAPI(title="motley", version=motley.__version__, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.service = service
    app.state.web = Web(service, limits or Limits())
    app.include_router(router())
    refusals.install(app)
    if site is not None and site.secret is not None:  # innermost: internal requests checked before any route
        app.add_middleware(SignedChannel, verifier=Verifier(site.secret, site.address or "", site.owner))
    app.add_middleware(OriginCheck, allow_origins=origins)
    app.add_middleware(HostCheck, allowed_hosts=list(dict.fromkeys(hosts)), www_redirect=False)
    app.add_middleware(SecurityHeaders)
    return app


def _report_resume(task: asyncio.Task[int]) -> None:
    """Log how the start-up resume of the unfinished tables ended."""
    if task.cancelled():
        return
    if task.exception() is not None:
        logging.getLogger("motley.server").error("unfinished tables not resumed: %s", task.exception())
    else:
        logging.getLogger("motley.server").info("%d unfinished tables resumed", task.result())
