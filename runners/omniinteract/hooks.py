"""OmniInteract's runners hooks, reached through annotation.registry (`spec.hook("runners", name)`). Each function
imports its implementation when called, so importing this module stays cheap."""
from __future__ import annotations


# --- command line (runners.cli): the flags that are this benchmark's, its score plan and table -------------------

# score flags (argparse dests) that apply to this benchmark only: `score` refuses them for the others
SCORE_FLAGS = ("reference_args", "asr_model", "dry_run")
SCORE_INPUT = ("--outputs", "batch_summary.json")  # what `score` reads: the model's outputs folder holding this


def score_argv(argv: list[str]) -> list[str]:
    """The reference evaluator's own flags, given straight to `score`, as ours (before parsing)."""
    from runners.omniinteract.reference_flags import reference_argv
    return reference_argv(argv)


def check_score_flags(a) -> None:
    """What `score` refuses for this benchmark before reading any file."""
    from runners.omniinteract.score_plan import check_flags
    check_flags(a)


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.omniinteract.score_plan import plan
    return plan(a, checked)


def format_table(report: dict, model: str = "model") -> str:
    from scoring.omniinteract import format_table
    return format_table(report["summary"])


def check_run_judge(spec: str) -> None:
    """`run`: the judge kinds this benchmark's scorer can use."""
    from runners.checks import usage
    if spec.strip().split(":", 1)[0].lower() not in ("openai", "replay"):
        raise usage(f"omniinteract needs openai:<model>@<url> or replay:<file.json>, found {spec!r}", "--judge")
