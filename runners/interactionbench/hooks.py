"""InteractionBench's runners-layer hooks (annotation.registry): its protocols, its native prediction of a
driven item, and its scores of a run and of the pooled humans. Each imports its module on first use."""
from __future__ import annotations


def protocols() -> dict:
    """Protocol name -> class: sliding, cumulative, interleaved, offline and blind."""
    from runners.interactionbench.protocols import Blind, Cumulative, Interleaved, Offline, Sliding
    return {p.name: p for p in (Sliding, Cumulative, Interleaved, Offline, Blind)}


def native_prediction(item, trace, model: str = "") -> dict:
    """A driven item's preds.jsonl line (its failed ticks kept visible)."""
    from runners.interactionbench.prediction import native_prediction
    return native_prediction(item, trace, model)


def score_predictions(ds, item_ids, preds, judge=None, store=None, model: str = "model") -> dict:
    """The scorer's report on native predictions (item id -> record) of the given items."""
    from runners.interactionbench.report import score_predictions
    return score_predictions(ds, item_ids, preds, judge=judge, store=store, model=model)


def pooled_report(ds, parts, predictions_of, judge=None, store=None) -> dict:
    """The scorer's report over every participant's items at once ((responder, report) parts)."""
    from runners.interactionbench.report import pooled_report
    return pooled_report(ds, parts, predictions_of, judge=judge, store=store)


def tool_export(ds, session, by_item: dict, study=None) -> dict:
    """One sitting as the paper's annotation-tool export.json (`export responses --format human-reference`)."""
    from runners.interactionbench.human_reference import tool_export
    return tool_export(ds, session, by_item, study)


def human_reference(ds, preds: dict, session_id: str, study=None, study_preds=tuple) -> tuple[dict, str]:
    """`export --human-reference`: A-type answers moved back by the shift measured from the sitting (else its
    study, else the paper's value); returns the shifted predictions and a line saying which shift and whence."""
    from runners.interactionbench.human_reference import choose_shift, shift_a
    shift, source = choose_shift(ds, preds, session_id, study, study_preds)
    return shift_a(ds, preds, shift), f"A-type shift {shift:.2f} s: {source}"


def human_allowances(ds, preds: dict, report: dict) -> str:
    """Which human-reference allowances a human row's figures used (report, Leaderboard)."""
    from runners.interactionbench.human_reference import allowances
    return allowances(ds, preds, report)


def paper_intervals(reports: list) -> list:
    """The paper's seeded bootstrap of the mean total score over these reports in order (`report --ci paper`)."""
    from runners.interactionbench.report import paper_intervals
    return paper_intervals(reports)


def paper_ci_note() -> str:
    """How `paper_intervals` are made, for the report and the Leaderboard."""
    from runners.interactionbench.report import PAPER_CI_NOTE
    return PAPER_CI_NOTE


# --- command line (runners.cli): the flags that are this benchmark's, its score plan and table -------------------

# score flags (argparse dests) that apply to this benchmark only: `score` refuses them for the others
SCORE_FLAGS = ("mcq_key", "delta", "pre_tol", "gate_thresh", "items", "judge_cache_dir", "gate", "skip_missing",
               "judge_args", "judge_prompt")
EXPORT_FLAGS = ("human_reference",)  # export flags that act on this benchmark (ignored for the others)
EXPORT_FORMATS = ("human-reference",)  # `export responses --format` values that only this benchmark writes
SCORE_INPUT = ("--preds", "preds.jsonl")  # what `score` reads: the flag and the native file it names
# --judge-prompt (the reference's names) -> our model judges' prompt versions (stored verdicts keep v1/v2)
# `python app.py analysis <script>`: the paper's analysis/ scripts as drop-ins (script name -> "module:function")
ANALYSIS_SCRIPTS = {name: f"runners.interactionbench.analysis.{name}:main"
                    for name in ("bootstrap_ci", "rank_stability", "human_reference", "export_tables")}
JUDGE_PROMPTS = {"v1": "ib-v1-equivalence", "v2": "ib-v2-containment"}


def score_aliases(a) -> None:
    """The reference `ibench eval` spellings of this benchmark's flags, resolved before any check."""
    from runners.interactionbench.score_plan import aliases
    aliases(a)


def score_plan(a, checked):
    """Check every input of `score` and return the Plan that scores them."""
    from runners.interactionbench.score_plan import plan
    return plan(a, checked)
