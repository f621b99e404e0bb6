"""The bootstrap module's rules one by one, each with a hand-worked expected value (issue 17).

Intervals are pinned where resampling cannot move them (every item the same, a stratum of one item, a
metric defined on no resample) or by a binomial argument with a margin of many sampling standard deviations
(stated where used); metric builders and the per-benchmark statistics are checked on tiny reports whose
figures are worked out in the comments."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats as sps

from scoring import bootstrap as bs
from scoring.bootstrap import (BenchStats, Interval, bootstrap_ci, f1, geo_ratio, mean_of, paired_difference,
                               rank_stability, ratio, resample_counts)

MEAN = ratio(0, 1, 1.0)


def rows(values, den=1.0):
    v = np.asarray(values, dtype=float)
    return np.column_stack([v, np.full_like(v, den)])


# ---------------------------------------------------------------- Interval.fmt

def test_fmt_shows_point_interval_and_n():
    iv = Interval(32.14, 20.0, 40.06, n_items=12)
    assert iv.fmt() == "32.1 [20.0, 40.1] n=12"
    assert iv.fmt(2) == "32.14 [20.00, 40.06] n=12"
    assert iv.fmt(n=False) == "32.1 [20.0, 40.1]"
    assert Interval(25.0, None, None, n_items=4).fmt() == "25.0 n=4"  # no reason given: nothing added
    assert Interval(25.0, None, None, n_items=4, reason="why").fmt(n=False) == "25.0 (no interval: why)"
    assert Interval(None, None, None, n_items=0).fmt(n=False) == "–"


# ---------------------------------------------------------------- resampling

def test_one_resample_is_allowed_and_refusals_say_why():
    counts = resample_counts(4, 1, seed=0)
    assert counts.shape == (1, 4) and counts.sum() == 4
    with pytest.raises(ValueError) as e:
        resample_counts(4, 0)
    assert str(e.value) == "n_resamples must be >= 1, got 0"
    with pytest.raises(ValueError) as e:
        resample_counts(3, 10, strata=["a", "b"])
    assert str(e.value) == "strata has 2 labels for 3 items"


def test_a_single_resample_gives_a_zero_width_interval():
    # every item is 3: the one resample's mean is 3, so both ends are 3 (one finite value is enough)
    iv = bootstrap_ci(rows([3.0] * 6), MEAN, n_resamples=1, seed=0)
    assert (iv.point, iv.low, iv.high, iv.n_resamples, iv.n_items) == (3.0, 3.0, 3.0, 1, 6)


STRATA = ["a"] + ["b"] * 5
ONE_A = np.array([[1.0], [0.0], [0.0], [0.0], [0.0], [0.0]])  # column 0 counts picks of the lone 'a' item
PICKS = lambda s: s[:, 0]  # noqa: E731


def test_strata_keep_each_stratum_whole_in_every_resample():
    # within strata the lone 'a' item is drawn exactly once per resample: the interval is [1, 1];
    # without strata it is drawn 0..6 times (P(0 picks) = (5/6)^6 = 0.33), so the interval is wider
    iv = bootstrap_ci(ONE_A, PICKS, n_resamples=200, seed=1, strata=STRATA)
    assert (iv.point, iv.low, iv.high) == (1.0, 1.0, 1.0)
    free = bootstrap_ci(ONE_A, PICKS, n_resamples=200, seed=1)
    assert free.low == 0.0 and free.high >= 2.0
    d = paired_difference(ONE_A, PICKS, np.zeros((6, 1)), PICKS, n_resamples=200, seed=1, strata=STRATA)
    assert (d.point, d.low, d.high) == (1.0, 1.0, 1.0)
    rs = rank_stability([ONE_A, np.full((6, 1), 0.5)], [PICKS, PICKS], ["a", "half"], n_resamples=200, seed=1,
                        strata=STRATA)  # 1 pick vs 3: 'half' is best in every resample
    assert [(r.name, r.point_rank, r.p_same_rank, r.p_best) for r in rs] == [("a", 2, 1.0, 0.0),
                                                                             ("half", 1, 1.0, 1.0)]
    stats = BenchStats("x", [str(i) for i in range(6)], ONE_A, {"picks": PICKS}, ["picks"], "picks", STRATA,
                       from_scorer=False)  # no scorer figures: the point is the metric itself
    iv = stats.interval("picks", n_resamples=200, seed=1)
    assert (iv.point, iv.low, iv.high) == (1.0, 1.0, 1.0)


def test_a_metric_undefined_on_every_resample_keeps_its_point_and_says_why():
    only_whole = lambda s: np.ones(len(s)) if len(s) == 1 else np.full(len(s), np.nan)  # noqa: E731
    iv = bootstrap_ci(rows([1.0] * 5), only_whole, n_resamples=7, seed=0, level=0.9)
    assert iv == Interval(1.0, None, None, 0.9, 7, 5, "undefined in every resample")


def test_no_interval_keeps_level_and_resamples_and_explains_only_a_point():
    three = rows([1.0, 2.0, 3.0])
    assert bootstrap_ci(three, MEAN, n_resamples=50, level=0.8) == Interval(2.0, None, None, 0.8, 50, 3,
                                                                            "fewer than 5 items")
    # no point at all: nothing to explain (and too few items does not matter)
    assert bootstrap_ci(three, MEAN, n_resamples=50, level=0.8, point=None) == Interval(None, None, None, 0.8,
                                                                                       50, 3, "")
    assert paired_difference(three, MEAN, three, MEAN, n_resamples=50, level=0.8) == Interval(
        0.0, None, None, 0.8, 50, 3, "fewer than 5 items")
    assert paired_difference(three, MEAN, three, MEAN, n_resamples=50, level=0.8, points=(None, 2.0)) == Interval(
        None, None, None, 0.8, 50, 3, "")


def test_no_items_and_zero_denominators_give_no_point():
    assert bootstrap_ci(np.zeros((0, 3)), f1(0, 1, 2)).point is None  # f1 of nothing would read 0
    assert bootstrap_ci(rows([1.0] * 6, den=0.0), MEAN).point is None  # 6 / 0: undefined, not 6


def test_a_scorer_figure_within_the_rounding_tolerance_shifts_the_samples():
    # every item is 100: the metric is 100 on every resample; the scorer says 100.0005 (within 5.1e-4),
    # so the samples are shifted by +0.0005 and the interval is [100.0005, 100.0005]
    iv = bootstrap_ci(rows([100.0] * 6), MEAN, n_resamples=20, point=100.0005)
    assert (iv.point, iv.low, iv.high) == (100.0005, pytest.approx(100.0005, abs=1e-9),
                                           pytest.approx(100.0005, abs=1e-9))
    assert iv.low > 100.0003
    # exactly at the tolerance still reproduces: |0 - 5.1e-4| = 5.1e-4 is not more than it
    edge = bootstrap_ci(rows([0.0] * 6), MEAN, n_resamples=20, point=5.1e-4)
    assert edge.reason == "" and edge.low == pytest.approx(5.1e-4, abs=1e-12)
    off = bootstrap_ci(rows([0.0] * 6), MEAN, n_resamples=20, point=5.2e-4)
    assert off == Interval(5.2e-4, None, None, 0.95, 20, 6,
                           "resampling does not reproduce the scorer's figure under these settings")


def test_paired_difference_points_shift_each_side():
    # a: every item 60, b: every item 40; the scorer says 60.0004 and 39.9997 -> 20.0007 on every resample
    a, b = rows([60.0] * 5), rows([40.0] * 5)
    d = paired_difference(a, MEAN, b, MEAN, n_resamples=10, points=(60.0004, 39.9997))
    assert d.point == pytest.approx(20.0007, abs=1e-12) and d.reason == ""
    assert (d.low, d.high) == (pytest.approx(20.0007, abs=1e-9), pytest.approx(20.0007, abs=1e-9))
    assert (d.level, d.n_resamples, d.n_items) == (0.95, 10, 5)
    # one side that does not reproduce is enough to drop the interval
    assert paired_difference(a, MEAN, b, MEAN, n_resamples=10, points=(61.0, 40.0)) == Interval(
        21.0, None, None, 0.95, 10, 5, "resampling does not reproduce the scorer's figure under these settings")
    assert paired_difference(a, MEAN, b, MEAN, n_resamples=10, points=(60.0, 41.0)).reason != ""


def test_paired_difference_with_an_undefined_side_has_no_point():
    a, none = rows([60.0] * 5), rows([1.0] * 5, den=0.0)
    assert paired_difference(a, MEAN, none, MEAN, n_resamples=10) == Interval(None, None, None, 0.95, 10, 5, "")
    assert paired_difference(none, MEAN, a, MEAN, n_resamples=10) == Interval(None, None, None, 0.95, 10, 5, "")
    with pytest.raises(ValueError) as e:
        paired_difference(a, MEAN, a[:3], MEAN)
    assert str(e.value) == "paired difference needs aligned items: 5 rows vs 3 rows"


# ---------------------------------------------------------------- rank stability

X = rows([1.0] * 12 + [0.0] * 13)   # a resample's mean is Binomial(25, 0.48) / 25
Y = rows([0.62] * 25)               # 0.62 on every resample


@pytest.mark.parametrize("level, low, high", [(0.95, 1, 2), (0.80, 2, 2)])
def test_rank_interval_from_a_binomial(level, low, high):
    """X beats Y when at least 16 of its 25 draws are correct (16/25 = 0.64 > 0.62 > 0.60):
    P = P(Bin(25, 0.48) >= 16) = 0.0803. So X's rank is 1 with P 0.08, else 2. The 2.5 % quantile of its
    ranks is 1 (0.025 < 0.08) and the 97.5 % is 2: [1, 2]; at 80 % the 10 % quantile is already 2 (0.10 > 0.08):
    [2, 2]. With 20,000 resamples the share's standard deviation is 0.0019, so both margins exceed 7 of them."""
    assert sps.binom.sf(15, 25, 0.48) == pytest.approx(0.0803, abs=1e-4)
    x, y = rank_stability([X, Y], [MEAN, MEAN], ["x", "y"], n_resamples=20_000, seed=3, level=level)
    assert (x.point_rank, x.rank_low, x.rank_high) == (2, low, high)
    assert (y.point_rank, y.rank_low, y.rank_high) == (1, 1, 2 if level == 0.95 else 1)
    assert x.mean_rank == pytest.approx(2 - 0.0803, abs=0.01)
    assert x.p_same_rank == pytest.approx(1 - 0.0803, abs=0.01) and x.p_best == pytest.approx(0.0803, abs=0.01)
    assert (x.p_tied_best, y.p_tied_best) == (0.0, 0.0)


def test_undefined_responders_rank_last_either_way_round():
    low, high, none = rows([20.0] * 5), rows([80.0] * 5), rows([1.0] * 5, den=0.0)
    names = ["none", "low", "high"]
    up = rank_stability([none, low, high], [MEAN] * 3, names, n_resamples=20)
    assert [(r.name, r.point_rank, r.mean_rank, r.rank_low, r.rank_high) for r in up] == [
        ("none", 3, 3.0, 3, 3), ("low", 2, 2.0, 2, 2), ("high", 1, 1.0, 1, 1)]
    down = rank_stability([none, low, high], [MEAN] * 3, names, n_resamples=20, higher_is_better=False)
    assert [(r.name, r.point_rank, r.mean_rank) for r in down] == [("none", 3, 3.0), ("low", 1, 1.0),
                                                                   ("high", 2, 2.0)]


def test_rank_points_from_the_scorer_none_and_own():
    low, high = rows([20.0] * 5), rows([80.0] * 5)
    rs = rank_stability([low, high], [MEAN, MEAN], ["low", "high"], n_resamples=20, points=[None, 10.0])
    assert [(r.name, r.point_rank) for r in rs] == [("low", 2), ("high", 1)]  # no figure ranks last
    rs = rank_stability([low, high], [MEAN, MEAN], ["low", "high"], n_resamples=20, points=[bs._OWN, 10.0])
    assert [(r.name, r.point_rank) for r in rs] == [("low", 1), ("high", 2)]  # own 20 beats the scorer's 10
    assert rank_stability([], [], []) == []
    with pytest.raises(ValueError) as e:
        rank_stability([low, high[:3]], [MEAN, MEAN], ["low", "high"])
    assert str(e.value) == "rank stability needs every responder's statistics on the same items"


def test_tied_best_counts_only_shared_first_places():
    same, worse = rows([50.0] * 5), rows([10.0] * 5)
    rs = rank_stability([same, same.copy(), worse], [MEAN] * 3, ["a", "b", "w"], n_resamples=30)
    assert [(r.rank_label, r.p_best, r.p_tied_best) for r in rs] == [("1=", 0.0, 1.0), ("1=", 0.0, 1.0),
                                                                     ("3", 0.0, 0.0)]
    alone = rank_stability([same, worse], [MEAN] * 2, ["a", "w"], n_resamples=30)
    assert [(r.rank_label, r.p_best, r.p_tied_best) for r in alone] == [("1", 1.0, 0.0), ("2", 0.0, 0.0)]


# ---------------------------------------------------------------- metric builders

def test_ratio_divides_sums_by_fractional_denominators_and_is_undefined_at_zero():
    s = np.array([[1.0, 0.5], [3.0, 0.0], [2.0, -1.0]])
    out = ratio(0, 1)(s)
    assert out[0] == 200.0 and np.isnan(out[1]) and np.isnan(out[2])
    assert ratio(0, 1, 1.0)(np.array([[3.0, 4.0]]))[0] == 0.75


def test_safe_division_of_infinities_is_quiet_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = bs._safe_div(np.array([np.inf, 1.0]), np.array([np.inf, 0.0]))
    assert np.isnan(out).all()


def test_geo_ratio_is_the_scaled_geometric_mean_of_two_rates():
    # sqrt(3/4 * 1/3) = sqrt(1/4) = 0.5
    assert geo_ratio(0, 1, 2, 3)(np.array([[3.0, 4.0, 1.0, 3.0]]))[0] == pytest.approx(50.0)
    assert np.isnan(geo_ratio(0, 1, 2, 3)(np.array([[3.0, 4.0, 1.0, 0.0]]))[0])


@pytest.mark.parametrize("tp, fp, fn, want", [
    (3.0, 1.0, 2.0, 200 / 3),   # P = 3/4, R = 3/5, F1 = 2 * 0.45 / 1.35 = 2/3
    (1.0, 0.0, 3.0, 40.0),      # P = 1, R = 1/4, F1 = 0.5 / 1.25 = 0.4
    (0.0, 2.0, 1.0, 0.0),       # P = R = 0: F1 reported as 0
    (0.0, 0.0, 0.0, 0.0),       # nothing at all: 0, not NaN
])
def test_f1_from_summed_counts(tp, fp, fn, want):
    assert f1(0, 1, 2)(np.array([[tp, fp, fn]]))[0] == pytest.approx(want)
    assert f1(0, 1, 2, scale=1.0)(np.array([[tp, fp, fn]]))[0] == pytest.approx(want / 100)


def test_mean_of_needs_every_part_unless_partial():
    s = np.array([[1.0, 4.0, 0.0, 0.0]])     # part a: 25 %, part b: 0 / 0 undefined
    a, b = ratio(0, 1), ratio(2, 3)
    assert np.isnan(mean_of([a, b])(s)[0])
    assert mean_of([a, b], allow_partial=True)(s)[0] == 25.0
    assert mean_of([a, ratio(0, 0)], allow_partial=True)(s)[0] == 62.5   # (25 + 100) / 2
    assert mean_of([a, ratio(0, 0)])(s)[0] == 62.5
    assert np.isnan(mean_of([b], allow_partial=True)(s)[0])


def test_num_reads_numbers_only():
    assert [bs._num(v) for v in (3, 2.5, True, False, None, "4", [1])] == [3.0, 2.5, None, None, None, None, None]


# ---------------------------------------------------------------- BenchStats

def _bench() -> BenchStats:
    stats = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    return BenchStats("demo", ["a", "b", "c", "d"], stats, {"acc": ratio(0, 1), "none": ratio(0, 1)},
                      ["acc"], "acc", ["s1", "s1", "s2", "s2"], {"dim": [("g", "acc")]},
                      {"acc": 75.0, "none": 1.0}, {"acc": [2], "none": []})


def test_n_for_counts_rows_with_support():
    b = _bench()
    assert (b.n_for("acc"), b.n_for("none"), b.n_for("other")) == (1, 0, 4)
    empty = b.subset([])
    assert (empty.n_for("acc"), empty.n_for("none")) == (0, 0)


def test_a_subset_reorders_rows_and_strata_and_drops_the_scorer_figures():
    b = _bench()
    sub = b.subset(["d", "b"])
    assert sub.item_ids == ["d", "b"] and sub.strata == ["s2", "s1"]
    assert sub.stats.tolist() == [[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    assert (sub.benchmark, sub.table, sub.headline, sub.breakdowns) == ("demo", ["acc"], "acc", {"dim": [("g", "acc")]})
    assert sub.metrics is b.metrics and sub.points is b.points and sub.support is b.support
    assert sub.from_scorer is False and sub.point("acc") is bs._OWN
    assert sub.interval("acc", min_n=1).point == 50.0  # its own figure (1 of 2), not the scorer's 75
    whole = b.subset(["d", "c", "b", "a"])  # every item, reordered: the scorer's figures still hold
    assert whole.from_scorer is True and whole.point("acc") == 75.0
    assert whole.stats.tolist() == b.stats[::-1].tolist()
    empty = b.subset([])
    assert empty.stats.shape == (0, 3) and empty.item_ids == [] and empty.strata == []
    nostrata = BenchStats("demo", ["a", "b"], b.stats[:2], b.metrics, ["acc"], "acc").subset(["b"])
    assert nostrata.strata is None
    b.from_scorer = False
    assert b.subset(["a", "b", "c", "d"]).from_scorer is False  # once not the scorer's, never again
    with pytest.raises(KeyError):
        _bench().subset(["zz"])
