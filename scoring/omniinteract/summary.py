"""Canonical aggregation (spec §6-§9): per-sample summaries, cross-sample sums, IDS, NCCS, paper_metrics.

Sums follow the reference's order (per-slot into per-sample, then per-sample rows into the
total; averages re-weighted as avg*count) so floats agree to ~1e-15.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from .common import f1_from_pr, safe_div, to_bool

FN_POLICY = "strict_core_fn_non_interrupted_score_core_le_0"


def _num(value: Any, default: float = 0.0) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(default)


def metric_row(tp: float, fp: float, fn: float, extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """TP/FP/FN with P, R and IA-QTF1 (FP and FN stored as ints)."""
    p, r = safe_div(tp, tp + fp), safe_div(tp, tp + fn)
    row = {"Global_TP": float(tp), "Global_FP": int(fp), "Global_FN": int(fn), "Precision": p, "Recall": r,
           "IA_QTF1": f1_from_pr(p, r)}
    return {**extra, **row} if extra else row


@dataclass
class MetricAcc:
    """Running TP/FP/FN/slot-count sums."""

    num_slots: float = 0.0
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0

    def add(self, tp: Any, fp: Any, fn: Any, num_slots: Any = 1.0) -> None:
        self.num_slots += float(num_slots)
        self.tp += float(tp)
        self.fp += float(fp)
        self.fn += float(fn)

    def add_row(self, row: dict[str, Any]) -> None:
        self.add(row.get("Global_TP", 0), row.get("Global_FP", 0), row.get("Global_FN", 0), row.get("num_slots", 0))

    def row(self, extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        return metric_row(self.tp, self.fp, self.fn, {"num_slots": int(self.num_slots), **(extra or {})})


@dataclass
class ScoreAcc:
    """Running sums of raw core quality and timeliness."""

    count: float = 0.0
    quality: float = 0.0
    timeliness: float = 0.0

    def add(self, quality: float, timeliness: float) -> None:
        self.count += 1.0
        self.quality += float(quality)
        self.timeliness += float(timeliness)

    def add_avg_row(self, row: dict[str, Any]) -> None:
        count = _num(row.get("num_slots"))
        self.count += count
        self.quality += _num(row.get("pure_quality_avg")) * count
        self.timeliness += _num(row.get("pure_timeliness_avg")) * count

    def row(self) -> dict[str, Any]:
        count = int(self.count)
        return {"num_slots": count, "pure_quality_avg": safe_div(self.quality, count),
                "pure_timeliness_avg": safe_div(self.timeliness, count)}


def _groups(groups: dict[str, MetricAcc] | dict[str, ScoreAcc]) -> dict[str, Any]:
    return {k: v.row() for k, v in sorted(groups.items())}


class _Totals:
    """The sums behind a summary: filled from slot rows for one sample, or from sample summaries for the
    benchmark; both read out the same way."""

    def __init__(self) -> None:
        self.total, self.inter_acc, self.diag_acc, self.math_acc = MetricAcc(), MetricAcc(), MetricAcc(), MetricAcc()
        self.by_scene: dict[str, MetricAcc] = {}
        self.by_qtype: dict[str, MetricAcc] = {}
        self.by_role: dict[str, MetricAcc] = {}
        self.exclusive: dict[str, MetricAcc] = {}
        self.s_all, self.s_nonint, self.s_int, self.s_math = ScoreAcc(), ScoreAcc(), ScoreAcc(), ScoreAcc()
        self.s_scene: dict[str, ScoreAcc] = {}
        self.s_qtype: dict[str, ScoreAcc] = {}
        self.s_role: dict[str, ScoreAcc] = {}
        self.n_int = self.n_no_out = self.n_out = self.n_spill = self.n_pq = self.n_low = self.n_hall = 0
        self.spill_total = self.pq_sum = 0.0

    def add_groups(self, summary: dict[str, Any], fixed: bool) -> None:
        """The per-scene, per-question-type and per-role rows (and with `fixed`, the exclusive ones)."""
        summary["by_scene_type"] = _groups(self.by_scene)
        summary["by_question_type"] = _groups(self.by_qtype)
        summary["nested_by_role"] = _groups(self.by_role)
        if fixed:
            summary["exclusive_by_question_type"] = _groups(self.exclusive)

    def pure_scores(self) -> dict[str, Any]:
        return {"overall": self.s_all.row(), "non_interrupted": self.s_nonint.row(),
                "by_scene_type": _groups(self.s_scene), "by_question_type": _groups(self.s_qtype),
                "nested_by_role": _groups(self.s_role), "interrupted": self.s_int.row()}

    def interrupted(self) -> dict[str, Any]:
        """The interruption block (IDS inputs): output rates, partial quality and spill over interrupted slots."""
        n_int, n_no_out, n_out, n_spill, spill_total = self.n_int, self.n_no_out, self.n_out, self.n_spill, self.spill_total
        return {
            "interrupted_slot_count": n_int, "interrupted_no_output_count": n_no_out,
            "interrupted_no_output_rate": safe_div(n_no_out, n_int), "interrupted_with_output_count": n_out,
            "partial_quality_count": self.n_pq, "partial_quality_avg": safe_div(self.pq_sum, self.n_pq),
            "low_quality_count": self.n_low, "hallucination_count": self.n_hall,
            "interrupted_with_positive_spill_count": n_spill,
            "spill_positive_rate": safe_div(n_spill, n_out), "spill_positive_rate_in_output_slots": safe_div(n_spill, n_out),
            "total_spill_seconds": spill_total, "total_spill_seconds_in_output_slots": spill_total,
            "avg_spill_seconds": safe_div(spill_total, n_out), "avg_spill_seconds_in_output_slots": safe_div(spill_total, n_out),
            "metrics": self.inter_acc.row(), "diagnostic_metrics": self.diag_acc.row(),
        }


def nested_role(row: dict[str, Any]) -> Optional[str]:
    """outer/inner for nested slots (fallback: proactive -> outer, realtime -> inner, odd id -> outer)."""
    if str(row.get("scene_type", "") or "") != "nested":
        return None
    role = str(row.get("nested_role", "") or "").strip().lower()
    if role in ("inner", "outer"):
        return role
    qtype = str(row.get("question_type", "") or "").strip().lower()
    if qtype == "proactive":
        return "outer"
    if qtype == "realtime":
        return "inner"
    try:
        return "outer" if int(row.get("slot_id")) % 2 == 1 else "inner"
    except (TypeError, ValueError):
        return "unknown"


def _core_time(row: dict[str, Any]) -> Optional[float]:
    core = row.get("stage_core") if isinstance(row.get("stage_core"), dict) else {}
    for key in ("T_start_true_effective", "T_start", "T_start_fallback", "T_end"):
        value = core.get(key)
        if value is None:
            continue
        try:
            return float(value)
        except (TypeError, ValueError):
            continue
    return None


def _pair_key(row: dict[str, Any]) -> str:
    step = row.get("step_index")
    if step not in (None, ""):
        return f"step_{step}"
    try:
        return f"slot_pair_{(int(row.get('slot_id')) + 1) // 2}"
    except (TypeError, ValueError):
        return f"time_pair_{_num(row.get('start')):.3f}"


def _order_key(row: dict[str, Any]) -> tuple[float, int]:
    try:
        sid = int(row.get("slot_id"))
    except (TypeError, ValueError):
        sid = 10 ** 9
    return (_num(row.get("start")), sid)


def _nccs_quality(row: dict[str, Any], fixed: bool) -> float:
    """Reference: weighted Score_core. Fixed: raw judge quality of a core answer that earned credit."""
    if not fixed:
        return max(0.0, _num(row.get("Score_core")))
    if _num(row.get("Score_core")) <= 0:
        return 0.0
    core = row.get("stage_core") if isinstance(row.get("stage_core"), dict) else {}
    return max(0.0, _num(core.get("S_core")))


def nested_chain(rows: Iterable[dict[str, Any]], fixed: bool = False) -> dict[str, Any]:
    """NCCS over one sample's nested pairs: sqrt(q_outer*q_inner) when both > 0 and inner is not later."""
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        role = nested_role(row)
        if role in ("outer", "inner"):
            groups.setdefault(_pair_key(row), {}).setdefault(role, []).append(row)
    pairs = success = missing_pair = missing_q1 = missing_q2 = order_err = 0
    total = 0.0
    for group in groups.values():
        outers = sorted(group.get("outer", []), key=_order_key)
        inners = sorted(group.get("inner", []), key=_order_key)
        pairs += 1
        if not outers or not inners:
            missing_pair += 1
            continue
        q1, q2 = _nccs_quality(outers[0], fixed), _nccs_quality(inners[0], fixed)
        missing_q1 += q1 <= 0
        missing_q2 += q2 <= 0
        t1, t2 = _core_time(outers[0]), _core_time(inners[0])
        order_ok = True
        if q1 > 0 and q2 > 0 and t1 is not None and t2 is not None:
            order_ok = t2 <= t1
        if q1 > 0 and q2 > 0 and not order_ok:
            order_err += 1
        if q1 > 0 and q2 > 0 and order_ok:
            total += math.sqrt(q1 * q2)
            success += 1
    return _nccs_block(pairs, success, total, missing_pair, missing_q1, missing_q2, order_err)


def _nccs_block(pairs: int, success: int, total: float, missing_pair: int, missing_q1: int, missing_q2: int,
                order_err: int) -> dict[str, Any]:
    nccs = safe_div(total, pairs)
    return {"metric_name": "NCCS", "full_name": "Nested Chain Completion Score", "num_pairs": pairs,
            "success_pairs": success, "success_rate": safe_div(success, pairs), "NCCS": nccs,
            "Nested_Chain_Completion_Score": nccs, "Nested_IRA": nccs, "score_sum": total, "ira_sum": total,
            "missing_pair_count": missing_pair, "missing_q1_count": missing_q1, "missing_q2_count": missing_q2,
            "order_error_count": order_err}


def _has_output(row: dict[str, Any]) -> bool:
    if int(_num(row.get("num_chunks"))) > 0 or int(_num(row.get("num_early"))) > 0 or int(_num(row.get("num_core"))) > 0:
        return True
    early = row.get("stage_early") if isinstance(row.get("stage_early"), dict) else {}
    core = row.get("stage_core") if isinstance(row.get("stage_core"), dict) else {}
    return bool(str(early.get("text_early", "") or "").strip() or str(core.get("text_core", "") or "").strip())


def summarize_sample(rows: list[dict[str, Any]], num_unmatched: int, status: str, count_unmatched_as_fp: bool,
                     is_math: bool, fixed: bool = False) -> dict[str, Any]:
    """One sample's canonical summary, recomputed from its slot rows (unmatched FP only if status ok)."""
    unmatched_fp = num_unmatched if count_unmatched_as_fp and status == "ok" else 0
    t = _Totals()
    fn_ids: list[Any] = []
    for row in rows:
        tp, fp = _num(row.get("TP_n")), _num(row.get("FP_delta"))
        interrupted = to_bool(row.get("is_interrupted", False))
        fn = 0 if interrupted else (1 if _num(row.get("Score_core")) <= 0 else 0)
        if fn:
            fn_ids.append(row.get("slot_id"))
        scene = str(row.get("scene_type", "unknown") or "unknown")
        qtype = str(row.get("question_type", "unknown") or "unknown")
        core = row.get("stage_core") if isinstance(row.get("stage_core"), dict) else {}
        s_core, t_core = _num(core.get("S_core")), _num(core.get("T_core"))
        t.total.add(tp, fp, fn)
        t.by_scene.setdefault(scene, MetricAcc()).add(tp, fp, fn)
        t.by_qtype.setdefault(qtype, MetricAcc()).add(tp, fp, fn)
        if fixed and scene == "multi_turn":
            t.exclusive.setdefault(qtype, MetricAcc()).add(tp, fp, fn)
        t.s_all.add(s_core, t_core)
        t.s_scene.setdefault(scene, ScoreAcc()).add(s_core, t_core)
        t.s_qtype.setdefault(qtype, ScoreAcc()).add(s_core, t_core)
        role = nested_role(row)
        if role:
            t.by_role.setdefault(role, MetricAcc()).add(tp, fp, fn)
            t.s_role.setdefault(role, ScoreAcc()).add(s_core, t_core)
        if not interrupted:
            t.s_nonint.add(s_core, t_core)
        else:
            t.n_int += 1
            t.inter_acc.add(tp, fp, fn)
            t.s_int.add(s_core, t_core)
            spill = _num((row.get("spill_diagnostics") or {}).get("spill_seconds"))
            if _has_output(row):
                t.n_out += 1
                t.spill_total += spill
                t.n_spill += spill > 0
                diag = row.get("interruption_diagnostic") if isinstance(row.get("interruption_diagnostic"), dict) else {}
                if diag.get("status") == "ok":
                    t.n_pq += 1
                    t.pq_sum += _num(diag.get("partial_quality"))
                    t.n_low += to_bool(diag.get("low_quality", False))
                    t.n_hall += to_bool(diag.get("hallucination", False))
                    t.diag_acc.add(_num(diag.get("TP")), _num(diag.get("FP")), _num(diag.get("FN")))
            else:
                t.n_no_out += 1
        if is_math:
            t.math_acc.add(tp, fp, fn)
            t.s_math.add(s_core, t_core)
    t.total.fp += unmatched_fp
    summary = t.total.row({"num_processed_slots": len(rows), "num_unmatched_chunks": num_unmatched,
                         "fn_policy": FN_POLICY})
    t.add_groups(summary, fixed)
    out = {
        "summary": summary,
        "pure_scores": t.pure_scores(),
        "interrupted_summary": t.interrupted(),
        "fn_slot_ids": fn_ids,
        "math_summary": t.math_acc.row() if t.math_acc.num_slots else None,
        "math_pure_scores": t.s_math.row() if t.s_math.count else None,
        "nested_ira": nested_chain(rows, fixed),
    }
    return out


def aggregate(items: list[dict[str, Any]], num_passthrough: int, fixed: bool = False) -> dict[str, Any]:
    """Sum per-sample summaries into the canonical benchmark summary, including ``paper_metrics``."""
    t = _Totals()
    unmatched = 0
    nc = {"pairs": 0.0, "success": 0.0, "sum": 0.0, "missing_pair": 0.0, "q1": 0.0, "q2": 0.0, "order": 0.0}
    for item in items:
        s = item.get("summary") or {}
        t.total.add_row(s)
        unmatched += int(_num(s.get("num_unmatched_chunks")))
        for src, dst in ((s.get("by_scene_type"), t.by_scene), (s.get("by_question_type"), t.by_qtype),
                         (s.get("nested_by_role"), t.by_role), (s.get("exclusive_by_question_type"), t.exclusive)):
            for key, row in (src or {}).items():
                dst.setdefault(key, MetricAcc()).add_row(row)
        ps = item.get("pure_scores") or {}
        t.s_all.add_avg_row(ps.get("overall") or {})
        t.s_nonint.add_avg_row(ps.get("non_interrupted") or {})
        for src, dst in ((ps.get("by_scene_type"), t.s_scene), (ps.get("by_question_type"), t.s_qtype),
                         (ps.get("nested_by_role"), t.s_role)):
            for key, row in (src or {}).items():
                dst.setdefault(key, ScoreAcc()).add_avg_row(row)
        intr = item.get("interrupted_summary") or {}
        t.n_int += int(_num(intr.get("interrupted_slot_count")))
        t.n_no_out += int(_num(intr.get("interrupted_no_output_count")))
        t.n_out += int(_num(intr.get("interrupted_with_output_count")))
        pq_count = int(_num(intr.get("partial_quality_count", intr.get("interrupted_with_output_count", 0))))
        t.n_pq += pq_count
        t.pq_sum += _num(intr.get("partial_quality_avg")) * pq_count
        t.n_low += int(_num(intr.get("low_quality_count")))
        t.n_hall += int(_num(intr.get("hallucination_count")))
        t.n_spill += int(_num(intr.get("interrupted_with_positive_spill_count")))
        t.spill_total += _num(intr.get("total_spill_seconds_in_output_slots", intr.get("total_spill_seconds", 0)))
        t.inter_acc.add_row(intr.get("metrics") or {})
        t.s_int.add_avg_row(ps.get("interrupted") or {})
        diag = intr.get("diagnostic_metrics") or {}
        t.diag_acc.add(diag.get("Global_TP", 0), diag.get("Global_FP", 0), diag.get("Global_FN", 0),
                     diag.get("num_slots", pq_count))
        if item.get("math_summary"):
            t.math_acc.add_row(item["math_summary"])
        if item.get("math_pure_scores"):
            t.s_math.add_avg_row(item["math_pure_scores"])
        ni = item.get("nested_ira") or {}
        nc["pairs"] += _num(ni.get("num_pairs"))
        nc["success"] += _num(ni.get("success_pairs"))
        nc["sum"] += _num(ni.get("score_sum", ni.get("ira_sum", 0)))
        nc["missing_pair"] += _num(ni.get("missing_pair_count"))
        nc["q1"] += _num(ni.get("missing_q1_count"))
        nc["q2"] += _num(ni.get("missing_q2_count"))
        nc["order"] += _num(ni.get("order_error_count"))
    summary = t.total.row({"num_items": len(items) + num_passthrough, "success": len(items),
                         "failed_or_skipped": num_passthrough, "num_unmatched_chunks": unmatched,
                         "fn_policy": FN_POLICY})
    t.add_groups(summary, fixed)
    summary["pure_scores"] = t.pure_scores()
    summary["interrupted"] = t.interrupted()
    summary["math"] = t.math_acc.row() if t.math_acc.num_slots else {"num_slots": 0}
    summary["math_pure_scores"] = {"overall": t.s_math.row()}
    chain = _nccs_block(int(nc["pairs"]), int(nc["success"]), nc["sum"], int(nc["missing_pair"]), int(nc["q1"]),
                        int(nc["q2"]), int(nc["order"]))
    summary["nested_chain_completion"] = chain
    summary["nested_ira"] = chain
    summary["paper_metrics"] = paper_metrics(summary, fixed)
    return summary


def _metric_sub(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    tp = _num(a.get("Global_TP")) - _num(b.get("Global_TP"))
    fp = _num(a.get("Global_FP")) - _num(b.get("Global_FP"))
    fn = _num(a.get("Global_FN")) - _num(b.get("Global_FN"))
    slots = _num(a.get("num_slots")) - _num(b.get("num_slots"))
    return metric_row(tp, max(0.0, fp), max(0.0, fn), {"num_slots": int(max(0.0, slots))})


def paper_metrics(summary: dict[str, Any], fixed: bool = False) -> dict[str, Any]:
    """exp_f1 (exclusive realtime/proactive, nested, 1Q1A, 1QnA, all), exp_interruption (IDS), exp_nested (NCCS)."""
    by_scene = summary.get("by_scene_type") or {}
    by_qtype = summary.get("by_question_type") or {}
    roles = summary.get("nested_by_role") or {}
    intr = summary.get("interrupted") or {}
    chain = summary.get("nested_chain_completion") or summary.get("nested_ira") or {}
    if fixed:
        excl = summary.get("exclusive_by_question_type") or {}
        realtime = MetricAcc()
        realtime.add_row(excl.get("realtime") or {})
        proactive = MetricAcc()
        proactive.add_row(excl.get("proactive") or {})
        realtime_row, proactive_row = realtime.row(), proactive.row()
    else:
        realtime_row = _metric_sub(by_qtype.get("realtime") or {}, roles.get("inner") or {})
        proactive_row = _metric_sub(by_qtype.get("proactive") or {}, roles.get("outer") or {})
    nested = by_scene.get("nested") or {}
    parts = (realtime_row, proactive_row, nested)
    one_q1a = metric_row(sum(_num(r.get("Global_TP")) for r in parts), sum(_num(r.get("Global_FP")) for r in parts),
                         sum(_num(r.get("Global_FN")) for r in parts),
                         {"num_slots": sum(int(r.get("num_slots", 0) or 0) for r in parts)})
    return {
        "exp_f1": {
            "realtime": realtime_row, "proactive": proactive_row, "nested": nested, "one_q1a_global": one_q1a,
            "one_qna": by_scene.get("1QnA") or {},
            "all_global": {k: summary.get(k, d) for k, d in (("num_slots", 0), ("Global_TP", 0.0), ("Global_FP", 0),
                                                            ("Global_FN", 0), ("Precision", 0.0), ("Recall", 0.0),
                                                            ("IA_QTF1", 0.0))},
        },
        "exp_interruption": {
            "NOR": intr.get("interrupted_no_output_rate", 0.0),
            "PAQ": intr.get("partial_quality_avg", 0.0),
            "CSM_SR": intr.get("spill_positive_rate_in_output_slots", intr.get("spill_positive_rate", 0.0)),
            "CSM_AS_seconds": intr.get("avg_spill_seconds_in_output_slots", intr.get("avg_spill_seconds", 0.0)),
            "interrupted_slot_count": intr.get("interrupted_slot_count", 0),
            "interrupted_with_output_count": intr.get("interrupted_with_output_count", 0),
        },
        "exp_nested": {
            "NCCS": chain.get("NCCS", chain.get("Nested_IRA", 0.0)),
            "inner_IA_QTF1": (roles.get("inner") or {}).get("IA_QTF1", 0.0),
            "outer_IA_QTF1": (roles.get("outer") or {}).get("IA_QTF1", 0.0),
            "missed_outer": chain.get("missing_q1_count", 0),
            "num_pairs": chain.get("num_pairs", 0),
        },
    }
