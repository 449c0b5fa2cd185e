"""Uvicorn's server with a drain for the site mode (docs/scaling.md): on SIGTERM (or Ctrl-C) a process of a site
stops listening, hands its tables over to the other processes (:meth:`Service.drain`: moves in flight stored,
leases given up and announced, the tables' sockets closed with 1012 so that the pages reconnect to the new
owner), and only then lets Uvicorn close the remaining connections and run the app's shutdown."""

from __future__ import annotations

import asyncio
import logging
import socket

import uvicorn

from motley.server.play.service import Service

log = logging.getLogger("motley.server")

#: Seconds the drain may take before Uvicorn's own shutdown goes on regardless (the leases then expire by themselves).
DRAIN_TIMEOUT = 10.0


class DrainingServer(uvicorn.Server):
    """``uvicorn.Server`` whose shutdown drains ``service`` (:meth:`Service.drain`) once it stopped accepting
    connections and before it closes the open ones."""

    def __init__(self, config: uvicorn.Config, service: Service) -> None:
        super().__init__(config)
        self.service = service

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop accepting connections, drain the service (at most :data:`DRAIN_TIMEOUT` s), then Uvicorn's
        shutdown (the other connections closed, the app's lifespan ended)."""
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        try:
            await asyncio.wait_for(self.service.drain(), DRAIN_TIMEOUT)
        except Exception:  # the process stops anyway; the leases expire by themselves
            log.exception("the tables were not all handed over")
        await super().shutdown(sockets)
