"""Rewards of a match or a deal, one home for ISMCTS's rollouts, the RL environments and training.

* **Match outcome**: ``state.returns()`` at the end of the match, in [-1, 1]. A game's returns may give every seat
  of a shared win the winner's return (Fool!: +1 to each, FL-D8, FL-D15).
* **Shared wins**: a win share counts a win shared by ``k`` seats as ``1/k`` of a win (:func:`outcome_shares`, what
  the simulator, ratings and reports count).
* **Deal points**: each seat's score gain over a deal (:func:`score_gains`), shaped into [-1, 1]
  (:func:`shape_gains`): ``"spread"``, centred on the mean gain and divided by the largest deviation from it (all 0
  when every gain is equal; :func:`deal_points`, the reward of the environments' ``reward="deal"`` and the points
  part of training's targets); ``"linear"``, centred and divided by a scale given by the caller (ISMCTS: the mean
  largest deviation of a decision's rollouts), clipped; ``"rank"``, the seat's rank by gain.
* **Outcome with points**: ``(1 - W) * outcome + W * points`` (:func:`with_points`): ISMCTS's ``points=W`` and
  training's ``points_weight``.
* **A rollout's end** (:func:`rollout_rewards`): the match outcome at the end of the match, the shaped deal
  points at the end of a deal.
"""

from __future__ import annotations

from collections.abc import Sequence

from motley.core.game import State

__all__ = ["centre", "deal_points", "outcome_shares", "rollout_rewards", "score_gains", "shape_gains", "with_points"]


def score_gains(start: Sequence[int], end: Sequence[int]) -> list[int]:
    """Each seat's score gain from the scores ``start`` to the scores ``end`` (one int per seat)."""
    return [b - a for a, b in zip(start, end, strict=True)]


def centre(gains: Sequence[int]) -> tuple[float, float]:
    """The mean of ``gains`` and their largest deviation from it (0.0 when every gain is equal)."""
    mean = sum(gains) / len(gains)
    return mean, max(max(gains) - mean, mean - min(gains))


def shape_gains(gains: Sequence[int], reward: str = "spread", scale: float = 0.0) -> list[float]:
    """Score gains shaped into rewards in [-1, 1], one per seat (module docstring, "Deal points").

    Args:
        gains: each seat's score gain over the deal.
        reward: ``"spread"``: ``(gain - mean) / largest deviation`` (all 0 when every gain is equal); ``"linear"``:
            ``(gain - mean) / scale`` clipped to [-1, 1] (``scale`` 0: the largest deviation); ``"rank"``: ``1 - 2 i
            / (n - 1)`` for the seat's rank ``i`` by gain (ties share the mean of their ranks' values).
        scale: the divisor of ``"linear"``, in points; ignored by the others.
    """
    n = len(gains)
    if reward == "rank":
        out = []
        for g in gains:
            above = sum(1 for x in gains if x > g)
            ties = sum(1 for x in gains if x == g)
            out.append(1.0 - (2.0 * above + ties - 1) / (n - 1))
        return out
    mean, deviation = centre(gains)
    if reward == "linear":
        scale = scale or deviation or 1.0
        return [max(-1.0, min(1.0, (g - mean) / scale)) for g in gains]
    deviation = deviation or 1.0
    return [(g - mean) / deviation for g in gains]


def deal_points(start: Sequence[int], end: Sequence[int]) -> list[float]:
    """Per-seat rewards of a deal from the scores at its start and end: ``(gain - mean gain) / max |gain - mean
    gain|``, in [-1, 1] (all 0 when every gain is equal); :func:`shape_gains`'s ``"spread"``."""
    return shape_gains(score_gains(start, end))


def outcome_shares(returns: Sequence[float]) -> tuple[list[float], bool]:
    """Win share per seat and whether all drew (module docstring, "Shared wins").

    Args:
        returns: one match outcome per seat (``state.returns()``).
    Returns:
        ``(shares, drawn)``: ``1/k`` for each of the ``k`` seats tied on the best return and 0 for the others; all
        0 and ``drawn`` True when every seat has the same return.
    """
    best = max(returns)
    if min(returns) == best:
        return [0.0] * len(returns), True
    top = [i for i, r in enumerate(returns) if r == best]
    return [1.0 / len(top) if i in top else 0.0 for i in range(len(returns))], False


def with_points(outcome: Sequence[float], points: Sequence[float], weight: float) -> list[float]:
    """``(1 - weight) * outcome + weight * points`` per seat: a match outcome with a deal's shaped points mixed in.

    Args:
        outcome: the match outcome per seat, in [-1, 1].
        points: the deal's shaped points per seat, in [-1, 1].
        weight: the points' weight, in [0, 1].
    """
    return [(1.0 - weight) * r + weight * g for r, g in zip(outcome, points, strict=True)]


def rollout_rewards(state: State, start_scores: Sequence[int], reward: str = "spread",
                    scale: float = 0.0) -> list[float]:
    """Rewards in [-1, 1] at the end of a rollout that started a deal with scores ``start_scores``: the returns at
    the end of the match, else the deal's gains shaped by ``reward`` and ``scale`` (:func:`shape_gains`)."""
    if state.is_terminal():
        return list(state.returns())
    return shape_gains(score_gains(start_scores, state.scores()), reward, scale)
