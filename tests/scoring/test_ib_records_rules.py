"""Rule-by-rule tests of the InteractionBench per-item records (spec §4-§5, reference `metrics.py`): families,
segments, counting, latency diagnostics, prediction lines and options. Expectations are hand-worked in the
docstrings (issue 17)."""
import json

import pytest

from scoring.interactionbench.scorer import (IBConfig, build_judge, filtered_emissions, index_predictions,
                                      latency_fields, read_predictions, read_split, score, score_negative)


def item(idx=0, cap="PTR", tt="B", answers=(), q=0.0, dur=60.0, **kw):
    row = {"video_id": "v", "item_index": idx, "domain": "d", "duration_s": dur, "capability": cap,
           "time_type": tt, "interaction_type": "INS", "range_length": "0-1min", "sub_tag": None,
           "is_negative": False, "auto_number": False, "question": "Q?", "question_time_s": q,
           "answers": [{"time_s": t, "content": c} for t, c in answers]}
    row.update(kw)
    return row


def pred(idx=0, *ems, **kw):
    return {"video_id": "v", "item_index": idx, "emissions": [{"t": t, "content": c} for t, c in ems], **kw}


def record(row, line, **cfg):
    return score([row], [line] if line else [], IBConfig(**cfg))["records"][0]


def test_negative_item_one_emission_zeroes_it():
    """SC = 100 * max(0, 1 - n/1): n = 0 -> 100.0, n = 1 -> 0.0, n = 3 -> 0.0; every emission is spurious."""
    assert score_negative([])["silence_compliance"] == 100.0 and score_negative([])["false_alarm"] is False
    one = score_negative([(1.0, "x")])
    assert (one["silence_compliance"], one["total_score"], one["v_spurious"], one["false_alarm"]) == (0.0, 0.0, 1, True)
    assert score_negative([(1.0, "a"), (2.0, "b"), (3.0, "c")])["n_violations"] == 3


def test_retro_qa_memory_span_and_total():
    """A-type, question at 30, evidence at 12.5: memory span 30 - 12.5 = 17.5. Answer at 31 (delay 1,
    TA = 100 * (1 - 1/5) = 80.0, SC 100.0) with the right content: accuracy 100.0; timing score
    hmean(80, 100) = 2*80*100/180 = 88.888... -> 88.9; total = mean(100, 88.9) = 94.45 -> 94.5 (round of the
    double 94.45, which lies above the midpoint)."""
    row = item(tt="A", cap="LVM", q=30.0, answers=[(12.0, "green")])
    row["answers"][0]["evidence_time_s"] = 12.5
    rec = record(row, pred(0, (31.0, "green")))
    assert rec["memory_span_s"] == 17.5 and rec["timing_accuracy"] == 80.0 and rec["accuracy"] == 100.0
    assert rec["timing_score"] == 88.9 and rec["total_score"] == 94.5 and rec["answered"] is True


def test_segments_bucket_by_event_window_and_stop_at_the_video_end():
    """Events at 2 and 10 in a 20 s video: segments [2, 10) and [10, 20 + 1e-6). Emissions at 1 (before the first
    event: no segment), 5 (segment 1), 25 (after the end: none). Segment 1 content 'mix the flour' = GT -> 1.0;
    segment 2 empty -> 0.0: accuracy 100 * (1 + 0)/2 = 50.0, covered accuracy 100.0 (only covered segments),
    coverage 1/2 = 0.5; total = accuracy."""
    row = item(cap="LCG", tt="C", answers=[(2.0, "mix the flour"), (10.0, "bake it")], dur=20.0)
    rec = record(row, pred(0, (1.0, "bake it"), (5.0, "mix the flour"), (25.0, "bake it")))
    assert rec["accuracy"] == 50.0 and rec["covered_accuracy"] == 100.0 and rec["segment_coverage"] == 0.5
    assert rec["total_score"] == 50.0 and rec["family"] == "C_segments"


def test_segment_emission_at_exactly_the_next_event_belongs_to_it():
    """Events 2 and 10: an emission at 10.0 goes to segment 2 ([10, end)); segment 1 stays empty."""
    row = item(cap="BRC", tt="C", answers=[(2.0, "mix the flour"), (10.0, "bake it")], dur=20.0)
    rec = record(row, pred(0, (10.0, "bake it")))
    assert rec["accuracy"] == 50.0 and rec["segment_coverage"] == 0.5


def test_segment_end_is_the_later_of_duration_and_last_event():
    """Duration 0 (unknown): the last segment ends at the last event 10 + 1e-6, so an emission at 10.0 counts and
    one at 11 does not: coverage 1/2 either way, and 'bake it' at 11 alone leaves both segments empty."""
    row = item(cap="LCG", tt="C", answers=[(2.0, "mix"), (10.0, "bake it")], dur=0.0)
    assert record(row, pred(0, (10.0, "bake it")))["segment_coverage"] == 0.5
    assert record(row, pred(0, (11.0, "bake it")))["segment_coverage"] == 0.0


def test_counting_compares_the_last_numbers_within_1e_9():
    """GT counts 1, 2 (last = 2); the prediction's last number is 2: accuracy 100.0, abs error 0.0.
    A prediction without any number: pred_final None, accuracy 0.0, abs error |0 - 2| = 2.0."""
    row = item(cap="CST", tt="C", sub_tag="counting", answers=[(5.0, "1"), (10.0, "2 now")])
    ok = record(row, pred(0, (5.0, "one is 1"), (10.0, "2")))
    assert (ok["accuracy"], ok["gt_final_count"], ok["pred_final_count"], ok["final_count_abs_err"]) == (100.0, 2.0, 2.0, 0.0)
    none = record(row, pred(0, (5.0, "one"), (10.0, "two")))
    assert (none["accuracy"], none["pred_final_count"], none["final_count_abs_err"]) == (0.0, None, 2.0)


def test_counting_gate_passes_only_the_events_number():
    """Gate on: event 1 expects 1; an emission saying '3' is spurious, then '1' matches at delay 1."""
    row = item(cap="CST", tt="C", sub_tag="counting", answers=[(5.0, "1")])
    rec = record(row, pred(0, (5.0, "3"), (6.0, "1")), use_gate=True)
    assert rec["v_spurious"] == 1 and rec["delay_mean_s"] == 1.0


def test_trigger_gate_threshold():
    """Gate threshold 0.3 on content_score: 'the dog' vs GT 'the dog jumps' has token F1 2*(1*2/3)/(1+2/3) = 0.8
    -> passes; with gate_thresh 0.9 it is spurious."""
    row = item(answers=[(10.0, "the dog jumps")])
    assert record(row, pred(0, (10.0, "the dog")), use_gate=True)["v_spurious"] == 0
    assert record(row, pred(0, (10.0, "the dog")), use_gate=True, gate_thresh=0.9)["v_spurious"] == 1


def test_latency_diagnostics():
    """Latencies 0.1 and 0.3 s: mean 0.2, max 0.3, realtime factor 0.2 / 0.2 = 1.0; 3 emissions over a 90 s video:
    60 * 3 / 90 = 2.0 per minute; 3 emissions over 12 polls: chatter 0.25."""
    line = {"emissions": [{"t": 1, "content": "a", "latency_s": 0.1}, {"t": 2, "content": "b", "latency_s": 0.3},
                          {"t": 3, "content": "c"}], "n_polls": 12}
    f = latency_fields(line, 90.0)
    assert f == {"poll_latency_mean": 0.2, "poll_latency_max": 0.3, "realtime_factor": 1.0,
                 "emissions_per_min": 2.0, "chatter_rate": 0.25}
    assert latency_fields(None, 0.0) == {"emissions_per_min": None}
    assert latency_fields({"poll_latencies": [0.5], "emissions": []}, 60.0)["realtime_factor"] == 2.5


def test_filtered_emissions_drop_blank_and_sort_stably():
    """None and whitespace contents are dropped; numbers become text; equal times keep their order."""
    line = {"emissions": [{"t": 5, "content": "b"}, {"t": 1, "content": " "}, {"t": 2, "content": None},
                          {"t": 5, "content": 7}, {"t": "3", "content": "a"}]}
    assert filtered_emissions(line, "v#0") == [(3.0, "a"), (5.0, "b"), (5.0, "7")]
    assert filtered_emissions(None, "v#0") == []
    with pytest.raises(ValueError, match=r"v#0: emissions\[0\]"):
        filtered_emissions({"emissions": [{"t": "soon", "content": "x"}]}, "v#0")


def test_prediction_lines_need_a_video_id_and_keep_the_last_duplicate():
    lines = [{"video_id": "v", "item_index": 0, "n": 1}, {"video_id": "v", "item_index": 0, "n": 2},
             {"video_id": "w", "item_index": 0}]
    assert index_predictions(lines, {"v#0"}) == {"v#0": {"video_id": "v", "item_index": 0, "n": 2}}
    with pytest.raises(ValueError, match="line 2"):
        index_predictions([lines[0], {"item_index": 0}], {"v#0"})


def test_config_bounds_and_from_dict():
    """Issue 22: delta inf and pre_tol -0.5 are settings the reference computes with, so they are accepted."""
    assert IBConfig(delta=float("inf")).delta == float("inf")
    with pytest.raises(ValueError, match="delta"):
        IBConfig(delta="5")
    assert IBConfig(pre_tol=-0.5).pre_tol == -0.5
    assert IBConfig(pre_tol=0).pre_tol == 0
    cfg = IBConfig.from_dict({"delta": "4", "pre_tol": 0, "gate_thresh": "0.5", "use_gate": 1, "skip_missing": 0,
                              "fixed": "yes", "items": ["a#0", 3]})
    assert cfg == IBConfig(delta=4.0, pre_tol=0.0, gate_thresh=0.5, use_gate=True, skip_missing=False, fixed=True,
                           items=("a#0", "3"))
    assert IBConfig.from_dict({}) == IBConfig()


def test_report_config_block_and_model_fields():
    """The config block echoes the options; a line's model and run are copied into its record."""
    rep = score([item(answers=[(10.0, "x")])], [pred(0, (10.0, "x"), model="m1", run="r1")],
                IBConfig(delta=4.0, pre_tol=0.5, use_gate=True, gate_thresh=0.25))
    assert rep["aggregate"]["config"] == {"delta_s": 4.0, "gate_thresh": 0.25, "use_gate": True, "pre_tol_s": 0.5,
                                          "mcq_key": None, "items": None, "judge": None, "judge_prompt": None,
                                          "judge_cache_misses": 0}
    assert (rep["records"][0]["model"], rep["records"][0]["run"]) == ("m1", "r1")
    assert rep["table"] == {"n_items": 1, "total": 100.0, "accuracy": 100.0, "timing_accuracy": 100.0,
                            "silence_compliance": 100.0}


def test_record_video_and_capability_fields():
    """CST belongs to group CST+BRC and is core realtime; LVM is its own group and reactive."""
    rec = record(item(cap="CST", tt="C", answers=[(5.0, "x")], dur=33.0), None)
    assert (rec["capability_group"], rec["core_realtime"], rec["duration_s"], rec["domain"]) == ("CST+BRC", True, 33.0, "d")
    lvm = record(item(cap="LVM", tt="A", q=5.0, answers=[(5.0, "x")]), None)
    assert (lvm["capability_group"], lvm["core_realtime"], lvm["item_id"], lvm["video_id"]) == ("LVM", False, "v#0", "v")
    with pytest.raises(ValueError, match="duration_s"):
        record(item(answers=[(5.0, "x")], dur="long"), None)


def test_files_and_judge_specs(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('\n{"video_id": "v"}\n  \n', encoding="utf-8")
    assert read_predictions(p) == [{"video_id": "v"}]
    p.write_text('{"video_id": "v"}\n[1]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="p.jsonl:2"):
        read_predictions(p)
    s = tmp_path / "split.txt"
    s.write_text(" a#0 \n\nb#1\n", encoding="utf-8")
    assert read_split(s) == ("a#0", "b#1")
    for spec in (None, "", " Lexical ", "none", "NOJUDGE"):
        assert build_judge(spec) is None
    (tmp_path / "x_v2.jsonl").write_text(json.dumps({"k": "k", "s": 1}) + "\n", encoding="utf-8")
    assert build_judge(f"cache:{tmp_path}/x_*.jsonl").name.startswith("cache:")
