"""ProactiveBench's runners-layer hooks (annotation.registry): its protocol, its native prediction of a driven
item, and its scores of a run and of the pooled humans. Each imports its module on first use."""
from __future__ import annotations


def protocols() -> dict:
    """Protocol name -> class: proactive."""
    from runners.proactivebench.protocol import ProactiveBench
    return {ProactiveBench.name: ProactiveBench}


def native_prediction(item, trace, model: str = "") -> dict:
    """A driven item's prediction line: the seconds at which the model spoke, and what it said."""
    from runners.proactivebench.prediction import native_prediction
    return native_prediction(item, trace)


def score_predictions(ds, item_ids, preds, judge=None, store=None, model: str = "model") -> dict:
    """The scorer's report on native predictions (item id -> record) of the given items."""
    from runners.proactivebench.report import score_predictions
    return score_predictions(ds, item_ids, preds, judge=judge, store=store, model=model)


def pooled_report(ds, parts, predictions_of, judge=None, store=None) -> dict:
    """The scorer's report over every participant's items at once ((responder, report) parts)."""
    from runners.proactivebench.report import pooled_report
    return pooled_report(ds, parts, predictions_of, judge=judge, store=store)


# --- command line (runners.cli): what `score` reads, its score plan and table; `run`'s judge rule ----------------

SCORE_INPUT = ("--preds", "preds.jsonl")  # what `score` reads: the flag and the native file it names


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.proactivebench.score_plan import plan
    return plan(a, checked)



def check_run_judge(spec: str) -> None:
    """`run`: this benchmark is scored without a judge."""
    from runners.checks import usage
    raise usage("proactivebench is scored without a judge; drop --judge", "--judge")
