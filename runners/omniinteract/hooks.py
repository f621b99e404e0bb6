"""OmniInteract's runners-layer hooks (annotation.registry): its duplex protocol, its native transcript of a
driven item or a realtime session, its scores of a run, of one item in a run and of the
pooled humans, its run outputs, and whether a realtime model hears the request. Each imports its module on
first use."""
from __future__ import annotations


def protocols() -> dict:
    """Protocol name -> class: duplex."""
    from runners.omniinteract.protocol import Duplex
    return {Duplex.name: Duplex}


def native_prediction(item, trace, model: str = "") -> dict:
    """A driven item's transcript: one chunk per emission."""
    from runners.omniinteract.prediction import transcript_of
    return transcript_of(trace.emissions)


def realtime_prediction(item, trace, transcript, model: str = ""):
    """A realtime session's prediction is its transcript itself (None when it failed: `incomplete`)."""
    return transcript


def score_predictions(ds, item_ids, preds, judge=None, store=None, model: str = "model") -> dict:
    """The evaluator's report on native predictions (item id -> transcript) of the given items."""
    from runners.omniinteract.report import score_predictions
    return score_predictions(ds, item_ids, preds, judge=judge, store=store, model=model)


def run_item_score(item, report: dict):
    """The item's headline figures in a finished run's report, None when it has none."""
    from runners.omniinteract.report import run_item_score
    return run_item_score(item, report)


def pooled_report(ds, parts, predictions_of, judge=None, store=None) -> dict:
    """The evaluator's summary over every participant's samples at once ((responder, report) parts)."""
    from runners.omniinteract.report import pooled_report
    return pooled_report(ds, parts, predictions_of, judge=judge, store=store)


def write_outputs(ds, results: dict, out_dir, model: str) -> list:
    """A run's native files: the outputs/<model>/ tree of transcripts, with a realtime run's speech."""
    from runners.omniinteract.outputs import write_outputs
    return write_outputs(ds, results, out_dir, model)


def request_in_stream(item) -> bool:
    """Is the request heard in the stream's audio (so a realtime model is not also sent it as text)?"""
    return item.request.modality == "audio"


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



def check_run_judge(spec: str) -> None:
    """`run`: the judge kinds this benchmark's scorer can use."""
    from runners.checks import usage
    if spec.strip().split(":", 1)[0].lower() not in ("openai", "replay"):
        raise usage(f"omniinteract needs openai:<model>@<url> or replay:<file.json>, found {spec!r}", "--judge")
