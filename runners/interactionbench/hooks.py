"""InteractionBench's runners hooks, reached through annotation.registry (`spec.hook("runners", name)`). Each
function imports its implementation when called, so importing this module stays cheap."""
from __future__ import annotations


# --- command line (runners.cli): the flags that are this benchmark's, its score plan and table -------------------

# score flags (argparse dests) that apply to this benchmark only: `score` refuses them for the others
SCORE_FLAGS = ("mcq_key", "delta", "pre_tol", "gate_thresh", "items", "judge_cache_dir", "gate", "skip_missing",
               "judge_args", "judge_prompt")
EXPORT_FLAGS = ("human_reference",)  # export flags that act on this benchmark (ignored for the others)
SCORE_INPUT = ("--preds", "preds.jsonl")  # what `score` reads: the flag and the native file it names
# --judge-prompt (the reference's names) -> our model judges' prompt versions (stored verdicts keep v1/v2)
JUDGE_PROMPTS = {"v1": "ib-v1-equivalence", "v2": "ib-v2-containment"}


def score_aliases(a) -> None:
    """The reference `ibench eval` spellings of this benchmark's flags, resolved before any check."""
    from runners.interactionbench.score_plan import aliases
    aliases(a)


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.interactionbench.score_plan import plan
    return plan(a, checked)


def format_table(report: dict, model: str = "model") -> str:
    from scoring.interactionbench.scorer import format_table
    return format_table(report)
