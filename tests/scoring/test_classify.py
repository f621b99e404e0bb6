"""Compare's labels (scoring.classify, the unit Compare's lanes read) count what the scorer's golden outputs count,
on every golden case of every benchmark, judge failures included: the expected numbers are the golden records'
and slots', never recomputed by the code under test."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from annotation.interactionbench import rules as ib_rules
from annotation.model import Item, Request, Stream
from scoring.classify import classify
from scoring.interactionbench.scorer import IBConfig, index_predictions, score as ib_score
from scoring.judges.stored import build_stored_judge
from scoring.omniinteract import OIConfig, evaluate as oi_evaluate
from scoring.omniinteract.replay import ReplayTransport
from scoring.proactivebench import scorer as pb
from scoring.interactscope import scorer as isc
from tests.conftest import golden_dir
from tests.golden_cases import case_id, ib_rows, load_cases, write_ib_case, write_oi_case

IB = load_cases("interactionbench")
OI = load_cases("omniinteract")


def _cases(bench: str) -> list[dict]:
    path = golden_dir() / bench / "cases.json"
    if not path.exists():
        raise FileNotFoundError(f"golden file {path} is missing; set IBENCH_GOLDEN_DIR")
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


PB = _cases("proactivebench")
IS = _cases("interactscope")


def _item(benchmark: str, item_id: str, native=None) -> Item:
    return Item(id=item_id, benchmark=benchmark, kind="", stream=Stream(id=item_id, video_path=None),
                request=Request(""), targets=(), native=native)


# ---------------------------------------------------------------- InteractionBench

def _ib_labels(case: dict, tmp_path) -> tuple[dict, dict[str, Counter]]:
    """The golden records by item id, and per item of the case the labels Compare draws from the scorer's
    report (the case's settings and judge)."""
    paths = write_ib_case(case, tmp_path)
    judge = build_stored_judge(paths["judge_spec"], **paths["judge_args"]) if paths["judge_spec"] else None
    cfg = IBConfig.from_dict(case["config"])
    rows = ib_rows(case)
    report = ib_score(rows, case["preds"], cfg, judge, case["mcq_key"], verdicts=True)
    ids = {ib_rules.item_id(r) for r in rows}
    lines = index_predictions(case["preds"], ids, cfg.fixed)
    labels = {iid: Counter(v.label for v in classify("interactionbench", _item("interactionbench", iid),
                                                     lines.get(iid), report))
              for iid in ids}
    return {rec["item_id"]: rec for rec in case["expected"]["records"]}, labels


@pytest.mark.parametrize("case", [c for _, c in IB], ids=[case_id(s, c) for s, c in IB])
def test_ib_labels_count_what_the_golden_records_count(case, tmp_path):
    records, labels = _ib_labels(case, tmp_path)
    assert set(records) <= set(labels)
    for iid, n in labels.items():
        rec = records.get(iid)
        if rec is None:  # not scored (invalid, outside the split, skipped): nothing is counted
            assert set(n) <= {"unscored"}, (iid, n)
            continue
        got = {k: n[k] for k in ("matched", "premature", "redundant", "spurious")}
        want = {"matched": rec.get("n_matched", 0), "premature": rec["v_premature"],
                "redundant": rec["v_redundant"], "spurious": rec["v_spurious"]}
        assert got == want, (iid, dict(n), rec)
        if rec.get("n_resp") is not None:
            assert sum(got.values()) == rec["n_resp"], (iid, dict(n), rec)


def test_ib_golden_cases_exercise_every_label(tmp_path):
    """The golden set gives every timing label at least once (so the test above can fail on each)."""
    seen: Counter = Counter()
    for i, (_, case) in enumerate(IB):
        for n in _ib_labels(case, tmp_path / str(i))[1].values():
            seen.update(n)
    assert {"matched", "premature", "redundant", "spurious", "unscored"} <= set(seen)


def test_ib_labels_follow_the_record_where_a_recomputation_did_not(tmp_path):
    """fz_random_100011 (content gate on, threshold 1.0): the record of s100011v2#1 counts 4 redundant emissions
    and no spurious one, where the former second implementation of the matching counted 5 spurious."""
    case = next(c for _, c in IB if c["name"] == "fz_random_100011")
    records, labels = _ib_labels(case, tmp_path)
    rec, n = records["s100011v2#1"], labels["s100011v2#1"]
    assert (rec["v_redundant"], rec["v_spurious"]) == (4, 0)
    assert (n["redundant"], n["spurious"]) == (4, 0)


# ---------------------------------------------------------------- OmniInteract

def _oi_expected(sample: dict, transcript: dict) -> tuple[Counter, dict]:
    """Labels per golden sample: each chunk's phases in the recorded slots, the recorded unmatched chunks, and on
    a judge-failed sample the transcript's other chunks (their slots were never scored); chunk id -> slot id."""
    phases: dict = {}
    slot_of = {}
    for s in sample["slots"]:
        for stage in ("early", "core"):
            for p in s[f"{stage}_chunks"]:
                cid = p.get("source_chunk_id", p["chunk_id"])
                phases.setdefault(cid, set()).add(stage)
                slot_of[cid] = str(s["slot_id"])
    want = Counter("early+core" if p == {"early", "core"} else next(iter(p)) for p in phases.values())
    want["unmatched"] = len(sample["unmatched_chunks"])
    if sample["status"] == "failed":  # the transcript's chunks: objects with a [start, end] timestamp
        chunks = [c for c in transcript["chunks"] if isinstance(c, dict) and len(c.get("timestamp") or ()) == 2]
        want["judge_failed"] = len(chunks) - len(phases) - len(sample["unmatched_chunks"])
    return +want, slot_of


def _model_json(case: dict, sample_id: str) -> str:
    """The transcript the golden run read for a sample (a judge-failed sample names it on its passthrough row)."""
    return next(s["model_json"] for s in case["expected"]["samples"] if s["sample_id"] == sample_id and s["model_json"])


@pytest.mark.parametrize("case", [c for _, c in OI], ids=[case_id(s, c) for s, c in OI])
def test_oi_labels_count_what_the_golden_slots_record(case, tmp_path):
    write_oi_case(case, tmp_path)
    result = oi_evaluate(tmp_path, tmp_path / "outputs" / "synth", ReplayTransport(case["judge_verdicts"]),
                         OIConfig.from_cli_args(case.get("cli_extra_args") or []))
    checked = 0
    for sample in case["expected"]["samples"]:
        if sample["item_kind"] != "summarized":
            continue
        transcript = case["model_outputs"][_model_json(case, sample["sample_id"])]
        verdicts = classify("omniinteract", _item("omniinteract", sample["sample_id"]), transcript, result)
        want, slot_of = _oi_expected(sample, transcript)
        assert +Counter(v.label for v in verdicts) == want, sample["sample_id"]
        assert {v.index: v.target for v in verdicts if v.target} == slot_of
        failed = [v for v in verdicts if v.label == "judge_failed"]
        assert all(not v.counted and f"slot {sample['eval_error']['failed_slot_id']}" in v.detail for v in failed)
        checked += 1
    assert checked == sum(s["item_kind"] == "summarized" for s in case["expected"]["samples"])


def test_oi_golden_cases_hold_judge_failures_with_unscored_chunks():
    """The judge-failure cases are in the golden set, and some leave chunks whose slots were never scored."""
    failed = [(c, s) for _, c in OI for s in c["expected"]["samples"]
              if s["item_kind"] == "summarized" and s["status"] == "failed"]
    assert len(failed) >= 11
    assert any(_oi_expected(s, c["model_outputs"][_model_json(c, s["sample_id"])])[0]["judge_failed"]
               for c, s in failed)


# ---------------------------------------------------------------- ProactiveBench

def _pb_pairs(case: dict) -> list[tuple[dict, dict]]:
    if case["level"] == "item":
        return [({"item_id": case["id"], "subtask": case["subtask"], **case["annotation"]},
                 {"item_id": case["id"], **case["prediction"]})]
    return [({"item_id": f"{case['id']}-{i}", "subtask": case["subtask"], **x["annotation"]},
             {"item_id": f"{case['id']}-{i}", **x["prediction"]}) for i, x in enumerate(case["items"])]


@pytest.mark.parametrize("case", [c for c in PB if c["level"] != "benchmark"], ids=lambda c: c["id"])
def test_pb_labels_count_what_the_golden_outcomes_count(case):
    exp = case["expected"]
    pairs = _pb_pairs(case)
    report = pb.score([a for a, _ in pairs], [p for _, p in pairs], pb.PBConfig(allow_partial=True))
    outcomes, hits, clean = [], 0, 0
    for ann, pred in pairs:
        verdicts = classify("proactivebench", _item("proactivebench", ann["item_id"], ann), pred, report)
        counted = [v for v in verdicts if v.counted]
        if case["subtask"] in pb.WINDOW_SUBTASKS:
            assert len(counted) <= 1
            outcomes.append(counted[0].label if counted else "missed")
            if case["level"] == "item":
                assert (counted[0].t + 1 if counted else None) == exp["first_response"]
        elif case["subtask"] == "DC":
            n = sum(v.label == "counted" for v in verdicts)
            assert n == (exp["predicted_count"] if pred.get("predicted_count") is None else 0)
        else:
            hits += len({v.target for v in verdicts if v.label == "hit"})
            clean += len(ann.get("silence_segments") or []) - len({v.target for v in verdicts
                                                                   if v.label == "breaks_silence"})
    if case["level"] == "item" and case["subtask"] in pb.WINDOW_SUBTASKS:
        assert outcomes == [exp["outcome"]]
    if "outcomes" in exp:
        assert outcomes == exp["outcomes"]
    if "hits" in exp:
        assert (hits, clean) == (exp["hits"], exp["clean_segments"])


# ---------------------------------------------------------------- InteractScope

def _is_interactions(case: dict) -> list[dict]:
    if case["level"] == "target":
        return [{"interaction_id": case["id"], **case["interaction"]}]
    return [{"interaction_id": f"{case['id']}-{i}", **x} for i, x in enumerate(case["interactions"])]


@pytest.mark.parametrize("case", [c for c in IS if c["level"] != "benchmark"], ids=lambda c: c["id"])
def test_is_labels_count_what_the_golden_targets_count(case):
    exp = case["expected"]
    truth = exp.get("per_target") or exp.get("recalled")
    inters = _is_interactions(case)
    preds = [{"interaction_id": x["interaction_id"], "responses": x.get("responses", [])} for x in inters]
    report = isc.score([{k: v for k, v in x.items() if k != "responses"} for x in inters], preds,
                       isc.ISConfig(allow_partial=True))
    got = {}
    for inter, pred in zip(inters, preds):
        verdicts = classify("interactscope", _item("interactscope", inter["interaction_id"], inter), pred, report)
        assert len(verdicts) == len(pred["responses"])
        for t in inter["targets"]:
            got[t["id"]] = any((t["id"], "correct") in v.roles for v in verdicts)
            if inter["task"] != "T8":  # first-in-window: at most one response judged per target
                assert sum((t["id"], r) in v.roles for v in verdicts for r in ("correct", "wrong", "unjudged")) <= 1
    assert got == truth


def test_is_a_missing_verdict_is_unjudged_not_wrong():
    """A timely response the judge could not rate is missing data: counted as the config says, labelled apart."""
    inter = {"interaction_id": "i", "task": "T2", "targets": [{"id": "g", "window": [1.0, 3.0], "reference": "x"}]}
    pred = {"interaction_id": "i", "responses": [{"id": "a", "t": 2.0, "text": "x"}, {"id": "b", "t": 0.5}]}
    for cfg, counted in ((isc.ISConfig(), True), (isc.ISConfig(missing_verdict="exclude"), False)):
        report = isc.score([inter], [pred], cfg)
        vs = classify("interactscope", _item("interactscope", "i", inter), pred, report)
        assert [(v.label, v.counted) for v in vs] == [("unjudged", counted), ("early", False)]


# ---------------------------------------------------------------- the dispatch

def test_dispatch_on_demo_items():
    from annotation.loaders import load
    ds = load("interactionbench", None, probe_media=False)
    it = ds.get("ball_counter#0")
    t0 = it.targets[0].anchor
    line = {"video_id": "ball_counter", "item_index": 0,
            "emissions": [{"t": 0.5, "content": "early"}, {"t": t0 + 1, "content": "ball"},
                          {"t": t0 + 2, "content": "again"}]}
    assert [v.label for v in classify("interactionbench", it, line)] == ["premature", "matched", "redundant"]
    ds = load("interactscope", None, probe_media=False)
    it = ds.get("is-t1-timer")
    g = it.targets[0]
    pred = {"interaction_id": it.id, "responses": [
        {"id": "a", "t": g.window[0] + 0.5, "kind": "tool_call", "tool": g.reference}]}
    assert [v.label for v in classify("interactscope", it, pred)] == ["correct"]
    with pytest.raises(ValueError):
        classify("nope", it, pred)
