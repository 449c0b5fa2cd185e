"""The FastAPI app of ``motley serve``: a :class:`~motley.server.service.Service` over the store, and the
routes of :mod:`motley.server.transport` (see there for the HTTP and WebSocket API)."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from motley.server.service import Service
from motley.server.storage import Storage
from motley.server.table import Settings
from motley.server.transport import router


def create_app(db: str = "sqlite:///motley.db", move_time: float | None = None, grace: float = 30.0,
               bot_delay: float = 0.6) -> FastAPI:
    """The web app over the store at ``db`` (a SQLAlchemy URL); the defaults (seconds; ``move_time`` None =
    no move timer) apply to new tables. ``app.state.service`` is the :class:`Service`.

    On start it resumes every unfinished table; on shutdown it stops the tables and closes the store.
    """
    service = Service(Storage(db), Settings(move_time, grace, bot_delay))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await service.resume()
        # The engines' precomputed tables and the resumed tables are long-lived: freeze them out of the
        # cyclic GC, and collect less often, so a full collection never pauses every table for long.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)
        yield
        await service.close()

    app = FastAPI(title="motley", lifespan=lifespan)
    app.state.service = service
    app.include_router(router(service))
    return app
