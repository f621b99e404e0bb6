"""Bootstrap intervals pinned by hand-worked distributions, cross-checked with scipy.stats.bootstrap.

25 items, 12 of them correct: the mean of a resample is Binomial(25, 0.48) / 25, so the percentile
interval's ends are that distribution's quantiles. Chosen so each quantile lies more than six sampling
standard deviations (20,000 resamples) away from a jump of the CDF: the expected ends are exact.
  95 %: 2.5 % quantile 7/25 = 0.28, 97.5 % quantile 17/25 = 0.68
  90 %: 5 % quantile 8/25 = 0.32, 95 % quantile 16/25 = 0.64
A paired difference a - b with b = 1 - a is 2 x mean(a) - 1 on every resample: 95 % [-0.44, 0.36]; were
the two resampled independently, it would be wider."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from scoring.bootstrap import bootstrap_ci, paired_difference, ratio

B = 20_000
X = np.array([1.0] * 12 + [0.0] * 13)
ROWS = np.column_stack([X, np.ones_like(X)])  # per item: (correct, counted)
MEAN = ratio(0, 1, scale=100.0)


def test_binomial_quantiles_are_what_the_docstring_says():
    assert [sps.binom.ppf(q, 25, 0.48) for q in (0.025, 0.975, 0.05, 0.95)] == [7, 17, 8, 16]


@pytest.mark.parametrize("level, low, high", [(0.95, 28.0, 68.0), (0.90, 32.0, 64.0)])
def test_percentile_interval_ends_are_the_bootstrap_distribution_quantiles(level, low, high):
    iv = bootstrap_ci(ROWS, MEAN, n_resamples=B, seed=7, level=level)
    assert iv.point == 48.0 and iv.level == level and iv.n_resamples == B
    assert (iv.low, iv.high) == (pytest.approx(low), pytest.approx(high))


def test_the_same_interval_as_scipy_percentile_bootstrap():
    ours = bootstrap_ci(ROWS, MEAN, n_resamples=B, seed=3, level=0.95)
    ref = sps.bootstrap((X,), np.mean, n_resamples=B, confidence_level=0.95, method="percentile",
                        rng=np.random.default_rng(11)).confidence_interval
    assert (ours.low, ours.high) == (pytest.approx(100 * ref.low), pytest.approx(100 * ref.high))


def test_paired_difference_resamples_both_on_the_same_items():
    b = np.column_stack([1.0 - X, np.ones_like(X)])
    iv = paired_difference(ROWS, MEAN, b, MEAN, n_resamples=B, seed=5, level=0.95)
    assert iv.point == pytest.approx(-4.0)
    assert (iv.low, iv.high) == (pytest.approx(-44.0), pytest.approx(36.0))


def test_the_same_seed_gives_the_same_interval_and_another_seed_may_not_change_a_pinned_one():
    a = bootstrap_ci(ROWS, MEAN, n_resamples=B, seed=1)
    assert a == bootstrap_ci(ROWS, MEAN, n_resamples=B, seed=1)
    assert (a.low, a.high) == (bootstrap_ci(ROWS, MEAN, n_resamples=B, seed=2).low,
                               bootstrap_ci(ROWS, MEAN, n_resamples=B, seed=2).high)
