"""Score one item's logged responses with its benchmark's own scorer, in memory: the feedback a participant
sees at item end, and the per-item score the Compare tab shows. Same code path as a batch run; each benchmark's
part is its `live` hooks (annotation.registry)."""
from __future__ import annotations

from typing import Callable, Iterable, Optional

from annotation import registry
from annotation.model import Item, Response
from annotation.predictions import item_prediction


def score_prediction(item: Item, prediction, judge: Optional[Callable] = None, oi_transport=None) -> dict:
    """The benchmark's report for one item and one native prediction record."""
    return registry.get(item.benchmark).hook("scoring", "score_item")(item, prediction, judge, oi_transport)


def score_responses(item: Item, responses: Iterable[Response], judge: Optional[Callable] = None,
                    oi_transport=None) -> dict:
    """Score a human's (or a live model's) logged responses to one item: {"prediction", "report", "headline"}."""
    prediction = item_prediction(item.benchmark, item, list(responses))
    report = score_prediction(item, prediction, judge=judge, oi_transport=oi_transport)
    judged = registry.get(item.benchmark).hook("scoring", "content_judged")(judge, oi_transport)
    return {"prediction": prediction, "report": report, "headline": headline(item, report, judged)}


def headline(item: Item, report: dict, judged: bool = False) -> dict:
    """The few numbers worth showing a participant for one item; `content_judged` says whether a content
    judge ran (without one, InteractScope and OmniInteract content credit is not available)."""
    return registry.get(item.benchmark).hook("scoring", "headline")(item, report, judged)
