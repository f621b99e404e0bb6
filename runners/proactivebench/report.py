"""ProactiveBench's scores in the runners: native predictions scored by its scorer, and the pooled humans by
scoring every participant's relabelled items at once."""
from __future__ import annotations

from typing import Optional

from runners.pooling import relabelled
from scoring.proactivebench import scorer as pb


def score_predictions(ds, item_ids: list[str], preds: dict, judge: Optional[str] = None, store=None,
                      model: str = "model") -> dict:
    """The scorer's report on the items' compact traces (ProactiveBench has no content judge)."""
    return pb.score([ds.get(i).native for i in item_ids], preds)


def pooled_report(ds, parts, predictions_of, judge: Optional[str] = None, store=None) -> dict:
    """Every participant's items, relabelled `<item>@<responder>`, scored as one responder's."""
    natives, preds = relabelled(ds, parts, predictions_of, "item_id")
    return pb.score(natives, preds)
