"""What decided a match of Fool!, for reports (``motley compare``'s "the Fool decides").

*The Fool decides* when, in the final round, a player who went out was fooled in the final trick (FL-R13: 0
instead of +10) and giving those players their +10 would change the set of match winners (the seats with the
highest total). Only the final round is visible in the final observation, so earlier rounds are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from motley.core import Observation


def _winners(points: Sequence[float]) -> frozenset[int]:
    best = max(points)
    return frozenset(i for i, p in enumerate(points) if p == best)


def fool_decides(obs: Observation, scores: Sequence[int]) -> bool:
    """The +10 lost by players fooled while going out in the final round would change the winners."""
    last = obs.get("last_round") or {}
    fooled: list[int] = list(last.get("went_out_fooled") or [])
    if not fooled:
        return False
    totals = list(obs["scores"])
    changed = [t + (10 if seat in fooled else 0) for seat, t in enumerate(totals)]
    return _winners(totals) != _winners(changed)


#: Ordinals in words, for the count of +10 bonuses that ends a match.
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _ordinal(n: int) -> str:
    return _ORDINALS[n - 1] if 1 <= n <= len(_ORDINALS) else f"{n}th"


def _points(total: int) -> str:
    """A total as a player reads it, with a true minus sign: ``−82 points``, ``1 point``."""
    sign = "−" if total < 0 else ""
    return f"{sign}{abs(total)} point{'' if abs(total) == 1 else 's'}"


def end_reason(state: Any) -> str:
    """Why the finished match ``state`` ended (FL-R14, FL-D9, the ``rounds`` option), one sentence with seats as
    ``{seat N}``: a total at or below ``end_total`` ("{seat 6} reached −82 points."), a seat's last +10 bonus
    ("{seat 2} scored +10 for the sixth time."), or the last of the rounds asked for."""
    params = state.game.params
    clauses = [f"{{seat {s}}} reached {_points(t)}" for s, t in enumerate(state.totals) if t <= params["end_total"]]
    clauses += [f"{{seat {s}}} scored +10 for the {_ordinal(b)} time" for s, b in enumerate(state.bonuses)
                if b >= params["end_bonus_count"]]
    if clauses:
        return (" and ".join(clauses) if len(clauses) < 3 else ", ".join(clauses[:-1]) + ", and " + clauses[-1]) + "."
    rounds = params["rounds"]
    return {1: "The round has been played.", 2: "Both rounds have been played."}.get(
        rounds, f"All {rounds} rounds have been played.")
