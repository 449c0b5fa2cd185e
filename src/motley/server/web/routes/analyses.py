"""The analysis of a seat's decisions in a finished match (:mod:`motley.server.play.analyses`):
``POST /api/tables/{id}/analysis?seat=N`` starts it (202 while it runs; 200 once stored), ``GET`` the same says where
it is (``{"status": "none" | "running" | "done" | "failed", "seat", "done", "total", "result"?, "error"?}``). 409
while the match is played (nothing of it is given then) or for a cancelled table, 400 for a seat it does not have,
429 beyond one per table and ``MAX_ANALYSES`` on the server.

A route function has no docstring: FastAPI would publish it in ``/openapi.json``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from motley.server.play.analyses import AnalysisRefused
from motley.server.play.table import Table
from motley.server.web.context import Context, Web
from motley.server.web.lookup import ended_table
from motley.server.web.refusals import refusals

SEAT_WORDS = "the seat asked for is not a seat of the table"
UNFINISHED = "the match is still being played (nothing of its analysis is given then), or was cancelled"

router = APIRouter()


async def analysable(web: Web, table_id: str, seat: int) -> Table:
    """The finished table ``table_id``, whose ``seat`` may be analysed.

    Raises:
        AnalysisRefused: for a match not over (409, on every process of a site:
            :func:`~motley.server.web.lookup.ended_table`) or a seat it does not have (400). NoSuchTable,
            StoreError: as :func:`~motley.server.web.lookup.live_table`.
    """
    live = await ended_table(web.service, table_id, AnalysisRefused.not_over)
    web.service.analyses.check(live.table, seat)
    return live.table


@router.get("/api/tables/{table_id}/analysis",
            responses=refusals(400, 404, 409, 503, e400=SEAT_WORDS, e409=UNFINISHED))
async def api_analysis(table_id: str, seat: int, web: Context) -> dict[str, Any]:
    job = web.service.analyses.jobs.get(table_id)
    if job is not None and job.seat == seat:  # its progress, without loading the finished table again
        return job.status()
    table = await analysable(web, table_id, seat)
    return await web.service.analyses.status(table, seat)


@router.post("/api/tables/{table_id}/analysis", status_code=202,
             responses={200: {"description": "the analysis, stored already"},
                        **refusals(400, 403, 404, 409, 429, 503, e400=SEAT_WORDS, e409=UNFINISHED,
                                   e429="an analysis of this table, or as many as the server runs at once, is "
                                        "running (see Retry-After)")})
async def api_analyse(table_id: str, seat: int, web: Context) -> JSONResponse:
    table = await analysable(web, table_id, seat)
    now = await web.service.analyses.start(table, seat)
    return JSONResponse(now, status_code=200 if now["status"] == "done" else 202)
