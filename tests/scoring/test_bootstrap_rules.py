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
    assert [bs.num_or_none(v) for v in (3, 2.5, True, False, None, "4", [1])] == [3.0, 2.5, None, None, None, None, None]


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
    assert b.subset(["a", "a", "b", "c"]).from_scorer is False  # as many rows, not the same items
    b.from_scorer = False
    assert b.subset(["a", "b", "c", "d"]).from_scorer is False  # once not the scorer's, never again
    with pytest.raises(KeyError):
        _bench().subset(["zz"])


# ---------------------------------------------------------------- per-benchmark statistics

def _all(b: BenchStats, name: str) -> float:
    """The metric on every item (the point it reproduces)."""
    return float(b.metrics[name](b.stats.sum(axis=0, keepdims=True))[0])


PB_REPORT = {
    "per_item": {
        "e1": {"subtask": "ES", "hits": 2, "alerts": 3, "clean_segments": 1, "segments": 2},
        "e2": {"subtask": "ES", "hits": 1, "alerts": 1, "clean_segments": 2, "segments": 2},
        "o1": {"subtask": "OR", "correct": True, "outcome": "in_window"},
        "o2": {"subtask": "OR", "correct": False, "outcome": "missed"},
        "o3": {"subtask": "OR", "correct": 0, "outcome": "late"},
        "d1": {"subtask": "DC", "correct": 1, "outcome": "early"},      # DC has no window: outcome not counted
        "w1": {"subtask": "WR", "correct": False, "outcome": "bogus"},  # not an outcome: not counted
        "w2": {"subtask": "WR", "correct": False, "outcome": "late"},   # WR reports late apart from missed
    },
    "aggregate": {"S_ES": 75.0, "OR": 33.333, "WR": 0.0, "DC": 100.0, "AVG": 52.083, "AA": True,
                  "subtasks": {"OR": {"in_window_rate": 33.333, "missed_rate": 66.667},   # late counted as missed
                               "WR": {"in_window_rate": 0.0, "missed_rate": 0.0, "late_rate": 50.0}}},
    "config": {"allow_partial": True},
}


def test_pb_stats_matrix_metrics_points_and_breakdown():
    b = bs.item_stats("proactivebench", PB_REPORT)
    assert (b.benchmark, b.headline, b.table) == ("proactivebench", "AVG", ["ES", "OR", "WR", "AA", "SS", "DC", "AVG"])
    assert b.item_ids == ["e1", "e2", "o1", "o2", "o3", "d1", "w1", "w2"]
    assert b.strata == ["ES", "ES", "OR", "OR", "OR", "DC", "WR", "WR"]
    # columns: ES hits, alerts, clean, segs, items; then per OR, WR, AA, SS, DC: n, correct, early, in_window,
    # missed, late (5 + 5 x 6 = 35)
    want = np.zeros((8, 35))
    want[0, :5] = [2, 3, 1, 2, 1]
    want[1, :5] = [1, 1, 2, 2, 1]
    want[2, [5, 6, 8]] = 1      # OR n, correct, in_window
    want[3, [5, 9]] = 1         # OR n, missed
    want[4, [5, 10]] = 1        # OR n, late
    want[5, [29, 30]] = 1       # DC n, correct
    want[6, 11] = 1             # WR n
    want[7, [11, 16]] = 1       # WR n, late
    assert b.stats.tolist() == want.tolist()
    # ES = 100 sqrt(3/4 x 3/4) = 75; OR 1/3; WR 0/2; DC 1/1; AA, SS no items; AVG of the defined four
    # (partial allowed): (75 + 33.33 + 0 + 100) / 4 = 52.083; OR missed % counts missed and late: 2/3;
    # WR reports late (1 of 2) so its missed % is missed alone (0 of 2)
    got = {k: _all(b, k) for k in ("ES", "OR", "WR", "DC", "AVG", "OR missed %", "OR in_window %", "WR late %")}
    assert got == pytest.approx({"ES": 75.0, "OR": 100 / 3, "WR": 0.0, "DC": 100.0, "AVG": 625 / 12,
                                 "OR missed %": 200 / 3, "OR in_window %": 100 / 3, "WR late %": 50.0})
    assert _all(b, "WR missed %") == 0.0
    assert math.isnan(_all(b, "AA")) and math.isnan(_all(b, "SS"))
    assert b.breakdowns == {"outcome": [("OR in_window", "OR in_window %"), ("OR missed", "OR missed %"),
                                        ("WR in_window", "WR in_window %"), ("WR missed", "WR missed %"),
                                        ("WR late", "WR late %")]}
    assert b.points == {"ES": 75.0, "OR": 33.333, "WR": 0.0, "AA": None, "SS": None, "DC": 100.0, "AVG": 52.083,
                        "OR in_window %": 33.333, "OR missed %": 66.667, "WR in_window %": 0.0,
                        "WR missed %": 0.0, "WR late %": 50.0}
    assert b.support == {"ES": [4], "OR": [5], "WR": [11], "AA": [17], "SS": [23], "DC": [29],
                         "OR in_window %": [5], "OR missed %": [5], "WR in_window %": [11], "WR missed %": [11],
                         "WR late %": [11]}
    assert [b.n_for(k) for k in ("ES", "OR", "WR", "AA", "DC", "AVG")] == [2, 3, 2, 0, 1, 8]
    # within subtask strata every resample has 3 OR items: 0..100 %, shifted by the scorer's rounding (+0.00033)
    iv = b.interval("OR missed %", min_n=1)
    assert iv.point == 66.667 and iv.reason == "" and -0.001 <= iv.low <= iv.high <= 100.001


def test_pb_average_needs_every_subtask_without_allow_partial():
    for config in ({"allow_partial": False}, None):
        b = bs.item_stats("proactivebench", {**PB_REPORT, "config": config})
        assert math.isnan(_all(b, "AVG"))
    assert bs.item_stats("proactivebench", {"per_item": {}}).stats.shape == (0, 35)


IS_REPORT = {
    "per_item": {
        "i1": {"task": "T1", "targets": [{"correct": True, "timing": "in_window"},
                                         {"correct": False, "timing": "early"}]},
        "i2": {"task": "T1", "targets": [{"correct": 1, "timing": "in_window"}]},
        "i3": {"task": "T5", "targets": [{"correct": False, "timing": "missed"}]},
        "i4": {"task": "T8", "subtype": "A", "targets": [{"correct": True, "timing": "in_window"},
                                                         {"correct": False, "timing": "missed"}]},
        "i5": {"task": "T8", "subtype": "B", "targets": [{"correct": True, "timing": "early"}]},
    },
    "aggregate": {"T1": 66.667, "T5": 0.0, "Avg": 33.333, "T8_recall": 66.667,
                  "tasks": {"T1": {"in_window_rate": 66.667, "early_rate": 33.333, "missed_rate": 0.0}},
                  "T8": {"recall_by_subtype": {"A": 50.0, "B": 100.0}}},
    "config": {"allow_partial": True, "avg_tasks": ["T1", "T5"]},
}


def test_is_stats_matrix_metrics_points_and_breakdowns():
    b = bs.item_stats("interactscope", IS_REPORT)
    assert (b.benchmark, b.headline) == ("interactscope", "Avg")
    assert b.table == ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "Avg", "T8"]
    assert b.item_ids == ["i1", "i2", "i3", "i4", "i5"] and b.strata == ["T1", "T1", "T5", "T8", "T8"]
    # columns: per T1..T8 n, correct, in_window, early, missed (40); then T8A n, correct; T8B n, correct
    want = np.zeros((5, 44))
    want[0, :4] = [2, 1, 1, 1]
    want[1, :3] = [1, 1, 1]
    want[2, [20, 24]] = 1                 # T5 n, missed
    want[3, 35:40] = [2, 1, 1, 0, 1]      # T8 n, correct, in_window, early, missed
    want[3, 40:42] = [2, 1]               # T8A n, correct
    want[4, 35:40] = [1, 1, 0, 1, 0]
    want[4, 42:44] = [1, 1]               # T8B n, correct
    assert b.stats.tolist() == want.tolist()
    # T1 2 of 3; T5 0 of 1; Avg over the configured T1, T5: (66.67 + 0) / 2; T8 2 of 3; A 1 of 2, B 1 of 1
    got = {k: _all(b, k) for k in ("T1", "T5", "Avg", "T8", "T8-A recall", "T8-B recall", "T1 early %",
                                  "T1 in_window %", "T5 missed %")}
    assert got == pytest.approx({"T1": 200 / 3, "T5": 0.0, "Avg": 100 / 3, "T8": 200 / 3, "T8-A recall": 50.0,
                                 "T8-B recall": 100.0, "T1 early %": 100 / 3, "T1 in_window %": 200 / 3,
                                 "T5 missed %": 100.0})
    assert math.isnan(_all(b, "T2"))
    timing = [(f"{t} {k}", f"{t} {k} %") for t in ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
              for k in ("in_window", "early", "missed")]
    assert b.breakdowns == {"timing": timing, "t8_subtype": [("T8-A", "T8-A recall"), ("T8-B", "T8-B recall")]}
    points = {t: None for t in ("T2", "T3", "T4", "T6", "T7")}
    points.update({"T1": 66.667, "T5": 0.0, "Avg": 33.333, "T8": 66.667, "T8-A recall": 50.0,
                   "T8-B recall": 100.0})
    points.update({key: None for _, key in timing})
    points.update({"T1 in_window %": 66.667, "T1 early %": 33.333, "T1 missed %": 0.0})
    assert b.points == points
    support = {t: [5 * i] for i, t in enumerate(("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"))}
    support.update({f"{t} {k} %": [5 * i] for i, t in enumerate(("T1", "T2", "T3", "T4", "T5", "T6", "T7"))
                    for k in ("in_window", "early", "missed")})
    support.update({"T8-A recall": [40], "T8-B recall": [42]})
    assert b.support == support
    assert [b.n_for(k) for k in ("T1", "T5", "T8", "T8-A recall", "T2")] == [2, 1, 2, 1, 0]


def test_is_average_defaults_to_t1_t4_t6_t7_and_needs_each_without_allow_partial():
    b = bs.item_stats("interactscope", {**IS_REPORT, "config": {"allow_partial": True}})
    assert _all(b, "Avg") == pytest.approx(200 / 3)  # only T1 of T1-T4, T6, T7 has items (T5 is not averaged)
    b = bs.item_stats("interactscope", {**IS_REPORT, "config": {"avg_tasks": ["T1", "T5"]}})
    assert _all(b, "Avg") == pytest.approx(100 / 3)  # both defined: the plain mean
    b = bs.item_stats("interactscope", {**IS_REPORT, "config": None})
    assert math.isnan(_all(b, "Avg"))  # T2 has no items and partial means are off


IB_REPORT = {
    "records": [
        {"item_id": "a", "total_score": 80.0, "accuracy": 100.0, "timing_accuracy": None, "silence_compliance": 60.0,
         "capability_group": "C1", "time_type": "T", "family": "F"},
        {"item_id": "b", "total_score": None, "accuracy": 0.0, "timing_accuracy": 50.0, "silence_compliance": None,
         "capability_group": "C2", "time_type": "T"},
    ],
    "aggregate": {"overall": {"total_score": 80.0, "accuracy": 50.0, "timing_accuracy": 50.0,
                              "silence_compliance": 60.0},
                  "by_capability_group": {"C1": {"total_score": 80.0}}},
}


def test_ib_stats_matrix_metrics_points_and_breakdowns():
    b = bs.item_stats("interactionbench", IB_REPORT)
    assert (b.benchmark, b.headline, b.strata) == ("interactionbench", "total", None)
    assert b.table == ["total", "accuracy", "timing_accuracy", "silence_compliance"]
    assert b.item_ids == ["a", "b"]
    # columns: value, count of total / accuracy / TA / SC; then per dimension group value, count (total score)
    # C1 8-9, T 10-11, F 12-13, C2 14-15, family None 16-17; a missing total counts nowhere
    assert b.stats.tolist() == [[80, 1, 100, 1, 0, 0, 60, 1, 80, 1, 80, 1, 80, 1, 0, 0, 0, 0],
                                [0, 0, 0, 1, 50, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]
    got = {k: _all(b, k) for k in ("total", "accuracy", "timing_accuracy", "silence_compliance",
                                   "total|capability_group=C1", "total|time_type=T", "total|family=F")}
    assert got == {"total": 80.0, "accuracy": 50.0, "timing_accuracy": 50.0, "silence_compliance": 60.0,
                   "total|capability_group=C1": 80.0, "total|time_type=T": 80.0, "total|family=F": 80.0}
    assert math.isnan(_all(b, "total|capability_group=C2")) and math.isnan(_all(b, "total|family=None"))
    assert b.breakdowns == {"capability_group": [("C1", "total|capability_group=C1"),
                                                 ("C2", "total|capability_group=C2")],
                            "time_type": [("T", "total|time_type=T")],
                            "family": [("F", "total|family=F"), ("None", "total|family=None")]}
    assert b.points == {"total": 80.0, "accuracy": 50.0, "timing_accuracy": 50.0, "silence_compliance": 60.0,
                        "total|capability_group=C1": 80.0, "total|capability_group=C2": None,
                        "total|time_type=T": None, "total|family=F": None, "total|family=None": None}
    assert b.support == {"total": [1], "accuracy": [3], "timing_accuracy": [5], "silence_compliance": [7],
                         "total|capability_group=C1": [9], "total|capability_group=C2": [15],
                         "total|time_type=T": [11], "total|family=F": [13], "total|family=None": [17]}
    assert [b.n_for(k) for k in ("total", "accuracy", "total|time_type=T", "total|capability_group=C2")] == [
        1, 2, 1, 0]
    empty = bs.item_stats("interactionbench", {})
    assert empty.stats.shape == (0, 8) and empty.item_ids == [] and empty.breakdowns == {
        "capability_group": [], "time_type": [], "family": []}


def test_item_stats_names_the_benchmarks_it_knows():
    with pytest.raises(ValueError) as e:
        bs.item_stats("nope", {})
    assert str(e.value) == ("unknown benchmark 'nope'; expected one of: "
                            "interactionbench, omniinteract, proactivebench, interactscope")


def _acc(slots, tp, fp, fn):
    return {"num_slots": slots, "Global_TP": tp, "Global_FP": fp, "Global_FN": fn}


OI_REPORT = {
    "samples": [
        {"item_kind": "summarized", "sample_id": 1, "sample_summary": {
            "summary": {**_acc(2, 1.0, 1, 0), "by_scene_type": {"1Q1A": _acc(2, 1.0, 1, 0)},
                        "by_question_type": {"realtime": _acc(2, 1.0, 1, 0)}, "nested_by_role": {}},
            "interrupted_summary": {"interrupted_slot_count": 2, "interrupted_no_output_count": 1,
                                    "interrupted_with_output_count": 1, "interrupted_with_positive_spill_count": 1,
                                    "total_spill_seconds_in_output_slots": 0.5, "total_spill_seconds": 9.0,
                                    "partial_quality_count": 2, "partial_quality_avg": 0.8},
            "nested_ira": {"num_pairs": 1, "score_sum": 0.5, "ira_sum": 9.0}}},
        {"item_kind": "failed", "sample_id": 9, "sample_summary": {"summary": _acc(5, 5.0, 0, 0)}},
        {"item_kind": "summarized", "sample_id": 2, "sample_summary": {
            "summary": {**_acc(1, 0.5, 0, 1), "by_scene_type": {"1QnA": _acc(1, 0.5, 0, 1)},
                        "by_question_type": {"proactive": {"num_slots": 1, "Global_TP": 0.5, "Global_FN": 1}}},
            "interrupted_summary": {"interrupted_slot_count": 1, "interrupted_no_output_count": 0,
                                    "interrupted_with_output_count": 1, "interrupted_with_positive_spill_count": 0,
                                    "total_spill_seconds": 1.5, "partial_quality_avg": 0.4},
            "nested_ira": {"num_pairs": 2, "ira_sum": 1.5}}},
    ],
    "summary": {
        "paper_metrics": {"exp_f1": {"realtime": {"IA_QTF1": 2 / 3}, "proactive": {"IA_QTF1": 0.5}, "nested": {},
                                     "one_q1a_global": {"IA_QTF1": 0.6}, "one_qna": {"IA_QTF1": 0.5},
                                     "all_global": {"IA_QTF1": 0.6}}},
        "by_scene_type": {"1Q1A": {"IA_QTF1": 2 / 3}, "1QnA": {"IA_QTF1": 0.5}},
        "by_question_type": {"realtime": {"IA_QTF1": 2 / 3}},
        "interrupted": {"interrupted_no_output_rate": 1 / 3, "partial_quality_avg": 2 / 3,
                        "spill_positive_rate_in_output_slots": 0.5, "avg_spill_seconds_in_output_slots": 1.0},
        "nested_chain_completion": {"NCCS": 2 / 3},
    },
}


def test_oi_stats_matrix_metrics_points_and_breakdowns():
    """Two summarized samples (the failed one is not counted). Summed: TP 1.5, FP 1, FN 1 -> P = R = 0.6, F1 60.
    Realtime (sample 1): TP 1, FP 1, FN 0 -> P 1/2, R 1, F1 2/3. Proactive (sample 2): TP 0.5, FN 1 -> P 1, R 1/3,
    F1 1/2 (a missing FP count is 0). 1Q1A = realtime + proactive + nested (none) = the total: 60. IDS: NOR 1/3
    interrupted slots without output; PAQ (2 x 0.8 + 1 x 0.4) / 3 = 2/3 (sample 2 has no partial count: its output
    count); CSM-SR 1 of 2 output slots spilled; CSM-AS (0.5 + 1.5) / 2 s; NCCS (0.5 + 1.5) / (1 + 2) = 2/3
    (score_sum first, ira_sum when it is absent)."""
    b = bs.item_stats("omniinteract", OI_REPORT)
    assert (b.benchmark, b.headline, b.strata) == ("omniinteract", "All", None)
    assert b.table == ["Realtime", "Proactive", "Nested", "1Q1A", "1QnA", "All"]
    assert b.item_ids == ["1", "2"]
    # total 0-3, 1Q1A 4-7, realtime 8-11, int n/no_out/out/spill/spill_s 12-16, pq n/sum 17-18, nc pairs/sum
    # 19-20, 1QnA 21-24, proactive 25-28 (each slots, tp, fp, fn)
    assert b.stats.tolist() == [
        [2, 1, 1, 0, 2, 1, 1, 0, 2, 1, 1, 0, 2, 1, 1, 1, 0.5, 2, 1.6, 1, 0.5, 0, 0, 0, 0, 0, 0, 0, 0],
        [1, 0.5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1.5, 1, 0.4, 2, 1.5, 1, 0.5, 0, 1, 1, 0.5, 0, 1]]
    got = {k: _all(b, k) for k in ("Realtime", "Proactive", "1Q1A", "1QnA", "All", "IA-QTF1|by_scene_type=1Q1A",
                                   "IA-QTF1|by_scene_type=1QnA", "IA-QTF1|by_question_type=realtime",
                                   "IA-QTF1|by_question_type=proactive", "IDS|NOR", "IDS|PAQ", "IDS|CSM-SR",
                                   "IDS|CSM-AS (s)", "IDS|NCCS")}
    assert got == pytest.approx({"Realtime": 200 / 3, "Proactive": 50.0, "1Q1A": 60.0, "1QnA": 50.0, "All": 60.0,
                                 "IA-QTF1|by_scene_type=1Q1A": 200 / 3, "IA-QTF1|by_scene_type=1QnA": 50.0,
                                 "IA-QTF1|by_question_type=realtime": 200 / 3,
                                 "IA-QTF1|by_question_type=proactive": 50.0, "IDS|NOR": 100 / 3,
                                 "IDS|PAQ": 200 / 3, "IDS|CSM-SR": 50.0, "IDS|CSM-AS (s)": 1.0, "IDS|NCCS": 200 / 3})
    assert math.isnan(_all(b, "Nested"))  # no nested scene: undefined, not 0
    # per resample row: sample 1 twice reads realtime 2/3 and no proactive slots: the paper column is the
    # scorer's empty row (F1 0), the by-question-type group is undefined
    two_of_1 = b.stats[[0, 0]].sum(axis=0, keepdims=True)
    assert b.metrics["Realtime"](two_of_1)[0] == pytest.approx(200 / 3)
    assert b.metrics["Proactive"](two_of_1)[0] == 0.0
    assert math.isnan(b.metrics["IA-QTF1|by_question_type=proactive"](two_of_1)[0])
    assert math.isnan(b.metrics["1QnA"](two_of_1)[0])  # a scene with no slots in a resample is left out
    # more distinct inputs than the metric cache keeps (4): each is still computed, oldest forgotten
    inputs = [b.stats[[0]], b.stats[[1]], b.stats[[0, 0]], b.stats[[1, 1]], b.stats[[0, 1]], b.stats[[1]]]
    assert [round(float(b.metrics["All"](x.sum(axis=0, keepdims=True))[0]), 6) for x in inputs] == [
        66.666667, 50.0, 66.666667, 50.0, 60.0, 50.0]  # sample 1: 2/3; sample 2: 1/2; both: 0.6
    assert b.breakdowns == {
        "by_scene_type": [("1Q1A", "IA-QTF1|by_scene_type=1Q1A"), ("1QnA", "IA-QTF1|by_scene_type=1QnA")],
        "by_question_type": [("proactive", "IA-QTF1|by_question_type=proactive"),
                             ("realtime", "IA-QTF1|by_question_type=realtime")],
        "interruption and nested chain": [(n, f"IDS|{n}") for n in ("NOR", "PAQ", "CSM-SR", "CSM-AS (s)", "NCCS")]}
    assert b.points == pytest.approx({
        "Realtime": 200 / 3, "Proactive": 50.0, "Nested": None, "1Q1A": 60.0, "1QnA": 50.0, "All": 60.0,
        "IA-QTF1|by_scene_type=1Q1A": 200 / 3, "IA-QTF1|by_scene_type=1QnA": 50.0,
        "IA-QTF1|by_question_type=realtime": 200 / 3, "IA-QTF1|by_question_type=proactive": None,
        "IDS|NOR": 100 / 3, "IDS|PAQ": 200 / 3, "IDS|CSM-SR": 50.0, "IDS|CSM-AS (s)": 1.0, "IDS|NCCS": 200 / 3})
    assert b.support == {"Realtime": [8], "Proactive": [25], "Nested": [], "1QnA": [21], "1Q1A": [4],
                         "IA-QTF1|by_scene_type=1Q1A": [4], "IA-QTF1|by_scene_type=1QnA": [21],
                         "IA-QTF1|by_question_type=realtime": [8], "IA-QTF1|by_question_type=proactive": [25],
                         "IDS|NOR": [12], "IDS|PAQ": [17], "IDS|CSM-SR": [14], "IDS|CSM-AS (s)": [14],
                         "IDS|NCCS": [19]}
    assert [b.n_for(k) for k in ("Realtime", "Nested", "1Q1A", "All", "IDS|NCCS")] == [1, 0, 1, 2, 2]
    iv = b.interval("Realtime", n_resamples=50, min_n=1)
    assert iv.point == pytest.approx(200 / 3) and iv.reason == ""


def test_oi_fixed_settings_read_the_exclusive_question_types_and_nested_scenes():
    """With `exclusive_by_question_type` (the fixed settings) Realtime is that group's F1: TP 1, FP 0, FN 0 -> 100;
    no exclusive proactive slots: the scorer's empty row, F1 0. A nested scene counts for Nested and 1Q1A."""
    s = {**_acc(2, 1.0, 1, 0), "by_scene_type": {"nested": _acc(2, 1.0, 1, 0)},
         "by_question_type": {"realtime": _acc(2, 1.0, 1, 0)},
         "nested_by_role": {"inner": _acc(1, 1.0, 0, 0)},
         "exclusive_by_question_type": {"realtime": _acc(1, 1.0, 0, 0)}}
    report = {"samples": [{"item_kind": "summarized", "sample_id": "x", "sample_summary": {"summary": s}}]}
    b = bs.item_stats("omniinteract", report)
    assert b.item_ids == ["x"]
    # total 0-3, nested 4-7, realtime 8-11, inner 12-15, exclusive realtime 16-19, then the IDS columns: no
    # interruption or nested-pair figures in this sample, so all 0
    assert b.stats.tolist() == [[2, 1, 1, 0, 2, 1, 1, 0, 2, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0] + [0] * 9]
    assert b.support["Proactive"] == []
    assert (_all(b, "Realtime"), _all(b, "Proactive")) == (100.0, 0.0)
    # nested: TP 1, FP 1, FN 0 -> 2/3; 1Q1A = exclusive realtime + proactive (none) + nested: TP 2, FP 1 -> 0.8
    assert (_all(b, "Nested"), _all(b, "1Q1A")) == (pytest.approx(200 / 3), pytest.approx(80.0))
    assert _all(b, "IA-QTF1|exclusive_by_question_type=realtime") == 100.0
    assert _all(b, "IA-QTF1|nested_by_role=inner") == 100.0
    assert b.support["Nested"] == b.support["1Q1A"] and b.support["1QnA"] == [] and b.support["Realtime"] != []
    assert b.points["Realtime"] is None and b.points["IDS|NOR"] is None  # no summary in the report: no figures
    assert [_all(b, f"IDS|{n}") for n in ("NOR", "PAQ")] == [pytest.approx(float("nan"), nan_ok=True)] * 2


def test_oi_group_names_may_hold_a_colon_and_absent_question_types_count_no_items():
    s = {**_acc(1, 1.0, 0, 0), "by_scene_type": {"a:b": _acc(1, 1.0, 0, 0)}}
    b = bs.item_stats("omniinteract", {"samples": [{"item_kind": "summarized", "sample_id": 1,
                                                    "sample_summary": {"summary": s}}]})
    assert _all(b, "IA-QTF1|by_scene_type=a:b") == 100.0  # TP 1, no FP or FN
    assert (b.support["Realtime"], b.support["Proactive"]) == ([], [])
    assert b.stats.shape == (1, 17)  # total 4, the scene 4, IDS 9: no column for an absent question type
