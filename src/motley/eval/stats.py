"""Confidence intervals for simulation figures (all 95% by default).

Every interval here is a pair ``(low, high)`` in the units of the figure: proportions in [0, 1], points
in game points, lengths in decisions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson_ci(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default); ``(0, 1)`` when ``n == 0``."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return (low, high)


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval ``(mean, low, high)`` of independent samples.

    ``(0, 0, 0)`` for no samples; a zero-width interval for one sample.
    """
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = math.fsum(values) / n
    if n == 1:
        return (mean, mean, mean)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def share_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """Mean of shares in [0, 1] with a 95% interval ``(mean, low, high)``.

    The Wilson interval when every value is 0 or 1 (a plain proportion: it stays inside [0, 1] and is
    sound near 0 and 1), else the normal interval of :func:`mean_ci` clipped to [0, 1].
    """
    n = len(values)
    mean, low, high = mean_ci(values, z)
    if n and all(v in (0.0, 1.0) for v in values):
        low, high = wilson_ci(sum(values), n, z)
    return (mean, max(0.0, low), min(1.0, high))


def figure(values: Sequence[float], share: bool = False) -> dict[str, Any]:
    """``{"mean", "ci": [low, high], "n"}`` of samples (a share: :func:`share_ci`, else :func:`mean_ci`)."""
    mean, low, high = share_ci(values) if share else mean_ci(values)
    return {"mean": mean, "ci": [low, high], "n": len(values)}
