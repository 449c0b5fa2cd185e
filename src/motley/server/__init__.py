"""The web server of ``motley serve``: tables with friends and bots, over WebSockets, stored as event logs.

Three parts: :mod:`~motley.server.table` (a table as data and rules, no I/O), :mod:`~motley.server.service`
(storage, bots, timers, one driver task per table) and :mod:`~motley.server.transport` (HTTP and
WebSocket routes, SVG drawing); :func:`create_app` (:mod:`~motley.server.app`) puts them together. The app is
imported on first use, so importing the pure parts needs neither FastAPI nor SQLAlchemy.
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
