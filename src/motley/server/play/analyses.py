"""The analysis of a finished match for the replay viewer: run in the worker processes, bounded, stored once.

A viewer asks for the analysis of one seat's decisions (:mod:`motley.bots.analysis`) of a finished table. The
record is replayed into the seat's decisions in a worker thread, then each decision is searched in a worker
process of the background lane of the server's :class:`~motley.server.play.thinking.Thinkers` (one decision at a
time; the live tables' bots have workers of their own, which the background lane's never slow), never on the
event loop. Decision ``i`` is
seeded ``"{seed}:{i}"``, so the stored result is exactly :func:`motley.bots.analysis.analyse_record`'s for the
record, the seat, :attr:`Analyses.simulations` and :data:`SEED`.

Bounds: one analysis per table at a time and :attr:`Analyses.limit` on the whole server (:data:`MAX_ANALYSES`);
a request beyond either is refused (:class:`AnalysisBusy`, HTTP 429). The result is stored with the table
(``TableStorage.save_analysis``), so each seat's analysis is computed once, whatever restarts.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from motley.bots.analysis import assemble, decisions, evaluate, searcher_spec
from motley.core import MotleyError, records
from motley.server.play.table import Table
from motley.server.play.thinking import Thinkers
from motley.server.store.refusals import Refusal
from motley.server.store.writer import Store, StoreError

log = logging.getLogger("motley.server")

#: Analyses running at once on one server, every table together.
MAX_ANALYSES = 2
#: The seed of the server's analyses.
SEED = 0
#: Seconds after which a client refused an analysis because others run may ask again (``Retry-After``).
BUSY_RETRY = 30


class AnalysisRefused(Refusal, MotleyError):
    """An analysis that cannot be asked for: a match not over (``finished`` False: HTTP 409, ``not_finished``) or a
    seat it does not have (HTTP 400, ``no_such_seat``)."""

    status = 400
    code = "no_such_seat"
    words = "no analysis of this seat can be asked for"

    def __init__(self, message: str, finished: bool = True) -> None:
        super().__init__(message, status=None if finished else 409, code=None if finished else "not_finished")
        self.finished = finished

    @classmethod
    def not_over(cls) -> AnalysisRefused:
        """The refusal of an analysis of a match still played (409, ``not_finished``)."""
        return cls("the match is not over: its analysis is given once it is", finished=False)


class AnalysisBusy(Refusal, MotleyError):
    """An analysis refused for now: one of this table's is running, or :attr:`Analyses.limit` are (HTTP 429, asking
    again in :data:`BUSY_RETRY` seconds)."""

    status = 429
    code = "analysis_busy"
    words = "an analysis is running already; try again later"
    retry_after = BUSY_RETRY


@dataclass
class Job:
    """An analysis under way: its table and seat, decisions searched so far of all, and its task."""

    table_id: str
    seat: int
    done: int = 0
    total: int = 0
    task: asyncio.Task[None] | None = None

    def status(self) -> dict[str, Any]:
        """``{"status": "running", "seat", "done", "total"}``."""
        return {"status": "running", "seat": self.seat, "done": self.done, "total": self.total}


class Analyses:
    """The analyses of a server's finished tables (module docstring).

    ``store``: where they are stored; ``thinkers``: the worker processes that search; ``limit``: analyses at once
    on the server; ``simulations``: the search's iterations per decision (None:
    :data:`motley.bots.analysis.DEFAULT_SIMULATIONS`).
    """

    def __init__(self, store: Store, thinkers: Thinkers, limit: int = MAX_ANALYSES,
                 simulations: int | None = None) -> None:
        self.store = store
        self.thinkers = thinkers
        self.limit = limit
        self.simulations = simulations
        #: The analysis running at each table (at most one per table).
        self.jobs: dict[str, Job] = {}
        #: The last failure per (table, seat), in words, until it is asked for again.
        self.failed: dict[tuple[str, int], str] = {}

    @staticmethod
    def check(table: Table, seat: int) -> None:
        """Refuse an analysis of ``seat`` at ``table``.

        Raises:
            AnalysisRefused: for a match not over (``finished`` False; nothing of its analysis is given while it
                is played) or a seat the table does not have.
        """
        if not table.state.is_terminal():
            raise AnalysisRefused.not_over()
        if not 0 <= seat < len(table.seats):
            raise AnalysisRefused(f"seat must be one of 0..{len(table.seats) - 1}; got {seat}")

    async def status(self, table: Table, seat: int) -> dict[str, Any]:
        """Where the analysis of ``seat`` at the finished ``table`` is: ``{"status": "done", "seat", "done",
        "total", "result"}`` (stored), ``"running"`` (with ``done`` of ``total`` decisions), ``"failed"`` (with
        ``error``) or ``"none"`` (never asked for).

        Raises:
            AnalysisRefused: as :meth:`check`. StoreError: if the store does not answer.
        """
        self.check(table, seat)
        job = self.jobs.get(table.id)
        if job is not None and job.seat == seat:
            return job.status()
        stored = await self.store.call(self.store.storage.analysis, table.id, seat)
        if stored is not None:
            return _done(seat, stored)
        error = self.failed.get((table.id, seat))
        if error is not None:
            return {"status": "failed", "seat": seat, "done": 0, "total": 0, "error": error}
        return {"status": "none", "seat": seat, "done": 0, "total": 0}

    async def start(self, table: Table, seat: int) -> dict[str, Any]:
        """Start the analysis of ``seat`` at the finished ``table`` unless it is stored or running; returns its
        :meth:`status`.

        Raises:
            AnalysisRefused: as :meth:`check`. AnalysisBusy: when another seat's analysis of this table is running,
                or :attr:`limit` analyses are. StoreError: if the store does not answer.
        """
        now = await self.status(table, seat)
        if now["status"] in ("done", "running"):
            return now
        job = self.jobs.get(table.id)
        if job is not None:
            raise AnalysisBusy(f"the analysis of seat {job.seat} at this table is running; one at a time per table")
        if len(self.jobs) >= self.limit:
            raise AnalysisBusy(f"{self.limit} analyses are running on this server; try again in a minute")
        self.failed.pop((table.id, seat), None)
        job = self.jobs[table.id] = Job(table.id, seat)
        text = records.dump(table.state)
        actors = [actor for _, _, actor in table.record.moves]  # who made each move: the player, a bot, a timer
        job.task = asyncio.get_running_loop().create_task(self._run(job, text, actors))
        return job.status()

    async def _run(self, job: Job, text: str, actors: list[str]) -> None:
        """Analyse, store, and forget the job (a failure is kept in :attr:`failed` and logged). ``actors``: who made
        each move (the moves a stand-in bot or a timer made are shown as such and left out of the seat's figures)."""
        try:
            game, found = await asyncio.to_thread(decisions, text, job.seat, actors)
            spec = searcher_spec(game, self.simulations)
            job.total = len(found)
            results: list[dict[str, Any]] = []
            for decision in found:
                results.append(await self.thinkers.run("an analysis", evaluate, game, decision, spec,
                                                       f"{SEED}:{decision.index}", lane="background"))
                job.done = len(results)
            await self.store.call(self.store.storage.save_analysis, job.table_id, job.seat,
                                  assemble(game, job.seat, spec, SEED, results))
        except (MotleyError, StoreError, OSError, ValueError, RuntimeError) as exc:
            log.error("table %s: the analysis of seat %d failed: %s", job.table_id, job.seat, exc)
            self.failed[(job.table_id, job.seat)] = str(exc)
        finally:
            self.jobs.pop(job.table_id, None)

    def close(self) -> None:
        """Stop the analyses under way (nothing of them is stored)."""
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
        self.jobs.clear()


def _done(seat: int, result: dict[str, Any]) -> dict[str, Any]:
    """The status of a stored analysis."""
    count = len(result.get("decisions") or [])
    return {"status": "done", "seat": seat, "done": count, "total": count, "result": result}
