"""OmniInteract on one item in memory (scoring.live): the report a session or Compare shows, and its
headline figures."""
from __future__ import annotations


def score_item(item, transcript, judge=None, oi_transport=None) -> dict:
    """OmniInteract on one sample without touching disk: slots from the annotation, chunks from the transcript;
    the sample as the evaluator records it (slots, unmatched chunks, a judge failure)."""
    from scoring.omniinteract import OIConfig
    from scoring.omniinteract.common import normalize_chunks
    from scoring.omniinteract.evaluate import chunk_dict
    from scoring.omniinteract.judge import dry_run_transport
    from scoring.omniinteract.matching import match_chunks
    from scoring.omniinteract.scoring import score_sample
    from scoring.omniinteract.slots import build_slots
    from scoring.omniinteract.summary import aggregate, summarize_sample

    cfg = OIConfig()
    slots = build_slots(item.native, item.kind, float(cfg.last_slot_tail_sec))
    matches, unmatched = match_chunks(slots, normalize_chunks(transcript))
    score = score_sample(item.id, matches, unmatched, oi_transport or dry_run_transport, cfg)
    is_math = "1q1a_math" in str(item.meta.get("subset", ""))
    sample_summary = summarize_sample(score.rows, len(score.unmatched), score.status, cfg.count_unmatched_as_fp,
                                      is_math, cfg.fixed)
    return {"samples": [{"sample_id": item.id, "status": score.status, "item_kind": "summarized",
                         "error": score.error, "unmatched_chunks": [chunk_dict(c) for c in score.unmatched],
                         "slots": score.rows, "sample_summary": sample_summary}],
            "summary": aggregate([sample_summary], 0, cfg.fixed)}


def item_figures(summary: dict) -> dict:
    """One item's IA-QTF1 on 0–100, as the Leaderboard and Runs show OmniInteract (the evaluator's summary holds it
    on 0–1), and its slot counts."""
    f1 = summary.get("IA_QTF1")
    return {"IA-QTF1": None if f1 is None else 100.0 * float(f1), "TP": summary.get("Global_TP"),
            "FP": summary.get("Global_FP"), "FN": summary.get("Global_FN")}


def headline(item, report: dict, judged: bool = False) -> dict:
    """IA-QTF1 (0–100) and the slot counts; `content_judged` says whether a judge ran."""
    return {**item_figures(report["summary"]), "content_judged": judged}
