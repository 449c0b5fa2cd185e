"""The HTTP routes of the server, one router per resource, as named functions: the pages and static files
(:mod:`.pages`), the games and the server's defaults (:mod:`.games`), the tables (:mod:`.tables`), a browser's own
tables (:mod:`.owned`), their seats (:mod:`.seats`), a finished table's record and replay (:mod:`.finished`) and the
analyses (:mod:`.analyses`); the viewer's WebSocket is :mod:`motley.server.web.sockets`.

A route raises a :class:`~motley.server.store.refusals.Refusal` (or lets one raised below go by) and never catches
one to build its own answer: the app's handlers answer every refusal (:mod:`motley.server.web.refusals`). A route
reaches the set of tables, the limits and the kept answers through its :data:`~motley.server.web.context.Context`
parameter.
"""

from __future__ import annotations

from fastapi import APIRouter

from motley.server.web import sockets
from motley.server.web.refusals import every_route
from motley.server.web.routes import analyses, finished, games, owned, pages, seats, tables

#: The routers in the order their routes are published (``/openapi.json``).
ROUTERS = (pages.router, games.router, tables.router, owned.router, seats.router, finished.router, analyses.router,
           sockets.router)


def router() -> APIRouter:
    """Every route of the server (:data:`ROUTERS`), each also answering the plain-text refusals of the checks in
    front of every route (:func:`~motley.server.web.refusals.every_route`)."""
    api = APIRouter(responses=every_route())
    for part in ROUTERS:
        api.include_router(part)
    return api
