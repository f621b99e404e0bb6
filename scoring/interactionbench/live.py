"""InteractionBench on one item in memory (scoring.live): the report a session or Compare shows, and its
headline figures."""
from __future__ import annotations


def score_item(item, prediction, judge=None, oi_transport=None) -> dict:
    """The scorer's report for one item and one native prediction line (default settings), with each emission's
    verdict (what Compare draws)."""
    from scoring.interactionbench import scorer as ib
    return ib.score([item.native], [prediction], ib.IBConfig(), judge=judge, verdicts=True)


def headline(item, report: dict, judged: bool = False) -> dict:
    """The item's row of the paper table."""
    row = report["per_item"].get(item.id, {})
    return {k: row.get(k) for k in ("family", "total_score", "accuracy", "timing_accuracy", "silence_compliance")}
