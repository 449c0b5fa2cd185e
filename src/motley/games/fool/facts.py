"""What decided a match of Fool!, for reports (``motley compare``'s "the Fool decides").

*The Fool decides* when, in the final round, a player who went out was fooled in the final trick (FL-R13: 0
instead of +10) and giving those players their +10 would change the set of match winners (the seats with the
highest total). Only the final round is visible in the final observation, so earlier rounds are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence

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
