"""Intervals inside the quantity's range (issue 23): scoring.bootstrap.within is the one place an interval's ends
are kept inside [low, high]; every table (Runs, Leaderboard, report) gets its intervals through BenchStats.interval
or the report's differences, which use it. Expected values are worked by hand below."""
from __future__ import annotations

import numpy as np
import pytest

from scoring.bootstrap import PERCENT, BenchStats, Interval, difference_bounds, figure_text, within


def iv(point, low, high, n=15, reason=""):
    return Interval(point, low, high, 0.95, 1000, n, reason)


@pytest.mark.parametrize("given, bounds, low, high", [
    ((7.953, -0.00033, 16.666), PERCENT, 0.0, 16.666),          # the shift by the scorer's rounding, below 0
    ((99.9, 99.0, 100.0004), PERCENT, 99.0, 100.0),             # above 100
    ((0.0, -0.00033, 0.0), PERCENT, 0.0, 0.0),                  # what once read "[-0.0, 0.0]"
    ((12.0, 3.0, 40.0), PERCENT, 3.0, 40.0),                    # inside: unchanged
    ((1.2, -0.1, 250.0), (0.0, None), 0.0, 250.0),              # a time in seconds: 0 or more, no top
    ((-99.0, -100.2, -80.0), (-100.0, 100.0), -100.0, -80.0),   # a difference of two 0–100 figures
    ((5.0, -7.0, 9.0), (None, None), -7.0, 9.0),                # unbounded
])
def test_within_moves_the_ends_inside_the_range(given, bounds, low, high):
    out = within(iv(*given), bounds)
    assert (out.point, out.low, out.high) == (given[0], low, high)


def test_within_leaves_a_figure_without_an_interval_as_it_is():
    lone = iv(-3.0, None, None, n=2, reason="fewer than 5 items")
    assert within(lone) is lone
    assert within(iv(None, None, None)).point is None


def test_a_clipped_interval_never_prints_minus_zero():
    assert within(iv(7.953, -0.00033, 16.666)).fmt(1) == "8.0 [0.0, 16.7] n=15"
    assert within(iv(0.0, -0.00033, 0.0)).fmt(1) == "0.0 [0.0, 0.0] n=15"


@pytest.mark.parametrize("v, digits, text", [(82.83, 1, "82.8"), (-0.04, 1, "0.0"), (-0.06, 1, "-0.1"),
                                              (-0.004, 2, "0.00"), (100.0, 1, "100.0"), (7, 1, "7.0"), (None, 1, "–"),
                                              (float("nan"), 1, "–"), (float("inf"), 1, "–"), (True, 1, "–")])
def test_one_formatter_for_every_figure(v, digits, text):
    assert figure_text(v, digits) == text


def test_difference_bounds():
    assert difference_bounds(PERCENT, PERCENT) == (-100.0, 100.0)
    assert difference_bounds((0.0, None), (0.0, None)) == (None, None)
    assert difference_bounds((0.0, None), PERCENT) == (-100.0, None)


def test_bench_stats_interval_stays_in_range_when_the_scorer_rounds():
    """15 items, one worth 2 and fourteen worth 0: the metric on all items is 2/15 = 0.1333…, which the scorer
    reports rounded to 0.133, so every resample is shifted by -0.000333. A resample without the 2 (k = 0 draws of
    it; P = (14/15)^15 = 0.355, far above 2.5 %) reads -0.000333: the low end, clipped to 0. P(k <= 2) = 0.926 and
    P(k <= 3) = 0.989, so the 97.5 % end is k = 3: 6/15 - 0.000333 = 0.399667."""
    stats = np.array([[2.0]] + [[0.0]] * 14)
    bs = BenchStats("toy", [f"i{k}" for k in range(15)], stats, {"m": lambda s: s[:, 0] / 15.0}, ["m"], "m",
                    points={"m": 0.133})
    out = bs.interval("m")
    assert out.point == 0.133 and out.low == 0.0 and out.high == pytest.approx(0.4 - 0.000333, abs=1e-6)
    # the same figure declared a time (0 or more) keeps that range; a 0–100 default otherwise
    timed = BenchStats("toy", bs.item_ids, stats, bs.metrics, ["m"], "m", points={"m": 0.133},
                       ranges={"m": (0.0, None)})
    assert timed.range_of("m") == (0.0, None) and bs.range_of("m") == PERCENT
    assert timed.interval("m").low == 0.0
    assert bs.subset(bs.item_ids[:5]).range_of("m") == PERCENT and timed.subset(bs.item_ids).ranges == timed.ranges
