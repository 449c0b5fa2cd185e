"""Simulation: many games between bots, seats rotated so every bot sits everywhere.

Each game ``i`` seats the bot entries rotated by ``i`` places, so over any ``players`` consecutive games
every entry has sat in every seat. Figures are per entry (one entry per bot in the ``--bots`` list; the
last entry fills the remaining seats) and, to keep samples independent, an entry's outcome in one game
is the mean over the seats it held in that game.

Games run on a process pool (``workers``); game ``i`` always gets the same seed and seating, and results
are gathered in game order, so the same base seed gives the same results whatever the number of workers.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from motley.bots import make_bot
from motley.bots.base import Bot
from motley.core import Game, MotleyError, State, load_game
from motley.eval.stats import mean_ci, wilson_ci

#: Game seeds of a simulation come from this generator, so results depend only on the base seed.
SEED_SPAN = 2**62
#: Games a worker plays per task: large enough to amortise the hand-over, small enough for progress.
CHUNK = 16


def seat_entries(entries: int, players: int, game_index: int) -> list[int]:
    """Entry index for each seat of game ``game_index`` (rotation by ``game_index`` places)."""
    base = [min(i, entries - 1) for i in range(players)]
    shift = game_index % players
    return base[-shift:] + base[:-shift] if shift else base


def play_game(game: Game, bots: Sequence[Bot], seed: int) -> State:
    """Play one match: ``bots[seat]`` moves for each seat, seeded by ``seed`` (deal and bot choices)."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed ^ 0x5EED)
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(state.observation(seat), legal, rng) if len(legal) > 1 else legal[0]
        state.apply_action(action)
    return state


def outcome_shares(returns: Sequence[float]) -> tuple[list[float], bool]:
    """Win share per seat (1/k for each of k seats tied on the best return) and whether all drew."""
    best = max(returns)
    if min(returns) == best:
        return [0.0] * len(returns), True
    top = [i for i, r in enumerate(returns) if r == best]
    return [1.0 / len(top) if i in top else 0.0 for i in range(len(returns))], False


@dataclass(frozen=True)
class GameResult:
    """One played game: its index, seed, seating (entry per seat), returns, scores and length."""

    index: int
    seed: int
    entries: list[int]
    returns: list[float]
    scores: list[int]
    moves: int


def play_games(game_spec: str, bot_specs: Sequence[str], jobs: Sequence[tuple[int, int]]) -> list[GameResult]:
    """Play the games ``(index, seed)`` of ``jobs`` (runs in a worker process; bots are built here)."""
    game = load_game(game_spec)
    bots = [make_bot(spec, game) for spec in bot_specs]
    results = []
    for index, seed in jobs:
        entries = seat_entries(len(bot_specs), game.num_players, index)
        state = play_game(game, [bots[e] for e in entries], seed)
        results.append(GameResult(index, seed, entries, state.returns(), state.scores(), len(state.history())))
    return results


@dataclass
class EntryStats:
    """Figures of one bot entry: per game, its mean over the seats it held."""

    label: str
    wins: list[float] = field(default_factory=list)
    draws: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    seats_held: int = 0

    def add(self, result: GameResult, entry: int, shares: Sequence[float], drawn: bool) -> None:
        """Count one game for this entry."""
        seats = [s for s, e in enumerate(result.entries) if e == entry]
        self.seats_held += len(seats)
        self.wins.append(sum(shares[s] for s in seats) / len(seats))
        self.draws.append(1.0 if drawn else 0.0)
        self.points.append(sum(result.scores[s] for s in seats) / len(seats))

    def summary(self, share: float) -> dict[str, Any]:
        """JSON-able figures with 95% intervals; ``share`` is the fair win share of one seat."""
        n = len(self.wins)
        win, win_lo, win_hi = mean_ci(self.wins)
        if all(w in (0.0, 1.0) for w in self.wins):
            win_lo, win_hi = wilson_ci(sum(self.wins), n)
        draw_lo, draw_hi = wilson_ci(sum(self.draws), n)
        pts, pts_lo, pts_hi = mean_ci(self.points)
        return {
            "bot": self.label, "games": n, "seats_per_game": self.seats_held / max(n, 1),
            "fair_share": share, "win_share": win, "win_share_ci": [win_lo, win_hi],
            "draw_rate": sum(self.draws) / max(n, 1), "draw_rate_ci": [draw_lo, draw_hi],
            "mean_points": pts, "mean_points_ci": [pts_lo, pts_hi],
        }


@dataclass
class SimulationSummary:
    """The result of :func:`simulate`: per-entry figures and every game played."""

    game: str
    bots: list[str]
    games: int
    seed: int
    entries: list[dict[str, Any]]
    mean_moves: float
    results: list[GameResult] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (without the per-game results)."""
        return {"game": self.game, "bots": self.bots, "games": self.games, "seed": self.seed,
                "mean_moves": self.mean_moves, "entries": self.entries}


def simulate(game: Game, bot_specs: Sequence[str], n: int, seed: int = 0,
             progress: Callable[[int], None] | None = None, workers: int = 1) -> SimulationSummary:
    """Play ``n`` matches of ``game`` between the bots, seats rotated.

    Args:
        bot_specs: one spec per entry (``"heuristic"``, ``"random"``...); fewer than the seats: the last
            entry fills the rest; more than the seats is an error.
        seed: base seed; game ``i`` uses the ``i``-th number drawn from ``random.Random(seed)``.
        progress: called with the number of games just finished.
        workers: processes to use (``0`` = one per core); results do not depend on it.
    Raises:
        MotleyError: for an unknown bot, more bots than seats, or ``n < 1``.
    """
    players = game.num_players
    if not bot_specs or len(bot_specs) > players:
        raise MotleyError(f"give 1 to {players} bots for {game.name} with {players} players; got {len(bot_specs)}")
    if n < 1:
        raise MotleyError(f"the number of games must be at least 1; got {n}")
    for spec in bot_specs:  # fail here, with the reason, rather than inside a worker
        make_bot(spec, game)
    seeds = random.Random(seed)
    jobs = [(i, seeds.randrange(SEED_SPAN)) for i in range(n)]
    chunks = [jobs[i:i + CHUNK] for i in range(0, n, CHUNK)]
    workers = workers if workers > 0 else (os.cpu_count() or 1)
    results: list[GameResult] = []
    if workers == 1:
        for chunk in chunks:
            results.extend(play_games(str(game), bot_specs, chunk))
            if progress is not None:
                progress(len(chunk))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for done in pool.map(play_games, [str(game)] * len(chunks), [list(bot_specs)] * len(chunks), chunks):
                results.extend(done)
                if progress is not None:
                    progress(len(done))
    return summarise(game, bot_specs, seed, results)


def summarise(game: Game, bot_specs: Sequence[str], seed: int, results: list[GameResult]) -> SimulationSummary:
    """Per-entry figures of a list of played games."""
    stats = [EntryStats(label=spec) for spec in bot_specs]
    for result in results:
        shares, drawn = outcome_shares(result.returns)
        for e, entry in enumerate(stats):
            entry.add(result, e, shares, drawn)
    n = len(results)
    return SimulationSummary(game=str(game), bots=list(bot_specs), games=n, seed=seed,
                             entries=[entry.summary(1.0 / game.num_players) for entry in stats],
                             mean_moves=sum(r.moves for r in results) / max(n, 1), results=results)
