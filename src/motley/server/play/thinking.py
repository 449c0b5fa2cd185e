"""Bots that think, kept off the server's event loop: a bounded pool of worker processes.

A search bot (ISMCTS, an external program) can think for seconds; in the server's own process it would hold
the interpreter lock, and every table and the lobby would wait. :class:`Thinkers` runs such bots in worker
processes instead, at most ``workers`` searches at once (a table whose bot must wait for a free worker
waits; the event loop never does). A bot acts only from its seat's observation (the information state),
so a worker gets the observation, the legal actions and the seed of the move's random generator, and
answers the action: the same action the bot would have chosen in the server's process.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from motley.bots import Bot, make_bot
from motley.core import MotleyError, Observation
from motley.core.processes import exit_with_parent
from motley.core.registry import load_recorded_game

R = TypeVar("R")

#: Bots made in a worker process, by (game, params as JSON, bot spec); cleared when it grows past 64.
_BOTS: dict[tuple[str, str, str], Bot] = {}


def default_workers() -> int:
    """Worker processes for searches by default: every core but one (the event loop's), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


def think(game: str, params: str, spec: str, observation: Observation, legal: Sequence[int], seed: str) -> int:
    """In a worker process: the action the bot ``spec`` chooses at ``observation``.

    ``game``/``params`` (JSON): the table's game as recorded; ``legal``: the legal action ids; ``seed``:
    seeds the move's ``random.Random``, so the choice is the one the bot makes anywhere with that seed.

    Raises:
        MotleyError: for a bad bot spec, or when the bot chooses an action that is not legal.
    """
    key = (game, params, spec)
    bot = _BOTS.get(key)
    if bot is None:
        if len(_BOTS) >= 64:
            _BOTS.clear()
        bot = _BOTS[key] = make_bot(spec, load_recorded_game(game, json.loads(params)))
    action = bot.act(observation, legal, random.Random(seed))
    if action not in legal:
        raise MotleyError(f"bot {spec!r} chose action {action!r}, not legal: {list(legal)}")
    return int(action)


class Thinkers:
    """At most ``workers`` bot searches at once, each in a worker process (started on first use).

    A worker that dies (killed, out of memory) breaks the pool: the search in it fails with a
    :class:`MotleyError`, and the next search starts a new pool.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = default_workers() if workers is None else workers
        if self.workers < 1:
            raise MotleyError("searches at once must be at least 1")
        self._slots = asyncio.Semaphore(self.workers)
        self._pool: ProcessPoolExecutor | None = None
        self.running = 0

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, never a fork of the server with its threads and sockets
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=exit_with_parent, initargs=(os.getpid(),))
        return self._pool

    async def choose(self, game: str, params: dict[str, Any], spec: str, observation: Observation,
                     legal: Sequence[int], seed: str) -> int:
        """The action of bot ``spec`` at ``observation`` (see :func:`think`), once a worker is free.

        Raises:
            MotleyError: if the bot fails, chooses an illegal move, or its worker died.
        """
        return await self.run(f"bot {spec!r}", think, game, json.dumps(params, sort_keys=True), spec, observation,
                              list(legal), seed)

    async def run(self, what: str, fn: Callable[..., R], *args: Any) -> R:
        """``fn(*args)`` in a worker process once one is free (a bot's search, a decision of a match's analysis,
        a hint: all share the ``workers`` slots). ``fn`` and ``args`` must be picklable; ``what`` names the job
        in an error.

        Raises:
            MotleyError: if the worker died (the pool is then replaced); whatever ``fn`` raised.
        """
        async with self._slots:
            self.running += 1
            try:
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(self._executor(), fn, *args)
            except BrokenProcessPool as exc:
                self._discard()
                raise MotleyError(f"the worker thinking for {what} died: {exc}") from None
            finally:
                self.running -= 1

    def _discard(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        """Stop the workers (a search under way is abandoned)."""
        self._discard()
