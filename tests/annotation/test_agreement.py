"""Agreement statistics on hand-worked examples (the arithmetic is in the comments)."""
import math

import pytest

from annotation import agreement as ag


def test_delta_stats_hand_worked():
    # |Δ| = 0, 0.5, 1, 3  -> mean 4.5/4 = 1.125; within 0: 1/4, within 1: 3/4, within 2: 3/4
    s = ag.delta_stats([10, 10.5, 9, 13], [10, 10, 10, 10])
    assert s.n == 4
    assert s.mean_abs == pytest.approx(1.125)
    assert (s.within0, s.within1, s.within2) == (0.25, 0.75, 0.75)


def test_delta_stats_empty_and_mismatched():
    assert ag.delta_stats([], []).mean_abs is None
    with pytest.raises(ValueError):
        ag.delta_stats([1.0], [])


def test_second_labels():
    assert ag.second_labels(3.7, 6) == [0, 0, 0, 1, 1, 1]
    assert ag.second_labels(0, 2.5) == [1, 1, 1]


def test_cohen_kappa_hand_worked():
    # po = 3/4; rater a: half 1s, rater b: a quarter 1s -> pe = .5*.25 + .5*.75 = .5; kappa = (.75-.5)/.5 = .5
    assert ag.cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    # complete disagreement with balanced marginals: po = 0, pe = .5 -> kappa = -1
    assert ag.cohen_kappa([1, 0], [0, 1]) == pytest.approx(-1.0)
    assert ag.cohen_kappa([1, 1], [1, 1]) == 1.0  # one category only: defined as 1 when they agree
    assert ag.cohen_kappa([], []) is None


def test_krippendorff_alpha_hand_worked():
    # units (1,1) (1,0) (0,0) (0,0): coincidences o11=2, o10=o01=1, o00=4; n=8, n1=3, n0=5
    # Do = 2/8 = .25; De = 2*3*5 / (8*7) = 30/56; alpha = 1 - .25*56/30 = 16/30
    assert ag.krippendorff_alpha([(1, 1), (1, 0), (0, 0), (0, 0)]) == pytest.approx(16 / 30)


def test_krippendorff_alpha_missing_values_and_three_raters():
    # unit 1 has three raters agreeing (each pair weight 1/(3-1)); unit 2 one value only (dropped);
    # unit 3 (0, 1). o11 = 3 (from 6 ordered pairs * 1/2), o01 = o10 = 1; n = 5, n1 = 4, n0 = 1
    # Do = 2/5; De = 2*4*1/(5*4) = 2/5 -> alpha = 0
    a = ag.krippendorff_alpha([(1, 1, 1), (0, None, None), (0, 1, None)])
    assert a == pytest.approx(0.0)
    assert ag.krippendorff_alpha([(1,), (None, 0)]) is None


def test_pair_agreement_per_second_labels():
    # item x lasts 5 s: marks 2 and 3 -> labels 00111 vs 00011: one disagreement in 5
    # po = .8; pa1 = .6, pb1 = .4 -> pe = .6*.4 + .4*.6 = .48; kappa = .32/.52
    p = ag.pair_agreement("a", {"x": 2.0}, "b", {"x": 3.0}, {"x": 5.0})
    assert p.deltas.n == 1 and p.deltas.mean_abs == 1.0 and p.deltas.within1 == 1.0 and p.deltas.within0 == 0.0
    assert p.kappa == pytest.approx(0.32 / 0.52)
    assert p.n_seconds == 5
    assert not math.isnan(p.alpha)


def test_all_pairs_skips_pairs_without_shared_items():
    marks = {"a": {"x": 1.0}, "b": {"x": 1.0}, "c": {"y": 2.0}}
    pairs = ag.all_pairs(marks, {"x": 4.0, "y": 4.0})
    assert [(p.a, p.b) for p in pairs] == [("a", "b")]
    assert pairs[0].kappa == 1.0
    assert ag.group_alpha(marks, {"x": 4.0, "y": 4.0}) == 1.0
