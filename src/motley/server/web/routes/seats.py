"""A table's seats: ``POST /api/tables/{id}/join[?seat=N][&name=...]`` claims an open seat (a fresh link; ``name``,
at most 30 characters: the joiner's name at the table; 409 with the reason for a seat by invitation, one already
claimed, or a finished match); ``POST /api/tables/{id}/rematch`` with
``{"token", "seats"?}`` (a seat's token; ``seats``: who sits where in the new order and the bots,
:class:`~motley.server.play.bodies.RematchSeat`) makes the finished table's rematch, once, and stored, whatever
restarts (same options and settings; by default the same seats, names and bots): it returns ``{"id", **the rematch
message}`` (the asker's own) and sends every viewer of the old table the offer as ``{"type": "rematch", "table",
"link", "offered_by", "seats", "you"}`` (its own link: a person's new seat link, or the watch link); nobody's page
moves. 400 for bad ``seats``; 409 with the reason for a token of no seat, a match not over, or ``seats`` other than
those already offered; 429 as for creating a table (a rematch made already is answered whatever the limits);
``POST /api/tables/{id}/decline`` with ``{"token"}`` (a seat link's of that table): the person declines the seat (a
rematch offered them): it becomes an open seat, and every viewer of both tables gets ``{"type": "rematch_declined",
"seat", "name"}`` (409 once the person has joined, or for a token of no seat of the table).

A seat request for a table another process of the site drives is forwarded there, and its answer passed on
(:func:`motley.server.web.lookup.seat_table`); so is a join whose seat write the store refused because another
process took the table over meanwhile (``LeaseLost``: a process paused past its lease;
:func:`~motley.server.web.lookup.seat_write`), and so is a decline, so that it is answered by the table's owner (a
join: 409, the seat was claimed there) rather than with an error of the store. A route function has no docstring:
FastAPI would publish it in ``/openapi.json``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from motley.server.play import bodies
from motley.server.web.context import Context
from motley.server.web.lookup import seat_table, seat_write
from motley.server.web.reading import SMALL_REQUEST, as_bad_request, body_of, client_address, parsed, shaped
from motley.server.web.refusals import refusals

router = APIRouter()


@router.post("/api/tables/{table_id}/join",
             responses=refusals(403, 404, 409, 503, e409="the seat cannot be claimed (by invitation, claimed "
                                                         "already, a bot's, the match is over): the answer says why"))
async def api_join(table_id: str, request: Request, web: Context, seat: int | None = None,
                   name: Annotated[str | None, Query(max_length=30)] = None) -> dict[str, Any]:
    live, claimed = await seat_write(web.service, table_id, request, lambda live: web.service.join(live, seat, name))
    return {"seat": claimed, "link": f"/table/{live.id}?token={live.table.seats[claimed].token}"}


@router.post("/api/tables/{table_id}/rematch",
             openapi_extra={"requestBody": bodies.schema(bodies.RematchRequest)},
             responses=refusals(400, 403, 404, 409, 413, 415, 429, 503,
                                e409="no rematch for this request (a token of no seat, a match not over, other "
                                     "seats than those offered already): the answer says why"))
async def api_rematch(table_id: str, request: Request, web: Context) -> dict[str, Any]:
    service = web.service
    body = await body_of(request, SMALL_REQUEST)
    live = await seat_table(service, table_id, request, body)
    asked = shaped(bodies.RematchRequest, parsed(body, "the rematch request", SMALL_REQUEST, 4),
                   'a rematch request is {"token": the seat link\'s token, "seats"?: '
                   '[{"from", "kind", "bot", "strength", "name"}]}')
    with as_bad_request():
        new = await service.rematch(live, asked.token, asked.seats, client=client_address(request, service))
    seat = live.table.seat_of_token(asked.token)
    return {"id": new.id, **live.rematch_message(seat)}


@router.post("/api/tables/{table_id}/decline",
             openapi_extra={"requestBody": bodies.schema(bodies.DeclineRequest)},
             responses=refusals(400, 403, 404, 409, 413, 415, 503,
                                e409="the seat cannot be declined (a token of no seat of the table, its person "
                                     "has joined, the match is over): the answer says why"))
async def api_decline(table_id: str, request: Request, web: Context) -> dict[str, Any]:
    body = await body_of(request, SMALL_REQUEST)
    token = shaped(bodies.DeclineRequest, parsed(body, "the decline request", SMALL_REQUEST, 4),
                   'a decline request is {"token": the seat link\'s token}').token
    live, seat = await seat_write(web.service, table_id, request, lambda live: web.service.decline(live, token),
                                  body)
    return {"id": live.id, "seat": seat, "open": True}
