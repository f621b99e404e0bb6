"""InteractionBench's scoring-layer hooks (annotation.registry): one item scored in memory, its headline,
each response's verdict, the per-item statistics for intervals and the terminal table. Each imports its
module on first use."""
from __future__ import annotations

# every label a response can get, in legend order
VERDICTS = ("matched", "premature", "redundant", "spurious", "unscored")


def score_item(item, prediction, judge=None, oi_transport=None) -> dict:
    """The scorer's report for one item and one native prediction (scoring.live)."""
    from scoring.interactionbench.live import score_item
    return score_item(item, prediction, judge, oi_transport)


def headline(item, report: dict, judged: bool = False) -> dict:
    """The few figures a participant or Compare shows for one item."""
    from scoring.interactionbench.live import headline
    return headline(item, report, judged)


def content_judged(judge, oi_transport) -> bool:
    """Whether the item's content was judged, given what scored it."""
    return judge is not None


def classify(item, prediction, report: dict):
    """Each response's verdict (scoring.classify.ResponseVerdict) as `report`, the scorer's report holding the
    item, records it; None when it holds no per-response record of the item."""
    from scoring.interactionbench.classify import classify_interactionbench
    return classify_interactionbench(item.id, prediction, report)


def item_stats(report):
    """The report's per-item statistics (scoring.bootstrap.BenchStats)."""
    from scoring.interactionbench.stats import item_stats
    return item_stats(report)


def format_table(report, model: str = "model") -> str:
    """The terminal table `score` prints."""
    from scoring.interactionbench.aggregate import format_table
    return format_table(report)
