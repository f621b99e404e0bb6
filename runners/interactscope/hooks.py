"""Omni-InteractScope's runners-layer hooks (annotation.registry): its protocol, its native prediction of a
driven item, its scores of a run and of the pooled humans, and the report's extra column. Each imports its
module on first use."""
from __future__ import annotations


def protocols() -> dict:
    """Protocol name -> class: the per-second protocol with tool calls."""
    from runners.interactscope.protocol import InteractScope
    return {InteractScope.name: InteractScope}


def native_prediction(item, trace, model: str = "") -> dict:
    """A driven item's timed responses (speech and tool calls)."""
    from runners.interactscope.prediction import native_prediction
    return native_prediction(item, trace)


def score_predictions(ds, item_ids, preds, judge=None, store=None, model: str = "model") -> dict:
    """The scorer's report on native predictions (item id -> record) of the given items."""
    from runners.interactscope.report import score_predictions
    return score_predictions(ds, item_ids, preds, judge=judge, store=store, model=model)


def pooled_report(ds, parts, predictions_of, judge=None, store=None) -> dict:
    """The scorer's report over every participant's items at once ((responder, report) parts)."""
    from runners.interactscope.report import pooled_report
    return pooled_report(ds, parts, predictions_of, judge=judge, store=store)


def report_extra_columns() -> tuple[str, ...]:
    """Columns of the scorer's table shown as they are (no interval) after the figures in report.md."""
    return ("Complete T8-C",)


# --- command line (runners.cli): what `score` reads, its score plan and table ----------------------------------

SCORE_INPUT = ("--preds", "responses.jsonl")  # what `score` reads: the flag and the native file it names


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.interactscope.score_plan import plan
    return plan(a, checked)
