"""Unit tests of the InteractionBench scorer's reference quirks (spec §9), the human-reference
infinite-tolerance mode, the exact-mean arithmetic, MCQ matching, stored-verdict judges and options."""
import json
import math
import random
import statistics

import pytest

from scoring.interactionbench.aggregate import aggregate, summarize
from scoring.interactionbench.timing import decision_timing, merge_events
from scoring.interactionbench.scorer import IBConfig, evaluate, format_table, score
from scoring.judges.base import JudgeUnavailable
from scoring.judges.stored import (CachedVerdictJudge, EnsembleJudge, MissingVerdict, build_stored_judge,
                                   verdict_key)
from scoring.interactionbench.lexical import content_score, extract_number, normalize, token_f1
from scoring.interactionbench.mcq import MCQScorer, key_from_row, match_option
from scoring.interactionbench.refmath import exact_mean, exact_mean_big, hmean, mean_round3, total_of


def item(vid="v", idx=0, cap="PTR", tt="B", answers=(), q=0.0, dur=60.0, **kw):
    row = {"video_id": vid, "item_index": idx, "domain": "d", "duration_s": dur, "capability": cap,
           "time_type": tt, "interaction_type": "QA" if tt == "A" else "INS", "range_length": "0-1min",
           "sub_tag": None, "is_negative": False, "auto_number": False, "question": "Q?",
           "question_time_s": q, "answers": [{"time_s": t, "content": c} for t, c in answers]}
    row.update(kw)
    return row


def pred(vid="v", idx=0, *ems, **kw):
    return {"video_id": vid, "item_index": idx, "emissions": [{"t": t, "content": c} for t, c in ems], **kw}


def one(rows, preds, **kw):
    return score(rows, preds, **kw)


# ---------------------------------------------------------------- spec §9 quirks

def test_a_type_timed_at_question_not_answer_time():
    rows = [item(tt="A", cap="LVM", q=30.0, answers=[(12.0, "green")])]
    rec = one(rows, [pred("v", 0, (12.0, "green"))])["records"][0]
    assert rec["v_premature"] == 1 and rec["answered"] is False and rec["accuracy"] == 0.0
    rec = one(rows, [pred("v", 0, (30.0, "green"))])["records"][0]
    assert rec["timing_accuracy"] == 100.0 and rec["accuracy"] == 100.0


def test_repeating_once_on_one_event_halves_the_total():
    rows = [item(answers=[(10.0, "the door opens")])]
    rec = one(rows, [pred("v", 0, (10.0, "the door opens"), (11.0, "the door opens"))])["records"][0]
    assert rec["silence_compliance"] == 0.0 and rec["timing_score"] == 0.0
    assert rec["accuracy"] == 100.0 and rec["total_score"] == 50.0


def test_silent_positive_item_sc_undefined_total_zero():
    rep = one([item(answers=[(10.0, "x")]), item(idx=1, answers=[(10.0, "x")])], [pred("v", 1, (10.0, "x"))])
    silent = rep["per_item"]["v#0"]
    assert silent["silence_compliance"] is None and silent["total_score"] == 0.0
    assert rep["aggregate"]["overall"]["silence_compliance"] == 100.0  # None drops out of the SC mean
    assert rep["aggregate"]["overall"]["total_score"] == 50.0


def test_segments_report_timing_that_feeds_overall_but_total_is_accuracy():
    rows = [item(cap="LCG", tt="C", answers=[(2.0, "mix the flour"), (10.0, "bake it")], dur=20.0)]
    rec = one(rows, [pred("v", 0, (4.0, "mix the flour"), (10.0, "bake it"))])["records"][0]
    assert rec["family"] == "C_segments" and rec["timing_accuracy"] == 80.0 and rec["total_score"] == 100.0
    ov = one(rows, [pred("v", 0, (4.0, "mix the flour"), (10.0, "bake it"))])["aggregate"]["overall"]
    assert ov["timing_accuracy"] == 80.0 and ov["total_score"] == 100.0


def test_gate_off_any_content_matches_gate_on_rejects():
    rows = [item(answers=[(10.0, "the dog jumps")])]
    preds = [pred("v", 0, (10.0, "wrong"), (11.0, "the dog jumps"))]
    off = one(rows, preds)["records"][0]
    assert off["delay_mean_s"] == 0.0 and off["accuracy"] == 0.0 and off["v_redundant"] == 1
    on = one(rows, preds, config=IBConfig(use_gate=True))["records"][0]
    assert on["v_spurious"] == 1 and on["accuracy"] == 100.0 and on["delay_mean_s"] == 1.0


def test_counting_uses_last_number_of_any_emission():
    rows = [item(cap="CST", tt="C", sub_tag="counting", answers=[(5.0, "1"), (10.0, "2")])]
    rec = one(rows, [pred("v", 0, (5.0, "1"), (10.0, "2"), (12.0, "oops 7"))])["records"][0]
    assert rec["v_redundant"] == 1 and rec["pred_final_count"] == 7.0 and rec["accuracy"] == 0.0
    assert rec["final_count_abs_err"] == 5.0


def test_cjk_gt_exact_matches_any_empty_normalizing_prediction():
    assert content_score("红色", "蓝色") == 1.0
    assert content_score("红色", "蓝色", fixed=True) == 0.0
    assert content_score("红色", "红色", fixed=True) == 1.0
    assert normalize("Café au lait") == "caf au lait"


def test_mcq_letter_quirks():
    key = key_from_row({"item_id": "v#0", "correct_index": 1, "answer_text": "blue cup",
                        "distractors": ["red cup", "green cup"]})
    assert key.options == ("red cup", "blue cup", "green cup")
    assert match_option(key, "It is a blue cup") == 0          # the article 'a' reads as option A
    assert match_option(key, "AB") == 0                        # uppercase neighbour is a separator
    assert match_option(key, "x" * 45 + " B") is None          # beyond the first 40 characters
    assert match_option(key, "(B)") == 1 and match_option(key, "Answer: b") == 1
    assert match_option(key, "blue cup") == 1                  # option F1
    assert match_option(key, "cup") is None                    # F1 tie, no unique containment
    assert match_option(key, "I think blue cup or green cup") is None
    assert match_option(key, "It is a blue cup", fixed=True) == 1
    assert match_option(key, "AB", fixed=True) is None
    assert MCQScorer(key)("q", "gt ignored", "B") == 1.0


def test_missing_line_is_silent_and_duplicates_keep_last():
    rows = [item(answers=[(10.0, "x")]), item(idx=1, answers=[(10.0, "y")])]
    preds = [pred("v", 0, (10.0, "x")), pred("v", 0, (40.0, "x"))]
    rep = one(rows, preds)
    assert rep["records"][0]["delay_mean_s"] == 30.0
    assert rep["records"][1]["n_resp"] == 0 and rep["records"][1]["silence_compliance"] is None
    skipped = one(rows, preds, config=IBConfig(skip_missing=True))
    assert list(skipped["per_item"]) == ["v#0"] and skipped["table"]["n_items"] == 1


def test_messy_prediction_lines():
    rows = [item(answers=[(10.0, "x")])]
    line = {"video_id": "v", "emissions": [{"t": 10, "content": "x"}, {"t": 2, "content": None}]}
    rec = one(rows, [line, pred("ghost", 3, (1.0, "?"))])["records"][0]  # no item_index -> 0; unknown ignored
    assert rec["n_resp"] == 1 and rec["timing_accuracy"] == 100.0 and rec["emissions_per_min"] == 2.0
    with pytest.raises(ValueError, match=r"v#0.*'t'"):
        one(rows, [{"video_id": "v", "item_index": 0, "emissions": [{"content": "x"}]}])


def test_split_selection_and_invalid_items():
    rows = [item(answers=[(10.0, "x")]), item(idx=1, answers=[(None, "x")]), item(idx=2, tt="D", answers=[(1.0, "x")]),
            item(idx=3, answers=[(10.0, "x")])]
    rep = one(rows, [], config=IBConfig(items=("v#1", "v#3", "nope#0")))
    assert list(rep["per_item"]) == ["v#3"]
    assert rep["aggregate"]["config"]["items"] == ["v#1", "v#3", "nope#0"]
    assert list(one(rows, [])["per_item"]) == ["v#0", "v#3"]


def test_negative_family():
    rows = [item(is_negative=True, answers=[(None, "SHOULD_REMAIN_SILENT")]),
            item(idx=1, answers=[(None, "should_remain_silent")])]
    rep = one(rows, [pred("v", 1, (3.0, "a dog"), (4.0, "dog"))])
    assert rep["records"][0]["silence_compliance"] == 100.0 and rep["records"][0]["false_alarm"] is False
    r1 = rep["records"][1]
    assert r1["family"] == "negative" and r1["v_spurious"] == 2 and r1["total_score"] == 0.0
    assert "accuracy" not in r1 and rep["aggregate"]["overall"]["false_alarm_rate"] == 0.5


# ---------------------------------------------------------------- infinite tolerance (human-reference mode)

def test_inf_tolerance_greedy_attribution():
    ems = [(5.0, "early"), (12.0, "b"), (13.0, "c")]
    inf = decision_timing([10.0, 20.0], ems, float("inf"))
    assert inf.match == [0, 1] and inf.delay == [0.0, 0.0]
    assert (inf.v_premature, inf.v_redundant, inf.v_spurious) == (0, 1, 0)
    fin = decision_timing([10.0, 20.0], ems, 1.0)
    assert fin.match == [1, None] and fin.delay == [2.0, None] and (fin.v_premature, fin.v_redundant) == (1, 1)


def test_inf_tolerance_through_score_ignores_gate():
    rows = [item(answers=[(10.0, "first"), (20.0, "second")])]
    preds = [pred("v", 0, (5.0, "zzz"), (12.0, "zzz"), (13.0, "zzz"))]
    rep = one(rows, preds, config=IBConfig(pre_tol=float("inf"), use_gate=True))
    rec = rep["records"][0]
    assert rec["timing_accuracy"] == 100.0 and rec["silence_compliance"] == 50.0 and rec["v_spurious"] == 0
    assert rep["aggregate"]["config"]["pre_tol_s"] == math.inf
    assert IBConfig.from_dict({"pre_tol": "inf"}).pre_tol == math.inf


def test_inf_tolerance_late_emission_keeps_its_delay():
    t = decision_timing([10.0], [(12.5, "x")], float("inf"))
    assert t.delay == [2.5] and t.fields(5.0)["timing_accuracy"] == 50.0


# ---------------------------------------------------------------- arithmetic

def test_exact_mean_is_statistics_mean_bit_for_bit():
    rnd = random.Random(3)
    for _ in range(3000):
        n = rnd.choice([1, 2, 3, 4, 5, 7, 8, 13, 64, 100, 1060])
        pick = rnd.random()
        if pick < 0.4:
            xs = [round(rnd.uniform(0, 100), rnd.choice([1, 2, 3])) for _ in range(n)]
        elif pick < 0.6:
            xs = [rnd.randint(0, 4) for _ in range(n)]
        elif pick < 0.8:
            xs = [rnd.choice([0, 0.1, 0.2, 0.3, 1e-3, 66.7, 33.3, -0.0]) for _ in range(n)]
        else:
            xs = [rnd.uniform(-1e6, 1e6) * 10.0 ** rnd.randint(-30, 30) for _ in range(n)]
        ref = statistics.mean(xs)
        for got in (exact_mean(xs), exact_mean_big(xs)):
            assert got == ref and type(got) is type(ref) and math.copysign(1, got) == math.copysign(1, ref), xs
        if all(type(x) is float for x in xs):
            assert mean_round3(xs, min(xs) >= 0) == round(ref, 3)
    assert exact_mean([0.1, 0.2, 0.3]) == 0.2 and sum([0.1, 0.2, 0.3]) / 3 != 0.2


def test_mean_round3_near_a_rounding_boundary_uses_the_exact_mean():
    for xs in ([0.0005, 0.0005], [0.001, 0.0] * 7, [2.0045] * 3, [1.2345, 1.2345, 1.2346, 1.2344]):
        assert mean_round3(xs, True) == round(statistics.mean(xs), 3)


def test_hmean_and_total():
    assert hmean(50.0, 100.0) == 66.7 and hmean(None, 3.0) == 3.0 and hmean(0.0, 0.0) == 0.0
    assert total_of(100.0, 66.7) == 83.3 and total_of(None, None) == 0.0 and total_of(None, 40.0) == 40.0


def test_aggregate_equals_a_plain_statistics_summary():
    rnd = random.Random(5)
    fields = ("total_score", "accuracy", "silence_compliance", "v_redundant", "delay_mean_s")
    recs = []
    for i in range(400):
        r = {"capability": rnd.choice(["PTR", "LCG", None]), "capability_group": "g", "time_type": rnd.choice("ABC"),
             "interaction_type": "QA", "family": rnd.choice(["B_trigger", "negative"]), "range_length": None,
             "core_realtime": rnd.random() < 0.5, "answered": rnd.random() < 0.3}
        for f in fields:
            if rnd.random() < 0.8:
                r[f] = rnd.randint(0, 3) if f == "v_redundant" else round(rnd.uniform(0, 100), rnd.choice([1, 2, 3]))
        recs.append(r)
    agg = aggregate(recs)
    for block, key in (("overall", None), ("by_capability", "capability"), ("by_core_realtime", "core_realtime")):
        groups = {None: recs} if key is None else {}
        if key:
            for r in recs:
                groups.setdefault(str(r.get(key)), []).append(r)
        for g, rs in groups.items():
            got = agg[block] if key is None else agg[block][g]
            for f in fields:
                vals = [r[f] for r in rs if r.get(f) is not None]
                assert got[f] == round(statistics.mean(vals), 3) and type(got[f]) is type(round(statistics.mean(vals), 3))
            assert got["n_items"] == len(rs)
    assert list(agg["by_capability"]) == sorted(agg["by_capability"]) and "None" in agg["by_capability"]
    assert summarize(recs) == agg["overall"]


# ---------------------------------------------------------------- lexical

def test_lexical_helpers():
    assert extract_number("1,000 then -2.5 and 7") == 7.0 and extract_number("none") is None
    assert token_f1("the red door", "red door") == 1.0 and token_f1("", "x") == 0.0
    assert content_score(None, "  ") == 1.0 and content_score(None, "x") == 0.0
    assert content_score("3 birds", "I saw 3 birds today") == 1.0   # number rule
    assert abs(content_score("3 birds", "I saw 3 cats") - 1 / 3) < 1e-12  # F1 only: a GT word is missing
    assert content_score("", "") == 0.0


# ---------------------------------------------------------------- judges

def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_cached_verdict_judge(tmp_path):
    k = verdict_key("Q", "gt", "pred")
    _write(tmp_path / "a_v2.jsonl", [{"k": k, "s": 0.0}])
    _write(tmp_path / "b_v2.jsonl", [{"k": k, "s": 1.0}])
    j = build_stored_judge(f"cache:{tmp_path}/a_*.jsonl,{tmp_path}/b_*.jsonl")
    assert j("Q", "  gt ", "pred\n") == 1.0                      # stripped; later file overrides
    assert j("Q", "", " ") == 1.0 and j("Q", "gt", "") == 0.0     # trivial verdicts
    assert j("Q", "gt", "other") == 0.0 and j.n_missing == 1
    assert j.name.startswith("cache:") and j.prompt_version == "v2"
    strict = CachedVerdictJudge.from_globs(str(tmp_path / "a_v2.jsonl"), strict=True)
    with pytest.raises(MissingVerdict):
        strict("Q", "gt", "other")
    assert issubclass(MissingVerdict, JudgeUnavailable)
    with pytest.raises(FileNotFoundError):
        build_stored_judge(f"cache:{tmp_path}/nothing*.jsonl")


def test_ensemble_majority_tie_and_no_votes(tmp_path):
    k1, k2, k3 = (verdict_key("Q", "g", p) for p in ("p1", "p2", "p3"))
    _write(tmp_path / "x_v2.jsonl", [{"k": k1, "s": 1}, {"k": k2, "s": 0}])
    _write(tmp_path / "y_v2_part2.jsonl", [{"k": k1, "s": 1}, {"k": k2, "s": 1}])
    _write(tmp_path / "z_v2.jsonl", [{"k": k1, "s": 0}])
    ens = build_stored_judge("ensemble:x,y,z", cache_dir=tmp_path)
    assert isinstance(ens, EnsembleJudge)
    assert ens("Q", "g", "p1") == 1.0     # 2 of 3
    assert ens("Q", "g", "p2") == 0.0     # tie 1-1 -> first judge in slug order (x says 0)
    assert build_stored_judge("ensemble:y,x", cache_dir=tmp_path)("Q", "g", "p2") == 1.0
    assert ens.n_missing == 1 and ens.n_no_vote == 0   # p2: z has no verdict -> a cache miss (reference)
    assert ens("Q", "g", "p3") == 0.0 and ens.n_missing == 2 and ens.n_no_vote == 1


def test_judge_unavailable_is_excluded_and_counted():
    def judge(q, g, p):
        if "down" in p:
            raise JudgeUnavailable("endpoint down")
        return 1.0
    judge.name, judge.prompt_version = "flaky", "v2"
    rows = [item(tt="A", cap="LVM", q=10.0, answers=[(10.0, "x")]), item(idx=1, tt="A", cap="LVM", q=10.0, answers=[(10.0, "x")])]
    rep = one(rows, [pred("v", 0, (10.0, "down now")), pred("v", 1, (10.0, "fine"))], judge=judge)
    assert rep["per_item"]["v#0"]["accuracy"] is None and rep["per_item"]["v#0"]["total_score"] == 100.0
    assert rep["per_item"]["v#1"]["accuracy"] == 100.0
    cfg = rep["aggregate"]["config"]
    assert cfg["judge_unavailable"] == 1 and cfg["judge"] == "flaky" and cfg["judge_prompt"] == "v2"
    assert rep["aggregate"]["overall"]["accuracy"] == 100.0


def test_mcq_key_replaces_judge_and_counting_stays_numeric():
    calls = []
    judge = lambda q, g, p: calls.append(p) or 0.0  # noqa: E731
    rows = [item(tt="A", cap="LVM", q=5.0, answers=[(5.0, "blue cup")]),
            item(idx=1, cap="CST", tt="C", auto_number=True, answers=[(5.0, "2")])]
    key = [{"item_id": "v#0", "correct_index": 0, "answer_text": "blue cup", "distractors": ["red cup"]},
           {"item_id": "v#1", "correct_index": 0, "answer_text": "2", "distractors": ["3"]}]
    rep = one(rows, [pred("v", 0, (5.0, "A")), pred("v", 1, (5.0, "2"))], judge=judge, mcq_key=key)
    assert rep["per_item"]["v#0"]["accuracy"] == 100.0 and rep["records"][0]["mcq"] is True
    assert rep["per_item"]["v#1"]["accuracy"] == 100.0 and calls == []
    assert rep["aggregate"]["config"]["mcq_key"] == "<rows>"


def test_merge_events_and_format_table():
    ev = merge_events([{"time_s": 5, "content": "a"}, {"time_s": 5.0, "content": ""}, {"time_s": 1, "content": "b"},
                       {"time_s": 5, "content": "c"}])
    assert [(e.time, e.ref) for e in ev] == [(1.0, "b"), (5.0, "a; c")]
    rep = one([item(answers=[(10.0, "x")])], [pred("v", 0, (10.0, "x"))])
    text = format_table(rep)
    assert "Overall" in text and "by time type:" in text and "100.0" in text


def test_config_validation():
    """Issue 22: every number the reference computes with is accepted (delta 0 or inf, a negative tolerance or
    threshold); NaN and non-numbers are refused."""
    with pytest.raises(ValueError, match="delta"):
        IBConfig(delta=float("nan"))
    with pytest.raises(ValueError, match="pre_tol"):
        IBConfig(pre_tol="1")
    assert IBConfig(delta=0).delta == 0 and IBConfig(delta=float("inf")).delta == float("inf")
    assert IBConfig(pre_tol=-0.5).pre_tol == -0.5 and IBConfig(gate_thresh=-1.0).gate_thresh == -1.0
    assert IBConfig(items=["a#0"]).items == ("a#0",)


def test_fixed_flag_is_reported_and_defaults_are_reference():
    rows = [item(tt="A", cap="LVM", q=5.0, answers=[(5.0, "红色")])]
    preds = [pred("v", 0, (5.0, "蓝色"))]
    assert one(rows, preds)["per_item"]["v#0"]["accuracy"] == 100.0
    fixed = one(rows, preds, config=IBConfig(fixed=True))
    assert fixed["per_item"]["v#0"]["accuracy"] == 0.0 and fixed["aggregate"]["config"]["fixed"] is True


def test_evaluate_reads_native_layout(tmp_path):
    ann = tmp_path / "data" / "annotations" / "cooking"
    ann.mkdir(parents=True)
    doc = {"video_id": "vid1", "domain": "cooking", "duration_s": 30.0,
           "items": [{k: v for k, v in item(vid="vid1", answers=[(10.0, "boil")]).items()
                      if k not in ("video_id", "item_index", "domain", "duration_s")}]}
    (ann / "vid1.json").write_text(json.dumps(doc), encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps(pred("vid1", 0, (10.5, "boil"))) + "\n\n", encoding="utf-8")
    rep = evaluate(tmp_path / "data", preds)
    assert rep["per_item"]["vid1#0"]["timing_accuracy"] == 90.0 and rep["records"][0]["domain"] == "cooking"
    split = tmp_path / "split.txt"
    split.write_text("nope#0\n\n", encoding="utf-8")
    rep = evaluate(tmp_path / "data", preds, items_path=split)
    assert rep["table"]["n_items"] == 0 and rep["aggregate"]["config"]["items"] == str(split)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        evaluate(tmp_path / "data", bad)


def test_lexical_numbers_equal_within_1e_9():
    """Reference: abs(gn - pn) < 1e-9, so 7.0000000001 is 7, and two infinities (nan difference) are not equal."""
    assert content_score("7 cars", "7.0000000001 cars") == 1.0
    assert content_score("7 cars", "7.00001 cars") < 1.0
    big, other = "9" * 400, "8" * 400  # both float() -> inf; different tokens, so no F1 either
    assert content_score(big, other) == 0.0


def test_prediction_item_index_is_matched_as_written():
    """Reference key: f"{video_id}#{item_index}" (missing -> 0): 1.0 and null match no item; fixed maps 1.0 to 1."""
    rows = [item(idx=k, answers=[(5.0, "The ball appeared.")]) for k in (0, 1)]
    lines = [pred("v", 1, (5.0, "The ball appeared.")), pred("v", 0, (5.0, "The ball appeared."))]
    lines[0]["item_index"] = 1.0
    del lines[1]["item_index"]
    per = one(rows, lines)["per_item"]
    assert per["v#0"]["silence_compliance"] == 100.0 and per["v#1"]["silence_compliance"] is None
    assert one(rows, lines, config=IBConfig(fixed=True))["per_item"]["v#1"]["silence_compliance"] == 100.0
    lines[0]["item_index"] = None
    assert one(rows, lines)["per_item"]["v#1"]["silence_compliance"] is None


def test_trigger_without_a_match_has_no_content_score():
    """Reference: content_score None when no event was matched (accuracy 0.0); the aggregate skips None."""
    rows = [item(idx=k, answers=[(5.0, "The ball appeared.")]) for k in (0, 1)]
    rep = one(rows, [pred("v", 0, (5.0, "The ball appeared."))])
    assert [r["content_score"] for r in rep["records"]] == [100.0, None]
    assert [r["accuracy"] for r in rep["records"]] == [100.0, 0.0]
    assert rep["aggregate"]["overall"]["content_score"] == 100.0 and rep["aggregate"]["overall"]["accuracy"] == 50.0
