"""Unit tests for the ProactiveBench scorer: options, report shape, validation messages."""
import math

import pytest

from annotation.errors import Problem
from scoring.proactivebench import scorer as pb


def item(iid, subtask, **kw):
    return {"item_id": iid, "subtask": subtask, "duration": kw.pop("duration", 30), **kw}


def pred(iid, *seconds, **kw):
    return {"item_id": iid, "response_seconds": list(seconds), **kw}


def one(it, pr=None, **cfg):
    return pb.score_item(it, pr, pb.PBConfig(**cfg))


# ------------------------------------------------------------------ options

def test_ss_rule_no_early_accepts_silence():
    ss = item("s", "SS", duration=130, window=[95, 110])
    assert one(ss, None).correct is False
    assert one(ss, None, ss_rule="no_early").correct is True
    assert one(ss, pred("s", 60), ss_rule="no_early").correct is False


def test_es_alert_tolerance_widens_hits():
    es = item("e", "ES", alert_seconds=[10], silence_segments=[[2, 5]])
    assert one(es, pred("e", 11)).hits == 0
    d = one(es, pred("e", 11), es_alert_tol=1)
    assert (d.hits, d.hit_alerts) == (1, (10,))
    assert math.isclose(d.S_ES, 100.0)


def test_es_segment_half_open_ignores_end_second():
    es = item("e", "ES", alert_seconds=[10], silence_segments=[[2, 8]])
    assert one(es, pred("e", 8, 10)).clean_segments == 0
    assert one(es, pred("e", 8, 10), es_segment_closed=False).clean_segments == 1


def test_late_outcome_option_separates_late_from_missed():
    wr = item("w", "WR", window=[5, 8])
    assert one(wr, pred("w", 12)).outcome == "missed"
    assert one(wr, pred("w", 12), late_outcome="late").outcome == "late"
    agg = pb.score([wr], [pred("w", 12)], pb.PBConfig(late_outcome="late"))["aggregate"]["subtasks"]["WR"]
    assert agg["late_rate"] == 100.0 and agg["missed_rate"] == 0.0


def test_item_eval_start_overrides_config():
    wr = item("w", "WR", window=[5, 8], eval_start=6)
    d = one(wr, pred("w", 3, 6))
    assert (d.first_response, d.outcome, d.eval_start) == (6, "in_window", 6)


def test_responses_after_duration_and_duplicates_are_ignored():
    dc = item("d", "DC", duration=10, ref_count=2)
    d = one(dc, pred("d", 4, 4, 7, 11))
    assert d.scored_responses == (4, 7) and d.predicted_count == 2 and d.correct


def test_dc_text_count_source_parses_last_stated_count():
    dc = item("d", "DC", ref_count=3)
    p = pred("d", 5, 9, texts={"5": "one so far", "9": "I have seen three of them"})
    d = one(dc, p, dc_count_source="text")
    assert (d.predicted_count, d.count_source, d.correct) == (3, "text", True)
    assert one(dc, pred("d", 5), dc_count_source="text").predicted_count is None
    assert pb.parse_count("count: 12 total") == 12 and pb.parse_count("none here") is None


def test_float_times_convert_or_reject():
    assert pb.seconds_to_interval(7.4) == 8 and pb.seconds_to_interval(0.0) == 1
    orr = item("o", "OR", onset_second=8)
    assert one(orr, pred("o", 7.5)).first_response == 8
    with pytest.raises(ValueError, match="float_times='reject'"):
        one(orr, pred("o", 7.5), float_times="reject")


def test_or_window_offsets():
    orr = item("o", "OR", onset_second=8)
    assert one(orr, pred("o", 11), or_window=(1, 3)).window == (9, 11)


def test_config_rejects_unknown_values():
    with pytest.raises(ValueError, match="es_pooling"):
        pb.PBConfig(es_pooling="mean")
    with pytest.raises(ValueError, match="eval_start"):
        pb.PBConfig(eval_start=0)


def test_avg_weighting_by_items():
    scores = {"ES": 100.0, "OR": 0.0, "WR": 0.0, "AA": 0.0, "SS": 0.0, "DC": 0.0}
    counts = {"ES": 3, "OR": 1, "WR": 1, "AA": 1, "SS": 1, "DC": 1}
    assert pb.benchmark_avg(scores, pb.PBConfig(avg_weighting="by_items"), counts) == 100.0 * 3 / 8
    with pytest.raises(ValueError, match="counts"):
        pb.benchmark_avg(scores, pb.PBConfig(avg_weighting="by_items"))


# ------------------------------------------------------------------ score() report

def full_set():
    items = [item("es", "ES", alert_seconds=[10], silence_segments=[[2, 8]]),
             item("or", "OR", onset_second=8), item("wr", "WR", window=[5, 8]),
             item("aa", "AA", window=[5, 8]), item("ss", "SS", duration=130, window=[95, 110]),
             item("dc", "DC", ref_count=1)]
    preds = [pred("es", 10), pred("or", 9), pred("wr", 4), pred("dc", 20), pred("ghost", 3)]
    return items, preds


def test_score_report_shape_missing_and_unknown():
    items, preds = full_set()
    report = pb.score(items, preds)
    assert set(report) == {"per_item", "aggregate", "table", "warnings", "config"}
    agg = report["aggregate"]
    assert agg["S_ES"] == 100.0 and agg["OR"] == 100.0 and agg["WR"] == 0.0
    assert agg["AA"] == 0.0 and agg["SS"] == 0.0 and agg["DC"] == 100.0  # aa, ss silent
    assert math.isclose(agg["AVG"], 50.0)
    assert report["per_item"]["aa"]["outcome"] == "missed"
    assert agg["missing_predictions"] == ["aa", "ss"]
    assert any("ghost" in w for w in report["warnings"])
    assert report["table"] == {"ES": 100.0, "OR": 100.0, "WR": 0.0, "AA": 0.0, "SS": 0.0, "DC": 100.0, "AVG": 50.0}
    text = pb.format_table(report, "silent-ish")
    assert text.splitlines()[0].split("|")[-1].strip() == "AVG"
    assert text.splitlines()[-1].endswith(" 50.0") and text.splitlines()[-1].startswith("silent-ish")


def test_predictions_as_mapping_and_duplicates():
    items = [item("o", "OR", onset_second=8)]
    assert pb.score(items, {"o": {"response_seconds": [8]}})["per_item"]["o"]["correct"] is True
    rep = pb.score(items, [pred("o", 8), pred("o", 2)])
    assert rep["per_item"]["o"]["correct"] is True and any("duplicate" in w for w in rep["warnings"])


def test_avg_none_without_a_subtask_unless_partial():
    items = [item("o", "OR", onset_second=8)]
    rep = pb.score(items, [pred("o", 8)])
    assert rep["aggregate"]["AVG"] is None and rep["aggregate"]["WR"] is None
    assert any("allow_partial" in w for w in rep["warnings"])
    assert "    -" in pb.format_table(rep)
    assert pb.score(items, [pred("o", 8)], pb.PBConfig(allow_partial=True))["aggregate"]["AVG"] == 100.0


def test_es_undefined_without_alerts():
    es = item("e", "ES", alert_seconds=[], silence_segments=[[2, 5]])
    rep = pb.score([es], [], pb.PBConfig(allow_partial=True))
    assert rep["aggregate"]["S_ES"] is None
    assert any("ES score undefined" in w for w in rep["warnings"])


def test_unknown_subtask_raises_naming_item():
    with pytest.raises(ValueError, match=r"item q1 field 'subtask'"):
        pb.score_item({"item_id": "q1", "subtask": "XX", "duration": 5}, None)


# ------------------------------------------------------------------ validation

def msgs(problems, severity=None):
    return [str(p) for p in problems if severity is None or p.severity == severity]


def test_valid_items_have_no_problems():
    items, _ = full_set()
    items[4]["window"] = [95, 110]
    for it in items:
        assert msgs(pb.validate_item(it, "pb.json"), "error") == [], it


def test_unknown_subtask_and_missing_fields():
    p = pb.validate_item({"item_id": "a", "subtask": "XY", "duration": 10}, "pb.json")
    assert any(x.field == "subtask" and "unknown subtask 'XY'" in x.message for x in p)
    p = pb.validate_item({"item_id": "b", "subtask": "OR", "duration": 10}, "pb.json")
    assert [str(x) for x in p] == ["error: pb.json item b field 'onset_second': subtask OR requires field 'onset_second'"]
    p = pb.validate_item({"item_id": "c", "subtask": "ES", "duration": 10}, "pb.json")
    assert {x.field for x in p} == {"alert_seconds", "silence_segments"}
    p = pb.validate_item({"subtask": "DC", "duration": -3, "ref_count": -1}, "pb.json")
    assert {x.field for x in p if x.severity == "error"} == {"item_id", "duration", "ref_count"}


def test_window_order_and_negative_times():
    p = pb.validate_item(item("w", "WR", window=[20, 12]), "f.json")
    assert any(x.field == "window" and "start 20 is after its end 12" in x.message and x.severity == "error" for x in p)
    p = pb.validate_item(item("w", "AA", window=[-1, 4]), "f.json")
    assert any("negative time" in x.message for x in p)
    p = pb.validate_item(item("e", "ES", alert_seconds=[-2], silence_segments=[[5, 3]]), "f.json")
    fields = {(x.field, x.severity) for x in p}
    assert ("alert_seconds", "error") in fields and ("silence_segments", "error") in fields
    p = pb.validate_item(item("w", "WR", duration=10, window=[12, 14]), "f.json")
    assert any("after the clip end" in x.message and x.severity == "error" for x in p)


def test_ss_silence_range_is_a_warning():
    p = pb.validate_item(item("s", "SS", duration=130, window=[40, 50], verified_silence_seconds=38), "f.json")
    warn = [x for x in p if x.severity == "warning"]
    assert {x.field for x in warn} == {"window", "verified_silence_seconds"}
    assert not [x for x in p if x.severity == "error"]
    assert "expected 60-194" in warn[0].message or "expected 60-194" in warn[1].message
    ok = pb.validate_item(item("s", "SS", duration=130, window=[95, 110], verified_silence_seconds=93), "f.json")
    assert ok == []


def test_es_alert_inside_silence_segment_warns():
    p = pb.validate_item(item("e", "ES", alert_seconds=[4], silence_segments=[[2, 8]]), "f.json")
    assert [x.severity for x in p] == ["warning"] and "contains alert second 4" in p[0].message


def test_validate_prediction():
    assert pb.validate_prediction(pred("a", 2, 5, predicted_count=2), "p.json") == []
    p = pb.validate_prediction({"item_id": "a", "response_seconds": [0, "x", 2.5], "predicted_count": -1}, "p.json")
    assert [(x.field, x.severity) for x in p] == [("response_seconds", "error"), ("response_seconds", "error"),
                                                 ("response_seconds", "warning"), ("predicted_count", "error")]
    assert isinstance(p[0], Problem) and p[0].file == "p.json" and p[0].item == "a"
