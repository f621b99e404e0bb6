"""Rule-by-rule tests of the OmniInteract canonical aggregation (spec §6-§9): TP/FP/FN sums and IA-QTF1, the
strict FN policy, unmatched chunks as FP, the interruption block, NCCS and the paper metrics. Expectations are
hand-worked in the docstrings (issue 17)."""
import math

import pytest

from scoring.omniinteract.summary import aggregate, metric_row, nested_chain, nested_role, summarize_sample


def row(sid, tp=0.0, fp=0.0, score=0.0, interrupted=False, scene="multi_turn", qtype="realtime", s=0.0, t=0.0,
        **extra):
    r = {"slot_id": sid, "TP_n": tp, "FP_delta": fp, "Score_core": score, "is_interrupted": interrupted,
         "scene_type": scene, "question_type": qtype, "stage_core": {"S_core": s, "T_core": t}}
    r.update(extra)
    return r


def test_metric_row_precision_recall_f1():
    """TP 2, FP 1, FN 1: P = 2/3, R = 2/3, F1 = 2PR/(P+R) = 2/3; FP/FN stored as ints, TP as float.
    TP 0 with nothing else: P = R = F1 = 0 (no division by zero)."""
    r = metric_row(2, 1, 1)
    assert r["Precision"] == pytest.approx(2 / 3, abs=1e-15) and r["Recall"] == pytest.approx(2 / 3, abs=1e-15)
    assert r["IA_QTF1"] == pytest.approx(2 / 3, abs=1e-15)
    assert (r["Global_TP"], r["Global_FP"], r["Global_FN"]) == (2.0, 1, 1) and type(r["Global_FP"]) is int
    z = metric_row(0, 0, 0)
    assert (z["Precision"], z["Recall"], z["IA_QTF1"]) == (0.0, 0.0, 0.0)


def test_strict_fn_policy_and_unmatched_fp():
    """Slot 1: TP 0.8, FP 0.5, Score_core 0.8 -> no FN. Slot 2: Score_core 0 -> FN (not interrupted).
    Slot 3: interrupted with Score_core 0 -> never FN. Unmatched chunks 2 count as FP when status is ok:
    FP = 0.5 + 1 + 0 + 2 = 3.5 -> Global_FP int 3; TP 0.8, FN 1.
    P = 0.8 / 4.3 = 8/43, R = 0.8 / 1.8 = 4/9, F1 = 2 (8/43)(4/9) / (8/43 + 4/9) = 64/244 = 16/61."""
    rows = [row(1, tp=0.8, fp=0.5, score=0.8), row(2, fp=1.0, score=0.0, qtype="proactive"),
            row(3, score=0.0, interrupted=True)]
    s = summarize_sample(rows, 2, "ok", True, False)["summary"]
    assert (s["Global_TP"], s["Global_FP"], s["Global_FN"], s["num_slots"]) == (0.8, 3, 1, 3)
    assert s["Precision"] == pytest.approx(8 / 43, abs=1e-12) and s["Recall"] == pytest.approx(4 / 9, abs=1e-12)
    assert s["IA_QTF1"] == pytest.approx(16 / 61, abs=1e-12)
    assert (s["num_processed_slots"], s["num_unmatched_chunks"]) == (3, 2)
    assert summarize_sample(rows, 2, "ok", True, False)["fn_slot_ids"] == [2]
    failed = summarize_sample(rows, 2, "failed", True, False)["summary"]
    assert failed["Global_FP"] == 1  # 1.5 without the unmatched chunks
    off = summarize_sample(rows, 2, "ok", False, False)["summary"]
    assert off["Global_FP"] == 1


def test_groups_by_scene_and_question_type():
    """Two realtime slots (TP 1 and 0.5) and one proactive (TP 0, FN): realtime TP 1.5 over 2 slots."""
    rows = [row(1, tp=1.0, score=1.0), row(2, tp=0.5, score=0.5), row(3, qtype="proactive")]
    s = summarize_sample(rows, 0, "ok", True, False)["summary"]
    assert list(s["by_question_type"]) == ["proactive", "realtime"]
    rt = s["by_question_type"]["realtime"]
    assert (rt["Global_TP"], rt["Global_FN"], rt["num_slots"]) == (1.5, 0, 2)
    assert s["by_question_type"]["proactive"]["Global_FN"] == 1
    assert s["by_scene_type"]["multi_turn"]["num_slots"] == 3
    assert "exclusive_by_question_type" not in s
    fixed = summarize_sample(rows, 0, "ok", True, False, fixed=True)["summary"]
    assert fixed["exclusive_by_question_type"]["realtime"]["Global_TP"] == 1.5


def test_pure_scores_average_raw_core_quality_and_timeliness():
    """S_core 0.9, 0.3, 0.0 -> mean 0.4; T_core 0.5, 0.25, 0 -> 0.25; non-interrupted: slots 1-2 ->
    quality (0.9 + 0.3) / 2 = 0.6; interrupted: slot 3 only."""
    rows = [row(1, s=0.9, t=0.5, score=1), row(2, s=0.3, t=0.25, score=1), row(3, interrupted=True)]
    ps = summarize_sample(rows, 0, "ok", True, False)["pure_scores"]
    assert ps["overall"]["num_slots"] == 3
    assert ps["overall"]["pure_quality_avg"] == pytest.approx(0.4, abs=1e-15)
    assert ps["overall"]["pure_timeliness_avg"] == pytest.approx(0.25, abs=1e-15)
    assert ps["non_interrupted"]["pure_quality_avg"] == pytest.approx(0.6, abs=1e-15)
    assert ps["interrupted"] == {"num_slots": 1, "pure_quality_avg": 0.0, "pure_timeliness_avg": 0.0}


def test_interruption_block():
    """Interrupted slots: #1 silent (no chunks, no text) -> no output; #2 spoke (num_chunks 1), spill 2.5 s, judged
    ok: partial quality 0.6, low quality; #3 spoke (early text), spill 0, diagnostic not ok.
    NOR = 1/3; with output 2; positive spill 1 of 2 = 0.5; average spill 2.5 / 2 = 1.25; PAQ = 0.6 / 1."""
    rows = [row(1, interrupted=True),
            row(2, interrupted=True, num_chunks=1, spill_diagnostics={"spill_seconds": 2.5},
                interruption_diagnostic={"status": "ok", "partial_quality": 0.6, "low_quality": True,
                                         "hallucination": False, "TP": 1, "FP": 0, "FN": 0}),
            row(3, interrupted=True, stage_early={"text_early": " hi "}, interruption_diagnostic={"status": "error"})]
    i = summarize_sample(rows, 0, "ok", True, False)["interrupted_summary"]
    assert (i["interrupted_slot_count"], i["interrupted_no_output_count"], i["interrupted_with_output_count"]) == (3, 1, 2)
    assert i["interrupted_no_output_rate"] == pytest.approx(1 / 3, abs=1e-15)
    assert (i["interrupted_with_positive_spill_count"], i["spill_positive_rate_in_output_slots"]) == (1, 0.5)
    assert (i["total_spill_seconds"], i["avg_spill_seconds_in_output_slots"]) == (2.5, 1.25)
    assert (i["partial_quality_count"], i["partial_quality_avg"], i["low_quality_count"], i["hallucination_count"]) \
        == (1, 0.6, 1, 0)
    assert i["diagnostic_metrics"]["Global_TP"] == 1.0 and i["metrics"]["num_slots"] == 3


def test_math_blocks_only_for_math_samples():
    rows = [row(1, tp=1.0, score=1.0, s=1.0)]
    assert summarize_sample(rows, 0, "ok", True, False)["math_summary"] is None
    out = summarize_sample(rows, 0, "ok", True, True)
    assert out["math_summary"]["Global_TP"] == 1.0 and out["math_pure_scores"]["pure_quality_avg"] == 1.0


def test_nested_role_fallbacks():
    """Explicit role first; else proactive -> outer, realtime -> inner; else odd slot id -> outer, even -> inner."""
    assert nested_role({"scene_type": "multi_turn", "nested_role": "outer"}) is None
    assert nested_role({"scene_type": "nested", "nested_role": " Inner ", "question_type": "proactive"}) == "inner"
    assert nested_role({"scene_type": "nested", "question_type": "Proactive"}) == "outer"
    assert nested_role({"scene_type": "nested", "question_type": "realtime"}) == "inner"
    assert nested_role({"scene_type": "nested", "slot_id": 3}) == "outer"
    assert nested_role({"scene_type": "nested", "slot_id": "4"}) == "inner"
    assert nested_role({"scene_type": "nested", "slot_id": None}) == "unknown"


def _pair(q_outer, q_inner, t_outer, t_inner, sid=1):
    return [row(sid, score=q_outer, scene="nested", nested_role="outer",
                stage_core={"S_core": 1.0, "T_start": t_outer}),
            row(sid + 1, score=q_inner, scene="nested", nested_role="inner",
                stage_core={"S_core": 1.0, "T_start": t_inner})]


def test_nccs_is_the_geometric_mean_when_the_inner_is_not_later():
    """q_outer 0.64, q_inner 0.25, inner core at 15 <= outer core at 20: sqrt(0.64 * 0.25) = 0.4 over 1 pair.
    Inner at 25 > 20: order error, no credit. Inner exactly at 20: allowed (<=)."""
    ok = nested_chain(_pair(0.64, 0.25, 20.0, 15.0))
    assert (ok["num_pairs"], ok["success_pairs"], ok["order_error_count"]) == (1, 1, 0)
    assert ok["NCCS"] == pytest.approx(0.4, abs=1e-15) and ok["score_sum"] == pytest.approx(0.4, abs=1e-15)
    late = nested_chain(_pair(0.64, 0.25, 20.0, 25.0))
    assert (late["success_pairs"], late["order_error_count"], late["NCCS"]) == (0, 1, 0.0)
    assert nested_chain(_pair(0.64, 0.25, 20.0, 20.0))["success_pairs"] == 1


def test_nccs_counts_missing_pairs_and_zero_qualities():
    """Pair 1 has Score_core 0 on the outer (missing q1) and 0.5 on the inner; pair 2 (ids 3-4) lacks its inner:
    2 pairs, 0 successes, NCCS 0 / 2 = 0."""
    rows = _pair(0.0, 0.5, 20.0, 15.0) + [row(3, score=1.0, scene="nested", nested_role="outer")]
    c = nested_chain(rows)
    assert (c["num_pairs"], c["success_pairs"], c["missing_pair_count"], c["missing_q1_count"],
            c["missing_q2_count"]) == (2, 0, 1, 1, 0)
    assert c["success_rate"] == 0.0


def test_nccs_fixed_mode_uses_raw_core_quality_of_credited_answers():
    """Fixed: quality = S_core when Score_core > 0: outer S 0.81, inner S 0.25 -> sqrt(0.2025) = 0.45."""
    rows = _pair(0.1, 0.1, 20.0, 15.0)
    rows[0]["stage_core"]["S_core"], rows[1]["stage_core"]["S_core"] = 0.81, 0.25
    assert nested_chain(rows, fixed=True)["NCCS"] == pytest.approx(0.45, abs=1e-15)
    assert nested_chain(rows)["NCCS"] == pytest.approx(0.1, abs=1e-15)  # reference: weighted Score_core


def test_aggregate_sums_samples_and_reweights_averages():
    """Sample A: one slot, TP 1, S_core 1.0. Sample B: three slots, TP 0, S_core 0.2 each, all FN.
    Totals: TP 1, FN 3, 4 slots; quality mean re-weighted (1.0 * 1 + 0.2 * 3) / 4 = 0.4; one passthrough
    -> num_items 3, success 2. Unmatched chunks 1 + 0 = 1 (FP 1 from A's status ok)."""
    a = summarize_sample([row(1, tp=1.0, score=1.0, s=1.0)], 1, "ok", True, False)
    b = summarize_sample([row(k, s=0.2) for k in (1, 2, 3)], 0, "ok", True, False)
    s = aggregate([a, b], 1)
    assert (s["Global_TP"], s["Global_FP"], s["Global_FN"], s["num_slots"]) == (1.0, 1, 3, 4)
    assert (s["num_items"], s["success"], s["failed_or_skipped"], s["num_unmatched_chunks"]) == (3, 2, 1, 1)
    assert s["pure_scores"]["overall"]["pure_quality_avg"] == pytest.approx(0.4, abs=1e-12)
    assert s["by_question_type"]["realtime"]["num_slots"] == 4
    assert s["math"] == {"num_slots": 0}
    pm = s["paper_metrics"]["exp_f1"]["all_global"]
    assert (pm["num_slots"], pm["Global_TP"], pm["Global_FN"]) == (4, 1.0, 3)


def test_paper_metrics_subtract_nested_roles_from_question_types():
    """Reference label arithmetic: realtime = by_question_type.realtime - nested inner (clamped at 0).
    Multi-turn realtime slot TP 1 plus a nested inner (realtime) slot TP 0.5 -> realtime TP 1.5 - 0.5 = 1.0,
    slots 2 - 1 = 1. NCCS of the one pair: sqrt(1 * 1) = 1."""
    rows = [row(1, tp=1.0, score=1.0),
            row(1, tp=1.0, score=1.0, scene="nested", qtype="proactive", nested_role="outer",
                stage_core={"S_core": 1.0, "T_start": 20.0}),
            row(2, tp=0.5, score=1.0, scene="nested", qtype="realtime", nested_role="inner",
                stage_core={"S_core": 1.0, "T_start": 10.0})]
    s = aggregate([summarize_sample(rows, 0, "ok", True, False)], 0)
    pm = s["paper_metrics"]
    assert (pm["exp_f1"]["realtime"]["Global_TP"], pm["exp_f1"]["realtime"]["num_slots"]) == (1.0, 1)
    assert (pm["exp_f1"]["proactive"]["Global_TP"], pm["exp_f1"]["proactive"]["num_slots"]) == (0.0, 0)
    assert pm["exp_f1"]["nested"]["num_slots"] == 2 and pm["exp_f1"]["one_q1a_global"]["num_slots"] == 3
    assert pm["exp_f1"]["one_q1a_global"]["Global_TP"] == 2.5
    assert pm["exp_nested"]["NCCS"] == 1.0 and pm["exp_nested"]["num_pairs"] == 1
    assert math.isclose(s["nested_chain_completion"]["score_sum"], 1.0)
    fixed = aggregate([summarize_sample(rows, 0, "ok", True, False, fixed=True)], 0, fixed=True)["paper_metrics"]
    assert (fixed["exp_f1"]["realtime"]["Global_TP"], fixed["exp_f1"]["realtime"]["num_slots"]) == (1.0, 1)


def test_core_time_fallback_order():
    """The inner's core time is read from T_start_true_effective, else T_start, else T_start_fallback, else T_end
    (unparseable values skipped). Inner effective 15 <= outer 20 -> success even though inner T_start is 25;
    inner with only T_end 30 > 20 -> order error."""
    rows = _pair(1.0, 1.0, 20.0, 25.0)
    rows[1]["stage_core"]["T_start_true_effective"] = 15.0
    assert nested_chain(rows)["success_pairs"] == 1
    rows[1]["stage_core"] = {"S_core": 1.0, "T_start_true_effective": "n/a", "T_start": None, "T_end": 30.0}
    assert nested_chain(rows)["order_error_count"] == 1
    rows[1]["stage_core"] = {"S_core": 1.0, "T_start_fallback": 19.0, "T_end": 30.0}
    assert nested_chain(rows)["success_pairs"] == 1
    rows[1]["stage_core"] = {"S_core": 1.0}  # no time at all: order not checked, credited
    assert nested_chain(rows)["success_pairs"] == 1


def test_nccs_pairs_by_step_then_slot_pair():
    """Without step_index, slot ids 1-2 and 3-4 form pairs (id + 1) // 2; with step_index the step names the pair:
    outer 1 and inner 4 both step 7 -> one pair. The first outer of a pair by (start, slot id) is used."""
    rows = _pair(1.0, 1.0, 20.0, 10.0, sid=1) + _pair(1.0, 0.0, 20.0, 10.0, sid=3)
    c = nested_chain(rows)
    assert (c["num_pairs"], c["success_pairs"], c["missing_q2_count"]) == (2, 1, 1)
    a, b = row(1, score=1.0, scene="nested", nested_role="outer", step_index=7), \
        row(4, score=1.0, scene="nested", nested_role="inner", step_index=7)
    assert nested_chain([a, b])["num_pairs"] == 1
    late_outer = row(5, score=0.0, scene="nested", nested_role="outer", step_index=7, start=50.0)
    a["start"] = 10.0
    assert nested_chain([late_outer, a, b])["success_pairs"] == 1  # outer at start 10 is the pair's outer


def test_aggregate_interruption_and_nccs_sums():
    """Two samples, each with one interrupted slot that spoke (spill 2 s and 0 s), partial quality 0.5 and 1.0:
    NOR 0 / 2 = 0; PAQ (0.5 + 1.0) / 2 = 0.75; CSM-SR 1 / 2 = 0.5; CSM-AS 2 / 2 = 1.0. Each sample also has one
    nested pair credited sqrt(0.25 * 1) = 0.5: NCCS (0.5 + 0.5) / 2 = 0.5."""
    def sample(spill, pq):
        rows = [row(9, interrupted=True, num_core=1, spill_diagnostics={"spill_seconds": spill},
                    interruption_diagnostic={"status": "ok", "partial_quality": pq, "hallucination": "yes",
                                             "TP": 1, "FP": 1, "FN": 0})] + _pair(0.25, 1.0, 20.0, 10.0)
        return summarize_sample(rows, 0, "ok", True, False)
    s = aggregate([sample(2.0, 0.5), sample(0.0, 1.0)], 0)
    ei = s["paper_metrics"]["exp_interruption"]
    assert (ei["NOR"], ei["PAQ"], ei["CSM_SR"], ei["CSM_AS_seconds"]) == (0.0, 0.75, 0.5, 1.0)
    assert (ei["interrupted_slot_count"], ei["interrupted_with_output_count"]) == (2, 2)
    assert s["interrupted"]["hallucination_count"] == 2
    dm = s["interrupted"]["diagnostic_metrics"]
    assert (dm["Global_TP"], dm["Global_FP"], dm["num_slots"]) == (2.0, 2, 2)
    en = s["paper_metrics"]["exp_nested"]
    assert en["NCCS"] == pytest.approx(0.5, abs=1e-15) and en["num_pairs"] == 2
    assert s["nested_chain_completion"]["success_pairs"] == 2


def test_aggregate_math_blocks():
    """Math samples only: TP 1 and 0 over 2 slots; pure quality (1 + 0) / 2 = 0.5."""
    m1 = summarize_sample([row(1, tp=1.0, score=1.0, s=1.0)], 0, "ok", True, True)
    m2 = summarize_sample([row(1, tp=0.0, score=0.0, s=0.0)], 0, "ok", True, True)
    s = aggregate([m1, m2, summarize_sample([row(1)], 0, "ok", True, False)], 0)
    assert (s["math"]["Global_TP"], s["math"]["Global_FN"], s["math"]["num_slots"]) == (1.0, 1, 2)
    assert s["math_pure_scores"]["overall"]["pure_quality_avg"] == 0.5


def test_metric_sub_clamps_at_zero():
    """Reference label arithmetic never goes negative: realtime FP 0 - inner FP 2 -> 0; slots 1 - 2 -> 0."""
    from scoring.omniinteract.summary import paper_metrics
    summary = {"by_question_type": {"realtime": {"Global_TP": 1.0, "Global_FP": 0, "Global_FN": 1, "num_slots": 1}},
               "nested_by_role": {"inner": {"Global_TP": 0.5, "Global_FP": 2, "Global_FN": 0, "num_slots": 2}}}
    rt = paper_metrics(summary)["exp_f1"]["realtime"]
    assert (rt["Global_TP"], rt["Global_FP"], rt["Global_FN"], rt["num_slots"]) == (0.5, 0, 1, 0)


def test_nccs_fixed_mode_gives_no_credit_without_core_score():
    """Fixed: an outer with Score_core 0 has quality 0 even though its raw S_core is 0.9 -> missing q1, no success.
    A stage_core that is not an object reads as empty: no core time (order unchecked) and S_core 0."""
    rows = _pair(0.0, 1.0, 20.0, 15.0)
    rows[0]["stage_core"]["S_core"] = 0.9
    c = nested_chain(rows, fixed=True)
    assert (c["success_pairs"], c["missing_q1_count"], c["NCCS"]) == (0, 1, 0.0)
    rows = _pair(1.0, 1.0, 20.0, 15.0)
    rows[1]["stage_core"] = None
    assert nested_chain(rows)["success_pairs"] == 1           # reference quality: Score_core 1 and 1
    assert nested_chain(rows, fixed=True)["missing_q2_count"] == 1  # fixed: raw S_core of {} is 0


def test_metric_acc_reads_missing_counts_as_zero():
    from scoring.omniinteract.summary import MetricAcc
    acc = MetricAcc()
    acc.add_row({"num_slots": 2})
    assert (acc.tp, acc.fp, acc.fn, acc.num_slots) == (0.0, 0.0, 0.0, 2.0)


def _nested(sid, role, score=1.0, **kw):
    r = row(sid, score=score, scene="nested", nested_role=role, stage_core={"S_core": 1.0})
    r.update(kw)
    if sid is None:
        del r["slot_id"]
    return r


def test_nccs_pair_keys_blank_step_and_start_times():
    """A blank step_index falls back to slot pairs (1-2, 3-4): 2 pairs. Without slot ids the start time keys
    the pair: starts 10 and 50 give 2 pairs."""
    rows = [_nested(k, "outer" if k % 2 else "inner", step_index="") for k in (1, 2, 3, 4)]
    assert nested_chain(rows)["num_pairs"] == 2
    rows = [_nested(None, "outer", start=10.0), _nested(None, "inner", start=10.0),
            _nested(None, "outer", start=50.0), _nested(None, "inner", start=50.0)]
    c = nested_chain(rows)
    assert (c["num_pairs"], c["success_pairs"]) == (2, 2)


def test_nccs_first_outer_is_the_earliest_then_lowest_id():
    """One pair (step 7) with several outers: the earliest start wins over a lower id (id 3 at 10 beats id 1 at 50);
    at equal starts the lower id wins whatever the input order (id 3 beats id 5); a slot without an id sorts last
    (id 100 beats no id). Only the winning outer has a core score, so success shows which one was used."""
    inner = _nested(4, "inner", step_index=7, start=10.0)
    cases = [[_nested(1, "outer", 0.0, step_index=7, start=50.0), _nested(3, "outer", step_index=7, start=10.0)],
             [_nested(5, "outer", 0.0, step_index=7, start=10.0), _nested(3, "outer", step_index=7, start=10.0)],
             [_nested(None, "outer", 0.0, step_index=7, start=10.0), _nested(100, "outer", step_index=7, start=10.0)]]
    for outers in cases:
        assert nested_chain(outers + [inner])["success_pairs"] == 1, outers


def test_interrupted_output_from_any_count_or_text():
    """An interrupted slot has output when num_chunks, num_early or num_core > 0, or a non-blank early or core
    text: here num_early 1, then core text only; a blank core text and a non-object stage_core are silence."""
    rows = [row(1, interrupted=True, num_early=1),
            row(2, interrupted=True, stage_core={"text_core": " hi "}),
            row(3, interrupted=True, stage_core={"text_core": "  "}),
            row(4, interrupted=True, stage_core=None)]
    i = summarize_sample(rows, 0, "ok", True, False)["interrupted_summary"]
    assert (i["interrupted_with_output_count"], i["interrupted_no_output_count"]) == (2, 2)


def test_aggregate_reads_older_sample_summaries_through_their_fallback_keys():
    """A sample summary without partial_quality_count uses interrupted_with_output_count (2): PAQ sum 0.5 x 2 = 1.0
    over 2 -> 0.5; without total_spill_seconds_in_output_slots it uses total_spill_seconds (3.0): CSM-AS 3.0 / 2
    = 1.5; a diagnostic block without counts adds 0s over pq_count = 2 slots; without score_sum the NCCS sum is
    ira_sum 0.5 over 1 pair."""
    legacy = {"interrupted_summary": {"interrupted_slot_count": 2, "interrupted_with_output_count": 2,
                                      "partial_quality_avg": 0.5, "total_spill_seconds": 3.0,
                                      "diagnostic_metrics": {}},
              "nested_ira": {"num_pairs": 1, "ira_sum": 0.5}}
    s = aggregate([legacy], 0)
    i = s["interrupted"]
    assert (i["partial_quality_count"], i["partial_quality_avg"], i["avg_spill_seconds"]) == (2, 0.5, 1.5)
    dm = i["diagnostic_metrics"]
    assert (dm["Global_TP"], dm["Global_FP"], dm["Global_FN"], dm["num_slots"]) == (0.0, 0, 0, 2)
    assert s["nested_chain_completion"]["NCCS"] == 0.5


def test_aggregate_prefers_the_current_keys_over_the_fallbacks():
    """partial_quality_count 1 (not the output count 2): PAQ 0.8 x 1 / 1 = 0.8; in-output spill 2.0 (not 9.0):
    2.0 / 2 = 1.0; diagnostic num_slots 5 (not pq_count 1); score_sum 0.25 (not ira_sum 0.9)."""
    item = {"interrupted_summary": {"interrupted_slot_count": 2, "interrupted_with_output_count": 2,
                                    "partial_quality_count": 1, "partial_quality_avg": 0.8,
                                    "total_spill_seconds_in_output_slots": 2.0, "total_spill_seconds": 9.0,
                                    "diagnostic_metrics": {"Global_TP": 1, "Global_FP": 2, "Global_FN": 3,
                                                           "num_slots": 5}},
            "nested_ira": {"num_pairs": 1, "score_sum": 0.25, "ira_sum": 0.9}}
    s = aggregate([item], 0)
    i = s["interrupted"]
    assert (i["partial_quality_avg"], i["avg_spill_seconds"]) == (0.8, 1.0)
    dm = i["diagnostic_metrics"]
    assert (dm["Global_TP"], dm["Global_FP"], dm["Global_FN"], dm["num_slots"]) == (1.0, 2, 3, 5)
    assert s["nested_chain_completion"]["NCCS"] == 0.25


def test_aggregate_sums_nccs_counts_over_samples():
    """Order errors 1 + 1 = 2, missing pairs 1 + 0 = 1, pairs 2 + 1 = 3 across two sample summaries."""
    a = {"nested_ira": {"num_pairs": 2, "order_error_count": 1, "missing_pair_count": 1, "missing_q1_count": 1,
                        "missing_q2_count": 0, "success_pairs": 1, "score_sum": 0.5}}
    b = {"nested_ira": {"num_pairs": 1, "order_error_count": 1, "missing_pair_count": 0, "missing_q1_count": 1,
                        "missing_q2_count": 1, "success_pairs": 0, "score_sum": 0.0}}
    c = aggregate([a, b], 0)["nested_chain_completion"]
    assert (c["num_pairs"], c["order_error_count"], c["missing_pair_count"], c["missing_q1_count"],
            c["missing_q2_count"], c["success_pairs"]) == (3, 2, 1, 2, 1, 1)
    assert c["NCCS"] == pytest.approx(0.5 / 3, abs=1e-15)


def test_paper_metrics_read_the_chain_block_then_its_old_name():
    from scoring.omniinteract.summary import paper_metrics
    assert paper_metrics({"nested_ira": {"NCCS": 0.3, "num_pairs": 2}})["exp_nested"]["NCCS"] == 0.3
    both = {"nested_chain_completion": {"NCCS": 0.7, "num_pairs": 1}, "nested_ira": {"NCCS": 0.1, "num_pairs": 9}}
    assert paper_metrics(both)["exp_nested"]["NCCS"] == 0.7 and paper_metrics(both)["exp_nested"]["num_pairs"] == 1
    assert paper_metrics({"nested_ira": {"Nested_IRA": 0.4}})["exp_nested"]["NCCS"] == 0.4
    assert paper_metrics({})["exp_nested"] == {"NCCS": 0.0, "inner_IA_QTF1": 0.0, "outer_IA_QTF1": 0.0,
                                                "missed_outer": 0, "num_pairs": 0}


def test_aggregate_of_an_empty_sample_summary_is_all_zero():
    """A sample summary with none of the blocks adds nothing: no partial-quality slots, no spill, NCCS sum 0."""
    s = aggregate([{}], 2)
    i = s["interrupted"]
    assert (i["partial_quality_count"], i["total_spill_seconds"], i["diagnostic_metrics"]["num_slots"]) == (0, 0.0, 0)
    assert s["nested_chain_completion"]["score_sum"] == 0.0 and (s["num_items"], s["success"]) == (3, 1)


def test_paper_metrics_defaults_and_fixed_exclusive_rows():
    """Without totals, all_global reads 0 counts and 0.0 rates; fixed mode takes realtime and proactive from the
    exclusive multi-turn rows (proactive TP 2 over 3 slots), not from label arithmetic."""
    from scoring.omniinteract.summary import paper_metrics
    assert paper_metrics({})["exp_f1"]["all_global"] == {"num_slots": 0, "Global_TP": 0.0, "Global_FP": 0,
                                                         "Global_FN": 0, "Precision": 0.0, "Recall": 0.0,
                                                         "IA_QTF1": 0.0}
    excl = {"exclusive_by_question_type": {"proactive": {"Global_TP": 2.0, "Global_FP": 1, "Global_FN": 1,
                                                         "num_slots": 3}}}
    pm = paper_metrics(excl, fixed=True)["exp_f1"]
    assert (pm["proactive"]["Global_TP"], pm["proactive"]["num_slots"]) == (2.0, 3)
    assert (pm["realtime"]["Global_TP"], pm["realtime"]["num_slots"]) == (0.0, 0)


def test_paper_interruption_metrics_defaults_and_old_names():
    """No interruption block: NOR, PAQ, CSM-SR, CSM-AS 0.0 and counts 0. An older block names the spill rates
    spill_positive_rate / avg_spill_seconds; the in-output-slot names win when both are present."""
    from scoring.omniinteract.summary import paper_metrics
    assert paper_metrics({})["exp_interruption"] == {"NOR": 0.0, "PAQ": 0.0, "CSM_SR": 0.0, "CSM_AS_seconds": 0.0,
                                                     "interrupted_slot_count": 0, "interrupted_with_output_count": 0}
    old = {"interrupted": {"spill_positive_rate": 0.5, "avg_spill_seconds": 2.0, "interrupted_no_output_rate": 0.25,
                           "partial_quality_avg": 0.75, "interrupted_slot_count": 4, "interrupted_with_output_count": 3}}
    ei = paper_metrics(old)["exp_interruption"]
    assert ei == {"NOR": 0.25, "PAQ": 0.75, "CSM_SR": 0.5, "CSM_AS_seconds": 2.0, "interrupted_slot_count": 4,
                  "interrupted_with_output_count": 3}
    old["interrupted"].update(spill_positive_rate_in_output_slots=0.1, avg_spill_seconds_in_output_slots=0.2)
    ei = paper_metrics(old)["exp_interruption"]
    assert (ei["CSM_SR"], ei["CSM_AS_seconds"]) == (0.1, 0.2)


def test_sample_rows_missing_labels_read_unknown_and_not_interrupted():
    """No scene_type/question_type/is_interrupted keys, or blank ones: grouped under 'unknown' and scored as not
    interrupted (Score_core 0 -> FN). A judged interrupted slot without flags counts no low quality or
    hallucination. A non-math sample has no math blocks."""
    bare = {"slot_id": 1, "TP_n": 0.0, "FP_delta": 0.0, "Score_core": 0.0}
    blank = {**bare, "slot_id": 2, "scene_type": "", "question_type": None}
    out = summarize_sample([bare, blank], 0, "ok", True, False)
    s = out["summary"]
    assert list(s["by_scene_type"]) == ["unknown"] and list(s["by_question_type"]) == ["unknown"]
    assert s["Global_FN"] == 2 and out["math_pure_scores"] is None
    judged = row(3, interrupted=True, num_chunks=1, interruption_diagnostic={"status": "ok", "partial_quality": 0.5})
    i = summarize_sample([judged], 0, "ok", True, False)["interrupted_summary"]
    assert (i["low_quality_count"], i["hallucination_count"], i["partial_quality_count"]) == (0, 0, 1)


def test_nccs_counts_each_missing_pair_and_order_error():
    """Pairs by step: 1 has only an inner, 2 only an outer (2 missing pairs); 3 and 4 have the inner later than
    the outer (2 order errors); 5 has two inners, the earlier one (start 1) used: success. 5 pairs, 1 success."""
    def r(step, role, t, start=0.0, sid=1):
        return _nested(sid, role, step_index=step, start=start, stage_core={"S_core": 1.0, "T_start": t})
    rows = [r(1, "inner", 10.0), r(2, "outer", 10.0), r(3, "outer", 10.0), r(3, "inner", 20.0),
            r(4, "outer", 10.0), r(4, "inner", 20.0), r(5, "outer", 10.0), r(5, "inner", 30.0, start=5.0, sid=2),
            r(5, "inner", 5.0, start=1.0, sid=4)]
    c = nested_chain(rows)
    assert (c["num_pairs"], c["missing_pair_count"], c["order_error_count"], c["success_pairs"]) == (5, 2, 2, 1)
    assert c["full_name"] == "Nested Chain Completion Score" and c["metric_name"] == "NCCS"
