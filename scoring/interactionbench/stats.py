"""InteractionBench's per-item statistics for the bootstrap (scoring.bootstrap): one row per item whose column
sums give back every figure of the scorer's table, with the scorer's own figures as the points."""
from __future__ import annotations

from typing import Mapping

from scoring.bootstrap import BenchStats, Cols, num_or_none, ratio


IB_TABLE = (("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
            ("silence_compliance", "silence_compliance"))
IB_DIMENSIONS = ("capability_group", "time_type", "family")


def item_stats(report: Mapping) -> BenchStats:
    """InteractionBench: item-weighted means of total / accuracy / TA / SC, each over its own items;
    points from the scorer's `aggregate` (overall and by_<dimension>)."""
    cols = Cols()
    ids, groups = [], {d: {} for d in IB_DIMENSIONS}
    for rec in report.get("records") or []:
        ids.append(rec["item_id"])
        row = {}
        for _, f in IB_TABLE:
            v = rec.get(f)
            row[f"{f}:v"], row[f"{f}:n"] = (0.0, 0.0) if v is None else (float(v), 1.0)
        for d in IB_DIMENSIONS:
            g = str(rec.get(d))
            groups[d].setdefault(g, None)
            v = rec.get("total_score")
            row[f"{d}={g}:v"], row[f"{d}={g}:n"] = (0.0, 0.0) if v is None else (float(v), 1.0)
        cols.add(row)
    for _, f in IB_TABLE:
        cols.col(f"{f}:v"), cols.col(f"{f}:n")
    agg = report.get("aggregate") or {}
    overall = agg.get("overall") or {}
    metrics = {name: ratio(cols.col(f"{f}:v"), cols.col(f"{f}:n"), 1.0) for name, f in IB_TABLE}
    points = {name: num_or_none(overall.get(f)) for name, f in IB_TABLE}
    support = {name: [cols.col(f"{f}:n")] for name, f in IB_TABLE}
    breakdowns = {}
    for d in IB_DIMENSIONS:
        breakdowns[d] = []
        for g in sorted(groups[d]):
            key = f"total|{d}={g}"
            metrics[key] = ratio(cols.col(f"{d}={g}:v"), cols.col(f"{d}={g}:n"), 1.0)
            points[key] = num_or_none(((agg.get(f"by_{d}") or {}).get(g) or {}).get("total_score"))
            support[key] = [cols.col(f"{d}={g}:n")]
            breakdowns[d].append((g, key))
    return BenchStats("interactionbench", ids, cols.matrix(), metrics, [n for n, _ in IB_TABLE], "total",
                      None, breakdowns, points, support)
