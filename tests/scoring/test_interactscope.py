"""Unit tests for the Omni-InteractScope scorer: options, report, tool verdicts, validation."""
import math

import pytest

from annotation.errors import DatasetError
from scoring.interactscope import scorer as isc


def inter(iid, task, targets, **kw):
    return {"interaction_id": iid, "task": task, "targets": targets, **kw}


def resp(rid, t, verdicts=None, **kw):
    return {"id": rid, "t": t, "kind": kw.pop("kind", "speech"), "verdicts": verdicts or {}, **kw}


def pred(iid, *responses):
    return {"interaction_id": iid, "responses": list(responses)}


def tgt(tid, s, e, **kw):
    return {"id": tid, "window": [s, e], **kw}


# ------------------------------------------------------------------ options not pinned by golden

def test_missing_verdict_exclude_skips_unjudged_response():
    x = inter("a", "T2", [tgt("g", 10.0, 20.0)])
    p = pred("a", resp("r1", 11.0, {}), resp("r2", 12.0, {"g": True}))
    assert isc.score_interaction(x, p).targets[0].correct is False
    d = isc.score_interaction(x, p, isc.ISConfig(missing_verdict="exclude")).targets[0]
    assert (d.correct, d.candidate, d.unjudged) == (True, "r2", 1)
    rep = isc.score([x], [p], isc.ISConfig(missing_verdict="exclude"))
    assert any("no verdict" in w for w in rep["warnings"])


def test_penalize_early_fails_target_answered_before_window():
    x = inter("a", "T3", [tgt("g", 10.0, 20.0)])
    p = pred("a", resp("r1", 8.0, {"g": True}), resp("r2", 12.0, {"g": True}))
    assert isc.score_interaction(x, p).targets[0].correct is True
    assert isc.score_interaction(x, p, isc.ISConfig(penalize_early=True)).targets[0].correct is False


def test_exclusive_responses_lets_one_response_serve_one_target():
    x = inter("a", "T7", [tgt("g1", 10.0, 20.0), tgt("g2", 15.0, 25.0)])
    p = pred("a", resp("r1", 16.0, {"g1": True, "g2": True}))
    assert [t.correct for t in isc.score_interaction(x, p).targets] == [True, True]
    d = isc.score_interaction(x, p, isc.ISConfig(exclusive_responses=True))
    assert [t.correct for t in d.targets] == [True, False]


def test_timing_diagnostics_early_missed_in_window():
    x = inter("a", "T2", [tgt("g1", 10.0, 20.0), tgt("g2", 30.0, 40.0), tgt("g3", 50.0, 60.0)])
    p = pred("a", resp("r1", 12.0, {"g1": True}), resp("r2", 25.0, {"g2": True}))
    d = isc.score_interaction(x, p)
    assert [t.timing for t in d.targets] == ["in_window", "early", "missed"]
    agg = isc.score([x], [p])["aggregate"]["tasks"]["T2"]
    assert math.isclose(agg["early_rate"], 100 / 3) and math.isclose(agg["missed_rate"], 100 / 3)


def test_time_anchor_end_falls_back_to_start():
    x = inter("a", "T2", [tgt("g", 10.0, 20.0)])
    p = pred("a", resp("r1", 12.0, {"g": True}))
    assert isc.score_interaction(x, p, isc.ISConfig(time_anchor="end")).targets[0].correct is True


def test_t5_window_uses_interaction_query_time_and_tolerance():
    x = inter("a", "T5", [{"id": "g", "window_rel": [10.0, 15.0]}], query_time=5.0)
    assert isc.target_window(x["targets"][0], x) == (15.0, 20.0)
    assert isc.target_window(x["targets"][0], x, isc.ISConfig(t5_tolerance=1.0)) == (14.0, 21.0)


def test_t5_without_query_time_raises_naming_field():
    x = inter("a", "T5", [{"id": "g", "window_rel": [10.0, 15.0]}])
    with pytest.raises(DatasetError) as err:
        isc.score([x], [])
    assert err.value.problems[0].item == "a" and "query_time" in err.value.problems[0].field


def test_config_rejects_unknown_values():
    with pytest.raises(ValueError, match="t17_rule"):
        isc.ISConfig(t17_rule="best")
    with pytest.raises(ValueError, match="avg_tasks"):
        isc.ISConfig(avg_tasks=("T9",))


# ------------------------------------------------------------------ score() report

def dataset():
    xs = [inter(f"i{n}", f"T{n}", [tgt("g", 10.0, 20.0)]) for n in range(1, 8)]
    xs.append(inter("c1", "T8", [tgt("s1", 10.0, 20.0), tgt("s2", 30.0, 40.0)], subtype="C"))
    xs.append(inter("c2", "T8", [tgt("s1", 10.0, 20.0)], subtype="C"))
    preds = [pred(f"i{n}", resp("r", 15.0, {"g": n % 2 == 1})) for n in range(1, 8)]
    preds.append(pred("c1", resp("r1", 15.0, {"s1": True}), resp("r2", 35.0, {"s2": True})))
    preds.append(pred("ghost", resp("r", 1.0)))
    return xs, preds


def test_score_report_avg_t8_and_warnings():
    xs, preds = dataset()
    rep = isc.score(xs, preds)
    agg = rep["aggregate"]
    assert [agg[f"T{n}"] for n in range(1, 8)] == [100.0, 0.0, 100.0, 0.0, 100.0, 0.0, 100.0]
    assert math.isclose(agg["Avg"], 50.0)  # (100+0+100+0+0+100)/6, T5 excluded
    assert math.isclose(agg["T8_recall"], 200 / 3)
    assert (agg["complete_T8C"], agg["T8C_interactions"], agg["complete_T8C_str"]) == (1, 2, "1 / 2")
    assert agg["missing_predictions"] == ["c2"]
    assert any("ghost" in w for w in rep["warnings"])
    assert rep["table"]["Complete T8-C"] == "1 / 2" and rep["table"]["T8"] == 66.7
    lines = isc.format_table(rep, "m").splitlines()
    assert lines[0].split("|")[-1].strip() == "Complete T8-C"
    assert lines[-1].rstrip().endswith("1 / 2") and " 66.7 " in lines[-1]


def test_unit_interaction_and_partial_avg():
    x = inter("a", "T4", [tgt("g1", 10.0, 20.0), tgt("g2", 30.0, 40.0)])
    p = pred("a", resp("r", 15.0, {"g1": True}))
    rep = isc.score([x], [p], isc.ISConfig(unit="interaction"))
    assert rep["aggregate"]["T4"] == 0.0 and rep["aggregate"]["tasks"]["T4"]["target_accuracy"] == 50.0
    assert rep["aggregate"]["Avg"] is None
    assert isc.score([x], [p], isc.ISConfig(allow_partial=True))["aggregate"]["Avg"] == 50.0


def test_unknown_task_raises():
    with pytest.raises(DatasetError, match="unknown task"):
        isc.score([inter("a", "T9", [tgt("g", 1.0, 2.0)])], [])


# ------------------------------------------------------------------ tool-call verdicts

def test_tool_call_verdict_normalises_strings_only():
    ref = {"tool": "set_timer", "args": {"label": "Pasta  Timer", "minutes": 5}}
    assert isc.tool_call_verdict({"name": "Set_Timer", "args": {"label": " pasta timer", "minutes": 5}}, ref)
    assert isc.tool_call_verdict({"name": "set_timer", "args": {"label": "pasta timer", "minutes": 5.0}}, ref)
    assert not isc.tool_call_verdict({"name": "set_timer", "args": {"label": "pasta timer", "minutes": 6}}, ref)
    assert not isc.tool_call_verdict({"name": "set_alarm", "args": {"label": "pasta timer", "minutes": 5}}, ref)
    assert not isc.tool_call_verdict({"name": "set_timer", "args": {"label": "pasta timer"}}, ref)
    assert not isc.tool_call_verdict(None, ref)
    assert isc.tool_call_verdict({"name": "x", "args": {}}, {"tool": {"name": "X"}})


def test_fill_tool_verdicts_keeps_existing_and_feeds_scorer():
    x = inter("a", "T1", [tgt("g1", 4.0, 8.0, reference={"tool": "set_timer", "args": {"minutes": 5}}),
                          tgt("g2", 4.0, 8.0, reference={"tool": "send_message", "args": {"to": "Bob"}})])
    p = pred("a", resp("r1", 5.0, {"g2": True}, kind="tool_call", tool={"name": "set_timer", "args": {"minutes": 5}}),
             resp("r0", 4.5, {}, text="ok"))
    filled = isc.fill_tool_verdicts(x, p)
    assert filled["responses"][0]["verdicts"] == {"g1": True, "g2": True}  # g2 left as given
    assert filled["responses"][1]["verdicts"] == {}  # speech untouched
    assert p["responses"][0]["verdicts"] == {"g2": True}  # input not mutated
    d = isc.score_interaction(x, filled)
    assert [t.candidate for t in d.targets] == ["r0", "r0"]  # earliest in window is the speech at 4.5
    assert isc.fill_tool_verdicts(x, None)["responses"] == []


# ------------------------------------------------------------------ validation

def test_valid_interactions_have_no_errors():
    xs, preds = dataset()
    for x in xs:
        assert [p for p in isc.validate_item(x, "is.json") if p.severity == "error"] == []
    for p in preds:
        assert isc.validate_prediction(p, "pred.json") == []


def test_validation_messages():
    p = isc.validate_item(inter("a", "T0", [tgt("g", 1.0, 2.0)]), "is.json")
    assert str(p[0]) == "error: is.json item a field 'task': unknown task 'T0'; expected one of " + str(isc.TASKS)
    p = isc.validate_item(inter("b", "T5", [{"id": "g", "window_rel": [28.0, 35.0]}]), "is.json")
    assert [(x.field, x.severity) for x in p] == [("targets[0].query_time", "error")]
    assert "window_rel but no query_time" in p[0].message
    assert isc.validate_item(inter("b", "T5", [{"id": "g", "query_time": 4.0, "window_rel": [1.0, 2.0]}]), "f") == []
    p = isc.validate_item(inter("c", "T2", [tgt("g", 20.0, 10.0), tgt("g", -1.0, 3.0), {"id": "h"}]), "is.json")
    fields = [(x.field, x.severity) for x in p]
    assert fields == [("targets[0].window", "error"), ("targets[1].id", "error"),
                      ("targets[1].window", "error"), ("targets[2].window", "error")]
    p = isc.validate_item(inter("d", "T8", [tgt("g", 1.0, 2.0)]), "is.json")
    assert [(x.field, x.severity) for x in p] == [("subtype", "error")]
    p = isc.validate_item(inter("e", "T8", [tgt("g", 1.0, 2.0)], subtype="D"), "is.json")
    assert [(x.field, x.severity) for x in p] == [("subtype", "warning")]
    p = isc.validate_item(inter("f", "T3", []), "is.json")
    assert [(x.field, x.severity) for x in p] == [("targets", "error")]


def test_validate_prediction_and_totals():
    bad = {"interaction_id": "a", "responses": [{"id": "r", "t": -1}, {"id": "r", "t": 5.0, "end": 4.0,
                                                                         "verdicts": {"g": "yes"}}]}
    p = isc.validate_prediction(bad, "pred.json")
    assert [x.field for x in p] == ["responses[0].t", "responses[1].id", "responses[1].end",
                                    "responses[1].verdicts.g"]
    xs, _ = dataset()
    warn = isc.validate_totals(xs, "is.json")
    assert len(warn) == 3 and all(w.severity == "warning" for w in warn)
    assert "1479" in warn[0].message
