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
