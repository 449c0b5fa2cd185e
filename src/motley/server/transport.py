"""The server's HTTP and WebSocket side: the routes, each viewer's socket, and the SVG drawings.

HTTP:
    ``GET /`` the lobby; ``GET /table/{id}`` the table page (``?token=`` for a seat, none to watch);
    ``GET /replay/{id}`` the replay viewer of a finished table;
    ``GET /api/games`` games with their options and bots; ``GET /api/tables`` the tables;
    ``POST /api/tables`` create one (returns every person seat's invite link, and which seats are open);
    ``POST /api/tables/{id}/join[?seat=N]`` claim an open seat (a fresh link; 409 with the reason in
    ``detail`` for a seat by invitation, one already claimed, or a finished match);
    ``POST /api/tables/{id}/rematch`` with ``{"token"}`` (a seat's): the finished table's rematch, made once
    (same options, settings, names and bots); returns ``{"id", "type", "table", "link"}`` (the asker's new
    seat link) and sends every viewer its own link as ``{"type": "rematch", "table", "link"}`` (409 with the
    reason for a token of no seat or a match not over);
    ``GET /api/tables/{id}/record`` the game record of a finished table (its seed revealed, with ``table``
    and ``commitment``: see :func:`finished_record`);
    ``GET /api/tables/{id}/replay/{step}`` the public view after ``step`` moves of a finished table.
    A store that does not answer gives 503.
WebSocket:
    ``/ws/{id}?token=...&svg=1`` (see :mod:`motley.server.protocol`). With ``svg=1`` every ``state``
    message carries ``svg`` (the table as the viewer sees it) and an SVG per legal move
    (:func:`with_drawing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from importlib import resources
from typing import Any

from fastapi import APIRouter, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response

import motley
from motley.bots import make_bot
from motley.core import MotleyError, jsonsafe
from motley.core.registry import game_class, game_spec
from motley.drawing import move_svg, render
from motley.server import privacy, protocol
from motley.server.service import MAX_SIMULATIONS, Connection, LiveTable, Service, StoreError, stand_in
from motley.server.table import SeatRefused, Table

STATIC = resources.files("motley.server").joinpath("static")
#: Log entries in a replay step.
REPLAY_LOG = 30
#: Largest table request accepted, in bytes; its deepest nesting and longest number (digits).
MAX_REQUEST = 20000
REQUEST_DEPTH = 16
REQUEST_DIGITS = 40
#: The names a static file may have (anything else is 404 before the file system is asked).
STATIC_NAME = re.compile(r"[A-Za-z0-9_-]+\.(js|css)")
#: The folders of static files below ``static/``: the vendored libraries and the per-game table views.
STATIC_FOLDERS = ("vendor", "games")


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
    """A WebSocket viewer: messages go through a queue and a writer task, so a slow client never blocks a table."""

    def __init__(self, ws: WebSocket, seat: int | None, svg: bool) -> None:
        self.ws = ws
        self.seat = seat
        self.svg = svg
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message (as JSON text; drawn first when the viewer asked for SVG)."""
        self.queue.put_nowait(json.dumps(with_drawing(message) if self.svg else message, separators=(",", ":")))

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
    """Every registered game with its options (defaults, choices, kind, and the bounds a table on this server
    allows), the bots it has, and the most ISMCTS simulations per move a table's bot may use."""
    out = []
    for name in motley.registered_games():
        cls = game_class(name)
        game = motley.load_game(name)
        bots = ["random"]
        with contextlib.suppress(MotleyError):
            make_bot("heuristic", game)
            bots.insert(0, "heuristic")
        bots.append("ismcts")
        out.append({
            "name": name, "title": cls.title, "min_players": cls.min_players, "max_players": cls.max_players,
            "bots": bots, "stand_in": stand_in(name),
            "max_simulations": MAX_SIMULATIONS, "cards": card_table(name),
            "options": [{"name": o.name, "default": o.default, "doc": o.doc, "choices": list(o.choices),
                         "kind": o.kind, "minimum": o.served[0] if o.served else o.minimum,
                         "maximum": o.served[1] if o.served else o.maximum}
                        for o in cls.options if o.name != "players"],
        })
    return out


def card_table(game: str) -> dict[str, dict[str, Any]]:
    """How each card of ``game``'s pack is shown and read out in the browser: ``{code: GameSpec.card_info(code)}``
    (empty for a game without ``card_info``). The pack is public, so every viewer may have it."""
    spec = game_spec(game)
    if spec.card_info is None:
        return {}
    return {code: spec.card_info(code) for code in sorted(spec.card_codes)}


def table_summary(live: LiveTable) -> dict[str, Any]:
    """A lobby line: public facts only (no tokens); ``free_seats`` counts the open seats nobody claimed."""
    table = live.table
    return {"id": table.id, "game": table.game.name, "title": table.game.title, "players": len(table.seats),
            "version": table.version, "finished": table.state.is_terminal(), "created": table.record.created,
            "seats": live.seat_info(), "commitment": table.commitment,
            "free_seats": len(table.open_seats())}


def finished_record(table: Table) -> dict[str, Any]:
    """The game record of a finished table (:func:`motley.records.dump`, seed revealed) with the table's id
    (``table``) and the ``commitment`` published at the start, so ``motley verify`` can check the seed."""
    record: dict[str, Any] = json.loads(motley.records.dump(table.state))
    record.update(table=table.id, commitment=table.commitment)
    return record


def replay_step(table: Table, step: int) -> dict[str, Any]:
    """The public view of a finished table after ``step`` moves (clamped): ``{"step", "moves", "svg",
    "scores", "log", "title"}``.

    Raises:
        RecordError: if the stored moves no longer replay.
    """
    moves = len(table.record.moves)
    step = max(0, min(step, moves))
    state = table.state_at(step)
    return {"step": step, "moves": moves, "svg": render(privacy.spectator_view(state)), "scores": state.scores(),
            "log": table.visible_log(None, upto=step, last=REPLAY_LOG), "title": table.game.title}


def _page(name: str) -> HTMLResponse:
    return HTMLResponse(STATIC.joinpath(name).read_text(encoding="utf-8"))


def _static_file(folder: Any, name: str) -> Response:
    """The ``.js`` or ``.css`` file ``name`` of a static ``folder``; HTTP 404 for any other name (a NUL byte, a
    separator, "..", another kind of file) or a file that is not there."""
    types = {"js": "text/javascript", "css": "text/css"}
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


def router(service: Service) -> APIRouter:
    """Every route of the server over ``service``."""
    api = APIRouter()
    _pages(api)
    _tables_api(api, service)
    _finished_api(api, service)
    _socket(api, service)
    return api


def _pages(api: APIRouter) -> None:
    """The lobby, table and replay pages, and the static files (``.js``, ``.css``)."""

    @api.get("/", response_class=HTMLResponse)
    def lobby() -> HTMLResponse:
        return _page("index.html")

    @api.get("/table/{table_id}", response_class=HTMLResponse)
    def table_page(table_id: str) -> HTMLResponse:
        return _page("table.html")

    @api.get("/replay/{table_id}", response_class=HTMLResponse)
    def replay_page(table_id: str) -> HTMLResponse:
        return _page("replay.html")

    @api.get("/static/{name}")
    def static(name: str) -> Response:
        return _static_file(STATIC, name)

    @api.get("/static/{folder}/{name}")
    def static_in_folder(folder: str, name: str) -> Response:
        if folder not in STATIC_FOLDERS:
            raise HTTPException(404)
        return _static_file(STATIC.joinpath(folder), name)

    @api.get("/api/games")
    def api_games() -> list[dict[str, Any]]:
        return games_info()


async def _body(request: Request, limit: int) -> bytes:
    """The request body, read no further than ``limit`` bytes; HTTP 413 beyond it (a declared
    ``Content-Length`` over it is refused before anything is read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise HTTPException(413, "request too large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(413, "request too large")
    return bytes(body)


async def _live(service: Service, table_id: str) -> LiveTable:
    """The table ``table_id``; HTTP 404 if there is none, 503 if the store does not answer."""
    try:
        live = await service.get(table_id)
    except StoreError:
        raise HTTPException(503, "the table store is not answering") from None
    if live is None:
        raise HTTPException(404, "no such table")
    return live


def _tables_api(api: APIRouter, service: Service) -> None:
    """Listing, creating and joining tables."""

    @api.get("/api/tables")
    async def api_tables() -> list[dict[str, Any]]:
        running = [table_summary(t) for t in service.tables.values()]
        ids = {t["id"] for t in running}
        try:
            headers = await service.finished_headers()
        except StoreError:
            raise HTTPException(503, "the table store is not answering") from None
        finished = [{"id": r["id"], "game": r["game"], "title": game_class(r["game"]).title, "players": r["players"],
                     "version": r["moves"], "finished": True, "created": r["created"], "seats": [], "free_seats": 0}
                    for r in headers if r["id"] not in ids and r["game"] in motley.registered_games()]
        return sorted(running, key=lambda t: (t["finished"], -t["created"])) + finished

    @api.post("/api/tables")
    async def api_create(request: Request) -> JSONResponse:
        body = await _body(request, MAX_REQUEST)
        try:
            spec = jsonsafe.loads(body, "the table request", max_bytes=MAX_REQUEST, max_depth=REQUEST_DEPTH,
                                  max_digits=REQUEST_DIGITS)
        except jsonsafe.JSONInputError as exc:
            return JSONResponse({"error": str(exc)}, status_code=413 if exc.reason == "too_large" else 400)
        try:
            live = await service.create(spec)
        except MotleyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except StoreError:
            return JSONResponse({"error": "the table store is not answering; try again"}, status_code=503)
        table = live.table
        links = [{"seat": i, "name": s.name, "kind": s.kind, "open": s.open,
                  "link": f"/table/{table.id}?token={s.token}" if s.token else None} for i, s in enumerate(table.seats)]
        return JSONResponse({"id": table.id, "seats": links, "spectate": f"/table/{table.id}"})

    @api.post("/api/tables/{table_id}/join")
    async def api_join(table_id: str, seat: int | None = None) -> dict[str, Any]:
        live = await _live(service, table_id)
        try:
            claimed = await service.join(live, seat)
        except SeatRefused as exc:
            raise HTTPException(409, str(exc)) from None
        except StoreError:
            raise HTTPException(503, "the table store is not answering; try again") from None
        return {"seat": claimed, "link": f"/table/{live.id}?token={live.table.seats[claimed].token}"}

    @api.post("/api/tables/{table_id}/rematch")
    async def api_rematch(table_id: str, request: Request) -> dict[str, Any]:
        live = await _live(service, table_id)
        try:
            body = jsonsafe.loads(await _body(request, 1000), "the rematch request", max_bytes=1000, max_depth=2,
                                  max_digits=REQUEST_DIGITS)
        except jsonsafe.JSONInputError as exc:
            raise HTTPException(400, str(exc)) from None
        token = body.get("token") if isinstance(body, dict) else None
        if not isinstance(token, str):
            raise HTTPException(400, "a rematch request is {\"token\": the seat link's token}")
        try:
            new = await service.rematch(live, token)
        except SeatRefused as exc:
            raise HTTPException(409, str(exc)) from None
        except StoreError:
            raise HTTPException(503, "the table store is not answering; try again") from None
        seat = live.table.seat_of_token(token)
        return {"id": new.id, **live.rematch_message(seat)}


def _finished_api(api: APIRouter, service: Service) -> None:
    """The record and the replay steps of a finished table (409 while it is played)."""

    async def finished_table(table_id: str) -> Table:
        table = (await _live(service, table_id)).table
        if not table.state.is_terminal():
            raise HTTPException(409, "the table is still being played; watch it instead")
        return table

    @api.get("/api/tables/{table_id}/record")
    async def api_record(table_id: str) -> Response:
        table = await finished_table(table_id)
        return Response(json.dumps(finished_record(table), indent=1), media_type="application/json")

    @api.get("/api/tables/{table_id}/replay/{step}")
    async def api_replay(table_id: str, step: int) -> dict[str, Any]:
        return replay_step(await finished_table(table_id), step)


def _socket(api: APIRouter, service: Service) -> None:
    """The WebSocket of a viewer: a seat (by its token) or a spectator."""

    @api.websocket("/ws/{table_id}")
    async def ws_endpoint(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        try:
            live = await service.get(table_id)
        except StoreError:
            await _refuse(ws, protocol.error(0, "unavailable", "the table store is not answering"), 1011)
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
        await _serve(ws, live, SocketConnection(ws, seat, ws.query_params.get("svg") == "1"))


async def _refuse(ws: WebSocket, message: dict[str, Any], code: int) -> None:
    await ws.send_text(json.dumps(message))
    await ws.close(code)


async def _serve(ws: WebSocket, live: LiveTable, conn: SocketConnection) -> None:
    """Attach ``conn`` to the table and hand it every client message until the socket closes."""
    writer = asyncio.create_task(conn.writer())
    connection: Connection = conn
    live.attach(connection)
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            await live.submit(connection, message.get("text") if message.get("text") is not None
                              else message.get("bytes"))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        live.detach(connection)
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await writer
