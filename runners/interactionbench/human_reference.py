"""A human sitting in the paper's human-reference procedure: the annotation tool's export.json (what the
reference's `analysis/human_reference.py convert` reads), the A-type shift measured from the sitting (or its
study) rather than assumed, and the allowances a human row was scored with. The arithmetic is
scoring.interactionbench.human_shift's."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable, Iterable, Optional

from annotation.interactionbench import rules
from annotation.interactionbench.writer import emission_content
from scoring.interactionbench.human_shift import (PAPER_SHIFT_S, first_answer_delay, measured_shift,
                                                  measures_shift, shift_emissions)

TOOL = "ibench-ui export responses --format human-reference"
CLOCK_NOTE = ("video_time_s is each response's media time; wall_ms_since_question is (video_time_s - "
              "question_time_s) in ms: the stream plays in real time and ibench-ui does not log the wall instant "
              "the question appeared")


def _iso(wall: Optional[float]) -> Optional[str]:
    """A wall time as the tool writes `at`: UTC ISO 8601 with milliseconds and Z."""
    if wall is None:
        return None
    return datetime.fromtimestamp(wall, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def tool_export(ds, session, by_item: dict, study: Optional[str] = None) -> dict:
    """One sitting as the annotation tool's export.json: per item (the session's order) its video id, capability,
    time and interaction types, question and question time, and every response as an update (log order)."""
    results = {}
    for iid, responses in by_item.items():
        row = ds.get(iid).native
        q = rules.question_time(row)
        updates = [{"video_time_s": round(r.t, 3), "wall_ms_since_question": int(round((r.t - q) * 1000)),
                    "answer": emission_content(r), "at": _iso(r.wall_time)} for r in responses]
        results[iid] = {"item_id": iid, "video_id": row.get("video_id"), "capability": row.get("capability"),
                        "time_type": row.get("time_type"), "interaction_type": row.get("interaction_type"),
                        "question_time_s": row.get("question_time_s"), "question": row.get("question"),
                        "updates": updates}
    return {"participant": session.participant, "tool": TOOL, "session": session.id, "study": study,
            "clock": CLOCK_NOTE, "n_items": len(results), "results": results}


def shift_delays(ds, preds: dict) -> list[float]:
    """First-answer delays of the answered IVQA A items among native predictions (item id -> preds row)."""
    out = []
    for iid, p in preds.items():
        row = ds.get(iid).native
        if measures_shift(row):
            d = first_answer_delay(rules.question_time(row), [e["t"] for e in p.get("emissions") or []])
            if d is not None:
                out.append(d)
    return out


def choose_shift(ds, preds: dict, session_id: str, study: Optional[str] = None,
                 study_preds: Callable[[], Iterable[dict]] = tuple) -> tuple[float, str]:
    """(shift, where it came from): measured over the sitting's own answered IVQA A items; else over every
    sitting of its study (`study_preds` gives their predictions); else the paper's fixed value."""
    own = shift_delays(ds, preds)
    if own:
        return measured_shift(own), f"measured over {len(own)} answered IVQA A item(s) of session {session_id}"
    if study:
        pooled = [d for p in study_preds() for d in shift_delays(ds, p)]
        if pooled:
            return measured_shift(pooled), (f"measured over {len(pooled)} answered IVQA A item(s) of study {study} "
                                            f"(session {session_id} has none)")
    return PAPER_SHIFT_S, "the paper's fixed value (no answered IVQA A item in the session or its study)"


def shift_a(ds, preds: dict, shift: float) -> dict:
    """Native predictions with every A-type item's emissions moved back by `shift` (t_orig kept, shift_s noted)."""
    out = {}
    for iid, p in preds.items():
        row = ds.get(iid).native
        if row.get("time_type") == "A":
            p = {**p, "emissions": shift_emissions(p.get("emissions") or [], shift, rules.question_time(row)),
                 "shift_s": shift}
        out[iid] = p
    return out


def allowances(ds, preds: dict, report: dict) -> str:
    """Which of the paper's human-reference allowances a human row's figures used: the A-type shift (none here;
    the value measured from these answers), multiple choice by option text, the pre-anchor tolerance."""
    cfg = (report.get("aggregate") or {}).get("config") or {}
    delays = shift_delays(ds, preds)
    shift = (f"A-type shift not applied (measured {measured_shift(delays):.2f} s over {len(delays)} answered "
             "IVQA A item(s))" if delays else "A-type shift not applied (no answered IVQA A item to measure it)")
    mcq = ("MCQ by option letter (answer key), not by option text" if cfg.get("mcq_key") else
           "MCQ not by option text (judged against the annotated answer)")
    tol = cfg.get("pre_tol_s")
    return f"{shift}; {mcq}; pre-anchor tolerance {'default' if tol is None else f'{tol:g} s'}"
