"""Per-response verdicts agree with the scorers' own per-item classification on every golden case."""
from __future__ import annotations

import json
from collections import Counter


import pytest

from scoring.proactivebench import scorer as pb
from scoring.classify import classify
from scoring.interactionbench.classify import classify_interactionbench
from scoring.interactscope.classify import classify_interactscope
from scoring.omniinteract.classify import classify_omniinteract
from scoring.proactivebench.classify import classify_proactivebench
from scoring.interactionbench.scorer import IBConfig, index_predictions
from annotation.interactionbench import rules as ib_rules
from tests.conftest import golden_dir


def _cases(bench: str) -> list[dict]:
    path = golden_dir() / bench / "cases.json"
    if not path.exists():
        raise FileNotFoundError(f"golden file {path} is missing; set IBENCH_GOLDEN_DIR")
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


IB = _cases("interactionbench")
PB = _cases("proactivebench")
IS = _cases("interactscope")
OI = _cases("omniinteract")


@pytest.mark.parametrize("case", IB, ids=[c["name"] for c in IB])
def test_ib_labels_count_like_scorer(case):
    cfg = IBConfig.from_dict(case["config"])
    rows = {ib_rules.item_id(r): r for r in case["items"]}
    lines = index_predictions(case["preds"], set(rows))
    checked = 0
    for rec in case["expected"]["records"]:
        iid = rec["item_id"]
        verdicts = classify_interactionbench(rows[iid], lines.get(iid), cfg)
        n = Counter(v.label for v in verdicts)
        assert n["premature"] == rec.get("v_premature", 0), (iid, n, rec)
        assert n["redundant"] == rec.get("v_redundant", 0), (iid, n, rec)
        assert n["spurious"] == rec.get("v_spurious", 0), (iid, n, rec)
        if "n_matched" in rec:
            assert n["matched"] == rec["n_matched"], (iid, n, rec)
            delays = [v.delay for v in verdicts if v.label == "matched"]
            if rec.get("delay_mean_s") is not None:
                assert round(sum(delays) / len(delays), 2) == pytest.approx(rec["delay_mean_s"], abs=0.011)
            if rec.get("n_resp") is not None:
                assert len(verdicts) == rec["n_resp"]
        checked += 1
    assert checked == len(case["expected"]["records"])


def test_ib_labels_cover_all_kinds():
    """The golden set exercises every IB label at least once (so the parity test above can fail)."""
    seen = Counter()
    for case in IB:
        cfg = IBConfig.from_dict(case["config"])
        rows = {ib_rules.item_id(r): r for r in case["items"]}
        lines = index_predictions(case["preds"], set(rows))
        for rec in case["expected"]["records"]:
            seen.update(v.label for v in classify_interactionbench(rows[rec["item_id"]], lines.get(rec["item_id"]), cfg))
    assert {"matched", "premature", "redundant", "spurious"} <= set(seen)


def _pb_pairs(case):
    if case["level"] == "item":
        ann = {"item_id": case["id"], "subtask": case["subtask"], **case["annotation"]}
        return [(ann, case["prediction"])]
    if case["level"] == "subtask":
        return [({"item_id": f"{case['id']}-{i}", "subtask": case["subtask"], **x["annotation"]}, x["prediction"])
                for i, x in enumerate(case["items"])]
    return []


@pytest.mark.parametrize("case", [c for c in PB if c["level"] != "benchmark"], ids=lambda c: c["id"])
def test_pb_labels_match_outcomes(case):
    exp = case["expected"]
    outcomes = []
    hits = alerts = clean = segs = 0
    for ann, pred in _pb_pairs(case):
        verdicts = classify_proactivebench(ann, pred)
        counted = [v for v in verdicts if v.counted]
        if case["subtask"] in pb.WINDOW_SUBTASKS:
            assert len(counted) <= 1
            outcome = counted[0].label if counted else "missed"
            outcomes.append(outcome)
            if case["level"] == "item":
                assert outcome == exp["outcome"]
                first = counted[0].t + 1 if counted else None
                assert first == exp["first_response"]
                assert all(v.label in ("ignored", "excluded") for v in verdicts if not v.counted)
        elif case["subtask"] == "DC":
            n = sum(1 for v in verdicts if v.label == "counted")
            if pred.get("predicted_count") is None:
                assert n == exp["predicted_count"]
            else:
                assert n == 0 and all(v.label in ("response", "excluded") for v in verdicts)
        else:
            a = {int(v.target.split()[1]) for v in verdicts if v.label == "hit"}
            broken = {v.target for v in verdicts if v.label == "breaks_silence"}
            n_seg = len(ann.get("silence_segments") or [])
            hits += len(a)
            alerts += len(ann.get("alert_seconds") or [])
            segs += n_seg
            clean += n_seg - len(broken)
    if case["subtask"] == "ES":
        if "hits" in exp:
            assert (hits, clean) == (exp["hits"], exp["clean_segments"])
        assert hits / alerts == pytest.approx(exp["responsiveness"], abs=1e-3)
        assert clean / segs == pytest.approx(exp["restraint"], abs=1e-3)
    if "outcomes" in exp:
        assert outcomes == exp["outcomes"]


def _is_interactions(case):
    if case["level"] in ("target",):
        return [{"interaction_id": case["id"], **case["interaction"]}]
    if case["level"] in ("task", "t8"):
        return [{"interaction_id": f"{case['id']}-{i}", **x} for i, x in enumerate(case["interactions"])]
    return []


@pytest.mark.parametrize("case", [c for c in IS if c["level"] != "benchmark"], ids=lambda c: c["id"])
def test_is_labels_match_targets(case):
    exp = case["expected"]
    truth = exp.get("per_target") or exp.get("recalled")
    got = {}
    for inter in _is_interactions(case):
        pred = {"interaction_id": inter["interaction_id"], "responses": inter.get("responses", [])}
        verdicts = classify_interactscope(inter, pred)
        assert len(verdicts) == len(pred["responses"])
        for t in inter["targets"]:
            got[t["id"]] = any((t["id"], "correct") in v.roles for v in verdicts)
            # the first-in-window rule: at most one response is judged for a T1-T7 target
            if inter["task"] != "T8":
                assert sum(1 for v in verdicts for tid, role in v.roles
                           if tid == t["id"] and role in ("correct", "wrong")) <= 1
    assert got == truth


def _oi_expected(sample):
    slot_of, phases = {}, {}
    for s in sample["slots"]:
        for stage in ("early", "core"):
            for p in s[f"{stage}_chunks"]:
                cid = p.get("source_chunk_id", p["chunk_id"])
                slot_of[cid] = str(s["slot_id"])
                phases.setdefault(cid, set()).add(stage)
    for c in sample["unmatched_chunks"]:
        phases[c["chunk_id"]] = {"unmatched"}
    return slot_of, phases


@pytest.mark.parametrize("case", OI, ids=[c["case_id"] for c in OI])
def test_oi_labels_match_slots(case):
    tail = 60.0
    for i, arg in enumerate(case["cli_extra_args"]):
        if arg == "--last_slot_tail_sec":
            tail = float(case["cli_extra_args"][i + 1])
    n = 0
    for sample in case["expected"]["samples"]:
        if sample["item_kind"] != "summarized":
            continue
        gt = case["annotations"][sample["gt_json"]]
        tr = case["model_outputs"][sample["model_json"]]
        verdicts = classify_omniinteract(gt, sample["scene_type"], tr, tail)
        slot_of, phases = _oi_expected(sample)
        ours = {v.index: set(v.label.split("+")) for v in verdicts}
        assert ours == phases, sample["sample_id"]
        assert {v.index: v.target for v in verdicts if v.target} == slot_of
        assert all(0.0 <= v.credit <= 1.0 for v in verdicts)
        n += 1
    assert n or not any(s["item_kind"] == "summarized" for s in case["expected"]["samples"])


def test_dispatch_on_demo_items():
    from annotation.loaders import load
    ds = load("interactionbench", None, probe_media=False)
    it = ds.get("ball_counter#0")
    t0 = it.targets[0].anchor
    line = {"video_id": "ball_counter", "item_index": 0,
            "emissions": [{"t": 0.5, "content": "early"}, {"t": t0 + 1, "content": "ball"},
                          {"t": t0 + 2, "content": "again"}]}
    labels = [v.label for v in classify("interactionbench", it, line)]
    assert labels == ["premature", "matched", "redundant"]
    ds = load("interactscope", None, probe_media=False)
    it = ds.get("is-t1-timer")
    g = it.targets[0]
    pred = {"interaction_id": it.id, "responses": [
        {"id": "a", "t": g.window[0] + 0.5, "kind": "tool_call", "tool": g.reference}]}
    assert [v.label for v in classify("interactscope", it, pred)] == ["correct"]
    with pytest.raises(ValueError):
        classify("nope", it, pred)
