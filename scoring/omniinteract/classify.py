"""OmniInteract: each response's verdict under the scorer's own rules, read off its timing machinery
(scoring.classify dispatches here through the registry). Pure."""
from __future__ import annotations

from typing import Any, Optional

from scoring.classify import ResponseVerdict
from scoring.omniinteract.common import decay, normalize_chunks
from scoring.omniinteract.matching import match_chunks
from scoring.omniinteract.slots import Slot, build_slots


def classify_omniinteract(gt_doc: Any, scene_type: str, transcript: Any, tail: float = 60.0,
                          slots: Optional[list[Slot]] = None) -> list[ResponseVerdict]:
    """Per transcript chunk (spec §4): early (before t_a), core, early+core (split at t_a by aligned words)
    or unmatched (no slot; one FP each). Credit is the timeliness decay of its phase (content is judged
    separately)."""
    slots = slots if slots is not None else build_slots(gt_doc, scene_type, tail)
    chunks = normalize_chunks(transcript)
    matches, unmatched = match_chunks(slots, chunks)
    phase: dict[int, tuple[Slot, set]] = {}
    for m in matches:
        for p in m.early:
            phase.setdefault(p.source_chunk_id, (m.slot, set()))[1].add("early")
        for p in m.core:
            phase.setdefault(p.source_chunk_id, (m.slot, set()))[1].add("core")
    out = []
    for c in chunks:
        base = dict(index=c.chunk_id, t=c.start, end=c.end, text=c.text)
        if c.chunk_id not in phase:
            out.append(ResponseVerdict(**base, label="unmatched", credit=0.0,
                                       detail="no slot owns this start time: one false positive"))
            continue
        slot, phases = phase[c.chunk_id]
        label = "early+core" if phases == {"early", "core"} else next(iter(phases))
        if label == "early":
            credit, delay = decay(c.start, slot.start, slot.t_a), c.start - slot.start
        else:
            start = max(c.start, slot.t_a)
            credit, delay = decay(start, slot.t_a, slot.end), start - slot.t_a
        out.append(ResponseVerdict(**base, label=label, target=str(slot.slot_id), delay=delay, credit=credit,
                                   detail=f"slot {slot.slot_id} [{slot.start:g}, t_a {slot.t_a:g}, {slot.end:g})"))
    return out


def oi_slots(item) -> list[Slot]:
    """An OmniInteract item's slots as the scorer builds them (the loader's copy if the scorer refuses)."""
    try:
        return build_slots(item.native, item.kind)
    except Exception:  # noqa: BLE001 - fall back to what the loader recorded
        keys = set(Slot.__dataclass_fields__)
        return [Slot(**{k: v for k, v in s.items() if k in keys}) for s in item.meta.get("slots") or []]
