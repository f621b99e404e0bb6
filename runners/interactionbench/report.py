"""InteractionBench's scores in the runners: a set of native predictions scored by its scorer, and the pooled
humans through the scorer's own aggregation of every participant's per-item records."""
from __future__ import annotations

from typing import Optional

from runners.evaluate import build_content_judge
from runners.pooling import pooled_id
from scoring.interactionbench import scorer as ib
from scoring.interactionbench.aggregate import aggregate, headline
from scoring.interactionbench.paper_bootstrap import paper_intervals as seeded_intervals


def score_predictions(ds, item_ids: list[str], preds: dict, judge: Optional[str] = None, store=None,
                      model: str = "model") -> dict:
    """The scorer's report on the items' preds.jsonl lines, the content judged as `judge` says."""
    rows = [ds.get(i).native for i in item_ids]
    return ib.score(rows, list(preds.values()), ib.IBConfig(), judge=build_content_judge(judge, store))


def pooled_report(ds, parts, predictions_of, judge: Optional[str] = None, store=None) -> dict:
    """Every participant's per-item records (from their reports) aggregated as one responder's."""
    records = [{**rec, "item_id": pooled_id(rec["item_id"], r)} for r, rep in parts
               for rec in rep.get("records") or []]
    agg = aggregate(records)
    return {"records": records, "aggregate": agg, "table": headline(agg["overall"]),
            "per_item": {rec["item_id"]: rec for rec in records}}


def paper_intervals(reports: list) -> list:
    """(mean, lo, hi) of each report's item total scores (records in order, null scores left out) by the paper's
    seeded procedure over the reports in list order; None for a report without a scored record (it draws nothing)."""
    runs = [[float(r["total_score"]) for r in rep.get("records") or [] if r.get("total_score") is not None]
            for rep in reports]
    return seeded_intervals([xs or None for xs in runs])
