"""ProactiveBench's runners hooks, reached through annotation.registry (`spec.hook("runners", name)`). Each
function imports its implementation when called, so importing this module stays cheap."""
from __future__ import annotations


# --- command line (runners.cli): what `score` reads, its score plan and table; `run`'s judge rule ----------------

SCORE_INPUT = ("--preds", "preds.jsonl")  # what `score` reads: the flag and the native file it names


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.proactivebench.score_plan import plan
    return plan(a, checked)


def format_table(report: dict, model: str = "model") -> str:
    from scoring.proactivebench.scorer import format_table
    return format_table(report, model)


def check_run_judge(spec: str) -> None:
    """`run`: this benchmark is scored without a judge."""
    from runners.checks import usage
    raise usage("proactivebench is scored without a judge; drop --judge", "--judge")
