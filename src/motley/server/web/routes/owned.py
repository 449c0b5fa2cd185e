"""A browser's own tables: ``GET /api/my-tables`` with the browser's key in the ``X-Motley-Key`` header answers the
unfinished tables made with that key (``POST /api/tables`` with the same header), newest first, each its lobby line
(:func:`~motley.server.web.routes.tables.table_summary`) and ``links``, the seat links the maker was given that
are still theirs to hand out (person seats not claimed from the lobby); ``POST /api/tables/{id}/cancel`` with
``{"key"}`` (that browser's key) or ``{"token"}`` (a seat link's token of the table) cancels an unfinished table
(``Service.cancel``: its viewers are told, it leaves the lobby and frees its slot of the address's quota).

Only the key's digest is stored (:mod:`motley.server.play.owners`): another browser, at the same address or not,
neither sees nor cancels the tables (403 ``not_yours``). A missing or malformed key is 400; a table over already
is 409 ``table_over``. A cancel of a table another process of the site drives is forwarded there, as a seat request
is, and so is one whose write the store refused because another process took the table over meanwhile
(:func:`motley.server.web.lookup.seat_write`). A route function has no docstring: FastAPI would publish it in
``/openapi.json``.
"""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import APIRouter, Request

from motley.server.play import bodies
from motley.server.play.live import LiveTable
from motley.server.play.owners import owned
from motley.server.web.context import Context
from motley.server.web.lookup import seat_write
from motley.server.web.reading import SMALL_REQUEST, KeyHeader, body_of, owner_in, owner_required, parsed, shaped
from motley.server.web.refusals import BadRequest, NotYours, TableOver, refusals
from motley.server.web.routes.tables import table_summary

router = APIRouter()

def owned_line(live: LiveTable) -> dict[str, Any]:
    """The lobby line of a table its maker asked for, with ``links``: ``[{"seat", "name", "link"}]`` of the person
    seats whose invite the maker was given and nobody claimed from the lobby (seats from 0)."""
    table = live.table
    links = [{"seat": i, "name": s.name, "link": f"/table/{table.id}?token={s.token}"}
             for i, s in enumerate(table.seats) if s.kind == "human" and s.token and not s.claimed]
    return {**table_summary(live), "links": links}


@router.get("/api/my-tables", responses=refusals(400, 503, e400="no browser key, or a malformed one"))
async def api_my_tables(web: Context, key: KeyHeader = None) -> list[dict[str, Any]]:
    owner = owner_required(key)
    return [owned_line(live) for live in await owned(web.service, owner)]


@router.post("/api/tables/{table_id}/cancel", openapi_extra={"requestBody": bodies.schema(bodies.CancelRequest)},
             responses=refusals(400, 403, 404, 409, 413, 415, 503,
                                e403="neither the key of the browser that made the table nor a seat link's token",
                                e409="the table is over already (finished or cancelled)"))
async def api_cancel(table_id: str, request: Request, web: Context) -> dict[str, Any]:
    body = await body_of(request, SMALL_REQUEST)
    asked = shaped(bodies.CancelRequest, parsed(body, "the cancel request", SMALL_REQUEST, 4),
                   'a cancel request is {"key": the browser key that made the table} or {"token": a seat link\'s '
                   'token}')
    if asked.key is None and asked.token is None:
        raise BadRequest('a cancel request names the browser key ("key") or a seat link\'s token ("token")')
    owner = owner_in(asked.key, where="'key'")

    async def cancel(live: LiveTable) -> None:
        table = live.table
        seat = None if asked.token is None else table.seat_of_token(asked.token)
        mine = owner is not None and table.record.owner is not None and hmac.compare_digest(owner, table.record.owner)
        if not mine and seat is None:
            raise NotYours()
        if live.closed or table.state.is_terminal():
            raise TableOver()
        who = "the person who made it" if seat is None else f"{table.seats[seat].name or 'a person'} (seat {seat + 1})"
        await web.service.cancel(live, f"cancelled by {who}")

    live, _ = await seat_write(web.service, table_id, request, cancel, body)
    return {"id": live.id, "cancelled": True}
