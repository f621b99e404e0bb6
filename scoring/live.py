"""Score one item's logged responses with its benchmark's own scorer, in memory: the feedback a participant
sees at item end, and the per-item score the Compare tab shows. Same code path as a batch run."""
from __future__ import annotations

from typing import Callable, Iterable, Optional

from annotation.model import Item, Response
from annotation.predictions import item_prediction


def score_prediction(item: Item, prediction, judge: Optional[Callable] = None, oi_transport=None) -> dict:
    """The benchmark's report for one item and one native prediction record."""
    b = item.benchmark
    if b == "interactionbench":
        from scoring.interactionbench import scorer as ib
        return ib.score([item.native], [prediction], ib.IBConfig(), judge=judge)
    if b == "proactivebench":
        from scoring.proactivebench import scorer as pb
        return pb.score([item.native], {item.id: prediction}, pb.PBConfig(allow_partial=True))
    if b == "interactscope":
        from scoring.interactscope import scorer as isc
        pred = isc.fill_tool_verdicts(item.native, prediction)
        if judge is not None:
            pred = isc.fill_judge_verdicts(item.native, pred, judge)
        return isc.score([item.native], {item.id: pred}, isc.ISConfig(allow_partial=True))
    if b == "omniinteract":
        return score_omniinteract_sample(item, prediction, oi_transport)
    raise ValueError(f"unknown benchmark {b!r}")


def score_omniinteract_sample(item: Item, transcript: dict, transport=None) -> dict:
    """OmniInteract on one sample without touching disk: slots from the annotation, chunks from the transcript."""
    from scoring.omniinteract import OIConfig
    from scoring.omniinteract.common import normalize_chunks
    from scoring.omniinteract.judge import dry_run_transport
    from scoring.omniinteract.matching import match_chunks
    from scoring.omniinteract.scoring import score_sample
    from scoring.omniinteract.slots import build_slots
    from scoring.omniinteract.summary import aggregate, summarize_sample

    cfg = OIConfig()
    slots = build_slots(item.native, item.kind, float(cfg.last_slot_tail_sec))
    matches, unmatched = match_chunks(slots, normalize_chunks(transcript))
    score = score_sample(item.id, matches, unmatched, transport or dry_run_transport, cfg)
    is_math = "1q1a_math" in str(item.meta.get("subset", ""))
    sample_summary = summarize_sample(score.rows, len(score.unmatched), score.status, cfg.count_unmatched_as_fp,
                                      is_math, cfg.fixed)
    return {"samples": [{"sample_id": item.id, "status": score.status, "slots": score.rows,
                         "sample_summary": sample_summary}],
            "summary": aggregate([sample_summary], 0, cfg.fixed)}


def score_responses(item: Item, responses: Iterable[Response], judge: Optional[Callable] = None,
                    oi_transport=None) -> dict:
    """Score a human's (or a live model's) logged responses to one item: {"prediction", "report", "headline"}."""
    prediction = item_prediction(item.benchmark, item, list(responses))
    report = score_prediction(item, prediction, judge=judge, oi_transport=oi_transport)
    judged = judge is not None if item.benchmark == "interactscope" else oi_transport is not None
    return {"prediction": prediction, "report": report, "headline": headline(item, report, judged)}


def headline(item: Item, report: dict, judged: bool = False) -> dict:
    """The few numbers worth showing a participant for one item; `content_judged` says whether a content
    judge ran (without one, InteractScope and OmniInteract content credit is not available)."""
    b = item.benchmark
    if b == "interactionbench":
        row = report["per_item"].get(item.id, {})
        return {k: row.get(k) for k in ("family", "total_score", "accuracy", "timing_accuracy", "silence_compliance")}
    if b == "proactivebench":
        row = report["per_item"][item.id]
        out = {"subtask": row.get("subtask")}
        out.update({k: row[k] for k in ("outcome", "correct", "first_response", "window", "predicted_count",
                                        "ref_count", "hits", "n_alerts", "clean_segments", "n_segments")
                    if k in row})
        return out
    if b == "interactscope":
        row = report["per_item"][item.id]
        return {"task": row.get("task"), "correct_targets": row.get("n_correct"), "targets": row.get("n_targets"),
                "timely_targets": sum(t["timing"] == "in_window" for t in row.get("targets", ())),
                "content_judged": judged}
    s = report["summary"]
    return {"IA_QTF1": s.get("IA_QTF1"), "TP": s.get("Global_TP"), "FP": s.get("Global_FP"),
            "FN": s.get("Global_FN"), "content_judged": judged}
