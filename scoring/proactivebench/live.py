"""ProactiveBench on one item in memory (scoring.live): the report a session or Compare shows, and its
headline figures."""
from __future__ import annotations


def score_item(item, prediction, judge=None, oi_transport=None) -> dict:
    """The scorer's report for one item and one prediction (a partial set allowed)."""
    from scoring.proactivebench import scorer as pb
    return pb.score([item.native], {item.id: prediction}, pb.PBConfig(allow_partial=True))


def headline(item, report: dict, judged: bool = False) -> dict:
    """The item's subtask, outcome and counts."""
    row = report["per_item"][item.id]
    out = {"subtask": row.get("subtask")}
    out.update({k: row[k] for k in ("outcome", "correct", "first_response", "window", "predicted_count",
                                    "ref_count", "hits", "n_alerts", "clean_segments", "n_segments")
                if k in row})
    return out
