"""The server's HTTP and WebSocket side: the routes, each viewer's socket, and the SVG drawings.

HTTP:
    ``GET /`` the lobby; ``GET /table/{id}`` the table page (``?token=`` for a seat, none to watch);
    ``GET /replay/{id}`` the replay viewer of a finished table;
    ``GET /api/games`` games with their options and bots, their words for the first page (``summary``,
    ``at_a_glance``, ``usual_players``) and ``picture``; ``GET /api/games/{name}/picture.svg`` the game's picture
    (its drawing of a sample position, cached); ``GET /api/defaults`` the server's table settings and the bot
    "Play with bots" seats (:data:`PLAY_BOT`); ``GET /api/tables`` the tables;
    ``POST /api/tables`` create one (returns every person seat's invite link, and which seats are open);
    ``POST /api/tables/{id}/join[?seat=N]`` claim an open seat (a fresh link; 409 with the reason in
    ``detail`` for a seat by invitation, one already claimed, or a finished match);
    ``POST /api/tables/{id}/rematch`` with ``{"token", "seats"?}`` (a seat's token; ``seats``: who sits where
    in the new order and the bots, :class:`~motley.server.play.bodies.RematchSeat`): the finished table's rematch,
    made once and stored, whatever restarts (same options and settings; by default the same seats, names and
    bots); returns ``{"id", **the rematch message}`` (the asker's own) and sends every viewer of the old
    table the offer as ``{"type": "rematch", "table", "link", "offered_by", "seats", "you"}`` (its own link:
    a person's new seat link, or the watch link); nobody's page moves. 400 for bad ``seats``; 409 with the
    reason for a token of no seat, a match not over, or ``seats`` other than those already offered; 429 as for
    creating a table (a rematch made already is answered whatever the limits);
    ``POST /api/tables/{id}/decline`` with ``{"token"}`` (a seat link's of that table): the person declines
    the seat (a rematch offered them): it becomes an open seat, and every viewer of both tables gets
    ``{"type": "rematch_declined", "seat", "name"}`` (409 once the person has joined, or for a token of no
    seat of the table);
    ``GET /api/tables/{id}/record`` the game record of a finished table (its seed revealed, with ``table``
    and ``commitment``: see :func:`finished_record`);
    ``GET /api/tables/{id}/replay`` what a replay viewer needs first (names, marks to jump to, score sheet);
    ``GET /api/tables/{id}/replay/{step}[?view=N]`` the public view after ``step`` moves of a finished table,
    or seat N's own view (a finished match has no secrets left; 400 for a seat that is not one);
    ``POST /api/tables/{id}/analysis?seat=N`` start the analysis of seat N's decisions of a finished match (202; 200
    once stored) and ``GET`` the same to follow it (``{"status", "seat", "done", "total", "result"?}``): 409 while
    the match is played, 400 for a seat it does not have, 429 beyond one per table and ``MAX_ANALYSES`` on the
    server (:mod:`motley.server.play.analyses`).
    A store that does not answer gives 503. A POST body must be ``application/json`` (415 otherwise) of at
    most ``Limits.request_bytes`` (413); one client address may have ``Limits.tables_per_address``
    unfinished tables and create ``Limits.tables_per_minute`` tables a minute, ``Limits.table_burst`` at once,
    rematches included (429 beyond, the rate's with ``Retry-After``: :class:`~motley.server.play.limits.TableGate`).
    The record, replay and replay-step answers are built in a worker thread, once each, and kept
    (:class:`~motley.server.play.replays.Built`); one client address may have ``Limits.builds_per_address`` being
    built at once (429 with ``Retry-After`` beyond).
    An error answer is ``{"detail": reason}`` (:class:`~motley.server.play.bodies.Refusal`; ``POST /api/tables``:
    ``{"error": reason}``, :class:`~motley.server.play.bodies.TableRefusal`), FastAPI's 422 for a path or query
    parameter of the wrong type, or the Origin check's plain-text 403; the OpenAPI schema (``/openapi.json``)
    lists, for every route, each status it answers with and the body's shape (:func:`refusals`).
WebSocket:
    ``/ws/{id}?token=...&svg=1`` (see :mod:`motley.server.play.protocol`). With ``svg=1`` every ``state``
    message carries ``svg`` (the table as the viewer sees it) and an SVG per legal move
    (:func:`with_drawing`). The limits of :class:`~motley.server.play.limits.Limits` apply: a table has at most
    ``sockets_per_table`` sockets (``table_full``, close 1013), a socket sends at most
    ``messages_per_second`` (``rate_limited``; close 1008 if it keeps on) and a viewer that does not read
    has at most ``queue_messages`` waiting (close 1008).

The ``Origin`` check and the security headers are the app's middleware (:mod:`motley.server.web.app`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import random
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from functools import lru_cache
from importlib import resources
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import WebSocketException

import motley
from motley.bots import make_bot
from motley.core import MotleyError, jsonsafe, load_game
from motley.core.registry import game_class, game_spec
from motley.drawing import move_svg, render
from motley.server.play import bodies, protocol, replays
from motley.server.play.analyses import AnalysisBusy, AnalysisRefused
from motley.server.play.limits import RETRY_AFTER, InFlight, Limits, TablesRefused, TokenBucket
from motley.server.play.live import Connection, LiveTable
from motley.server.play.service import OwnedElsewhere, Service, Stopping
from motley.server.play.table import Table
from motley.server.play.web_bots import MAX_SIMULATIONS, offered, stand_in
from motley.server.site import signing
from motley.server.site.leases import CLOSE_MOVED, FORWARDED_CLIENT, FORWARDED_TO, RELAYED
from motley.server.store.records import SeatRefused
from motley.server.store.writer import StoreError

STATIC = resources.files("motley.server").joinpath("static")
#: Log entries in a replay step.
REPLAY_LOG = replays.REPLAY_LOG
#: A request model a route's body is checked by.
Checked = TypeVar("Checked", bound=BaseModel)

log = logging.getLogger("motley.server")

#: Largest table request accepted by default, in bytes (``Limits.request_bytes``); its deepest nesting and
#: longest number (digits).
MAX_REQUEST = Limits.request_bytes
REQUEST_DEPTH = 16
REQUEST_DIGITS = 40
#: Largest rematch or decline request, in bytes (a token and, for a rematch, up to 16 seats).
SMALL_REQUEST = 4000
#: The names a static file may have (anything else is 404 before the file system is asked).
STATIC_NAME = re.compile(r"[A-Za-z0-9_-]+\.(js|css|svg)")
#: WebSocket close codes: a policy broken (a viewer too slow to read, or flooding); a table full of viewers.
CLOSE_POLICY = 1008
CLOSE_TRY_LATER = 1013
#: Seconds the messages queued before the server closes a socket may take to go out.
CLOSE_FLUSH = 5.0
#: The folders of static files below ``static/``: the vendored libraries and the per-game table views.
STATIC_FOLDERS = ("vendor", "games")
#: The seed of the deal a game's picture shows (:func:`game_picture`).
PICTURE_SEED = 7
#: Seconds a browser may keep a game's picture (it changes only with the server's version).
PICTURE_MAX_AGE = 86400
#: The bot that "Play with bots" seats beside you: the heuristic moves at once, so a trick waits only for the
#: table's bot delay. ``best`` searches up to a second a move (measured: 0.6 s a decision on average, 2 s at
#: most, for Fool! at 5 players on a 2-core machine): with 4 such bots a person waits seconds more each trick,
#: minutes more each match, and a busy server's search workers are shared by every table.
PLAY_BOT = "heuristic"
#: What each error status of the API means, as the OpenAPI schema says it (:func:`refusals`; a route may say
#: more of its own).
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
    503: "the table store is not answering; try again",
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
#: The content types of the static files (``/static/...``).
STATIC_TYPES = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}
PLAIN_TEXT = {"text/plain": {"schema": {"type": "string"}}}


def every_route() -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` every route has (:data:`BEFORE_ANY_ROUTE`: plain text); a route's own 400 or 503
    (:func:`refusals`) says both."""
    return {code: {"description": words, "content": dict(PLAIN_TEXT)} for code, words in BEFORE_ANY_ROUTE.items()}


def refusals(*codes: int, model: type[BaseModel] = bodies.Refusal, **said: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a route's error answers: each status in ``codes`` with what it means
    (:data:`REFUSALS`, or the route's own words, ``said["e409"]`` for 409) and its body, ``model``'s JSON. 403,
    from the Origin check in front of every state-changing route, is plain text; a 400 or 503 may also be the
    plain-text answer of :data:`BEFORE_ANY_ROUTE`."""
    answers: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        words = said.get(f"e{code}", REFUSALS[code])
        if code == 403:
            answers[code] = {"description": words, "content": dict(PLAIN_TEXT)}
        elif code in BEFORE_ANY_ROUTE:
            answers[code] = {"description": f"{words}; or {BEFORE_ANY_ROUTE[code]}", "model": model,
                             "content": dict(PLAIN_TEXT)}
        else:
            answers[code] = {"description": words, "model": model}
        if code == 429:
            answers[code]["headers"] = {"Retry-After": {"description": "seconds to wait before asking again",
                                                        "schema": {"type": "integer"}}}
    return answers


def contents(*media_types: str, what: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entry of a route's 200 answer that is not JSON: ``what`` it is, in any of
    ``media_types`` (text)."""
    return {200: {"description": what, "content": {t: {"schema": {"type": "string"}} for t in media_types}}}


def with_drawing(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its SVG drawings, for a viewer that asked for them: a ``state`` message gets ``svg``
    (the drawing of its observation) and each legal move its ``svg`` (small cards, or None); other messages
    are returned as they are. ``message`` itself is never changed (it may be shared by several viewers)."""
    if message.get("type") != "state":
        return message
    drawn = dict(message)
    game = str(message["game"])
    drawn["legal"] = [{**move, "svg": move_svg(game, move["move"])} for move in message["legal"]]
    drawn["svg"] = render(message["observation"])
    return drawn


class SocketConnection:
    """A WebSocket viewer: messages go through a bounded queue and a writer task, so a slow client never blocks
    a table, and one that does not read is disconnected instead of buffered without bound.

    ``label`` names the connection in log lines (the table id); ``limits``: the queue length and the rate of
    the client's messages (:meth:`admit`).
    """

    def __init__(self, ws: WebSocket, seat: int | None, svg: bool, limits: Limits, label: str = "") -> None:
        self.ws = ws
        self.seat = seat
        self.svg = svg
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

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message (as JSON text; drawn first when the viewer asked for SVG). A full queue (the client
        does not read) closes the connection (:meth:`stop`); a closing one takes nothing more."""
        if self.closing is not None:
            return
        text = json.dumps(with_drawing(message) if self.svg else message, separators=(",", ":"))
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("table %s: closing a viewer that does not read (%d messages waiting)", self.label,
                        self.queue.qsize())
            self.stop(CLOSE_POLICY, "too slow: too many messages waiting", flush=False)

    def admit(self) -> bool:
        """May the client's next message be handled (is it within its rate)? If not, answer it with
        :meth:`refuse`."""
        if self.bucket.take():
            self.strikes = 0
            return True
        return False

    def refuse(self, message: dict[str, Any]) -> None:
        """Answer a message over the rate with ``message`` (an error); after ``Limits.flood_strikes`` refusals
        in a row the connection is closed (:meth:`stop`, the queue flushed first)."""
        self.send(message)
        self.strikes += 1
        if self.strikes >= self.flood_strikes:
            log.warning("table %s: closing a viewer that keeps sending over its rate", self.label)
            self.stop(CLOSE_POLICY, "too many messages", flush=True)

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


def games_info() -> list[dict[str, Any]]:
    """Every registered game with its options (:meth:`Option.describe`: label, explanation, choices in words,
    defaults, kind, and the bounds a table on this server allows), the bots it has, and the most ISMCTS
    simulations per move a table's bot may use."""
    out = []
    for name in motley.registered_games():
        cls = game_class(name)
        spec = game_spec(name)
        out.append({
            "name": name, "title": cls.title, "min_players": cls.min_players, "max_players": cls.max_players,
            "bots": offered(name), "stand_in": stand_in(name),
            "max_simulations": MAX_SIMULATIONS, "cards": card_table(name),
            "how_to_play": list(spec.how_to_play), "summary": spec.summary, "at_a_glance": spec.at_a_glance(),
            "usual_players": spec.players_usually, "match_options": list(spec.match_options),
            "picture": {"url": f"/api/games/{name}/picture.svg", **picture_size(name)},
            "options": [o.describe() for o in cls.options if o.name != "players"],
        })
    return out


@lru_cache(maxsize=32)
def game_picture(name: str) -> str:
    """The picture of game ``name`` for the first page: its spec's drawing of seat 0's view (the first seat's
    hand shown) after ``sample_moves`` moves of the heuristic (random where it has none) from the deal of
    :data:`PICTURE_SEED` at the game's usual player count. Made once per game.

    Raises:
        OptionError: for a game that is not registered.
    """
    spec = game_spec(name)
    game = load_game(name, players=spec.players_usually)
    state = game.new_initial_state(seed=PICTURE_SEED)
    bot = make_bot(stand_in(name), game)
    rng = random.Random(PICTURE_SEED)
    for _ in range(spec.sample_moves):
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply_action(bot.act(state.observation(seat), state.legal_actions(), rng))
    return render(state.observation(0))


def picture_size(name: str) -> dict[str, int]:
    """The width and height of game ``name``'s picture (its root ``<svg>``'s), so the page sizes its box before the
    picture loads."""
    head = game_picture(name).partition(">")[0]
    size = {key: re.search(rf'\b{key}="([0-9.]+)"', head) for key in ("width", "height")}
    return {key: round(float(m.group(1))) if m else 0 for key, m in size.items()}


def card_table(game: str) -> dict[str, dict[str, Any]]:
    """How each card of ``game``'s pack is shown and read out in the browser: ``{code: GameSpec.card_info(code)}``
    (empty for a game without ``card_info``). The pack is public, so every viewer may have it."""
    spec = game_spec(game)
    if spec.card_info is None:
        return {}
    return {code: spec.card_info(code) for code in sorted(spec.card_codes)}


def table_summary(live: LiveTable) -> dict[str, Any]:
    """A lobby line: public facts only (no tokens); ``free_seats`` counts the open seats nobody claimed;
    ``names``: the seats' names; ``waiting_for``: person seats whose person never connected; ``stage``: where
    the match is, in words (:func:`motley.server.play.replays.stage_of`); ``age``: seconds since the table was made."""
    table = live.table
    return {"id": table.id, "game": table.game.name, "title": table.game.title, "players": len(table.seats),
            "version": table.version, "finished": table.state.is_terminal(), "created": table.record.created,
            "seats": live.seat_info(), "commitment": table.commitment,
            "free_seats": len(table.open_seats()), "names": [s.name for s in table.seats],
            "waiting_for": sum(1 for s in table.seats if s.kind == "human" and not s.ever_connected),
            "stage": replays.stage_of(table.state, table.version), "age": max(0.0, live.wall() - table.record.created)}


def finished_record(table: Table) -> dict[str, Any]:
    """The game record of a finished table (:func:`motley.records.dump`, seed revealed) with the table's id
    (``table``) and the ``commitment`` published at the start, so ``motley verify`` can check the seed, and
    the seats' ``names`` (``motley replay --html`` shows them), whether the table gave hints (``hints``:
    ``Settings.hints``) and, if it did, each seat's count (``hints_used``)."""
    record: dict[str, Any] = json.loads(motley.records.dump(table.state))
    record.update(table=table.id, commitment=table.commitment, names=[s.name for s in table.seats],
                  hints=table.settings.hints)
    used = (table.record.result or {}).get("hints")
    if table.settings.hints and isinstance(used, list):
        record["hints_used"] = used
    return record


def replay_step(table: Table, step: int, view: int | None = None) -> dict[str, Any]:
    """The view of a finished table after ``step`` moves (clamped): the public one, or (``view``) a seat's
    own (:func:`motley.server.play.replays.step`: ``{"step", "moves", "svg", "scores", "log", "title", "names",
    "view", "events", "stage"}``).

    Raises:
        ViewRefused: for a view that is not a seat. RecordError: if the stored moves no longer replay.
    """
    return replays.step(table, step, view)


def _page(name: str) -> HTMLResponse:
    return HTMLResponse(STATIC.joinpath(name).read_text(encoding="utf-8"))


def _static_file(folder: Any, name: str) -> Response:
    """The ``.js`` or ``.css`` file ``name`` of a static ``folder``; HTTP 404 for any other name (a NUL byte, a
    separator, "..", another kind of file) or a file that is not there."""
    types = STATIC_TYPES
    match = STATIC_NAME.fullmatch(name)
    if match is None:
        raise HTTPException(404)
    path = folder.joinpath(name)
    try:
        if not path.is_file():
            raise HTTPException(404)
        body = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        raise HTTPException(404) from None
    return Response(body, media_type=types[match.group(1)])


def router(service: Service, limits: Limits | None = None) -> APIRouter:
    """Every route of the server over ``service``, within ``limits`` (None: the defaults)."""
    limits = limits or Limits()
    api = APIRouter(responses=every_route())
    _pages(api)
    _defaults(api, service)
    _tables_api(api, service, limits)
    _finished_api(api, service, limits)
    _analysis_api(api, service)
    _socket(api, service, limits)
    return api


def _pages(api: APIRouter) -> None:
    """The lobby, table and replay pages, and the static files (``.js``, ``.css``)."""

    @api.get("/", response_class=HTMLResponse)
    def lobby() -> HTMLResponse:
        return _page("index.html")

    @api.get("/table/{table_id}", response_class=HTMLResponse)
    def table_page(table_id: str) -> HTMLResponse:
        return _page("table.html")

    @api.get("/docs", response_class=HTMLResponse)
    def docs_page() -> HTMLResponse:
        return _page("docs.html")

    @api.get("/replay/{table_id}", response_class=HTMLResponse)
    def replay_page(table_id: str) -> HTMLResponse:
        return _page("replay.html")

    static_answers = {**contents(*STATIC_TYPES.values(), what="the file"), **refusals(404, e404="no such file")}

    @api.get("/static/{name}", response_class=Response, responses=static_answers)
    def static(name: str) -> Response:
        return _static_file(STATIC, name)

    @api.get("/favicon.ico", response_class=Response,
             responses={**contents("image/svg+xml", what="the icon"), **refusals(404, e404="no icon")})
    def favicon() -> Response:
        return _static_file(STATIC, "favicon.svg")

    @api.get("/static/{folder}/{name}", response_class=Response, responses=static_answers)
    def static_in_folder(folder: str, name: str) -> Response:
        if folder not in STATIC_FOLDERS:
            raise HTTPException(404)
        return _static_file(STATIC.joinpath(folder), name)

    @api.get("/api/games")
    def api_games() -> list[dict[str, Any]]:
        return games_info()

    @api.get("/api/games/{name}/picture.svg", response_class=Response,
             responses={**contents("image/svg+xml", what="the game's picture"), **refusals(404, e404="no such game")})
    def api_picture(name: str) -> Response:
        if name not in motley.registered_games():
            raise HTTPException(404, "no such game")
        return Response(game_picture(name), media_type="image/svg+xml",
                        headers={"Cache-Control": f"public, max-age={PICTURE_MAX_AGE}"})


def _defaults(api: APIRouter, service: Service) -> None:
    """The settings a new table gets where its request says nothing (the server's ``--bot-delay`` and the
    others), and the bot "Play with bots" seats, for the lobby to show and use."""

    @api.get("/api/defaults")
    def api_defaults() -> dict[str, Any]:
        return {**service.defaults.as_dict(), "play_bot": PLAY_BOT}


async def _body(request: Request, limit: int) -> bytes:
    """The request body, read no further than ``limit`` bytes; HTTP 415 unless it is ``application/json``,
    413 beyond ``limit`` (a declared ``Content-Length`` over it is refused before anything is read)."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise HTTPException(415, "the request body must be application/json")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise HTTPException(413, "request too large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(413, "request too large")
    return bytes(body)


@contextlib.contextmanager
def _seat_answers() -> Iterator[None]:
    """A seat request's refusals as HTTP answers: 409 with the reason (:class:`SeatRefused`), 503 when the store
    does not answer."""
    try:
        yield
    except SeatRefused as exc:
        raise HTTPException(409, str(exc)) from None
    except Stopping as exc:
        raise HTTPException(503, str(exc), headers={"Retry-After": "1"}) from None
    except StoreError:
        raise HTTPException(503, "the table store is not answering; try again") from None


async def _live(service: Service, table_id: str) -> LiveTable:
    """The table ``table_id``; HTTP 404 if there is none, 503 if the store does not answer."""
    try:
        live = await service.get(table_id)
    except StoreError:
        raise HTTPException(503, "the table store is not answering") from None
    except OwnedElsewhere:
        raise Elsewhere(503, "the table is served by another process of the site; try again") from None
    if live is None:
        raise HTTPException(404, "no such table")
    return live


def client_address(request: Request, service: Service | None = None) -> str:
    """The client's address as the server sees it (behind a trusted proxy, the one its headers name); for a seat
    request forwarded by another process of ``service``'s site (:func:`_seat_table`), the address that process
    named: in a site with a secret, taken from a validly signed request only, by the app's
    :class:`~motley.server.site.signing.SignedChannel` (a header of anyone else is not believed); without one,
    trusted only when the request carries this process's owner id (:data:`FORWARDED_TO`)."""
    member = service.membership if service is not None else None
    proof, named = request.headers.get(FORWARDED_TO), request.headers.get(FORWARDED_CLIENT)
    if member is not None and member.owner is not None and member.secret is None and proof is not None and named \
            and hmac.compare_digest(proof, member.owner):
        return named
    return request.client.host if request.client is not None else "unknown"


async def _seat_table(service: Service, table_id: str, request: Request, body_limit: int = 0) -> LiveTable:
    """The table ``table_id`` of a seat request (join, rematch, decline), as :func:`_live`; a table another
    process of the site drives is not answered here: the request (its body of at most ``body_limit`` bytes, the
    client's address) is forwarded to the owner (:func:`_forward`), whose answer is raised as
    :class:`Forwarded`. A request forwarded already, or for a table whose owner is unknown or does not answer,
    gets 503."""
    try:
        return await _live(service, table_id)
    except HTTPException as exc:
        if exc.status_code != 503 or not isinstance(exc, Elsewhere) or request.headers.get(RELAYED) is not None:
            raise
    try:
        process = await service.owner_process(table_id)
    except StoreError:
        raise HTTPException(503, "the table store is not answering") from None
    if process is None:
        raise HTTPException(503, "the table is served by another process of the site; try again")
    body = await _body(request, body_limit) if body_limit else b""
    secret = service.membership.secret
    raise await _forward(request, body, client_address(request, service), *process, secret=secret)


class Elsewhere(HTTPException):
    """HTTP 503: the table is driven by another process of the site (a seat request is forwarded there)."""


class Forwarded(HTTPException):
    """The owner's answer to a forwarded seat request: its status, JSON body (``answer``) and Retry-After."""

    def __init__(self, status: int, answer: Any, retry_after: str | None) -> None:
        detail = answer.get("detail", answer) if isinstance(answer, dict) else answer
        super().__init__(status, detail, headers={"Retry-After": retry_after} if retry_after else None)
        self.answer = answer


async def _forward(request: Request, body: bytes, client: str, owner: str, address: str,
                   secret: bytes | None = None) -> Forwarded:
    """The answer of the process ``owner`` at ``address`` to ``request`` (same path, query and ``body``), sent
    with the ``client``'s address and the owner's id (:data:`FORWARDED_TO`, :data:`FORWARDED_CLIENT`), marked
    relayed (never forwarded again) and, given the site's ``secret``, signed (:func:`signing.sign`); HTTP 503 if
    the owner does not answer within 10 s."""
    target = signing.target_of(request.url.path, request.url.query)
    headers = {"content-type": "application/json", RELAYED: "1", FORWARDED_TO: owner, FORWARDED_CLIENT: client}
    if secret is not None:
        headers[signing.SIGNATURE] = signing.sign(secret, "POST", target, client, address)
    sent = urllib.request.Request(f"http://{address}{target}", data=body, method="POST", headers=headers)

    def send() -> tuple[int, bytes, str | None]:
        try:
            with urllib.request.urlopen(sent, timeout=10) as answer:
                return int(answer.status), answer.read(), None
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), exc.headers.get("retry-after")

    try:
        status, text, retry_after = await asyncio.to_thread(send)
    except (OSError, TimeoutError):
        raise HTTPException(503, "the table's process of the site is not answering; try again") from None
    try:
        answer: Any = json.loads(text)
    except ValueError:
        answer = text.decode("utf-8", "replace")
    return Forwarded(status, answer, retry_after)


def _tables_api(api: APIRouter, service: Service, limits: Limits) -> None:
    """Listing, creating and joining tables."""

    @api.get("/api/tables", responses=refusals(503))
    async def api_tables() -> list[dict[str, Any]]:
        running = [table_summary(t) for t in service.tables.values()]
        ids = {t["id"] for t in running}
        try:
            headers = await service.listed_finished()
            running += [r for r in await service.listed_elsewhere() if r["game"] in motley.registered_games()]
        except StoreError:
            raise HTTPException(503, "the table store is not answering") from None
        finished = [{"id": r["id"], "game": r["game"], "title": game_class(r["game"]).title, "players": r["players"],
                     "version": r["moves"], "finished": True, "created": r["created"], "seats": [], "free_seats": 0,
                     "names": r["names"], "waiting_for": 0, "stage": "finished",
                     "age": max(0.0, service.wall() - r["created"])}
                    for r in headers if r["id"] not in ids and r["game"] in motley.registered_games()]
        return sorted(running, key=lambda t: (t["finished"], -t["created"])) + finished

    @api.post("/api/tables", openapi_extra={"requestBody": bodies.schema(bodies.TableRequest)},
              responses=refusals(400, 403, 413, 415, 429, 503, model=bodies.TableRefusal,
                                 e400="the request is not well formed, or asks for what the server does not offer: "
                                      "the answer names the field"))
    async def api_create(request: Request) -> JSONResponse:
        try:
            body = await _body(request, limits.request_bytes)
        except HTTPException as exc:  # 413, 415: as every other refusal of this route, {"error": ...}
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        try:
            spec = jsonsafe.loads(body, "the table request", max_bytes=limits.request_bytes,
                                  max_depth=REQUEST_DEPTH, max_digits=REQUEST_DIGITS)
        except jsonsafe.JSONInputError as exc:
            return JSONResponse({"error": str(exc)}, status_code=413 if exc.reason == "too_large" else 400)
        try:
            table_request = bodies.validated(bodies.TableRequest, spec)
        except MotleyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        try:
            live = await service.create(table_request, client=client_address(request, service))
        except TablesRefused as exc:
            return JSONResponse({"error": str(exc)}, status_code=429, headers=exc.retry_header())
        except MotleyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except Stopping as exc:
            return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "1"})
        except StoreError:
            return JSONResponse({"error": "the table store is not answering; try again"}, status_code=503)
        table = live.table
        links = [{"seat": i, "name": s.name, "kind": s.kind, "open": s.open,
                  "link": f"/table/{table.id}?token={s.token}" if s.token else None} for i, s in enumerate(table.seats)]
        return JSONResponse({"id": table.id, "seats": links, "spectate": f"/table/{table.id}"})

    @api.post("/api/tables/{table_id}/join",
              responses=refusals(403, 404, 409, 503, e409="the seat cannot be claimed (by invitation, claimed "
                                                          "already, a bot's, the match is over): the answer says why"))
    async def api_join(table_id: str, request: Request, seat: int | None = None) -> dict[str, Any]:
        try:
            live = await _seat_table(service, table_id, request)
        except Forwarded as answer:
            return _owners(answer)
        with _seat_answers():
            claimed = await service.join(live, seat)
        return {"seat": claimed, "link": f"/table/{live.id}?token={live.table.seats[claimed].token}"}

    @api.post("/api/tables/{table_id}/rematch",
              openapi_extra={"requestBody": bodies.schema(bodies.RematchRequest)},
              responses=refusals(400, 403, 404, 409, 413, 415, 429, 503,
                                 e409="no rematch for this request (a token of no seat, a match not over, other "
                                      "seats than those offered already): the answer says why"))
    async def api_rematch(table_id: str, request: Request) -> dict[str, Any]:
        try:
            live = await _seat_table(service, table_id, request, SMALL_REQUEST)
        except Forwarded as answer:
            return _owners(answer)
        asked = _request(bodies.RematchRequest, await _small_body(request, "the rematch request"),
                         'a rematch request is {"token": the seat link\'s token, "seats"?: '
                         '[{"from", "kind", "bot", "strength", "name"}]}')
        with _seat_answers():
            try:
                new = await service.rematch(live, asked.token, asked.seats, client=client_address(request, service))
            except SeatRefused:
                raise
            except MotleyError as exc:
                raise HTTPException(400, str(exc)) from None
            except TablesRefused as exc:
                raise HTTPException(429, str(exc), headers=exc.retry_header()) from None
        seat = live.table.seat_of_token(asked.token)
        return {"id": new.id, **live.rematch_message(seat)}

    @api.post("/api/tables/{table_id}/decline",
              openapi_extra={"requestBody": bodies.schema(bodies.DeclineRequest)},
              responses=refusals(400, 403, 404, 409, 413, 415, 503,
                                 e409="the seat cannot be declined (a token of no seat of the table, its person "
                                      "has joined, the match is over): the answer says why"))
    async def api_decline(table_id: str, request: Request) -> dict[str, Any]:
        try:
            live = await _seat_table(service, table_id, request, SMALL_REQUEST)
        except Forwarded as answer:
            return _owners(answer)
        token = _request(bodies.DeclineRequest, await _small_body(request, "the decline request"),
                         'a decline request is {"token": the seat link\'s token}').token
        with _seat_answers():
            seat = await service.decline(live, token)
        return {"id": live.id, "seat": seat, "open": True}


def _owners(answer: Forwarded) -> dict[str, Any]:
    """The owner's answer to a forwarded seat request: its JSON object when it accepted (2xx); its refusal raised
    again as this process's (same status, reason and Retry-After)."""
    if answer.status_code < 300 and isinstance(answer.answer, dict):
        return answer.answer
    raise HTTPException(answer.status_code, answer.detail, headers=answer.headers)


def _request(model: type[Checked], body: Any, shape: str) -> Checked:
    """``body`` checked by ``model`` (:func:`bodies.validated`); HTTP 400 saying the request's ``shape`` and what is
    wrong with it."""
    try:
        return bodies.validated(model, body)
    except MotleyError as exc:
        raise HTTPException(400, f"{shape}: {exc}") from None


async def _small_body(request: Request, what: str) -> Any:
    """The JSON of a small request body (a rematch, a decline: at most :data:`SMALL_REQUEST` bytes); HTTP 400
    for JSON that does not parse or is nested too deep, 413 for a body too large, 415 for another type."""
    try:
        return jsonsafe.loads(await _body(request, SMALL_REQUEST), what, max_bytes=SMALL_REQUEST, max_depth=4,
                              max_digits=REQUEST_DIGITS)
    except jsonsafe.JSONInputError as exc:
        raise HTTPException(413 if exc.reason == "too_large" else 400, str(exc)) from None


def _finished_api(api: APIRouter, service: Service, limits: Limits) -> None:
    """The record and the replay steps of a finished table (409 while it is played), built off the event loop.

    An answer is built once, in a worker thread, and kept (:class:`~motley.server.play.replays.Built`); a client
    address may have ``limits.builds_per_address`` answers being built at once (429 with ``Retry-After``
    beyond); an answer already built is sent at once.
    """
    built = replays.Built()
    busy = InFlight(limits.builds_per_address)

    async def finished_table(table_id: str) -> Table:
        live = await _live(service, table_id)
        table = live.table
        if not table.state.is_terminal() and live.closed:
            raise HTTPException(409, "the table was cancelled before the end of its match; it has no replay")
        if not table.state.is_terminal():
            raise HTTPException(409, "the table is still being played; watch it instead")
        return table

    async def answer(request: Request, key: tuple[Any, ...], make: Callable[[Table], bytes],
                     kept_as: Callable[[Table], tuple[Any, ...]] | None = None) -> Response:
        """The JSON answer ``key`` (``(what, table id, ...)``) names: kept, or built by ``make(table)`` in a
        worker thread once the finished table is loaded and kept under ``kept_as(table)`` (default ``key``);
        429 when the client has too many answers being built (waiting for one being built costs no slot)."""
        body = await built.wait(key)  # kept, or being built for another request: no slot taken
        if body is None:
            address = client_address(request)
            if not busy.take(address):
                raise HTTPException(429, f"this address has {limits.builds_per_address} replays being built "
                                         "already; try again in a moment", headers={"Retry-After": str(RETRY_AFTER)})
            try:
                table = await finished_table(str(key[1]))
                body = await built.build(key if kept_as is None else kept_as(table), functools.partial(make, table))
            finally:
                busy.give(address)
        return Response(body, media_type="application/json")

    unfinished = "the table is still being played, or was cancelled before its end"
    busy_words = "this address has replays being built already (see Retry-After)"

    @api.get("/api/tables/{table_id}/record", responses=refusals(404, 409, 429, 503, e409=unfinished,
                                                                 e429=busy_words))
    async def api_record(table_id: str, request: Request) -> Response:
        return await answer(request, ("record", table_id),
                            lambda table: json.dumps(finished_record(table), indent=1).encode())

    @api.get("/api/tables/{table_id}/replay", responses=refusals(404, 409, 429, 503, e409=unfinished,
                                                                 e429=busy_words))
    async def api_replay_index(table_id: str, request: Request) -> Response:
        return await answer(request, ("index", table_id), lambda table: _json(replays.index(table)))

    @api.get("/api/tables/{table_id}/replay/{step}",
             responses=refusals(400, 404, 409, 429, 503, e400="the view asked for is not a seat of the table",
                                e409=unfinished, e429=busy_words))
    async def api_replay(table_id: str, step: int, request: Request, view: int | None = None) -> Response:
        def clamped(table: Table) -> int:
            return max(0, min(step, len(table.record.moves)))

        try:
            return await answer(request, ("step", table_id, step, view),
                                lambda table: _json(replay_step(table, clamped(table), view)),
                                lambda table: ("step", table.id, clamped(table), view))
        except replays.ViewRefused as exc:
            raise HTTPException(400, str(exc)) from None


def _json(answer: Any) -> bytes:
    """``answer`` as compact JSON bytes (as FastAPI would send it)."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()


def _analysis_api(api: APIRouter, service: Service) -> None:
    """The analysis of a seat's decisions in a finished match (:mod:`motley.server.play.analyses`): ``POST`` starts it
    (202 while it runs; 200 once stored), ``GET`` says where it is (``{"status": "none" | "running" | "done" |
    "failed", "seat", "done", "total", "result"?, "error"?}``). 409 while the match is played (nothing of it is
    given then) or for a cancelled table, 400 for a seat it does not have, 429 beyond the bounds."""

    async def finished(table_id: str, seat: int) -> Table:
        live = await _live(service, table_id)
        try:
            service.analyses.check(live.table, seat)
        except AnalysisRefused as exc:
            raise HTTPException(400 if exc.finished else 409, str(exc)) from None
        return live.table

    seat_words = "the seat asked for is not a seat of the table"
    unfinished = "the match is still being played (nothing of its analysis is given then), or was cancelled"

    @api.get("/api/tables/{table_id}/analysis",
             responses=refusals(400, 404, 409, 503, e400=seat_words, e409=unfinished))
    async def api_analysis(table_id: str, seat: int) -> dict[str, Any]:
        job = service.analyses.jobs.get(table_id)
        if job is not None and job.seat == seat:  # its progress, without loading the finished table again
            return job.status()
        table = await finished(table_id, seat)
        with _seat_answers():
            return await service.analyses.status(table, seat)

    @api.post("/api/tables/{table_id}/analysis", status_code=202,
              responses={200: {"description": "the analysis, stored already"},
                         **refusals(400, 403, 404, 409, 429, 503, e400=seat_words, e409=unfinished,
                                    e429="an analysis of this table, or as many as the server runs at once, is "
                                         "running (see Retry-After)")})
    async def api_analyse(table_id: str, seat: int) -> JSONResponse:
        table = await finished(table_id, seat)
        with _seat_answers():
            try:
                now = await service.analyses.start(table, seat)
            except AnalysisBusy as exc:
                raise HTTPException(429, str(exc), headers={"Retry-After": "30"}) from None
        return JSONResponse(now, status_code=200 if now["status"] == "done" else 202)


def _socket(api: APIRouter, service: Service, limits: Limits) -> None:
    """The WebSocket of a viewer: a seat (by its token) or a spectator."""

    @api.websocket("/ws/{table_id}")
    async def ws_endpoint(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        try:
            live = await service.get(table_id)
        except StoreError:
            await _refuse(ws, protocol.error(0, "unavailable", "the table store is not answering"), 1011)
            return
        except OwnedElsewhere:
            await _relay_or_refuse(ws, service, table_id)
            return
        if live is None:
            await _refuse(ws, protocol.error(0, "no_table", "no such table"), 4404)
            return
        token = ws.query_params.get("token")
        seat = live.table.seat_of_token(token) if token else None
        if token and seat is None:
            await _refuse(ws, protocol.error(live.table.version, "bad_token",
                                             "this link's token is not valid for this table"), 4403)
            return
        if len(live.viewers()) >= limits.sockets_per_table:
            await _refuse(ws, protocol.error(live.table.version, "table_full",
                                             f"this table has {limits.sockets_per_table} viewers already; "
                                             "try again later"), CLOSE_TRY_LATER)
            return
        try:
            await live.arrive(seat)  # a person's first connection is stored before the seat is shown
        except StoreError:
            await _refuse(ws, protocol.error(live.table.version, "not_stored",
                                             "your arrival at the seat could not be stored, so the seat is not "
                                             "shown yet; try again"), CLOSE_TRY_LATER)
            return
        await _serve(ws, live, SocketConnection(ws, seat, ws.query_params.get("svg") == "1", limits, live.id))


async def _relay_or_refuse(ws: WebSocket, service: Service, table_id: str) -> None:
    """The socket (accepted) of a table another process of the site drives: relayed to that process's address
    (:func:`_relay`), or, when none is known, it is relayed already, or the owner cannot be reached, answered
    ``elsewhere`` and closed with :data:`CLOSE_MOVED` (the page reconnects)."""
    address = None
    if ws.headers.get(RELAYED) is None:
        with contextlib.suppress(StoreError):
            process = await service.owner_process(table_id)
            address = None if process is None else process[1]
    secret = service.membership.secret
    if address is None or not await _relay(ws, address, f"/ws/{table_id}", ws.url.query, secret):
        await _refuse(ws, protocol.error(0, "elsewhere", "another process of the site serves this table; "
                                         "reconnect"), CLOSE_MOVED)


async def _relay(ws: WebSocket, address: str, path: str, query: str, secret: bytes | None = None) -> bool:
    """Pipe the socket ``ws`` to the owner's socket at ``path`` of the process at ``address`` (``query``: the
    client's, its seat token with it) frame by frame, both ways, until either side closes; the client's socket
    is then closed with the owner's close code (:data:`CLOSE_MOVED` if it had none, e.g. the owner died), so the
    page reconnects. The handshake is marked relayed, names the client's address and, given the site's
    ``secret``, is signed (:func:`signing.sign`). Returns False (nothing sent) if the owner could not be reached
    or refused the handshake."""
    client = ws.client.host if ws.client is not None else "unknown"
    target = signing.target_of(path, query)
    headers = {RELAYED: "1", "x-forwarded-for": client, FORWARDED_CLIENT: client}
    if secret is not None:
        headers[signing.SIGNATURE] = signing.sign(secret, "GET", target, client, address)
    try:
        upstream = await ws_connect(f"ws://{address}{target}", open_timeout=5, max_size=1 << 20,
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


async def _refuse(ws: WebSocket, message: dict[str, Any], code: int) -> None:
    await ws.send_text(json.dumps(message))
    await ws.close(code)


async def _serve(ws: WebSocket, live: LiveTable, conn: SocketConnection) -> None:
    """Attach ``conn`` to the table and hand it every client message until the socket closes, or until the
    server closes it (:attr:`SocketConnection.closing`: a slow reader or a flood)."""
    conn.start()
    assert conn.task is not None
    connection: Connection = conn
    live.attach(connection)
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
        if conn.closing is not None:
            with contextlib.suppress(Exception):
                await ws.close(*conn.closing)


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
