"""The FastAPI app of ``motley serve``: the lobby and table pages, the JSON API, one WebSocket per viewer.

HTTP:
    ``GET /`` the lobby; ``GET /table/{id}`` the table page (``?token=`` for a seat, none to watch);
    ``GET /replay/{id}`` the replay viewer of a finished table;
    ``GET /api/games`` games with their options and bots; ``GET /api/tables`` the tables;
    ``POST /api/tables`` create one (returns the invite links); ``POST /api/tables/{id}/join`` take a free
    human seat; ``GET /api/tables/{id}/record`` the game record of a finished table;
    ``GET /api/tables/{id}/replay/{step}`` the public view after ``step`` moves of a finished table.
WebSocket:
    ``/ws/{id}?token=...&svg=1`` (see :mod:`motley.server.protocol`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response

import motley
from motley.bots import make_bot
from motley.core import MotleyError
from motley.core.registry import game_class
from motley.drawing import render
from motley.server import privacy
from motley.server.storage import Storage
from motley.server.tables import Connection, Settings, Table, new_record, stand_in

#: Seconds a finished table stays in memory after its last viewer leaves.
FINISHED_TTL = 600.0
STATIC = resources.files("motley.server").joinpath("static")


class Manager:
    """Every table of the server: the running ones in memory (with their driver tasks), all in storage."""

    def __init__(self, storage: Storage, defaults: Settings) -> None:
        self.storage = storage
        self.defaults = defaults
        self.tables: dict[str, Table] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def resume(self) -> int:
        """Rebuild every unfinished table from its event log and start its driver; returns how many."""
        count = 0
        for record in self.storage.load_all(finished=False):
            try:
                table = Table(record, self.storage)
            except MotleyError:
                continue  # a log that no longer replays (a changed rule) stays stored, but is not served
            self.tables[table.id] = table
            self.start(table)
            count += 1
        return count

    def start(self, table: Table) -> None:
        """Start the table's driver task; once the match is over the table leaves memory (it stays stored)."""
        if not table.state.is_terminal():
            loop = asyncio.get_running_loop()
            task = loop.create_task(table.run())
            self.tasks[table.id] = task
            task.add_done_callback(lambda _t: loop.call_later(FINISHED_TTL, self.evict, table.id))

    def evict(self, table_id: str) -> None:
        """Drop a finished table nobody watches from memory (``get`` loads it again from storage)."""
        table = self.tables.get(table_id)
        if table is None or not table.state.is_terminal():
            return
        if table.viewers():
            asyncio.get_running_loop().call_later(FINISHED_TTL, self.evict, table_id)
            return
        del self.tables[table_id]
        self.tasks.pop(table_id, None)

    def create(self, spec: Any) -> Table:
        """A new table from a lobby request (see ``tables.new_record``), stored and started."""
        record = new_record(spec, self.defaults)
        self.storage.create_table(record)
        table = Table(record, self.storage)
        self.tables[table.id] = table
        self.start(table)
        return table

    def get(self, table_id: str) -> Table | None:
        """A table by id: running, or loaded from storage (finished tables, for replays)."""
        table = self.tables.get(table_id)
        if table is None and len(table_id) <= 32:
            record = self.storage.load(table_id)
            if record is not None:
                try:
                    table = Table(record, None)
                except MotleyError:
                    return None
                if not table.state.is_terminal():
                    table.storage = self.storage
                    self.tables[table.id] = table
                    self.start(table)
        return table

    async def close(self) -> None:
        """Stop every driver task."""
        for table in self.tables.values():
            table.closed = True
            table.changed.set()
        for task in self.tasks.values():
            task.cancel()
        for task in self.tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class SocketConnection:
    """A WebSocket viewer: messages go through a queue and a writer task, so a slow client never blocks a table."""

    def __init__(self, ws: WebSocket, seat: int | None, svg: bool) -> None:
        self.ws = ws
        self.seat = seat
        self.svg = svg
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message."""
        self.queue.put_nowait(json.dumps(message, separators=(",", ":")))

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
    """Every registered game with its options (defaults, choices, kind, bounds) and the bots it has."""
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
            "options": [{"name": o.name, "default": o.default, "doc": o.doc, "choices": list(o.choices),
                         "kind": o.kind, "minimum": o.minimum, "maximum": o.maximum}
                        for o in cls.options if o.name != "players"],
        })
    return out


def table_summary(table: Table) -> dict[str, Any]:
    """A lobby line: public facts only (no tokens)."""
    return {"id": table.id, "game": table.game.name, "title": table.game.title, "players": len(table.seats),
            "version": table.version, "finished": table.state.is_terminal(), "created": table.record.created,
            "seats": table.seat_info(),
            "free_seats": sum(1 for s in table.seats if s.kind == "human" and not s.claimed and not s.ever_connected)}


def create_app(db: str = "sqlite:///motley.db", move_time: float | None = None, grace: float = 30.0,
               bot_delay: float = 0.6) -> FastAPI:
    """The web app over the store at ``db`` (a SQLAlchemy URL); the defaults apply to new tables."""
    storage = Storage(db)
    manager = Manager(storage, Settings(move_time, grace, bot_delay))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        manager.resume()
        # The engines' precomputed tables and the resumed tables are long-lived: freeze them out of the
        # cyclic GC, and collect less often, so a full collection never pauses every table for long.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        yield
        await manager.close()
        storage.close()

    app = FastAPI(title="motley", lifespan=lifespan)
    app.state.manager = manager

    def page(name: str) -> HTMLResponse:
        return HTMLResponse(STATIC.joinpath(name).read_text(encoding="utf-8"))

    @app.get("/", response_class=HTMLResponse)
    def lobby() -> HTMLResponse:
        return page("index.html")

    @app.get("/table/{table_id}", response_class=HTMLResponse)
    def table_page(table_id: str) -> HTMLResponse:
        return page("table.html")

    @app.get("/replay/{table_id}", response_class=HTMLResponse)
    def replay_page(table_id: str) -> HTMLResponse:
        return page("replay.html")

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        types = {"js": "text/javascript", "css": "text/css"}
        kind = types.get(name.rsplit(".", 1)[-1])
        if kind is None or "/" in name or name.startswith("."):
            raise HTTPException(404)
        try:
            body = STATIC.joinpath(name).read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            raise HTTPException(404) from None
        return Response(body, media_type=kind)

    @app.get("/api/games")
    def api_games() -> list[dict[str, Any]]:
        return games_info()

    @app.get("/api/tables")
    def api_tables() -> list[dict[str, Any]]:
        running = [table_summary(t) for t in manager.tables.values()]
        ids = {t["id"] for t in running}
        finished = [{"id": r["id"], "game": r["game"], "title": game_class(r["game"]).title, "players": r["players"],
                     "version": r["moves"], "finished": True, "created": r["created"], "seats": [], "free_seats": 0}
                    for r in storage.finished_headers()
                    if r["id"] not in ids and r["game"] in motley.registered_games()]
        return sorted(running, key=lambda t: (t["finished"], -t["created"])) + finished

    @app.post("/api/tables")
    async def api_create(request: Request) -> JSONResponse:
        body = await request.body()
        if len(body) > 20000:
            raise HTTPException(413, "request too large")
        try:
            spec = json.loads(body)
            table = manager.create(spec)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": "the request must be JSON"}, status_code=400)
        except MotleyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        links = [{"seat": i, "name": s.name, "kind": s.kind,
                  "link": f"/table/{table.id}?token={s.token}" if s.token else None} for i, s in enumerate(table.seats)]
        return JSONResponse({"id": table.id, "seats": links, "spectate": f"/table/{table.id}"})

    @app.post("/api/tables/{table_id}/join")
    def api_join(table_id: str) -> dict[str, Any]:
        table = manager.get(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        for i, seat in enumerate(table.seats):
            if seat.kind == "human" and not seat.claimed and not seat.ever_connected and seat.token:
                seat.claimed = True
                storage.update_seats(table.id, [s.stored() for s in table.seats])
                return {"seat": i, "link": f"/table/{table.id}?token={seat.token}"}
        raise HTTPException(409, "no free seat at this table")

    def finished_table(table_id: str) -> Table:
        table = manager.get(table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        if not table.state.is_terminal():
            raise HTTPException(409, "the table is still being played; watch it instead")
        return table

    @app.get("/api/tables/{table_id}/record")
    def api_record(table_id: str) -> Response:
        table = finished_table(table_id)
        return Response(motley.records.dump(table.state), media_type="application/json")

    @app.get("/api/tables/{table_id}/replay/{step}")
    def api_replay(table_id: str, step: int) -> dict[str, Any]:
        table = finished_table(table_id)
        moves = table.record.moves
        step = max(0, min(step, len(moves)))
        state = table.game.new_initial_state(seed=table.record.seed)
        for _seat, move, _actor in moves[:step]:
            state.apply_action(state.string_to_action(move))
        view = privacy.spectator_view(state)
        log = [{"n": e.number, "seat": e.seat, "actor": e.actor, "move": e.move if e.visible[-1] else None}
               for e in table.log[:step]]
        return {"step": step, "moves": len(moves), "svg": render(view), "scores": state.scores(), "log": log[-30:],
                "title": table.game.title}

    @app.websocket("/ws/{table_id}")
    async def ws_endpoint(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        table = manager.get(table_id)
        if table is None:
            await ws.send_text(json.dumps({"type": "error", "version": 0, "code": "no_table",
                                           "message": "no such table"}))
            await ws.close(4404)
            return
        token = ws.query_params.get("token")
        seat: int | None = None
        if token:
            seat = table.seat_of_token(token)
            if seat is None:
                await ws.send_text(json.dumps({"type": "error", "version": table.version, "code": "bad_token",
                                               "message": "this link's token is not valid for this table"}))
                await ws.close(4403)
                return
        conn = SocketConnection(ws, seat, ws.query_params.get("svg") == "1")
        writer = asyncio.create_task(conn.writer())
        connection: Connection = conn
        table.attach(connection)
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                table.submit(connection, message.get("text") if message.get("text") is not None
                             else message.get("bytes"))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            table.detach(connection)
            conn.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await writer

    return app
