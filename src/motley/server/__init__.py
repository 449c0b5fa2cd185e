"""The web server of ``motley serve``: tables with friends and bots, over WebSockets, stored as event logs."""

from motley.server.app import create_app

__all__ = ["create_app"]
