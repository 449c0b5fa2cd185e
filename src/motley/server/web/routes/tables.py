"""The tables: ``GET /api/tables`` (the lobby's list: the tables in play here and elsewhere in the site, then the
newest finished ones) and ``POST /api/tables`` (create one: returns every person seat's invite link, and which seats
are open; with the browser's key in ``X-Motley-Key``, the table is that browser's, listed and cancelled by it:
:mod:`.owned`). A POST body must be ``application/json`` (415 otherwise) of at most ``Limits.request_bytes`` (413);
one client address may have ``Limits.tables_per_address`` unfinished tables and create ``Limits.tables_per_minute``
tables a minute, ``Limits.table_burst`` at once, rematches included (429 beyond, the rate's with ``Retry-After``:
:class:`~motley.server.play.limits.TableGate`).

A route function has no docstring: FastAPI would publish it in ``/openapi.json``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

import motley
from motley.core.registry import game_class
from motley.server.play import bodies, replays
from motley.server.play.live import LiveTable
from motley.server.web.context import Context
from motley.server.web.reading import (
    REQUEST_DEPTH,
    KeyHeader,
    as_bad_request,
    client_address,
    json_of,
    owner_in,
    shaped,
)
from motley.server.web.refusals import refusals

router = APIRouter()


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


def finished_line(row: dict[str, Any], wall: float) -> dict[str, Any]:
    """A lobby line of a finished table from its stored header (``Storage.finished_headers``), at ``wall`` time."""
    return {"id": row["id"], "game": row["game"], "title": game_class(row["game"]).title, "players": row["players"],
            "version": row["moves"], "finished": True, "created": row["created"], "seats": [], "free_seats": 0,
            "names": row["names"], "waiting_for": 0, "stage": "finished", "age": max(0.0, wall - row["created"])}


@router.get("/api/tables", responses=refusals(503))
async def api_tables(web: Context) -> list[dict[str, Any]]:
    service = web.service
    running = [table_summary(t) for t in service.tables.values()]
    ids = {t["id"] for t in running}
    headers = await service.listed_finished()
    running += [r for r in await service.listed_elsewhere() if r["game"] in motley.registered_games()]
    finished = [finished_line(r, service.wall()) for r in headers
                if r["id"] not in ids and r["game"] in motley.registered_games()]
    return sorted(running, key=lambda t: (t["finished"], -t["created"])) + finished


@router.post("/api/tables", openapi_extra={"requestBody": bodies.schema(bodies.TableRequest)},
             responses=refusals(400, 403, 413, 415, 429, 503,
                                e400="the request is not well formed, or asks for what the server does not offer: "
                                     "the answer names the field"))
async def api_create(request: Request, web: Context, key: KeyHeader = None) -> JSONResponse:
    limits = web.limits
    owner = owner_in(key)
    spec = await json_of(request, "the table request", limits.request_bytes, REQUEST_DEPTH)
    table_request = shaped(bodies.TableRequest, spec)
    with as_bad_request():
        live = await web.service.create(table_request, client=client_address(request, web.service), owner=owner)
    table = live.table
    links = [{"seat": i, "name": s.name, "kind": s.kind, "open": s.open,
              "link": f"/table/{table.id}?token={s.token}" if s.token else None} for i, s in enumerate(table.seats)]
    return JSONResponse({"id": table.id, "seats": links, "spectate": f"/table/{table.id}"})
