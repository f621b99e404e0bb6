"""Omni-InteractScope's per-item statistics for the bootstrap (scoring.bootstrap): one row per item whose column
sums give back every figure of the scorer's table, with the scorer's own figures as the points."""
from __future__ import annotations

from typing import Mapping

from scoring.bootstrap import BenchStats, Cols, num_or_none, ratio, mean_of, Metric


IS_TASKS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
IS_AVG = ("T1", "T2", "T3", "T4", "T6", "T7")


def item_stats(report: Mapping) -> BenchStats:
    """InteractScope: per-target accuracy of T1-T7, Avg (no T5), pooled T8 recall; timing rates by task;
    points from the scorer's `aggregate`."""
    cols = Cols()
    for t in IS_TASKS + ("T8",):
        for k in ("n", "correct", "in_window", "early", "missed"):
            cols.col(f"{t}:{k}")
    ids, strata = [], []
    subtypes: set = set()
    for iid, d in (report.get("per_item") or {}).items():
        ids.append(iid)
        t = d["task"]
        strata.append(t)
        row: dict[str, float] = {}
        for td in d["targets"]:
            for k, v in ((f"{t}:n", 1.0), (f"{t}:correct", float(bool(td["correct"]))), (f"{t}:{td['timing']}", 1.0)):
                row[k] = row.get(k, 0.0) + v
            if t == "T8":
                sub = str(d.get("subtype"))
                subtypes.add(sub)
                for k, v in ((f"T8{sub}:n", 1.0), (f"T8{sub}:correct", float(bool(td["correct"])))):
                    row[k] = row.get(k, 0.0) + v
        cols.add(row)
    c = cols.col
    agg = report.get("aggregate") or {}
    config = report.get("config") or {}
    avg_tasks = tuple(config.get("avg_tasks") or IS_AVG)
    metrics: dict[str, Metric] = {t: ratio(c(f"{t}:correct"), c(f"{t}:n")) for t in IS_TASKS}
    metrics["Avg"] = mean_of([metrics[t] for t in avg_tasks if t in metrics], bool(config.get("allow_partial")))
    metrics["T8"] = ratio(c("T8:correct"), c("T8:n"))
    points = {t: num_or_none(agg.get(t)) for t in IS_TASKS}
    points["Avg"], points["T8"] = num_or_none(agg.get("Avg")), num_or_none(agg.get("T8_recall"))
    support = {t: [c(f"{t}:n")] for t in IS_TASKS + ("T8",)}
    timing = []
    for t in IS_TASKS:
        task = (agg.get("tasks") or {}).get(t) or {}
        for k in ("in_window", "early", "missed"):
            key = f"{t} {k} %"
            metrics[key] = ratio(c(f"{t}:{k}"), c(f"{t}:n"))
            points[key] = num_or_none(task.get(f"{k}_rate"))
            support[key] = [c(f"{t}:n")]
            timing.append((f"{t} {k}", key))
    sub_rows = []
    by_sub = ((agg.get("T8") or {}).get("recall_by_subtype") or {})
    for sub in sorted(subtypes):
        key = f"T8-{sub} recall"
        metrics[key] = ratio(c(f"T8{sub}:correct"), c(f"T8{sub}:n"))
        points[key] = num_or_none(by_sub.get(sub))
        support[key] = [c(f"T8{sub}:n")]
        sub_rows.append((f"T8-{sub}", key))
    return BenchStats("interactscope", ids, cols.matrix(), metrics, list(IS_TASKS) + ["Avg", "T8"], "Avg", strata,
                      {"timing": timing, "t8_subtype": sub_rows}, points, support)


# OmniInteract: the paper table's columns and where the scorer's summary keeps them (paper_metrics.exp_f1)
