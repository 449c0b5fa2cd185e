"""Single flight: at most one run of an asynchronous job per key at a time. A caller that asks for a key whose
run is in flight waits for that run and gets its result (or its exception); a caller that goes away does not
cancel the run the others wait for. Used for loading a table from the store (:meth:`Service.get
<motley.server.play.service.Service.get>`) and for building the answers about finished tables
(:class:`~motley.server.play.replays.Built`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Flights(Generic[K, V]):
    """The runs in flight, by key."""

    def __init__(self) -> None:
        self._running: dict[K, asyncio.Task[V]] = {}

    def running(self, key: K) -> asyncio.Task[V] | None:
        """The run of ``key`` in flight, or None."""
        return self._running.get(key)

    async def join(self, key: K, start: Callable[[], Coroutine[Any, Any, V]],
                   landed: Callable[[V], None] | None = None) -> V:
        """The result of the run of ``key``: the one in flight, or one started now with ``start()``; ``landed``
        (of the run started here) is called with its result once it ends well, before any waiter resumes.

        Raises:
            whatever the run raises (every waiter gets it).
        """
        flight = self._running.get(key)
        if flight is None:
            flight = self._running[key] = asyncio.get_running_loop().create_task(start())
            flight.add_done_callback(lambda done: self._landed(key, done, landed))
        return await asyncio.shield(flight)  # a caller that goes away does not cancel the others' run

    def _landed(self, key: K, flight: asyncio.Task[V], landed: Callable[[V], None] | None) -> None:
        """The run of ``key`` is over: later callers start another; a good result goes to ``landed``."""
        if self._running.get(key) is flight:
            del self._running[key]
        if landed is not None and not flight.cancelled() and flight.exception() is None:
            landed(flight.result())
