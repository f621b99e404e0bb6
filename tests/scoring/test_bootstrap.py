"""Bootstrap intervals: deterministic per seed, contain the point estimate, and point estimates that equal
the scorers' own tables (so the intervals are around the numbers the papers report)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from scoring import interactscope as isc
from scoring import proactivebench as pb
from scoring.bootstrap import (bootstrap_ci, item_stats, paired_difference, rank_stability, ratio,
                               resample_counts)
from scoring.interactionbench import IBConfig, score as ib_score
from tests.conftest import golden_dir

MEAN = ratio(0, 1, 1.0)


def _mean_stats(values):
    v = np.asarray(values, dtype=float)
    return np.stack([v, np.ones_like(v)], axis=1)


def test_deterministic_for_a_seed_and_seed_matters():
    stats = _mean_stats(np.random.default_rng(1).normal(50, 20, size=40))
    a = bootstrap_ci(stats, MEAN, n_resamples=500, seed=7)
    b = bootstrap_ci(stats, MEAN, n_resamples=500, seed=7)
    c = bootstrap_ci(stats, MEAN, n_resamples=500, seed=8)
    assert a == b
    assert (a.low, a.high) != (c.low, c.high)
    assert a.n_resamples == 500 and a.n_items == 40


@pytest.mark.parametrize("seed", range(8))
def test_interval_contains_point(seed):
    rng = np.random.default_rng(100 + seed)
    values = rng.choice([0.0, 100.0], size=int(rng.integers(5, 60)), p=[0.4, 0.6])
    iv = bootstrap_ci(_mean_stats(values), MEAN, n_resamples=400, seed=seed)
    assert iv.point == pytest.approx(values.mean())
    assert iv.low <= iv.point <= iv.high
    assert iv.low < iv.high or values.min() == values.max()


def test_resample_counts_respect_strata():
    strata = ["a"] * 3 + ["b"] * 5
    counts = resample_counts(8, 50, seed=3, strata=strata)
    assert counts.shape == (50, 8)
    assert np.all(counts[:, :3].sum(axis=1) == 3) and np.all(counts[:, 3:].sum(axis=1) == 5)
    with pytest.raises(ValueError):
        resample_counts(8, 0)


def test_paired_difference():
    rng = np.random.default_rng(5)
    h = _mean_stats(rng.normal(70, 5, size=30))
    m = _mean_stats(rng.normal(40, 5, size=30))
    d = paired_difference(h, MEAN, m, MEAN, n_resamples=300, seed=1)
    assert d.point == pytest.approx(h[:, 0].mean() - m[:, 0].mean())
    assert 0 < d.low <= d.point <= d.high
    same = paired_difference(h, MEAN, h, MEAN, n_resamples=100, seed=1)
    assert same.point == 0 and same.low == 0 and same.high == 0
    with pytest.raises(ValueError):
        paired_difference(h, MEAN, m[:5], MEAN)


def test_rank_stability():
    rng = np.random.default_rng(9)
    good, bad = _mean_stats(rng.normal(90, 2, 25)), _mean_stats(rng.normal(10, 2, 25))
    close1, close2 = _mean_stats(rng.normal(50, 30, 25)), _mean_stats(rng.normal(50, 30, 25))
    rs = rank_stability([bad, good, close1, close2], [MEAN] * 4, ["bad", "good", "c1", "c2"], n_resamples=300, seed=2)
    by = {r.name: r for r in rs}
    assert by["good"].point_rank == 1 and by["good"].p_same_rank == 1.0 and by["good"].p_best == 1.0
    assert by["bad"].point_rank == 4 and by["bad"].p_same_rank == 1.0
    assert by["c1"].p_same_rank < 1.0 and {by["c1"].point_rank, by["c2"].point_rank} == {2, 3}
    assert rs == rank_stability([bad, good, close1, close2], [MEAN] * 4, ["bad", "good", "c1", "c2"],
                                n_resamples=300, seed=2)


def _cases(b):
    return json.loads((golden_dir() / b / "cases.json").read_text(encoding="utf-8"))["cases"]


IB = [c for c in _cases("interactionbench") if not c["judge"] and not c["mcq_key"]]


@pytest.mark.parametrize("case", IB, ids=[c["name"] for c in IB])
def test_ib_point_equals_scorer_table(case):
    exp = case["expected"]
    bs = item_stats("interactionbench", exp)
    table = exp["table"]
    for name in bs.table:
        iv = bootstrap_ci(bs.stats, bs.metrics[name], n_resamples=200, seed=0)
        want = table.get(name)
        if want is None:
            assert iv.point is None
        else:
            assert round(iv.point, 1) == pytest.approx(want, abs=0.051), name
            assert iv.low <= iv.point <= iv.high
    # breakdown by capability group = the scorer's by_capability_group total
    for group, key in bs.breakdowns["capability_group"]:
        got = bootstrap_ci(bs.stats, bs.metrics[key], n_resamples=50).point
        want = exp["aggregate"]["by_capability_group"][group].get("total_score")
        assert (got is None and want is None) or round(got, 3) == pytest.approx(want, abs=1e-3)


def test_pb_point_equals_scorer_on_golden_items():
    items, preds = [], {}
    for c in _cases("proactivebench"):
        pairs = []
        if c["level"] == "item":
            pairs = [(c["annotation"], c["prediction"])]
        elif c["level"] == "subtask":
            pairs = [(x["annotation"], x["prediction"]) for x in c["items"]]
        for i, (ann, pred) in enumerate(pairs):
            iid = f"{c['id']}-{i}"
            items.append({"item_id": iid, "subtask": c["subtask"], **ann})
            preds[iid] = pred
    report = pb.score(items, preds)
    bs = item_stats("proactivebench", report)
    assert set(bs.strata) == set(pb.SUBTASKS)
    for name in bs.table:
        iv = bootstrap_ci(bs.stats, bs.metrics[name], n_resamples=300, seed=4, strata=bs.strata)
        assert iv.point == pytest.approx(report["aggregate"]["AVG" if name == "AVG" else
                                                             ("S_ES" if name == "ES" else name)], abs=1e-9)
        assert iv.low <= iv.point + 1e-9 and iv.point <= iv.high + 1e-9


def test_is_point_equals_scorer_on_golden_interactions():
    inters, preds = [], {}
    for c in _cases("interactscope"):
        group = ([c["interaction"]] if c["level"] == "target" else c.get("interactions") or [])
        for i, x in enumerate(group):
            iid = f"{c['id']}-{i}"
            inters.append({"interaction_id": iid, **{k: v for k, v in x.items() if k != "responses"}})
            preds[iid] = {"interaction_id": iid, "responses": x.get("responses", [])}
    report = isc.score(inters, preds, isc.ISConfig(allow_partial=True))
    bs = item_stats("interactscope", report)
    for name in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"):
        want = report["aggregate"]["T8_recall"] if name == "T8" else report["aggregate"][name]
        got = bootstrap_ci(bs.stats, bs.metrics[name], n_resamples=100, strata=bs.strata).point
        assert (got is None and want is None) or got == pytest.approx(want), name


@pytest.mark.parametrize("case", _cases("omniinteract"), ids=lambda c: c["case_id"])
def test_oi_all_equals_reference(case):
    exp = case["expected"]
    bs = item_stats("omniinteract", exp)
    want = exp["summary"]["paper_metrics"]["exp_f1"]["all_global"]
    iv = bootstrap_ci(bs.stats, bs.metrics["All"], n_resamples=100, seed=0)
    if not bs.item_ids:
        assert iv.point is None
        return
    assert iv.point == pytest.approx(100 * want["IA_QTF1"], abs=1e-6)
    assert iv.low - 1e-9 <= iv.point <= iv.high + 1e-9
