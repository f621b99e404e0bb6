"""Bootstrap intervals: deterministic per seed, contain the point estimate, and point estimates that equal
the scorers' own tables (so the intervals are around the numbers the papers report)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scoring.interactscope import scorer as isc
from scoring.proactivebench import scorer as pb
from scoring.bootstrap import (bootstrap_ci, item_stats, paired_difference, rank_stability, ratio,
                               resample_counts)
from tests.conftest import golden_dir
from tests.golden_cases import case_id, load_cases

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


def test_no_interval_below_min_n_and_the_reason_is_given():
    stats = _mean_stats([10.0, 20.0, 30.0, 40.0])
    iv = bootstrap_ci(stats, MEAN, n_resamples=100, seed=0)  # default minimum: 5 items
    assert iv.point == 25.0 and iv.low is None and iv.high is None and iv.n_items == 4
    assert iv.reason == "fewer than 5 items" and not iv.has_interval
    assert iv.fmt(1) == "25.0 n=4 (no interval: fewer than 5 items)"
    iv3 = bootstrap_ci(stats, MEAN, n_resamples=100, seed=0, min_n=3)
    assert iv3.has_interval and iv3.reason == "" and iv3.fmt(1).endswith(" n=4") and "[" in iv3.fmt(1)
    assert bootstrap_ci(stats[:0], MEAN).fmt(1) == "– n=0"
    # an item count given for the metric (e.g. one subtask's items) decides, not the rows
    assert bootstrap_ci(_mean_stats(range(10)), MEAN, n_items=2).reason == "fewer than 5 items"
    d = paired_difference(stats, MEAN, stats, MEAN, n_resamples=50)
    assert d.point == 0 and d.low is None and d.reason == "fewer than 5 items"
    ten = _mean_stats(range(10))
    assert paired_difference(ten, MEAN, ten, MEAN, n_resamples=50).has_interval
    sub = paired_difference(ten, MEAN, ten, MEAN, n_resamples=50, n_items=2)  # a subtask with 2 of the 10 items
    assert sub.n_items == 2 and not sub.has_interval and sub.reason == "fewer than 5 items"


def test_scorer_point_is_kept_and_a_metric_that_cannot_reproduce_it_gives_no_interval():
    stats = _mean_stats([0.0, 100.0, 100.0, 0.0, 100.0, 100.0])  # mean 66.666...
    iv = bootstrap_ci(stats, MEAN, n_resamples=200, seed=1, point=66.667)  # the scorer rounds to 3 decimals
    assert iv.point == 66.667 and iv.has_interval and iv.low <= 66.667 <= iv.high
    other = bootstrap_ci(stats, MEAN, n_resamples=200, seed=1, point=50.0)  # other settings, other figure
    assert other.point == 50.0 and not other.has_interval and "does not reproduce" in other.reason
    assert bootstrap_ci(stats, MEAN, point=None).point is None


def test_rank_ties_are_ties():
    a = _mean_stats([100.0, 0.0, 100.0, 0.0, 100.0, 0.0])
    rs = rank_stability([a, a.copy()], [MEAN, MEAN], ["x", "y"], n_resamples=200, seed=0)
    # identical answers: both share rank 1 at the point and in every resample; nobody is best alone
    assert [(r.point_rank, r.rank_label, r.tied_with) for r in rs] == [(1, "1=", ("y",)), (1, "1=", ("x",))]
    assert [(r.p_best, r.p_tied_best, r.p_same_rank) for r in rs] == [(0.0, 1.0, 1.0), (0.0, 1.0, 1.0)]
    # the scorer's figures decide the point ranks
    rs = rank_stability([a, a.copy()], [MEAN, MEAN], ["x", "y"], n_resamples=50, seed=0, points=[50.0, 49.9])
    assert [(r.point_rank, r.tied_with) for r in rs] == [(1, ()), (2, ())]


def _cases(b, name="cases.json"):
    return json.loads((golden_dir() / b / name).read_text(encoding="utf-8"))["cases"]


IB = [c for _, c in load_cases("interactionbench")]
OI = [c for _, c in load_cases("omniinteract")]
IB_IDS = [case_id(s, c) for s, c in load_cases("interactionbench")]
OI_IDS = [case_id(s, c) for s, c in load_cases("omniinteract")]


def _assert_reproduced(iv, want, where):
    """The scorer's (here: the reference's) figure is the point; resampling reproduces it, so the interval
    is there and holds it."""
    if want is None:
        assert iv.point is None, where
        return
    assert iv.point == pytest.approx(want, abs=1e-9), where
    assert iv.reason == "" and iv.low - 1e-9 <= iv.point <= iv.high + 1e-9, (where, iv)


@pytest.mark.parametrize("case", IB, ids=IB_IDS)
def test_ib_resampling_reproduces_the_reference_report(case):
    exp = case["expected"]  # the reference's own report: records, aggregate, table
    bs = item_stats("interactionbench", exp)
    overall = exp["aggregate"]["overall"]
    for name, fld in (("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
                      ("silence_compliance", "silence_compliance")):
        iv = bs.interval(name, n_resamples=100, seed=0, min_n=1)
        _assert_reproduced(iv, overall.get(fld), name)
        assert iv.n_items == sum(1 for r in exp["records"] if r.get(fld) is not None)
        assert (None if iv.point is None else round(iv.point, 1)) == exp["table"][name]
    for dim in ("capability_group", "time_type", "family"):
        for group, key in bs.breakdowns[dim]:
            want = exp["aggregate"][f"by_{dim}"][group].get("total_score")
            _assert_reproduced(bs.interval(key, n_resamples=50, min_n=1), want, key)


def _pb_golden_figures(cases):
    """Each subtask's figure pooled over the golden items, from the golden files' own hand-worked per-item
    expectations (never from the scorer): Acc = 100 * correct / items; S_ES = 100 * sqrt(R * Q) pooled (A.7)."""
    correct, es = {}, [0.0, 0, 0.0, 0]  # hits, alerts, clean segments, segments
    for c in cases:
        e = c["expected"]
        if c["level"] == "item" and c["subtask"] == "ES":
            es = [es[0] + e["hits"], es[1] + e["alerts"], es[2] + e["clean_segments"], es[3] + e["segments"]]
        elif c["level"] == "item":
            correct.setdefault(c["subtask"], []).append(e["correct"])
        elif c["level"] == "subtask" and c["subtask"] == "ES":  # pooled R, Q given; counts from the annotations
            alerts = sum(len(x["annotation"]["alert_seconds"]) for x in c["items"])
            segments = sum(len(x["annotation"]["silence_segments"]) for x in c["items"])
            es = [es[0] + e["responsiveness"] * alerts, es[1] + alerts,
                  es[2] + round(e["restraint"] * segments), es[3] + segments]
        elif c["level"] == "subtask":
            correct.setdefault(c["subtask"], []).extend(o == "in_window" for o in e["outcomes"])
    want = {k: 100.0 * sum(v) / len(v) for k, v in correct.items()}
    want["ES"] = 100.0 * math.sqrt(es[0] / es[1] * es[2] / es[3])
    want["AVG"] = sum(want[k] for k in ("ES", "OR", "WR", "AA", "SS", "DC")) / 6
    return want


def test_pb_point_equals_the_golden_figures():
    """Resampling the scorer's per-item output gives back, as its point, the figures the golden cases' hand-worked
    per-item expectations pool to (e.g. OR: 4 of the 9 golden OR items in window)."""
    items, preds = [], {}
    cases = _cases("proactivebench")
    for c in cases:
        pairs = []
        if c["level"] == "item":
            pairs = [(c["annotation"], c["prediction"])]
        elif c["level"] == "subtask":
            pairs = [(x["annotation"], x["prediction"]) for x in c["items"]]
        for i, (ann, pred) in enumerate(pairs):
            iid = f"{c['id']}-{i}"
            items.append({"item_id": iid, "subtask": c["subtask"], **ann})
            preds[iid] = pred
    want = _pb_golden_figures(cases)
    assert want["OR"] == pytest.approx(100 * 4 / 9)  # pb-or-01..05 (2 in window) + pb-or-06: 2 of its 4
    report = pb.score(items, preds)
    bs = item_stats("proactivebench", report)
    assert set(bs.strata) == set(pb.SUBTASKS)
    for name in bs.table:
        iv = bs.interval(name, n_resamples=300, seed=4, min_n=1)
        _assert_reproduced(iv, want[name], name)
    assert bs.n_for("OR") == sum(1 for it in items if it["subtask"] == "OR") == 9


def _is_golden_figures(cases):
    """Per task the share of golden targets marked correct (T8: recalled), from the golden expectations; Avg over
    T1-T4, T6, T7 (spec B.4)."""
    flags = {}
    for c in cases:
        group = [c["interaction"]] if c["level"] == "target" else c.get("interactions") or []
        marks = c["expected"].get("per_target") or c["expected"].get("recalled") or {}
        for x in group:
            for t in x["targets"]:
                flags.setdefault(x["task"], []).append(marks[t["id"]])
    want = {k: 100.0 * sum(v) / len(v) for k, v in flags.items()}
    want["Avg"] = sum(want[k] for k in ("T1", "T2", "T3", "T4", "T6", "T7")) / 6
    return want


def test_is_point_equals_the_golden_figures():
    inters, preds = [], {}
    cases = [c for c in _cases("interactscope") if c["level"] != "benchmark"]  # is-avg-01 holds task scores only
    for c in cases:
        group = ([c["interaction"]] if c["level"] == "target" else c.get("interactions") or [])
        for i, x in enumerate(group):
            iid = f"{c['id']}-{i}"
            inters.append({"interaction_id": iid, **{k: v for k, v in x.items() if k != "responses"}})
            preds[iid] = {"interaction_id": iid, "responses": x.get("responses", [])}
    want = _is_golden_figures(cases)
    # e.g. T2: is-t2-01 true, -02 false, -03 false, is-misc-02 false -> 25; T8: 1/2 + 1/1 + 7/10 -> 9/13
    assert want["T2"] == 25.0 and want["T8"] == pytest.approx(100 * 9 / 13)
    report = isc.score(inters, preds, isc.ISConfig(allow_partial=True))
    bs = item_stats("interactscope", report)
    for name in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "Avg"):
        _assert_reproduced(bs.interval(name, n_resamples=100, min_n=1), want[name], name)


PAPER = (("Realtime", "realtime"), ("Proactive", "proactive"), ("Nested", "nested"), ("1Q1A", "one_q1a_global"),
         ("1QnA", "one_qna"), ("All", "all_global"))


@pytest.mark.parametrize("case", OI, ids=OI_IDS)
def test_oi_resampling_reproduces_the_reference_summary(case):
    """Judge failures and non-default settings included: the per-sample summaries the reference wrote, summed
    as its aggregate does, give back every paper column, breakdown, IDS and NCCS figure of its summary."""
    exp = case["expected"]
    bs = item_stats("omniinteract", exp)
    assert bs.item_ids == [str(s["sample_id"]) for s in exp["samples"] if s["item_kind"] == "summarized"]
    f1s = exp["summary"]["paper_metrics"]["exp_f1"]
    for name, cat in PAPER:
        iv = bs.interval(name, n_resamples=60, seed=0, min_n=1)
        want = 100 * f1s[cat]["IA_QTF1"] if f1s[cat] else None
        if want is not None and iv.n_items == 0:  # the reference writes 0 for an empty category
            assert iv.point == want == 0.0 and iv.reason == "no items"
            continue
        _assert_reproduced(iv, want, name)
    for g in ("by_scene_type", "by_question_type", "nested_by_role"):
        groups = exp["summary"].get(g) or {}
        assert [k for k, _ in bs.breakdowns.get(g, [])] == sorted(groups)
        for k, key in bs.breakdowns.get(g, []):
            _assert_reproduced(bs.interval(key, n_resamples=30, min_n=1), 100 * groups[k]["IA_QTF1"], key)
    pm = exp["summary"]["paper_metrics"]
    for name, want in (("NOR", 100 * pm["exp_interruption"]["NOR"]), ("PAQ", 100 * pm["exp_interruption"]["PAQ"]),
                       ("CSM-SR", 100 * pm["exp_interruption"]["CSM_SR"]),
                       ("CSM-AS (s)", pm["exp_interruption"]["CSM_AS_seconds"]), ("NCCS", 100 * pm["exp_nested"]["NCCS"])):
        iv = bs.interval(f"IDS|{name}", n_resamples=30, min_n=1)
        assert iv.point == pytest.approx(want, abs=1e-9), name
        if iv.n_items:
            _assert_reproduced(iv, want, name)
