"""OmniInteract's per-item statistics for the bootstrap (scoring.bootstrap): one row per item whose column
sums give back every figure of the scorer's table, with the scorer's own figures as the points."""
from __future__ import annotations

from typing import Mapping, Optional

import numpy as np

from scoring.bootstrap import BenchStats, Cols, ratio, Metric


OI_COLUMNS = (("Realtime", "realtime"), ("Proactive", "proactive"), ("Nested", "nested"),
              ("1Q1A", "one_q1a_global"), ("1QnA", "one_qna"), ("All", "all_global"))
OI_GROUPS = ("by_scene_type", "by_question_type", "nested_by_role", "exclusive_by_question_type")
OI_IDS = (("NOR", "interrupted_no_output_rate"), ("PAQ", "partial_quality_avg"),
          ("CSM-SR", "spill_positive_rate_in_output_slots"), ("CSM-AS (s)", "avg_spill_seconds_in_output_slots"),
          ("NCCS", None))
_METRIC_KEYS = (("slots", "num_slots"), ("tp", "Global_TP"), ("fp", "Global_FP"), ("fn", "Global_FN"))


def item_stats(report: Mapping) -> BenchStats:
    """OmniInteract from the scorer's own per-sample summaries (`sample_summary`, made under the run's
    settings) of exactly the samples its aggregate counts (item_kind "summarized", judge failures
    included): each resample sums them as the scorer's `aggregate` does and reads IA-QTF1 (x100) through
    the scorer's `paper_metrics`; by-category breakdowns as the scorer groups them; IDS and NCCS."""
    from scoring.omniinteract.summary import MetricAcc, paper_metrics

    cols = Cols()
    for k, _ in _METRIC_KEYS:
        cols.col(f"total:{k}")
    ids: list[str] = []
    groups: dict[str, list[str]] = {g: [] for g in OI_GROUPS}
    fixed = False
    for s in report.get("samples") or []:
        if s.get("item_kind") != "summarized":
            continue
        ss = s.get("sample_summary") or {}
        summ = ss.get("summary") or {}
        fixed = fixed or "exclusive_by_question_type" in summ
        row: dict[str, float] = {}

        def put(prefix: str, r: Mapping) -> None:
            for k, src in _METRIC_KEYS:
                row[f"{prefix}:{k}"] = row.get(f"{prefix}:{k}", 0.0) + float(r.get(src, 0) or 0)
        put("total", summ)
        for g in OI_GROUPS:
            for k, r in (summ.get(g) or {}).items():
                if k not in groups[g]:
                    groups[g].append(k)
                put(f"{g}={k}", r or {})
        intr = ss.get("interrupted_summary") or {}
        pq_n = float(intr.get("partial_quality_count", intr.get("interrupted_with_output_count", 0)) or 0)
        ni = ss.get("nested_ira") or {}
        row.update({"int:n": float(intr.get("interrupted_slot_count") or 0),
                    "int:no_out": float(intr.get("interrupted_no_output_count") or 0),
                    "int:out": float(intr.get("interrupted_with_output_count") or 0),
                    "int:spill": float(intr.get("interrupted_with_positive_spill_count") or 0),
                    "int:spill_s": float(intr.get("total_spill_seconds_in_output_slots",
                                                  intr.get("total_spill_seconds", 0)) or 0),
                    "pq:n": pq_n, "pq:sum": float(intr.get("partial_quality_avg") or 0) * pq_n,
                    "nc:pairs": float(ni.get("num_pairs") or 0),
                    "nc:sum": float(ni.get("score_sum", ni.get("ira_sum", 0)) or 0)})
        ids.append(str(s.get("sample_id")))
        cols.add(row)
    c = cols.col
    for g in OI_GROUPS:
        for k in groups[g]:
            for m, _ in _METRIC_KEYS:
                c(f"{g}={k}:{m}")
    for name in ("int:n", "int:no_out", "int:out", "int:spill", "int:spill_s", "pq:n", "pq:sum", "nc:pairs",
                 "nc:sum"):
        c(name)
    index = dict(cols.index)
    where = {pre.rsplit(":", 1)[0]: None for pre in index if pre.endswith(":slots")}
    where = {pre: [index[f"{pre}:{m}"] for m, _ in _METRIC_KEYS] for pre in where}

    def acc(row: np.ndarray, prefix: str) -> MetricAcc:
        return MetricAcc(*row[where[prefix]].tolist())

    def summary_of(row: np.ndarray) -> dict:
        """The part of the scorer's benchmark summary that paper_metrics reads, from summed sample rows."""
        out = acc(row, "total").row()
        for g in OI_GROUPS:
            if g == "exclusive_by_question_type" and not fixed:
                continue
            out[g] = {k: acc(row, f"{g}={k}").row() for k in sorted(groups[g])
                      if row[index[f"{g}={k}:slots"]] > 0}
        return out

    cache: dict = {}  # the last few inputs: every column reads the same resamples (and the same point row)

    def exp_f1(s: np.ndarray) -> list:
        key = (s.shape, s.tobytes())
        if key not in cache:
            if len(cache) >= 4:
                cache.pop(next(iter(cache)))
            cache[key] = [paper_metrics(summary_of(r), fixed)["exp_f1"] for r in s]
        return cache[key]

    def column(cat: str) -> Metric:
        def m(s: np.ndarray) -> np.ndarray:
            return np.array([100.0 * float(e[cat]["IA_QTF1"]) if e.get(cat) else np.nan for e in exp_f1(s)])
        return m

    def group_f1(prefix: str) -> Metric:
        def m(s: np.ndarray) -> np.ndarray:
            return np.array([100.0 * float(acc(r, prefix).row()["IA_QTF1"]) if r[index[f"{prefix}:slots"]] > 0
                             else np.nan for r in s])
        return m

    summary = report.get("summary") or {}
    pm = summary.get("paper_metrics") or {}
    f1s = pm.get("exp_f1") or {}
    metrics: dict[str, Metric] = {}
    points: dict[str, Optional[float]] = {}
    support: dict[str, list[int]] = {}
    for name, cat in OI_COLUMNS:
        metrics[name] = column(cat)
        row = f1s.get(cat) or {}
        points[name] = 100.0 * float(row["IA_QTF1"]) if row.get("IA_QTF1") is not None else None
    qtypes, scenes = groups["by_question_type"], groups["by_scene_type"]
    support["Realtime"] = [c("by_question_type=realtime:slots")] if "realtime" in qtypes else []
    support["Proactive"] = [c("by_question_type=proactive:slots")] if "proactive" in qtypes else []
    for name, scene in (("Nested", "nested"), ("1QnA", "1QnA")):
        support[name] = [c(f"by_scene_type={scene}:slots")] if scene in scenes else []
    support["1Q1A"] = [c(f"by_scene_type={k}:slots") for k in scenes if k != "1QnA"]
    breakdowns: dict[str, list[tuple[str, str]]] = {}
    for g in OI_GROUPS:
        entries = []
        for k in sorted(groups[g]):
            key = f"IA-QTF1|{g}={k}"
            metrics[key] = group_f1(f"{g}={k}")
            row = (summary.get(g) or {}).get(k) or {}
            points[key] = 100.0 * float(row["IA_QTF1"]) if row.get("IA_QTF1") is not None else None
            support[key] = [c(f"{g}={k}:slots")]
            entries.append((k, key))
        if entries:
            breakdowns[g] = entries
    intr = summary.get("interrupted") or {}
    chain = summary.get("nested_chain_completion") or {}
    ids_metrics = {"NOR": ratio(c("int:no_out"), c("int:n")), "PAQ": ratio(c("pq:sum"), c("pq:n")),
                   "CSM-SR": ratio(c("int:spill"), c("int:out")), "CSM-AS (s)": ratio(c("int:spill_s"), c("int:out"), 1.0),
                   "NCCS": ratio(c("nc:sum"), c("nc:pairs"))}
    ids_support = {"NOR": [c("int:n")], "PAQ": [c("pq:n")], "CSM-SR": [c("int:out")], "CSM-AS (s)": [c("int:out")],
                   "NCCS": [c("nc:pairs")]}
    entries = []
    for name, src in OI_IDS:
        v = (chain.get("NCCS") if src is None else intr.get(src)) if summary else None
        key = f"IDS|{name}"
        metrics[key] = ids_metrics[name]
        points[key] = None if v is None else float(v) * (1.0 if name == "CSM-AS (s)" else 100.0)
        support[key] = ids_support[name]
        entries.append((name, key))
    breakdowns["interruption and nested chain"] = entries
    return BenchStats("omniinteract", ids, cols.matrix(), metrics, [n for n, _ in OI_COLUMNS], "All", None, breakdowns,
                      points, support, ranges={"IDS|CSM-AS (s)": (0.0, None)})  # seconds: 0 or more
