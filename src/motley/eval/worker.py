"""The worker side of a simulation: the jobs (one game each), their results, and :func:`play_chunk`, which
plays a chunk of jobs wherever a backend runs it (this process, a pool process, a Ray worker).

Both :mod:`motley.eval.simulate` (which plans the jobs) and :mod:`motley.eval.backends` (which runs them)
import this module; it imports neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from motley.bots import make_bot
from motley.bots.base import Bot
from motley.core import Game, State, load_game, records
from motley.core.play import play_match
from motley.eval.deciders import final_facts

#: Games a worker plays per task (a fixed split of the game indices, independent of the workers).
CHUNK = 50


@dataclass(frozen=True)
class Job:
    """One game to play: its index, deal number, seed and lineup (bot index per seat)."""

    index: int
    deal: int
    seed: int
    lineup: tuple[int, ...]


@dataclass(frozen=True)
class GameResult:
    """One played game.

    Attributes:
        index, deal, seed: as in :class:`Job`; ``lineup``: bot index per seat.
        returns: per-seat match outcome in [-1, 1]; ``scores``: per-seat final game points.
        moves: decisions (actions) in the match; ``deals``: deals played (rounds, hands).
        special: whether the game's special card (Joker, Fool) decided the match (:mod:`deciders`),
            None where the game defines no such figure.
        record: the game record (``motley.records.dump``) when asked for, else None.
    """

    index: int
    deal: int
    seed: int
    lineup: list[int]
    returns: list[float]
    scores: list[int]
    moves: int
    deals: int
    special: bool | None
    record: str | None = None


def play_game(game: Game, bots: Sequence[Bot], seed: int) -> State:
    """Play one match: ``bots[seat]`` moves for each seat; ``seed`` fixes the deals and the bots' choices
    (:func:`motley.core.play.play_match`: the bots draw from ``random.Random(seed ^ 0x5EED)`` and are not
    asked for forced moves).

    Raises:
        MotleyError: if a bot returns an action that is not legal.
    """
    return play_match(game, bots, seed)


def result_of(job: Job, state: State, with_record: bool = False) -> GameResult:
    """The :class:`GameResult` of a finished game."""
    deals, special = final_facts(state)
    return GameResult(
        index=job.index, deal=job.deal, seed=job.seed, lineup=list(job.lineup),
        returns=[float(r) for r in state.returns()], scores=[int(s) for s in state.scores()],
        moves=len(state.history()), deals=deals, special=special,
        record=records.dump(state) if with_record else None,
    )


def play_chunk(game_spec: str, bot_specs: Sequence[str], jobs: Sequence[Job], with_records: bool = False
               ) -> list[GameResult]:
    """Play ``jobs`` (runs in a worker: the game and bots are built here from their string forms)."""
    game = load_game(game_spec)
    bots = [make_bot(spec, game) for spec in bot_specs]
    return [result_of(job, play_game(game, [bots[e] for e in job.lineup], job.seed), with_records)
            for job in jobs]


def chunked(jobs: Sequence[Job], size: int = CHUNK) -> list[list[Job]]:
    """Split jobs into consecutive chunks of ``size`` (the last may be shorter)."""
    return [list(jobs[i:i + size]) for i in range(0, len(jobs), size)]
