"""The FastAPI app of ``motley serve``: a :class:`~motley.server.service.Service` over the store, and the
routes of :mod:`motley.server.transport` (see there for the HTTP and WebSocket API)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from motley.server.service import Service
from motley.server.storage import Storage
from motley.server.table import Settings
from motley.server.transport import router


def create_app(db: str = "sqlite:///motley.db", move_time: float | None = None, grace: float = 30.0,
               bot_delay: float = 0.8, searches: int | None = None) -> FastAPI:
    """The web app over the store at ``db`` (a SQLAlchemy URL); the defaults (seconds; ``move_time`` None =
    no move timer) apply to new tables; ``searches``: bot searches at once, each in a worker process
    (default: one per core but one). ``app.state.service`` is the :class:`Service`.

    On start it serves at once and resumes every unfinished table in the background (a table asked for
    before its turn is loaded on demand); on shutdown it stops the tables and closes the store.
    """
    service = Service(Storage(db), Settings(move_time, grace, bot_delay), searches)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The engines' precomputed tables are long-lived: freeze them out of the cyclic GC, and collect
        # less often, so a full collection never pauses every table for long.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        resuming = asyncio.create_task(service.resume())
        resuming.add_done_callback(_report_resume)
        yield
        resuming.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await resuming
        await service.close()

    app = FastAPI(title="motley", lifespan=lifespan)
    app.state.service = service
    app.include_router(router(service))
    return app


def _report_resume(task: asyncio.Task[int]) -> None:
    """Log how the start-up resume of the unfinished tables ended."""
    if task.cancelled():
        return
    if task.exception() is not None:
        logging.getLogger("motley.server").error("unfinished tables not resumed: %s", task.exception())
    else:
        logging.getLogger("motley.server").info("%d unfinished tables resumed", task.result())
