"""Bots that think, kept off the server's event loop: a bounded pool of worker processes.

A search bot (ISMCTS, an external program) can think for seconds; in the server's own process it would hold
the interpreter lock, and every table and the lobby would wait. :class:`Thinkers` runs such bots in worker
processes instead, at most ``workers`` searches at once (a table whose bot must wait for a free worker
waits; the event loop never does). A bot acts only from its seat's observation (the information state),
so a worker gets the observation, the legal actions and the seed of the move's random generator, and
answers the action: the same action the bot would have chosen in the server's process.

Two lanes, so that what people ask for beside the play never slows the bots of live tables: ``live`` (the bots'
moves, ``workers`` processes) and ``background`` (analyses of finished matches and hints, ``background``
processes of their own, run at the lowest CPU priority, ``nice`` :data:`BACKGROUND_NICE`): a live bot neither waits
for a free worker behind an analysis nor shares its core with one on equal terms.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal, TypeVar

from motley.bots import Bot, make_bot
from motley.core import MotleyError, Observation
from motley.core.processes import exit_with_parent
from motley.core.registry import load_recorded_game

R = TypeVar("R")

#: The lanes of the worker processes: the live tables' bots, and analyses and hints (see the module docstring).
Lane = Literal["live", "background"]
#: The niceness of the background lane's workers (19: the lowest CPU priority a process can take).
BACKGROUND_NICE = 19

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


def _background_worker(parent: int) -> None:
    """In a worker process of the background lane: exit with the ``parent`` and give the CPU to every other
    process first (niceness :data:`BACKGROUND_NICE`; where the system refuses, the worker runs at its own)."""
    exit_with_parent(parent)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(BACKGROUND_NICE - os.nice(0))


class _Lane:
    """One lane's worker processes: at most ``size`` jobs at once (:attr:`slots`), in a pool of ``size`` spawned
    processes, each started by ``initializer(parent pid)``; the pool is started on first use (:meth:`executor`) and
    replaced after :meth:`discard`."""

    def __init__(self, size: int, initializer: Callable[[int], None]) -> None:
        self.size = size
        self.initializer = initializer
        self.slots = asyncio.Semaphore(size)
        self.pool: ProcessPoolExecutor | None = None

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            # spawn: a fresh interpreter, never a fork of the server with its threads and sockets
            self.pool = ProcessPoolExecutor(self.size, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=self.initializer, initargs=(os.getpid(),))
        return self.pool

    def discard(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


class Thinkers:
    """At most ``workers`` bot searches at once, each in a worker process of the live lane, and at most
    ``background`` analyses and hints at once in worker processes of their own, at the lowest CPU priority (both
    pools started on first use; module docstring).

    A worker that dies (killed, out of memory) breaks its pool: the search in it fails with a
    :class:`MotleyError`, and the next search of that lane starts a new pool.
    """

    def __init__(self, workers: int | None = None, background: int = 1) -> None:
        self.workers = default_workers() if workers is None else workers
        if self.workers < 1 or background < 1:
            raise MotleyError("searches at once must be at least 1")
        self.background = background
        self.lanes: dict[Lane, _Lane] = {"live": _Lane(self.workers, exit_with_parent),
                                         "background": _Lane(background, _background_worker)}
        #: Searches of the live lane under way.
        self.running = 0

    async def choose(self, game: str, params: dict[str, Any], spec: str, observation: Observation,
                     legal: Sequence[int], seed: str) -> int:
        """The action of bot ``spec`` at ``observation`` (see :func:`think`), once a worker is free.

        Raises:
            MotleyError: if the bot fails, chooses an illegal move, or its worker died.
        """
        return await self.run(f"bot {spec!r}", think, game, json.dumps(params, sort_keys=True), spec, observation,
                              list(legal), seed)

    async def run(self, what: str, fn: Callable[..., R], *args: Any, lane: Lane = "live") -> R:
        """``fn(*args)`` in a worker process of ``lane`` once one is free (``live``: a bot's search, sharing the
        ``workers`` slots; ``background``: a decision of a match's analysis or a hint, sharing the
        :attr:`background` slots). ``fn`` and ``args`` must be picklable; ``what`` names the job in an error.

        Raises:
            MotleyError: if the worker died (the lane's pool is then replaced); whatever ``fn`` raised.
        """
        chosen = self.lanes[lane]
        live = lane == "live"
        async with chosen.slots:
            self.running += live
            try:
                return await asyncio.get_running_loop().run_in_executor(chosen.executor(), fn, *args)
            except BrokenProcessPool as exc:
                chosen.discard()
                raise MotleyError(f"the worker thinking for {what} died: {exc}") from None
            finally:
                self.running -= live

    def close(self) -> None:
        """Stop the workers of both lanes (a search under way is abandoned)."""
        for lane in self.lanes.values():
            lane.discard()
