"""ProactiveBench's per-item statistics for the bootstrap (scoring.bootstrap): one row per item whose column
sums give back every figure of the scorer's table, with the scorer's own figures as the points."""
from __future__ import annotations

from typing import Mapping

from scoring.bootstrap import BenchStats, Cols, num_or_none, ratio, geo_ratio, mean_of, sum_ratio, Metric


PB_SUBTASKS = ("ES", "OR", "WR", "AA", "SS", "DC")
PB_WINDOW = ("OR", "WR", "AA", "SS")
PB_OUTCOMES = ("early", "in_window", "missed", "late")


def item_stats(report: Mapping) -> BenchStats:
    """ProactiveBench: per-subtask accuracy, pooled S_ES, AVG of the six; outcome rates as breakdown;
    points from the scorer's `aggregate`."""
    cols = Cols()
    for name in ("ES:hits", "ES:alerts", "ES:clean", "ES:segs", "ES:items") + tuple(
            f"{x}:{k}" for x in PB_SUBTASKS[1:] for k in ("n", "correct") + PB_OUTCOMES):
        cols.col(name)
    ids, strata = [], []
    for iid, d in (report.get("per_item") or {}).items():
        ids.append(iid)
        x = d["subtask"]
        strata.append(x)
        if x == "ES":
            cols.add({"ES:hits": d["hits"], "ES:alerts": d["alerts"], "ES:clean": d["clean_segments"],
                      "ES:segs": d["segments"], "ES:items": 1.0})
        else:
            row = {f"{x}:n": 1.0, f"{x}:correct": float(bool(d["correct"]))}
            if x in PB_WINDOW and d.get("outcome") in PB_OUTCOMES:
                row[f"{x}:{d['outcome']}"] = 1.0
            cols.add(row)
    c = cols.col
    agg = report.get("aggregate") or {}
    config = report.get("config") or {}
    metrics: dict[str, Metric] = {"ES": geo_ratio(c("ES:hits"), c("ES:alerts"), c("ES:clean"), c("ES:segs"))}
    for x in PB_SUBTASKS[1:]:
        metrics[x] = ratio(c(f"{x}:correct"), c(f"{x}:n"))
    metrics["AVG"] = mean_of([metrics[x] for x in PB_SUBTASKS], bool(config.get("allow_partial")))
    points = {x: num_or_none(agg.get("S_ES" if x == "ES" else x)) for x in PB_SUBTASKS}
    points["AVG"] = num_or_none(agg.get("AVG"))
    support = {"ES": [c("ES:items")], **{x: [c(f"{x}:n")] for x in PB_SUBTASKS[1:]}}
    breakdown = []
    for x in PB_WINDOW:
        sub = (agg.get("subtasks") or {}).get(x) or {}
        for out in PB_OUTCOMES:
            if f"{out}_rate" not in sub:
                continue  # the scorer's settings decide which outcomes it reports
            key = f"{x} {out} %"
            cols_ = [c(f"{x}:{out}")] + ([c(f"{x}:late")] if out == "missed" and "late_rate" not in sub else [])
            num = cols_[0] if len(cols_) == 1 else None
            metrics[key] = ratio(num, c(f"{x}:n")) if num is not None else sum_ratio(cols_, c(f"{x}:n"))
            points[key] = num_or_none(sub.get(f"{out}_rate"))
            support[key] = [c(f"{x}:n")]
            breakdown.append((f"{x} {out}", key))
    return BenchStats("proactivebench", ids, cols.matrix(), metrics, list(PB_SUBTASKS) + ["AVG"], "AVG",
                      strata, {"outcome": breakdown}, points, support)
