"""OmniInteract: each transcript chunk's verdict as the evaluator recorded it, read off the sample's slots and
unmatched chunks in its report; no matching of its own. Pure."""
from __future__ import annotations

from typing import Any, Optional

from scoring.classify import ResponseVerdict
from scoring.omniinteract.common import normalize_chunks


def _owners(sample: dict) -> dict[Any, tuple[dict, dict]]:
    """Chunk id -> (its slot's record, stage -> the piece of it the slot holds), from the recorded slots."""
    out: dict[Any, tuple[dict, dict]] = {}
    for slot in sample.get("slots") or ():
        for stage in ("early", "core"):
            for piece in slot.get(f"{stage}_chunks") or ():
                cid = piece.get("source_chunk_id", piece.get("chunk_id"))
                out.setdefault(cid, (slot, {}))[1][stage] = piece
    return out


def classify_omniinteract(sample_id: str, transcript: Any, report: dict) -> Optional[list[ResponseVerdict]]:
    """Per transcript chunk (spec §4): early, core or early+core as the slot that holds it records, unmatched
    (one false positive each), or judge_failed when a judge call failed before its slot was scored (missing
    data, not a verdict). Credit is the recorded timeliness of the stage. None when the report holds no scored
    sample of this id, or one made from other chunks."""
    sample = next((s for s in report.get("samples") or ()
                   if str(s.get("sample_id")) == sample_id and "slots" in s), None)
    if sample is None:
        return None
    owners = _owners(sample)
    unmatched = {c.get("chunk_id") for c in sample.get("unmatched_chunks") or ()}
    failure = sample.get("error") if sample.get("status") == "failed" else None
    out = []
    for c in normalize_chunks(transcript):
        base = dict(index=c.chunk_id, t=c.start, end=c.end, text=c.text)
        if c.chunk_id in owners:
            slot, pieces = owners[c.chunk_id]
            label = "early+core" if len(pieces) == 2 else next(iter(pieces))
            stage = "core" if "core" in pieces else "early"
            anchor = slot["t_a"] if stage == "core" else slot["start"]
            out.append(ResponseVerdict(**base, label=label, target=str(slot["slot_id"]),
                                       delay=pieces[stage]["start"] - anchor,
                                       credit=(slot.get(f"stage_{stage}") or {}).get("timeliness_score"),
                                       detail=f"slot {slot['slot_id']} [{slot['start']:g}, t_a {slot['t_a']:g}, "
                                              f"{slot['end']:g})"))
        elif c.chunk_id in unmatched:
            out.append(ResponseVerdict(**base, label="unmatched", credit=0.0,
                                       detail="no slot owns this start time: one false positive"))
        elif failure is not None:
            out.append(ResponseVerdict(**base, label="judge_failed", counted=False,
                                       detail=f"the judge call failed at slot {failure.get('failed_slot_id')} "
                                              f"({failure.get('message', failure.get('type'))}): this chunk's "
                                              "slot was never scored"))
        else:
            return None
    return out
