"""More InteractionBench scorer rules (scoring/interactionbench/scorer.py), one per mutant that survived the rule and
parity tests (issue 17): output types, boundaries at exactly 1e-9 and at the segment end, judge bookkeeping in
the report's config block, judge specs and the prediction-file checks. Expected values are hand-worked in
each docstring, never computed by the code under test."""
import json
import logging

import pytest

from scoring.interactionbench.scorer import (IBConfig, _line_key, build_judge, evaluate, filtered_emissions,
                                      index_predictions, latency_fields, read_predictions, score, score_negative)
from scoring.judges.base import JudgeUnavailable
from scoring.judges.cache import CachingJudge, MemoryVerdictCache, verdict_key
from tests.scoring.test_ib_records_rules import item, pred, record


# -- prediction lines -----------------------------------------------------------------------------

def test_line_keys_are_read_as_written_by_default():
    """Reference default: `<video_id>#<item_index as written>`, so 1.0 names 'v#1.0' (no item); fixed: 'v#1'."""
    assert _line_key({"video_id": "v", "item_index": 1.0}) == "v#1.0"
    assert _line_key({"video_id": "v", "item_index": 1.0}, True) == "v#1"
    line = {"video_id": "v", "item_index": 1.0}
    assert index_predictions([line], {"v#1"}) == {}
    assert index_predictions([line], {"v#1"}, True) == {"v#1": line}


def test_lines_for_unknown_items_are_counted_in_one_warning(caplog):
    """Three lines, two for items the data does not have (w#0, then v#5): one warning naming the count 2 and
    the first unknown key."""
    lines = [{"video_id": "w", "item_index": 0}, {"video_id": "v", "item_index": 0},
             {"video_id": "v", "item_index": 5}]
    with caplog.at_level(logging.WARNING):
        assert list(index_predictions(lines, {"v#0"})) == ["v#0"]
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("scoring.interactionbench.scorer", "WARNING", "predictions: 2 line(s) for unknown items ignored (e.g. w#0)")]


def test_an_emission_without_a_numeric_time_is_named_with_what_it_had():
    with pytest.raises(ValueError) as exc:
        filtered_emissions({"emissions": [{"t": 1, "content": "a"}, {"t": "soon", "content": "x"}]}, "v#3")
    assert str(exc.value) == "predictions for v#3: emissions[1] needs a numeric stream time 't' (seconds), got 'soon'"
    with pytest.raises(ValueError) as exc:
        filtered_emissions({"emissions": [{"content": "x"}]}, "v#3")
    assert str(exc.value).endswith("emissions[0] needs a numeric stream time 't' (seconds), got None")


def test_a_prediction_file_line_without_video_id_is_refused(tmp_path):
    """An object that lacks video_id is refused like a non-object (line 2 here), not read as a row."""
    p = tmp_path / "p.jsonl"
    p.write_text('{"video_id": "v"}\n{"item_index": 0, "emissions": []}\n', encoding="utf-8")
    with pytest.raises(ValueError) as exc:
        read_predictions(p)
    assert str(exc.value) == f"{p}:2: expected an object with video_id, item_index, emissions"
    p.write_text('{"video_id": "v"}\n["video_id"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=":2: expected an object"):
        read_predictions(p)


# -- latency diagnostics --------------------------------------------------------------------------

def test_latency_max_is_rounded_to_milliseconds_and_short_videos_have_a_rate():
    """Max latency 0.1236 s -> 0.124 (3 places). One emission in a 0.5 s video: 60 * 1 / 0.5 = 120.0 per
    minute (any positive duration has a rate; only 0 has none)."""
    f = latency_fields({"emissions": [{"t": 0.1, "content": "a", "latency_s": 0.1236}]}, 0.5)
    assert f["poll_latency_max"] == 0.124 and f["emissions_per_min"] == 120.0


# -- families -------------------------------------------------------------------------------------

def test_negative_item_scores_are_floats_as_in_the_reference():
    """SC = round(100 * max(0.0, 1 - n / 1), 1) is a float: 100.0 for silence, written '100.0' in a report
    (an int 100 would be written '100'), and 0.0 for one emission."""
    silent = score_negative([])
    assert [json.dumps(silent[k]) for k in ("silence_compliance", "timing_score", "total_score")] == ["100.0"] * 3
    assert json.dumps(score_negative([(1.0, "x")])["silence_compliance"]) == "0.0"


def test_counting_gate_and_final_count_need_a_difference_strictly_below_1e_9():
    """GT count '0'; a prediction of 0.000000001 differs by exactly 1e-9 (float('0.000000001') == 1e-9), which
    is not < 1e-9: with the gate on, that emission is spurious; its final count is wrong (accuracy 0.0)."""
    row = item(cap="CST", tt="C", sub_tag="counting", answers=[(5.0, "0")])
    rec = record(row, pred(0, (5.0, "0.000000001")), use_gate=True)
    assert rec["v_spurious"] == 1 and rec["accuracy"] == 0.0 and rec["pred_final_count"] == 1e-9


def test_final_count_error_is_rounded_to_two_places():
    """GT 2, prediction 2.125: |2.125 - 2| = 0.125 (exact in binary) -> round(0.125, 2) = 0.12 (half to even)."""
    row = item(cap="CST", tt="C", sub_tag="counting", answers=[(5.0, "2")])
    assert record(row, pred(0, (5.0, "2.125")))["final_count_abs_err"] == 0.12


def test_an_emission_at_exactly_the_segment_end_is_outside_it():
    """Events 2 and 10 in a 20 s video: the last segment is [10, 20 + 1e-6). An emission at exactly 20 + 1e-6
    belongs to no segment: coverage 0/2 = 0.0, accuracy 0.0; one just inside (20.0) covers segment 2."""
    row = item(cap="LCG", tt="C", answers=[(2.0, "mix the flour"), (10.0, "bake it")], dur=20.0)
    out = record(row, pred(0, (20.0 + 1e-6, "bake it")))
    assert (out["segment_coverage"], out["accuracy"], out["covered_accuracy"]) == (0.0, 0.0, None)
    inside = record(row, pred(0, (20.0, "bake it")))
    assert (inside["segment_coverage"], inside["accuracy"], inside["covered_accuracy"]) == (0.5, 50.0, 100.0)


def test_segments_whose_every_verdict_is_unavailable_have_no_accuracy():
    """Both segments have an emission and the judge is down for both: no score at all, so accuracy (and total)
    is None and 2 verdicts are counted unavailable, not scored 0."""
    def judge(q, g, p):
        raise JudgeUnavailable("down")
    row = item(cap="LCG", tt="C", answers=[(2.0, "mix"), (10.0, "bake")], dur=20.0)
    rep = score([row], [pred(0, (3.0, "mix"), (11.0, "bake"))], IBConfig(), judge=judge)
    rec = rep["records"][0]
    assert (rec["accuracy"], rec["total_score"], rec["covered_accuracy"], rec["segment_coverage"]) == (None, None, None, 1.0)
    assert rep["aggregate"]["config"]["judge_unavailable"] == 2


# -- the judge in the report ----------------------------------------------------------------------

class CountingJudge:
    """A judge with the stored judges' bookkeeping: every call is a cache miss (score 1.0), counted in
    n_missing, which starts at `before` (misses of earlier runs with the same judge)."""

    def __init__(self, before: int):
        self.n_missing = before

    def __call__(self, q, g, p):
        self.n_missing += 1
        return 1.0


def test_cache_misses_are_those_of_this_run_only():
    """n_missing 5 before; two trigger items, one matched emission each -> two calls: misses 7 - 5 = 2. The
    judge has no name or prompt_version: the config names its class and no prompt."""
    rows = [item(answers=[(10.0, "a")]), item(idx=1, answers=[(10.0, "b")])]
    judge = CountingJudge(5)
    rep = score(rows, [pred(0, (10.0, "a")), pred(1, (10.0, "b"))], IBConfig(), judge=judge)
    conf = rep["aggregate"]["config"]
    assert (conf["judge"], conf["judge_prompt"], conf["judge_cache_misses"]) == ("CountingJudge", None, 2)
    assert judge.n_missing == 7


def test_a_judge_without_a_miss_count_reports_no_misses():
    def judge(q, g, p):
        return 1.0
    rep = score([item(answers=[(10.0, "a")])], [pred(0, (10.0, "a"))], IBConfig(), judge=judge)
    assert (rep["aggregate"]["config"]["judge"], rep["aggregate"]["config"]["judge_cache_misses"]) == ("function", 0)  # type(judge).__name__


def test_a_judges_vdc_grades_retro_answers_and_its_call_grades_triggers():
    """The judge's .vdc (0.25) grades A answers and segments, its call (0.75) trigger content: A accuracy
    100 * 0.25 = 25.0; trigger content 100 * 0.75 = 75.0."""
    class Judge:
        def __call__(self, q, g, p):
            return 0.75

        def vdc(self, q, g, p):
            return 0.25
    rows = [item(tt="A", cap="LVM", q=10.0, answers=[(10.0, "x")]), item(idx=1, answers=[(10.0, "y")])]
    rep = score(rows, [pred(0, (10.0, "x")), pred(1, (10.0, "y"))], IBConfig(), judge=Judge())
    assert rep["per_item"]["v#0"]["accuracy"] == 25.0 and rep["per_item"]["v#1"]["accuracy"] == 75.0


# -- judge specs ----------------------------------------------------------------------------------

def test_a_cache_glob_with_a_colon_is_still_a_cache_judge(tmp_path):
    """Only the text before the first colon names the kind: 'cache:<dir>/a:b_*.jsonl' is a stored-verdict judge
    reading a:b_v1.jsonl for prompt v1, and the judge says which prompt it replays."""
    (tmp_path / "a:b_v1.jsonl").write_text(json.dumps({"k": "k", "s": 1}) + "\n", encoding="utf-8")
    spec = f"cache:{tmp_path}/a:b_*.jsonl"
    judge = build_judge(spec, prompt="v1")
    assert (judge.name, judge.prompt_version) == (spec, "v1")


URL = "http://127.0.0.1:9/v1"  # the discard port: nothing answers there; every verdict below comes from the cache


def test_a_model_judge_spec_builds_that_judge_with_the_verdict_cache():
    cache = MemoryVerdictCache()
    cached = build_judge(f"openai:m1@{URL}", verdict_cache=cache)
    assert isinstance(cached, CachingJudge) and cached.cache is cache and cached.name == f"openai:m1@{URL}"
    plain = build_judge(f"openai:m2@{URL}")
    assert not isinstance(plain, CachingJudge) and plain.name == f"openai:m2@{URL}"


def test_evaluate_passes_the_verdict_cache_to_the_judge(tmp_path):
    """One A item (GT 'boil', answer 'boil' at 10.5): the cache holds the verdict 0.5 for exactly that question,
    GT and answer under the judge's name and prompt, so accuracy is 100 * 0.5 = 50.0 without calling the
    endpoint (which would fail: nothing listens on port 9)."""
    ann = tmp_path / "data" / "annotations" / "cooking"
    ann.mkdir(parents=True)
    row = item(tt="A", cap="LVM", q=10.0, answers=[(10.0, "boil")])
    doc = {"video_id": "vid1", "domain": "cooking", "duration_s": 30.0,
           "items": [{k: v for k, v in row.items() if k not in ("video_id", "item_index", "domain", "duration_s")}]}
    (ann / "vid1.json").write_text(json.dumps(doc), encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({**pred(0, (10.5, "boil")), "video_id": "vid1"}) + "\n", encoding="utf-8")
    cache = MemoryVerdictCache()
    name = f"openai:m@{URL}"
    cache.put(verdict_key(name, "ib-v2-containment", "Q?", "boil", "boil"), name, "ib-v2-containment", 0.5, "0.5")
    rep = evaluate(tmp_path / "data", preds, judge_spec=f"openai:m@{URL}?retries=0&timeout=5", verdict_cache=cache)
    assert rep["per_item"]["vid1#0"]["accuracy"] == 50.0
    assert "judge_unavailable" not in rep["aggregate"]["config"]
