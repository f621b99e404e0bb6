"""Omni-InteractScope on one item in memory (scoring.live): the report a session or Compare shows, and its
headline figures."""
from __future__ import annotations


def score_item(item, prediction, judge=None, oi_transport=None) -> dict:
    """The scorer's report for one interaction: tool verdicts always, content verdicts when a judge is given."""
    from scoring.interactscope import scorer as isc
    pred = isc.fill_tool_verdicts(item.native, prediction)
    if judge is not None:
        pred = isc.fill_judge_verdicts(item.native, pred, judge)
    return isc.score([item.native], {item.id: pred}, isc.ISConfig(allow_partial=True))


def headline(item, report: dict, judged: bool = False) -> dict:
    """Targets answered correctly and in time; `content_judged` says whether a content judge ran."""
    row = report["per_item"][item.id]
    return {"task": row.get("task"), "correct_targets": row.get("n_correct"), "targets": row.get("n_targets"),
            "timely_targets": sum(t["timing"] == "in_window" for t in row.get("targets", ())),
            "content_judged": judged}
