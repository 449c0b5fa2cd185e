"""Where simulated games run: this process, a process pool on every core, or a Ray cluster.

Every backend plays the same chunks (:func:`motley.eval.worker.chunked`) with the same worker function
(:func:`motley.eval.worker.play_chunk`) and returns the results in game-index order, so results do not
depend on the backend or the number of workers.

Ray: ``address=None`` starts a local Ray instance (one worker per core) unless Ray is already
initialised in this process (tests call ``ray.init(num_cpus=2)`` first); ``address="auto"`` joins the
cluster this machine belongs to, ``address="ray://head:10001"`` connects through Ray Client. Every node
needs the same version of motley installed (``pip install motley`` or the repository with ``pip install
-e .``), since the workers import it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any

from motley.core import MotleyError
from motley.core.extras import require
from motley.eval.worker import CHUNK, GameResult, Job, chunked, play_chunk

BACKENDS = ("process", "ray")
#: A run is split into at least this many tasks when it has that many games.
MIN_CHUNKS = 16


def run_jobs(game_spec: str, bot_specs: Sequence[str], jobs: Sequence[Job], workers: int = 0,
             backend: str = "process", address: str | None = None, progress: Callable[[int], None] | None = None,
             records: bool = False, chunk: int | None = None) -> list[GameResult]:
    """Play ``jobs`` and return their results sorted by game index.

    Args:
        workers: processes for the ``"process"`` backend (``0`` = one per core, ``1`` = this process).
        backend: ``"process"`` or ``"ray"``; ``address``: the Ray cluster (see the module docstring).
        progress: called with the number of games of each finished chunk.
        records: keep each game's record.
        chunk: games per task; by default :data:`~motley.eval.worker.CHUNK`, or fewer for a short run so
            that it still splits into at least :data:`MIN_CHUNKS` tasks (slow bots keep every core busy).
    Raises:
        MotleyError: for an unknown backend, or when Ray cannot start or connect.
    """
    check_backend(backend)
    chunks = chunked(jobs, chunk or min(CHUNK, max(1, -(-len(jobs) // MIN_CHUNKS))))
    specs = list(bot_specs)
    if backend == "process":
        results = _run_process(game_spec, specs, chunks, workers, progress, records)
    else:
        results = _run_ray(game_spec, specs, chunks, address, progress, records)
    return sorted(results, key=lambda r: r.index)


def check_backend(backend: str) -> None:
    """Refuse an unknown backend, or the Ray backend without Ray installed, before any game is played.

    Raises:
        MotleyError: for a backend not in :data:`BACKENDS`; :class:`~motley.core.extras.MissingExtraError`
            (a MotleyError) for ``"ray"`` when the ``ray`` extra is not installed.
    """
    if backend not in BACKENDS:
        raise MotleyError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if backend == "ray":
        require("ray", extra="ray", feature="the Ray backend")


def _run_process(game_spec: str, specs: list[str], chunks: list[list[Job]], workers: int,
                 progress: Callable[[int], None] | None, records: bool) -> list[GameResult]:
    workers = workers if workers > 0 else (os.cpu_count() or 1)
    results: list[GameResult] = []
    if workers == 1 or len(chunks) == 1:
        for chunk in chunks:
            results.extend(play_chunk(game_spec, specs, chunk, records))
            if progress is not None:
                progress(len(chunk))
        return results
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        futures: list[Future[list[GameResult]]] = [
            pool.submit(play_chunk, game_spec, specs, chunk, records) for chunk in chunks]
        for future in as_completed(futures):  # linear in the number of chunks, unlike repeated wait()
            part = future.result()
            results.extend(part)
            if progress is not None:
                progress(len(part))
    return results


def _run_ray(game_spec: str, specs: list[str], chunks: list[list[Job]], address: str | None,
             progress: Callable[[int], None] | None, records: bool) -> list[GameResult]:
    ray: Any = require("ray", extra="ray", feature="the Ray backend")
    started = False
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
            raise MotleyError(f"cannot start or reach Ray at {address or 'a local instance'}: {exc}") from None
        started = True
    try:
        remote: Any = ray.remote(play_chunk)
        pending = [remote.remote(game_spec, specs, chunk, records) for chunk in chunks]
        results: list[GameResult] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                part: list[GameResult] = ray.get(ref)
                results.extend(part)
                if progress is not None:
                    progress(len(part))
        return results
    finally:
        if started:
            ray.shutdown()
