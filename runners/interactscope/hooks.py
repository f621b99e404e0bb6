"""Omni-InteractScope's runners hooks, reached through annotation.registry (`spec.hook("runners", name)`). Each
function imports its implementation when called, so importing this module stays cheap."""
from __future__ import annotations


# --- command line (runners.cli): what `score` reads, its score plan and table ----------------------------------

SCORE_INPUT = ("--preds", "responses.jsonl")  # what `score` reads: the flag and the native file it names


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.interactscope.score_plan import plan
    return plan(a, checked)


def format_table(report: dict, model: str = "model") -> str:
    from scoring.interactscope.scorer import format_table
    return format_table(report, model)
