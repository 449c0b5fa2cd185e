"""The web server of ``motley serve``: tables with friends and bots, over WebSockets, stored as event logs.

Four rooms, each one job, from the bottom up (``tests/test_layers.py`` holds the order; nothing imports upward):
:mod:`~motley.server.store` (a table's record types, the storage's writer thread, the SQLAlchemy storage and its
migrations), :mod:`~motley.server.play` (a table as data and rules, a table in play with its bots, the WebSocket
protocol, privacy, hints, analyses, replays, limits and the set of tables), :mod:`~motley.server.site` (leases,
the news channel, the lobby across processes, the signed internal channel, the drain) and
:mod:`~motley.server.web` (the FastAPI app, its routes and the connection guards). :func:`create_app`
(:mod:`~motley.server.web.app`) puts them together. The app is imported on first use, so importing the pure parts
needs neither FastAPI nor SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from motley.server.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app``, imported on first use."""
    if name == "create_app":
        from motley.server.web.app import create_app

        return create_app
    raise AttributeError(f"module 'motley.server' has no attribute {name!r}")
