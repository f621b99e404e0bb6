"""Agreement statistics on hand-worked examples (the arithmetic is in the comments)."""
import pytest

from annotation import agreement as ag


def test_delta_stats_hand_worked():
    # |Δ| = 0, 0.5, 1, 3, 0.3 -> mean 4.8/5 = 0.96; sorted 0 .3 .5 1 3 -> median .5
    # within .25: {0} 1/5; within .5: {0, .3, .5} 3/5; within 1: 4/5; within 2: 4/5
    s = ag.delta_stats([10, 10.5, 9, 13, 10.3], [10, 10, 10, 10, 10])
    assert s.n == 5
    assert s.mean_abs == pytest.approx(0.96)
    assert s.median_abs == pytest.approx(0.5)
    assert s.within == pytest.approx({0.25: 0.2, 0.5: 0.6, 1.0: 0.8, 2.0: 0.8})


def test_mean_interval_is_a_bootstrap_inside_the_range_and_wilson_interval_hand_worked():
    # |Δ| = nine 0s and one 5: a resample's mean is 5k/10 = k/2 with k ~ Binomial(10, .1) 5s drawn.
    # P(k = 0) = .349 > .025 -> the 2.5 % point is 0 (never below 0, as a t-interval was: "-4.500–5.512");
    # P(k <= 2) = .930 < .975 < P(k <= 3) = .987 -> the 97.5 % point is 3/2 = 1.5
    s = ag.delta_stats([0.0] * 9 + [5.0], [0.0] * 10)
    assert s.mean_abs == pytest.approx(0.5)
    assert s.mean_abs_ci == pytest.approx((0.0, 1.5))
    # every |Δ| equal: every resample's mean is that value
    assert ag.delta_stats([1.5] * 10, [1.0] * 10).mean_abs_ci == pytest.approx((0.5, 0.5))
    # below the minimum n (10 pairs) there is no interval, and the reason says so
    assert ag.delta_stats([1.0, 3.0], [0.0, 0.0]).mean_abs_ci is None
    assert ag.below_min(2) == "n = 2 pairs < 10: not computed" and ag.below_min(10) is None
    # Wilson, 3 of 4, z = 1.96: centre (.75 + 1.96²/8)/(1 + 1.96²/4) = .6275,
    # half 1.96/1.9604 * sqrt(.75*.25/4 + 1.96²/64) = .3269 -> (.3006, .9544)
    lo, hi = ag.wilson(3, 4)
    assert lo == pytest.approx(0.3006, abs=1e-3) and hi == pytest.approx(0.9544, abs=1e-3)


def test_marks_in_different_bins_hand_worked_table():
    # ten events on 4 s clips; a marks 1.9 s everywhere, b 2.1 s on five events and 1.8 s on five:
    # |Δ| = .2 five times and .1 five times -> mean .15, median (.1 + .2)/2 = .15, all within .25 s.
    # 1 s bins: a labels every clip 0 1 1 1 (bin 1 holds 1.9); b 0 0 1 1 on the 2.1 s events, 0 1 1 1 on the
    # others. 40 bins: 35 agree; a has 30 ones of 40, b 25 -> po = 35/40, pe = (30*25 + 10*15)/1600 = 900/1600;
    # kappa = (.875 - .5625)/(1 - .5625) = 5/7 although every pair is within a quarter second
    a = {k: 1.9 for k in range(10)}
    b = {k: (2.1 if k < 5 else 1.8) for k in range(10)}
    p = ag.pair_agreement("a", a, "b", b, {k: 4.0 for k in range(10)})
    assert p.deltas.n == 10 and ag.below_min(p.deltas.n) is None
    assert p.deltas.mean_abs == pytest.approx(0.15) and p.deltas.median_abs == pytest.approx(0.15)
    assert p.deltas.within[0.25] == 1.0 and p.n_bins == 40
    assert p.kappa == pytest.approx(5 / 7)
    lo, hi = p.deltas.mean_abs_ci
    assert 0.1 <= lo <= 0.15 <= hi <= 0.2  # inside [min |Δ|, max |Δ|]


def test_one_pair_has_no_interval_and_warns():
    p = ag.pair_agreement("a", {"x": 7.29}, "b", {"x": 8.0}, {"x": 10.0})
    assert p.deltas.n == 1 and p.deltas.mean_abs_ci is None
    assert p.warnings and "only 1" in p.warnings[0]
    assert p.icc is None  # ICC needs two targets at least


def test_bins_hide_sub_second_differences_but_timing_figures_do_not():
    # the case: marks 0.44 s apart inside one 1 s bin get kappa on 1 s bins... undefined/perfect,
    # while the timing figures say 0.44 s and nothing within 0.25 s
    p = ag.pair_agreement("a", {"x": 8.0, "y": 3.1}, "b", {"x": 8.44, "y": 3.54}, {"x": 10.0, "y": 10.0})
    assert p.bin_s == 1.0 and p.n_bins == 20
    assert p.kappa == pytest.approx(1.0)  # every 1 s bin agrees: 8.0 and 8.44 share bin 8, 3.1 and 3.54 bin 3
    assert p.deltas.mean_abs == pytest.approx(0.44)
    assert p.deltas.within[0.25] == 0.0 and p.deltas.within[0.5] == 1.0


def test_bin_labels():
    assert ag.bin_labels(3.7, 6) == [0, 0, 0, 1, 1, 1]
    assert ag.bin_labels(0, 2.5) == [1, 1, 1]
    assert ag.bin_labels(1.2, 2.0, bin_s=0.5) == [0, 0, 1, 1]


def test_cohen_kappa_hand_worked():
    # po = 3/4; rater a: half 1s, rater b: a quarter 1s -> pe = .5*.25 + .5*.75 = .5; kappa = (.75-.5)/.5 = .5
    assert ag.cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    assert ag.cohen_kappa([1, 0], [0, 1]) == pytest.approx(-1.0)
    assert ag.cohen_kappa([1, 1], [1, 1]) is None  # one category only: chance agreement 1, kappa undefined
    assert ag.cohen_kappa([], []) is None


def test_krippendorff_nominal_hand_worked():
    # units (1,1) (1,0) (0,0) (0,0): o11=2, o10=o01=1, o00=4; n=8, n1=3, n0=5
    # Do = 2/8; De = 2*3*5/(8*7) = 30/56; alpha = 1 - .25*56/30 = 16/30
    assert ag.krippendorff_alpha([[1, 1, 0, 0], [1, 0, 0, 0]]) == pytest.approx(16 / 30)
    assert ag.krippendorff_alpha([[1, None], [None, 0]]) is None  # nothing pairable
    assert ag.krippendorff_alpha([[1, 1], [1, 1]]) is None  # one value only: undefined


def test_krippendorff_interval_hand_worked():
    # units (1, 1.5) and (2, 2.5): Do = (4 * .25)/4 = .25; values 1, 1.5, 2, 2.5 once each:
    # De = 2 * (.25 + 1 + 2.25 + .25 + 1 + .25)/(4*3) = 10/12 -> alpha = 1 - .25/(10/12) = .7
    assert ag.krippendorff_alpha([[1.0, 2.0], [1.5, 2.5]], "interval") == pytest.approx(0.7)


def test_icc_a1_hand_worked():
    # targets x raters [[1,2],[3,4],[5,6]]: grand 3.5; MSR = 2*(4+0+4)/2 = 8; MSC = 3*(.25+.25)/1 = 1.5;
    # residuals all 0 -> MSE 0; ICC(A,1) = 8 / (8 + 0 + 2*(1.5-0)/3) = 8/9
    assert ag.icc_a1([[1, 2], [3, 4], [5, 6]]) == pytest.approx(8 / 9)
    assert ag.icc_a1([[1, 1], [2, 2]]) == pytest.approx(1.0)
    assert ag.icc_a1([[1, 2]]) is None


def test_prefix_agreement_per_interval_hand_worked():
    # interval 0-1 both clear, 1-2 a says satisfied b clear, 2-3 only a (not shared)
    # a = [0, 1], b = [0, 0]: o00 = 2, o01 = o10 = 1; n = 4, n0 = 3, n1 = 1; Do = 2/4, De = 2*3/(4*3) -> alpha 0
    st = ag.prefix_agreement({("x", 0.0, 1.0): {"a": False, "b": False}, ("x", 1.0, 2.0): {"a": True, "b": False},
                              ("x", 2.0, 3.0): {"a": False}})
    assert st.n_intervals == 2 and st.agree_share == 0.5
    assert [r[4] for r in st.rows] == [True, False] and st.rows[1][3] == {"a": True, "b": False}
    assert st.alpha == pytest.approx(0.0)
    assert st.warnings


def test_all_pairs_skips_pairs_without_shared_items_and_group_alpha():
    marks = {"a": {"x": 1.0, "y": 2.0}, "b": {"x": 1.5, "y": 2.5}, "c": {"z": 2.0}}
    pairs = ag.all_pairs(marks, {"x": 4.0, "y": 4.0, "z": 4.0})
    assert [(p.a, p.b) for p in pairs] == [("a", "b")]
    assert pairs[0].alpha_interval == pytest.approx(0.7)
    assert ag.group_alpha(marks) == pytest.approx(0.7)  # c's lone mark is not pairable
