"""Simulation: many games between bots, seats rotated so every bot sits everywhere.

Each game ``i`` seats the bot entries rotated by ``i`` places, so over any ``players`` consecutive games
every entry has sat in every seat. Figures are per entry (one entry per bot in the ``--bots`` list; the
last entry fills the remaining seats) and, to keep samples independent, an entry's outcome in one game
is the mean over the seats it held in that game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from motley.bots import make_bot
from motley.bots.base import Bot
from motley.core import Game, MotleyError, State
from motley.eval.stats import mean_ci, wilson_ci

#: Game seeds of a simulation come from this generator, so results depend only on the base seed.
SEED_SPAN = 2**62


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


@dataclass
class EntryStats:
    """Figures of one bot entry: per game, its mean over the seats it held."""

    label: str
    wins: list[float] = field(default_factory=list)
    draws: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    seats_held: int = 0

    def summary(self, share: float) -> dict[str, Any]:
        """JSON-able figures with 95% intervals; ``share`` is the fair win share of one seat."""
        n = len(self.wins)
        win, win_lo, win_hi = mean_ci(self.wins)
        if all(w in (0.0, 1.0) for w in self.wins):
            win_lo, win_hi = wilson_ci(sum(self.wins), n)
        draw_lo, draw_hi = wilson_ci(sum(self.draws), n) if all(d in (0.0, 1.0) for d in self.draws) else (0, 1)
        pts, pts_lo, pts_hi = mean_ci(self.points)
        return {
            "bot": self.label, "games": n, "seats_per_game": self.seats_held / max(n, 1),
            "fair_share": share, "win_share": win, "win_share_ci": [win_lo, win_hi],
            "draw_rate": sum(self.draws) / max(n, 1), "draw_rate_ci": [draw_lo, draw_hi],
            "mean_points": pts, "mean_points_ci": [pts_lo, pts_hi],
        }


@dataclass
class SimulationSummary:
    """The result of :func:`simulate`."""

    game: str
    bots: list[str]
    games: int
    seed: int
    entries: list[dict[str, Any]]
    mean_moves: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"game": self.game, "bots": self.bots, "games": self.games, "seed": self.seed,
                "mean_moves": self.mean_moves, "entries": self.entries}


def simulate(game: Game, bot_specs: Sequence[str], n: int, seed: int = 0,
             progress: Callable[[int], None] | None = None) -> SimulationSummary:
    """Play ``n`` matches of ``game`` between the bots, seats rotated.

    Args:
        bot_specs: one spec per entry (``"heuristic"``, ``"random"``...); fewer than the seats: the last
            entry fills the rest; more than the seats is an error.
        seed: base seed; game ``i`` uses the ``i``-th number drawn from ``random.Random(seed)``.
        progress: called with 1 after every game.
    Raises:
        MotleyError: for an unknown bot, more bots than seats, or ``n < 1``.
    """
    players = game.num_players
    if not bot_specs or len(bot_specs) > players:
        raise MotleyError(f"give 1 to {players} bots for {game.name} with {players} players; got {len(bot_specs)}")
    if n < 1:
        raise MotleyError(f"the number of games must be at least 1; got {n}")
    entry_bots = [make_bot(spec, game) for spec in bot_specs]
    stats = [EntryStats(label=spec) for spec in bot_specs]
    seeds = random.Random(seed)
    total_moves = 0
    for i in range(n):
        entries = seat_entries(len(bot_specs), players, i)
        state = play_game(game, [entry_bots[e] for e in entries], seeds.randrange(SEED_SPAN))
        total_moves += len(state.history())
        shares, drawn = outcome_shares(state.returns())
        scores = state.scores()
        for e, entry in enumerate(stats):
            seats = [s for s in range(players) if entries[s] == e]
            entry.seats_held += len(seats)
            entry.wins.append(sum(shares[s] for s in seats) / len(seats))
            entry.draws.append(1.0 if drawn else 0.0)
            entry.points.append(sum(scores[s] for s in seats) / len(seats))
        if progress is not None:
            progress(1)
    summaries = [entry.summary(1.0 / players) for entry in stats]
    return SimulationSummary(game=str(game), bots=list(bot_specs), games=n, seed=seed,
                             entries=summaries, mean_moves=total_moves / n)
