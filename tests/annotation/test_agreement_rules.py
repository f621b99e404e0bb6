"""Agreement rules at their edges, on tables worked out on paper (the arithmetic is in each comment):
the minimum n on both sides, tolerances hit exactly, marks in different bins, missing durations, three
raters with a missing verdict, and the fixed-seed bootstrap against scipy's own percentile bootstrap."""

import numpy as np
import pytest
from scipy.stats import bootstrap

from annotation import agreement as ag

Z2 = 1.959963984540054 ** 2  # the 95 % normal quantile, squared: 3.841459


def test_small_n_warning_and_below_min_on_both_sides_of_ten():
    assert ag.small_n_warning(0) == ("no pairs yet",)
    assert ag.small_n_warning(0, "shared intervals") == ("no shared intervals yet",)
    assert ag.small_n_warning(1) == ("only 1 pairs (< 10): treat these figures as indicative; intervals are wide",)
    assert ag.small_n_warning(9) == ("only 9 pairs (< 10): treat these figures as indicative; intervals are wide",)
    assert ag.small_n_warning(10) == () and ag.small_n_warning(11) == ()
    assert ag.below_min(9) == "n = 9 pairs < 10: not computed"
    assert ag.below_min(0, "shared intervals") == "n = 0 shared intervals < 10: not computed"
    assert ag.below_min(10) is None and ag.below_min(11, "shared intervals") is None


def test_wilson_hand_worked():
    # 5 of 10: centre .5, half 1.96 sqrt(.025 + z²/400)/(1 + z²/10) = .2634 -> (.2366, .7634)
    assert ag.wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    # 1 of 1: lower end 1/(1 + z²) = .2065, upper 1
    assert ag.wilson(1, 1) == pytest.approx((1 / (1 + Z2), 1.0), abs=1e-6)
    # 0 of 10: lower 0, upper z²/10 / (1 + z²/10) = .2775
    assert ag.wilson(0, 10) == pytest.approx((0.0, (Z2 / 10) / (1 + Z2 / 10)), abs=1e-6)
    assert ag.wilson(0, 0) is None and ag.wilson(0, -1) is None


def test_mean_interval_minimum_n_on_both_sides():
    assert ag.mean_interval([0.0] * 8 + [1.0]) is None  # 9 values
    # ten values, nine 0 and one 1 (range exactly 1): a resample's mean is k/10, k ~ Binomial(10, .1);
    # P(k = 0) = .349 > .025 -> low 0; P(k <= 2) = .930 < .975 < P(k <= 3) = .987 -> high .3
    assert ag.mean_interval([0.0] * 9 + [1.0]) == pytest.approx((0.0, 0.3))
    assert ag.mean_interval([0.7] * 10) == (0.7, 0.7)  # every resample's mean is 0.7


def test_mean_interval_is_scipys_percentile_bootstrap_with_seed_zero():
    """One report, one interval: the documented bootstrap (percentile, 95 %, 9999 resamples, seed 0)."""
    x = [0.05, 0.12, 0.2, 0.31, 0.33, 0.48, 0.5, 0.74, 0.9, 1.6]
    ref = bootstrap((np.asarray(x),), np.mean, confidence_level=0.95, n_resamples=9999, method="percentile",
                    random_state=np.random.default_rng(0)).confidence_interval
    got = ag.mean_interval(x)
    assert got == (float(ref.low), float(ref.high))
    assert ag.mean_interval(x) == got  # the same again
    assert 0.05 <= got[0] < sum(x) / 10 < got[1] <= 1.6


def test_delta_stats_even_median_shares_and_their_intervals():
    # |Δ| = .1 .2 .4 .8: mean 1.5/4 = .375, median (.2 + .4)/2 = .3;
    # within .25: 2/4, .5: 3/4, 1 and 2: 4/4. Wilson 2/4: centre .5, half 1.96 sqrt(.0625 + z²/64)/(1 + z²/4)
    # = .3500 -> (.1500, .8500); 3/4 -> (.3006, .9544); 4/4 -> (1/(1 + z²/4), 1) = (.5101, 1)
    s = ag.delta_stats([0.1, 0.2, 0.4, 0.8], [0.0, 0.0, 0.0, 0.0])
    assert s.n == 4 and s.mean_abs == pytest.approx(0.375) and s.median_abs == pytest.approx(0.3)
    assert s.mean_abs_ci is None
    assert s.within == {0.25: 0.5, 0.5: 0.75, 1.0: 1.0, 2.0: 1.0}
    assert s.within_ci[0.25] == pytest.approx((0.1500, 0.8500), abs=1e-4)
    assert s.within_ci[0.5] == pytest.approx((0.3006, 0.9544), abs=1e-4)
    assert s.within_ci[1.0] == pytest.approx((1 / (1 + Z2 / 4), 1.0), abs=1e-6) == s.within_ci[2.0]
    odd = ag.delta_stats([3.0, 1.0, 2.5], [1.0, 1.0, 1.0])  # |Δ| 2, 0, 1.5 -> median 1.5
    assert odd.median_abs == 1.5 and odd.within == {0.25: 1 / 3, 0.5: 1 / 3, 1.0: 1 / 3, 2.0: 1.0}


def test_delta_stats_tolerance_is_inclusive_to_a_microsecond():
    # .25 + 1e-6 is the same double as .250001: counted within .25 s; .250002 is not
    assert ag.delta_stats([0.250001], [0.0]).within[0.25] == 1.0
    assert ag.delta_stats([0.25], [0.0]).within[0.25] == 1.0
    assert ag.delta_stats([0.250002], [0.0]).within[0.25] == 0.0
    assert ag.delta_stats([1.0], [3.0], tolerances=(2.0, 1.5)).within == {2.0: 1.0, 1.5: 0.0}


def test_delta_stats_empty_and_unpaired():
    nothing = {0.25: None, 0.5: None, 1.0: None, 2.0: None}
    assert ag.delta_stats([], []) == ag.DeltaStats(0, None, None, None, nothing, dict(nothing))
    assert ag.delta_stats([], [], tolerances=(1.0,)) == ag.DeltaStats(0, None, None, None, {1.0: None}, {1.0: None})
    with pytest.raises(ValueError, match="delta_stats needs paired lists, got 2 and 1 values"):
        ag.delta_stats([1.0, 2.0], [1.0])


def test_bin_labels_edges():
    assert ag.bin_labels(0.0, 0.0) == [] and ag.bin_labels(0.5, -1.0) == []
    assert ag.bin_labels(1.9999999, 3.0) == [0, 0, 1]  # within 1e-6 of 2: bin 2
    assert ag.bin_labels(1.99, 3.0000001) == [0, 1, 1]  # a duration 1e-7 over 3 s is 3 bins
    assert ag.bin_labels(2.0, 3.5) == [0, 0, 1, 1]


def test_cohen_kappa_refuses_unequal_lengths():
    with pytest.raises(ValueError, match="cohen_kappa needs equally long sequences, got 2 and 1"):
        ag.cohen_kappa([1, 0], [1])
    # three categories, one used by a only: po = 2/4; a = {0: 1, 1: 2, 2: 1}, b = {0: 2, 1: 2};
    # pe = (1*2 + 2*2 + 1*0)/16 = 6/16 -> kappa = (8/16 - 6/16)/(10/16) = .2
    assert ag.cohen_kappa([0, 1, 1, 2], [0, 1, 0, 1]) == pytest.approx(0.2)


def test_krippendorff_one_unit_three_categories_and_levels():
    # one unit, values 1 and 2: Do = 2/2, De = 2*1*1/(2*1) -> alpha 0
    assert ag.krippendorff_alpha([[1], [2]]) == pytest.approx(0.0)
    assert ag.krippendorff_alpha([[1, 2, 3]]) is None  # one rater: nothing pairable
    assert ag.krippendorff_alpha([]) is None and ag.krippendorff_alpha([[], []]) is None
    # units (1,1) (2,2) (3,4); nominal: Do = 2/6, De = (36 - 4 - 4 - 1 - 1)/30 = 26/30 -> 1 - 10/26 = 8/13
    assert ag.krippendorff_alpha([[1, 2, 3], [1, 2, 4]]) == pytest.approx(8 / 13)
    # interval: values 1 1 2 2 3 4, Do = 2*1/6 = 1/3, De = 2*6*(41/6)/30 = 41/15 -> 1 - 5/41 = 36/41
    assert ag.krippendorff_alpha([[1, 2, 3], [1, 2, 4]], "interval") == pytest.approx(36 / 41)


def test_icc_three_raters_with_residuals_hand_worked():
    """[[1,2,4],[2,2,5],[3,5,5]]: grand 29/9; row means 7/3, 3, 13/3 -> MSR = 3*(64+4+100)/81/2 = 28/9;
    column means 2, 3, 14/3 -> MSC = 3*(121+4+169)/81/2 = 49/9; total SS 176/9, so SSE = 176/9 - 56/9 - 98/9
    = 22/9 and MSE = 22/9/4 = 11/18. ICC(A,1) = (28/9 - 11/18)/(28/9 + 2*11/18 + 3*(49/9 - 11/18)/3)
    = (45/18)/(165/18) = 3/11."""
    assert ag.icc_a1([[1, 2, 4], [2, 2, 5], [3, 5, 5]]) == pytest.approx(3 / 11)
    # 3 targets x 2 raters, a column offset of 1 and row spread: see test_agreement's 8/9
    assert ag.icc_a1([[1, 2], [3, 4], [5, 6]]) == pytest.approx(8 / 9)


def test_icc_is_none_for_tables_it_cannot_rate():
    assert ag.icc_a1([[2, 2], [2, 2]]) is None  # no variance at all: the denominator is 0
    assert ag.icc_a1([[1.0, float("nan")], [2.0, 3.0]]) is None
    assert ag.icc_a1([[1.0, None], [2.0, 3.0]]) is None  # a missing mark
    assert ag.icc_a1([1.0, 2.0, 3.0]) is None and ag.icc_a1([[1.0], [2.0]]) is None


def test_pair_agreement_all_figures_on_marks_one_second_apart():
    """a marks 1, 3, 5 and b 2, 4, 6 on 7 s clips. ICC 8/9 (above). Interval α: Do = 3*2*1/6 = 1, values
    1..6 give De = 2*6*17.5/30 = 7 -> 6/7. Bins (1 s, 7 per clip, 21 per rater): each clip differs in one bin; a has
    6+4+2 = 12 ones, b 5+3+1 = 9. κ: po = 18/21, pe = (12*9 + 9*12)/441 = 216/441 -> (378-216)/(441-216) = .72.
    Nominal α: n = 42, n1 = n0 = 21, o01 = o10 = 3 -> 1 - 41*6/(2*21*21) = 106/147."""
    a, b = {"x": 1.0, "y": 3.0, "z": 5.0}, {"x": 2.0, "y": 4.0, "z": 6.0}
    p = ag.pair_agreement("a", a, "b", b, {"x": 7.0, "y": 7.0, "z": 7.0})
    assert (p.a, p.b, p.deltas.n, p.deltas.mean_abs, p.n_bins, p.bin_s) == ("a", "b", 3, 1.0, 21, 1.0)
    assert p.icc == pytest.approx(8 / 9)
    assert p.alpha_interval == pytest.approx(6 / 7)
    assert p.kappa == pytest.approx(0.72)
    assert p.alpha_nominal == pytest.approx(106 / 147)
    assert p.warnings == ("only 3 pairs (< 10): treat these figures as indicative; intervals are wide",)


def test_pair_agreement_without_a_usable_duration_bins_up_to_the_later_mark():
    # no duration: the clip runs to max(2.3, 3.6) + 1 = 4.6 s -> 5 bins; a 0 0 1 1 1, b 0 0 0 1 1:
    # po = 4/5, pe = (3*2 + 2*3)/25 = 12/25 -> kappa = (20 - 12)/(25 - 12) = 8/13
    for durations in ({}, {"x": None}, {"x": 0.0}, {"x": -3.0}):
        p = ag.pair_agreement("a", {"x": 2.3}, "b", {"x": 3.6}, durations)
        assert p.n_bins == 5 and p.kappa == pytest.approx(8 / 13), durations  # bins per rater
    p = ag.pair_agreement("a", {"x": 3.6}, "b", {"x": 2.3}, {})  # the later mark on a's side
    assert p.n_bins == 5 and p.kappa == pytest.approx(8 / 13)
    # a one-second clip is a real duration: one bin each, both 1 -> kappa undefined
    p = ag.pair_agreement("a", {"x": 0.2}, "b", {"x": 0.7}, {"x": 1.0})
    assert p.n_bins == 1 and p.kappa is None


def test_pair_agreement_on_half_second_bins():
    # bins of .5 s on a 2 s clip: 4 per rater; 1.2 -> bin 2: 0 0 1 1; 1.6 -> bin 3: 0 0 0 1;
    # po = 3/4, pe = (2*1 + 2*3)/16 = 8/16 -> kappa = (12 - 8)/(16 - 8) = .5
    p = ag.pair_agreement("a", {"x": 1.2}, "b", {"x": 1.6}, {"x": 2.0}, bin_s=0.5)
    assert p.n_bins == 4 and p.bin_s == 0.5 and p.kappa == pytest.approx(0.5)


def test_pairs_and_group_alpha_take_keys_of_any_type_and_several_raters():
    # keys 1 and "x" cannot be ordered by value; they are ordered by their text
    p = ag.pair_agreement("a", {1: 1.0, "x": 2.0}, "b", {1: 1.5, "x": 2.5}, {1: 4.0, "x": 4.0})
    assert p.deltas.n == 2 and p.deltas.mean_abs == 0.5 and p.alpha_interval == pytest.approx(0.7)
    assert ag.group_alpha({"a": {1: 1.0, "x": 2.0}, "b": {1: 1.5, "x": 2.5}}) == pytest.approx(0.7)
    assert ag.group_alpha({}) is None and ag.group_alpha({"a": {}, "b": {}}) is None
    marks = {"c": {"y": 3.0}, "a": {"x": 1.0}, "b": {"x": 1.5, "y": 3.5}}
    assert [(q.a, q.b, q.deltas.n) for q in ag.all_pairs(marks, {})] == [("a", "b", 1), ("b", "c", 1)]


def test_prefix_agreement_three_verifiers_one_missing_hand_worked():
    """Shared intervals I1 (a, b, c clear), I2 (a satisfied, b clear, c absent), I3 (all satisfied); I4 only a.
    Coincidences: I1 gives o00 = 6 pairs * 1/2 = 3, I2 o01 = o10 = 1, I3 o11 = 3; n = 8, n0 = n1 = 4;
    nominal α = 1 - 7*2/(2*4*4) = 18/32. Agreement 2 of 3; Wilson 2/3 = (.2077, .9385)."""
    v = {("b", 0.0, 1.0): {"a": True, "b": True, "c": True},
         ("a", 1.0, 2.0): {"a": True, "b": False},
         ("a", 0.0, 1.0): {"a": False, "b": False, "c": False},
         ("a", 2.0, 3.0): {"a": False}}
    st = ag.prefix_agreement(v)
    assert st.rows == [("a", 0.0, 1.0, {"a": False, "b": False, "c": False}, True),
                       ("a", 1.0, 2.0, {"a": True, "b": False}, False),
                       ("b", 0.0, 1.0, {"a": True, "b": True, "c": True}, True)]
    assert st.n_intervals == 3 and st.agree_share == pytest.approx(2 / 3)
    assert st.agree_ci == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert st.alpha == pytest.approx(18 / 32)
    assert st.warnings == ("only 3 shared intervals (< 10): treat these figures as indicative; intervals are wide",)


def test_prefix_agreement_empty_and_at_the_minimum():
    empty = ag.prefix_agreement({("x", 0.0, 1.0): {"a": True}})
    assert empty == ag.PrefixStats(0, None, None, None, [], ("no shared intervals yet",))
    assert ag.prefix_agreement({}).n_intervals == 0
    ten = {("x", float(s), float(s + 1)): {"a": s == 3, "b": False} for s in range(10)}
    st = ag.prefix_agreement(ten)
    assert st.n_intervals == 10 and st.agree_share == 0.9 and st.warnings == ()
    assert [r[1] for r in st.rows] == [float(s) for s in range(10)]
    assert st.alpha == pytest.approx(0.0)  # n = 20, n1 = 1, o01 = o10 = 1: 1 - 19*2/(2*19*1) = 0


def test_prefix_rows_are_ordered_by_item_then_start_even_for_a_verdict_off_the_plan():
    # the report keys a verdict whose start no longer begins an interval (the item was edited after the walk)
    # as (item, start, start): 2.5 ends at 2.5, before 2.0's end 3.0, but it starts later
    st = ag.prefix_agreement({("x", 2.5, 2.5): {"a": True, "b": True}, ("x", 2.0, 3.0): {"a": False, "b": False}})
    assert [(r[1], r[2]) for r in st.rows] == [(2.0, 3.0), (2.5, 2.5)]
