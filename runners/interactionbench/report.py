"""InteractionBench's scores in the runners: a set of native predictions scored by its scorer, and the pooled
humans through the scorer's own aggregation of every participant's per-item records."""
from __future__ import annotations

from typing import Optional

from runners.evaluate import build_content_judge
from runners.pooling import pooled_id
from scoring.interactionbench import scorer as ib
from scoring.interactionbench.aggregate import aggregate, headline
from scoring.bootstrap import Interval
from scoring.interactionbench.paper_bootstrap import DRAWS, SEED, paper_intervals as seeded_intervals

PAPER_CI_NOTE = (f"paper CI: the paper's own procedure for the total (its analysis/bootstrap_ci.py): a 95% "
                 f"percentile bootstrap of each row's mean item total score, {DRAWS} draws from ONE Python random "
                 f"stream seeded {SEED} and shared by the rows in this table's order, so a row's interval depends on "
                 "the rows above it; a row without scored records draws nothing")


def score_predictions(ds, item_ids: list[str], preds: dict, judge: Optional[str] = None, store=None,
                      model: str = "model") -> dict:
    """The scorer's report on the items' preds.jsonl lines, the content judged as `judge` says, with each
    emission's verdict (what Compare draws)."""
    rows = [ds.get(i).native for i in item_ids]
    return ib.score(rows, list(preds.values()), ib.IBConfig(), judge=build_content_judge(judge, store),
                    verdicts=True)


def pooled_report(ds, parts, predictions_of, judge: Optional[str] = None, store=None) -> dict:
    """Every participant's per-item records (from their reports) aggregated as one responder's."""
    records = [{**rec, "item_id": pooled_id(rec["item_id"], r)} for r, rep in parts
               for rec in rep.get("records") or []]
    agg = aggregate(records)
    return {"records": records, "aggregate": agg, "table": headline(agg["overall"]),
            "per_item": {rec["item_id"]: rec for rec in records}}


def paper_intervals(reports: list) -> list[Interval]:
    """The paper's interval of each report's mean item total score (records in order, null scores left out), by
    its seeded procedure over the reports in list order; a report without a scored record draws nothing."""
    runs = [[float(r["total_score"]) for r in rep.get("records") or [] if r.get("total_score") is not None]
            for rep in reports]
    out = []
    for xs, iv in zip(runs, seeded_intervals([xs or None for xs in runs])):
        out.append(Interval(None, None, None, 0.95, DRAWS, 0, "no scored records") if iv is None else
                   Interval(iv[0], iv[1], iv[2], 0.95, DRAWS, len(xs)))
    return out
