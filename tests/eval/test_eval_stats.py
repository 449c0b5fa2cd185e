"""The 95% intervals, against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from motley.eval.stats import Z95, mean_ci, share_ci, wilson_ci


def test_wilson_interval_matches_the_closed_form() -> None:
    # 0 of 10: the upper bound is z^2 / (n + z^2); 10 of 10 mirrors it.
    assert wilson_ci(0, 10) == pytest.approx((0.0, Z95**2 / (10 + Z95**2)))
    assert wilson_ci(10, 10) == pytest.approx((10 / (10 + Z95**2), 1.0))
    low, high = wilson_ci(50, 100)  # symmetric around 1/2
    assert low + high == pytest.approx(1.0) and 0.40 < low < 0.41
    assert wilson_ci(0, 0) == (0.0, 1.0)


def test_mean_interval_is_mean_plus_minus_z_standard_errors() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    mean, low, high = mean_ci(values)
    se = math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3 / 4)
    assert mean == 2.5 and low == pytest.approx(2.5 - Z95 * se) and high == pytest.approx(2.5 + Z95 * se)
    assert mean_ci([7.0]) == (7.0, 7.0, 7.0) and mean_ci([]) == (0.0, 0.0, 0.0)


def test_share_interval_uses_wilson_for_proportions_and_stays_in_the_unit_interval() -> None:
    assert share_ci([1.0, 0.0, 0.0, 0.0])[1:] == pytest.approx(wilson_ci(1, 4))
    mean, low, high = share_ci([0.5, 0.0, 0.0, 0.0, 0.0])  # tied shares: normal interval, clipped at 0
    assert mean == 0.1 and low == 0.0 and high > mean
