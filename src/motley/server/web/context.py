"""What the web's routes share, one per app: the set of tables, the limits, the replay answers built and kept, the
builds under way per address, and each table's drawings. A route asks for it by its parameter type
(:data:`Context`, a FastAPI dependency that reads ``app.state.web``)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from motley.server.play.limits import InFlight, Limits
from motley.server.play.live import LiveTable
from motley.server.play.replays import Built
from motley.server.play.service import Service
from motley.server.web.drawings import Drawings


@dataclass
class Web:
    """The web's shared parts over ``service``, within ``limits``: ``built`` (the record and replay answers of
    finished tables, built once and kept), ``busy`` (those being built per client address, at most
    ``limits.builds_per_address``) and ``drawings`` (each table's SVG drawings, made once per seat and version for
    every socket that asked for them; dropped with the table)."""

    service: Service
    limits: Limits
    built: Built = field(default_factory=Built)
    busy: InFlight = field(init=False)
    drawings: weakref.WeakKeyDictionary[LiveTable, Drawings] = field(default_factory=weakref.WeakKeyDictionary)

    def __post_init__(self) -> None:
        self.busy = InFlight(self.limits.builds_per_address)

    def drawings_of(self, live: LiveTable) -> Drawings:
        """The drawings of ``live``'s viewers, one set per table (made on first use)."""
        drawings = self.drawings.get(live)
        if drawings is None:
            drawings = self.drawings[live] = Drawings()
        return drawings


def web_of(connection: HTTPConnection) -> Web:
    """The app's :class:`Web` (``app.state.web``, set by :func:`motley.server.web.app.create_app`)."""
    web: Web = connection.app.state.web
    return web


#: A route's parameter of this type is the app's :class:`Web`.
Context = Annotated[Web, Depends(web_of)]
