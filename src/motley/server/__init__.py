"""The web server of ``motley serve``: tables with friends and bots, over WebSockets, stored as event logs.

The move path, in layers: :mod:`~motley.server.table` (a table as data and rules, no I/O: a seat's move in,
events out); :mod:`~motley.server.live` (a table in play: presence, submit, the driver and its bots; the
store and the viewers' connections handed in as protocols); :mod:`~motley.server.store` (the storage's
writer thread) and :mod:`~motley.server.storage` (the SQLAlchemy storage); :mod:`~motley.server.service`
(the set of tables); :mod:`~motley.server.transport` (HTTP and WebSocket routes, limits, SVG drawing).
Beside them: :mod:`~motley.server.bodies` (request shapes), :mod:`~motley.server.requests` (a request made a
table record) and :mod:`~motley.server.web_bots` (the bots the web offers). :func:`create_app`
(:mod:`~motley.server.app`) puts them together. The app is imported on first use, so importing the pure parts
needs neither FastAPI nor SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from motley.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app``, imported on first use."""
    if name == "create_app":
        from motley.server.app import create_app

        return create_app
    raise AttributeError(f"module 'motley.server' has no attribute {name!r}")
