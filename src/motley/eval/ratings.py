"""Ratings: free-for-all tournaments among bots, rated with OpenSkill (Plackett-Luce).

Each game of a tournament seats ``players`` *distinct* bots drawn from the list (a random draw and seat
order, fixed by the game's index), plays it like :func:`motley.eval.simulate.simulate` (same worker
code, process pool or Ray), then updates the ratings game by game in index order: the seats are ranked
by their return (equal returns share a rank) and every bot's ``(mu, sigma)`` is updated with
``PlackettLuce().rate``. A bot's conservative rating is ``mu - 3 sigma`` (the "ordinal").

**Saved and extended.** A :class:`RatingTable` is saved as JSON (``format: motley-ratings/1``) with its
game, base seed and number of games played; a later run continues from game index ``games`` with the same
base seed, so two runs of ``n`` games give exactly the table one run of ``2n`` games gives.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from motley.core import Game, MotleyError, jsonsafe
from motley.core.rewards import outcome_shares
from motley.eval.backends import check_backend, run_jobs
from motley.eval.simulate import check_bots, game_seed
from motley.eval.stats import wilson_ci
from motley.eval.worker import GameResult, Job

FORMAT = "motley-ratings/1"


@dataclass
class BotRating:
    """One bot's rating: ``mu`` and ``sigma`` (OpenSkill units, start 25 and 25/3), games and win share sum."""

    mu: float
    sigma: float
    games: int = 0
    wins: float = 0.0

    @property
    def ordinal(self) -> float:
        """Conservative rating ``mu - 3 sigma``."""
        return self.mu - 3.0 * self.sigma


@dataclass
class RatingTable:
    """Ratings of the bots of one game (string form ``game``), the base ``seed`` and the games rated."""

    game: str
    seed: int
    games: int = 0
    bots: dict[str, BotRating] = field(default_factory=dict)

    def to_json(self) -> str:
        """The table as JSON text (floats round-trip exactly)."""
        return json.dumps({"format": FORMAT, "game": self.game, "model": "PlackettLuce", "seed": self.seed,
                           "games": self.games, "bots": {k: vars(v) for k, v in self.bots.items()}}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> RatingTable:
        """Inverse of :meth:`to_json`.

        Raises:
            MotleyError: for text that is not a rating table.
        """
        try:
            data = jsonsafe.loads(text, "rating table")
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, not {FORMAT!r}")
            bots = {str(k): BotRating(float(v["mu"]), float(v["sigma"]), int(v["games"]), float(v["wins"]))
                    for k, v in data["bots"].items()}
            return cls(game=str(data["game"]), seed=int(data["seed"]), games=int(data["games"]), bots=bots)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise MotleyError(f"not a motley rating table: {exc}") from None

    def rows(self) -> list[dict[str, Any]]:
        """One row per bot, best conservative rating first: ``bot``, ``mu``, ``sigma``, ``ordinal``, ``games``,
        ``win_share`` and its 95% ``win_share_ci`` (Wilson, over the bot's games)."""
        out = []
        for name, r in self.bots.items():
            out.append({"bot": name, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal, "games": r.games,
                        "win_share": r.wins / r.games if r.games else 0.0,
                        "win_share_ci": list(wilson_ci(r.wins, r.games))})
        return sorted(out, key=lambda row: -row["ordinal"])


def load_table(path: Path) -> RatingTable | None:
    """The table saved at ``path``, or None when the file does not exist.

    Raises:
        MotleyError: for a file that is not a rating table.
    """
    if not path.exists():
        return None
    return RatingTable.from_json(path.read_text(encoding="utf-8"))


def lineup_for(seed: int, index: int, bots: int, players: int) -> tuple[int, ...]:
    """The distinct bots (indices into the list) seated in game ``index``, seat by seat."""
    return tuple(random.Random(game_seed(seed, index) ^ 0x7AB1E).sample(range(bots), players))


def rank_of(returns: Sequence[float]) -> list[int]:
    """Plackett-Luce ranks (1 = best) from returns: one plus the number of seats with a higher return."""
    return [1 + sum(other > mine for other in returns) for mine in returns]


def check_tournament(game: Game, bot_specs: Sequence[str], n: int, table: RatingTable | None = None,
                     backend: str = "process") -> None:
    """Every check :func:`tournament` makes before playing, so a caller can refuse bad input before any work.

    Raises:
        MotleyError: for fewer bots than seats, repeated bots, a bad bot, ``n < 1``, a table of another
            game, or an unknown or uninstalled backend.
    """
    players = game.num_players
    if len(bot_specs) < players:
        raise MotleyError(f"a tournament of {game} needs at least {players} different bots; got {len(bot_specs)}")
    if len(set(bot_specs)) != len(bot_specs):
        raise MotleyError("each bot may appear once in a tournament")
    if n < 1:
        raise MotleyError(f"the number of games must be at least 1; got {n}")
    check_bots(game, bot_specs, allow_more=True)
    if table is not None and table.game != str(game):
        raise MotleyError(f"the rating table is for {table.game}, not {game}")
    check_backend(backend)


def tournament(game: Game, bot_specs: Sequence[str], n: int, table: RatingTable | None = None, seed: int = 0,
               workers: int = 0, backend: str = "process", address: str | None = None,
               progress: Callable[[int], None] | None = None) -> RatingTable:
    """Play ``n`` free-for-all games among the bots and return the updated rating table.

    Args:
        bot_specs: distinct bot specs, at least as many as the game's seats.
        table: a table to extend (its game must be ``game``; its seed is used); None starts one with ``seed``.
        workers, backend, address, progress: as for :func:`motley.eval.simulate.simulate`.
    Raises:
        MotleyError: for fewer bots than seats, repeated bots, a bad bot, ``n < 1``, or a table of another game.
    """
    players = game.num_players
    specs = list(bot_specs)
    check_tournament(game, specs, n, table, backend)
    if table is None:
        table = RatingTable(game=str(game), seed=seed)
    model = PlackettLuce()
    for spec in specs:
        if spec not in table.bots:
            fresh = model.rating()
            table.bots[spec] = BotRating(fresh.mu, fresh.sigma)
    start = table.games
    jobs = [Job(i, i, game_seed(table.seed, i), lineup_for(table.seed, i, len(specs), players))
            for i in range(start, start + n)]
    results = run_jobs(str(game), specs, jobs, workers=workers, backend=backend, address=address, progress=progress)
    for result in results:
        rate_game(model, table, specs, result)
    table.games = start + n
    return table


def rate_game(model: PlackettLuce, table: RatingTable, specs: Sequence[str], result: GameResult) -> None:
    """Update ``table`` with one game: ranks from returns, Plackett-Luce update, games and win shares."""
    names = [specs[e] for e in result.lineup]
    teams = [[model.create_rating([table.bots[name].mu, table.bots[name].sigma], name=name)] for name in names]
    new = model.rate(teams, ranks=[float(r) for r in rank_of(result.returns)])
    shares, _ = outcome_shares(result.returns)
    for seat, name in enumerate(names):
        entry = table.bots[name]
        entry.mu, entry.sigma = float(new[seat][0].mu), float(new[seat][0].sigma)
        entry.games += 1
        entry.wins += shares[seat]
