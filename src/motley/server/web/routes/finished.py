"""A finished table's record and replay: ``GET /api/tables/{id}/record`` (the game record, its seed revealed, with
``table`` and ``commitment``: :func:`finished_record`), ``GET /api/tables/{id}/replay`` (what a replay viewer needs
first: names, marks to jump to, score sheet) and ``GET /api/tables/{id}/replay/{step}[?view=N]`` (the public view
after ``step`` moves, or seat N's own: a finished match has no secrets left; 400 for a seat that is not one).

409 while the table is played. Each answer is built once, in a worker thread, and kept
(:class:`~motley.server.play.replays.Built`); one client address may have ``Limits.builds_per_address`` being built
at once (429 with ``Retry-After`` beyond); an answer already built is sent at once.

A route function has no docstring: FastAPI would publish it in ``/openapi.json``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

import motley
from motley.server.play import replays
from motley.server.play.messages import ReplayStep
from motley.server.play.table import Table
from motley.server.web.context import Context, Web
from motley.server.web.lookup import ended_table
from motley.server.web.reading import client_address
from motley.server.web.refusals import BuildsBusy, NotFinished, refusals

#: Log entries in a replay step.
REPLAY_LOG = replays.REPLAY_LOG
UNFINISHED = "the table is still being played, or was cancelled before its end"
BUSY_WORDS = "this address has replays being built already (see Retry-After)"

router = APIRouter()


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


def replay_step(table: Table, step: int, view: int | None = None) -> ReplayStep:
    """The view of a finished table after ``step`` moves (clamped): the public one, or (``view``) a seat's
    own (:func:`motley.server.play.replays.step`: ``{"step", "moves", "svg", "scores", "log", "title", "names",
    "view", "events", "stage"}``).

    Raises:
        ViewRefused: for a view that is not a seat. RecordError: if the stored moves no longer replay.
    """
    return replays.step(table, step, view)


def compact(answer: Any) -> bytes:
    """``answer`` as compact JSON bytes (as FastAPI would send it)."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()


async def finished_table(web: Web, table_id: str) -> Table:
    """The finished table ``table_id``.

    Raises:
        NotFinished: while its match is played (on every process of a site:
            :func:`~motley.server.web.lookup.ended_table`), or for a table cancelled before its end. NoSuchTable,
            StoreError: as :func:`~motley.server.web.lookup.live_table`.
    """
    live = await ended_table(web.service, table_id)
    table = live.table
    if not table.state.is_terminal() and live.closed:
        raise NotFinished("the table was cancelled before the end of its match; it has no replay")
    if not table.state.is_terminal():
        raise NotFinished()
    return table


async def answer(web: Web, request: Request, key: tuple[Any, ...], make: Callable[[Table], bytes],
                 kept_as: Callable[[Table], tuple[Any, ...]] | None = None) -> Response:
    """The JSON answer ``key`` (``(what, table id, ...)``) names: kept, or built by ``make(table)`` in a worker
    thread once the finished table is loaded and kept under ``kept_as(table)`` (default ``key``).

    Raises:
        BuildsBusy: when the client has too many answers being built (waiting for one being built costs no slot).
        Those of :func:`finished_table`, and of ``make``.
    """
    body = await web.built.wait(key)  # kept, or being built for another request: no slot taken
    if body is None:
        address = client_address(request)
        if not web.busy.take(address):
            raise BuildsBusy(f"this address has {web.limits.builds_per_address} replays being built already; try "
                             "again in a moment")
        try:
            table = await finished_table(web, str(key[1]))
            body = await web.built.build(key if kept_as is None else kept_as(table), functools.partial(make, table))
        finally:
            web.busy.give(address)
    return Response(body, media_type="application/json")


@router.get("/api/tables/{table_id}/record", responses=refusals(404, 409, 429, 503, e409=UNFINISHED,
                                                                e429=BUSY_WORDS))
async def api_record(table_id: str, request: Request, web: Context) -> Response:
    return await answer(web, request, ("record", table_id),
                        lambda table: json.dumps(finished_record(table), indent=1).encode())


@router.get("/api/tables/{table_id}/replay", responses=refusals(404, 409, 429, 503, e409=UNFINISHED,
                                                                e429=BUSY_WORDS))
async def api_replay_index(table_id: str, request: Request, web: Context) -> Response:
    return await answer(web, request, ("index", table_id), lambda table: compact(replays.index(table)))


@router.get("/api/tables/{table_id}/replay/{step}",
            responses=refusals(400, 404, 409, 429, 503, e400="the view asked for is not a seat of the table",
                               e409=UNFINISHED, e429=BUSY_WORDS))
async def api_replay(table_id: str, step: int, request: Request, web: Context, view: int | None = None) -> Response:
    def clamped(table: Table) -> int:
        return max(0, min(step, len(table.record.moves)))

    return await answer(web, request, ("step", table_id, step, view),
                        lambda table: compact(replay_step(table, clamped(table), view)),
                        lambda table: ("step", table.id, clamped(table), view))
