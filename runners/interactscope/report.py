"""Omni-InteractScope's scores in the runners: native predictions with their tool verdicts and the content
judge's verdicts filled in, scored by its scorer; the pooled humans by scoring every participant's relabelled
items at once."""
from __future__ import annotations

from typing import Optional

from runners.evaluate import build_content_judge
from runners.pooling import relabelled
from scoring.interactscope import scorer as isc


def _judged(native: dict, pred: dict, content_judge) -> dict:
    """A prediction with the tool calls' verdicts and, with a judge, the speech's verdicts filled in."""
    pred = isc.fill_tool_verdicts(native, pred)
    if content_judge is not None:
        pred = isc.fill_judge_verdicts(native, pred, content_judge)
    return pred


def score_predictions(ds, item_ids: list[str], preds: dict, judge: Optional[str] = None, store=None,
                      model: str = "model") -> dict:
    """The scorer's report on the items' timed responses, judged as `judge` says."""
    content_judge = build_content_judge(judge, store)
    filled = {iid: _judged(ds.get(iid).native, pred, content_judge) for iid, pred in preds.items()}
    return isc.score([ds.get(i).native for i in item_ids], filled)


def pooled_report(ds, parts, predictions_of, judge: Optional[str] = None, store=None) -> dict:
    """Every participant's items, judged and relabelled `<item>@<responder>`, scored as one responder's."""
    content_judge = build_content_judge(judge, store)
    natives, preds = relabelled(ds, parts, predictions_of, "interaction_id",
                                lambda native, pred: _judged(native, pred, content_judge))
    return isc.score(natives, preds)
