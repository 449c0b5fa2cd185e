"""Variant comparison: the same deals and bots under two option sets, with paired 95% intervals.

Both variants are simulated with the same base seed, so game ``i`` has the same seed (the same shuffles,
as far as the variant deals the same cards) and the same lineup under both. For every figure the
difference ``B - A`` is taken unit by unit (game, or deal group with duplicate deals) and its interval
is the interval of the paired differences, which is much narrower than comparing two separate runs.

Figures (per game, then averaged over the games of a unit):

* ``moves`` -- match length in decisions; ``deals`` -- deals (rounds, hands) per match;
* ``score_spread`` -- highest minus lowest final score (game points);
* ``seat0_advantage`` -- seat 0's win share minus the fair share ``1/players``;
* ``draw_rate`` -- the match ended with every seat on the same return;
* ``special`` -- the special card decided the match (:mod:`motley.eval.deciders`: the Joker in The
  Fool's Errand, the Fool in Fool! and Foolery), when the game defines it;
* ``first_bot_win_share`` -- the first bot's win share, when another bot sits at the table too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from motley.core import Game, MotleyError, load_game
from motley.core.options import parse_options
from motley.core.rewards import outcome_shares
from motley.eval.simulate import SimulationSummary, simulate
from motley.eval.stats import figure
from motley.eval.worker import GameResult

__all__ = ["FIGURES", "Comparison", "compare", "game_figures", "load_variants", "parse_options"]

FIGURES = ("moves", "deals", "score_spread", "seat0_advantage", "draw_rate", "special", "first_bot_win_share")


def game_figures(result: GameResult, players: int) -> dict[str, float | None]:
    """The per-game figures of :data:`FIGURES` for one game (None where undefined)."""
    shares, drawn = outcome_shares(result.returns)
    first = [shares[s] for s, e in enumerate(result.lineup) if e == 0] if any(result.lineup) else []
    return {
        "moves": float(result.moves), "deals": float(result.deals),
        "score_spread": float(max(result.scores) - min(result.scores)),
        "seat0_advantage": shares[0] - 1.0 / players, "draw_rate": float(drawn),
        "special": None if result.special is None else float(result.special),
        "first_bot_win_share": sum(first) / len(first) if first else None,
    }


def _units(summary: SimulationSummary) -> dict[int, list[GameResult]]:
    groups: dict[int, list[GameResult]] = {}
    for r in summary.results:
        groups.setdefault(r.deal if summary.duplicate else r.index, []).append(r)
    return groups


def _unit_means(summary: SimulationSummary, players: int) -> dict[int, dict[str, float | None]]:
    out: dict[int, dict[str, float | None]] = {}
    for key, games in _units(summary).items():
        rows = [game_figures(r, players) for r in games]
        means: dict[str, float | None] = {}
        for name in FIGURES:
            values = [v for row in rows if (v := row[name]) is not None]
            means[name] = sum(values) / len(values) if values else None
        out[key] = means
    return out


@dataclass
class Comparison:
    """The result of :func:`compare`: both summaries and, per figure, A, B and the paired difference B - A."""

    game: str
    a: Game
    b: Game
    a_summary: SimulationSummary
    b_summary: SimulationSummary
    figures: dict[str, dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form: the two games, the figures and both simulation summaries."""
        return {"game": self.game, "a": str(self.a), "b": str(self.b), "figures": self.figures,
                "a_summary": self.a_summary.as_dict(), "b_summary": self.b_summary.as_dict()}


def load_variants(spec: str, options_a: Mapping[str, Any], options_b: Mapping[str, Any]) -> tuple[Game, Game]:
    """The two games of a comparison: ``spec`` with ``options_a`` and with ``options_b``.

    Raises:
        MotleyError: for a bad game or option, or option sets with different numbers of seats.
    """
    a = load_game(spec, **dict(options_a))
    b = load_game(spec, **dict(options_b))
    if a.num_players != b.num_players:
        raise MotleyError(f"the variants must seat as many players: {a} has {a.num_players}, {b} has {b.num_players}")
    return a, b


def compare(spec: str, options_a: Mapping[str, Any], options_b: Mapping[str, Any], bot_specs: Sequence[str],
            n: int, seed: int = 0, duplicate: bool = False, workers: int = 0, backend: str = "process",
            address: str | None = None, progress: Callable[[int], None] | None = None) -> Comparison:
    """Play the same ``n`` deals with the same bots under options A and under options B.

    Args:
        spec: the game (name or string form); ``options_a``/``options_b`` are applied on top of it.
        other arguments: as for :func:`motley.eval.simulate.simulate` (each variant plays ``n`` games).
    Raises:
        MotleyError: for a bad option, bot or ``n``, or option sets with different numbers of seats.
    """
    a, b = load_variants(spec, options_a, options_b)
    kwargs: dict[str, Any] = {"seed": seed, "workers": workers, "duplicate": duplicate, "backend": backend,
                              "address": address, "progress": progress}
    sa = simulate(a, bot_specs, n, **kwargs)
    sb = simulate(b, bot_specs, n, **kwargs)
    players = a.num_players
    ua, ub = _unit_means(sa, players), _unit_means(sb, players)
    figures: dict[str, dict[str, Any]] = {}
    for name in FIGURES:
        xs = [v for u in ua.values() if (v := u[name]) is not None]
        ys = [v for u in ub.values() if (v := u[name]) is not None]
        diffs = [yb - xa for key in ua if (xa := ua[key][name]) is not None and (yb := ub[key][name]) is not None]
        if not xs or not ys:
            continue
        share = name in ("draw_rate", "special")
        figures[name] = {"a": figure(xs, share), "b": figure(ys, share), "difference": figure(diffs)}
    return Comparison(game=spec, a=a, b=b, a_summary=sa, b_summary=sb, figures=figures)
