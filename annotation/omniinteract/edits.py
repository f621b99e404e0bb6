"""OmniInteract: one review edit applied to its native record (`patch`), and the item rebuilt and validated
by its loader's own checks (`rebuild`); annotation.edits dispatches here through the registry."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from annotation.edits import split_field, whole, raise_errors
from annotation.loaders._common import Problems
from annotation.model import Item, Request, Target


def _om_rows(doc: Any) -> list:
    return doc.get("items") if isinstance(doc, dict) else doc


def _like(old: Any, v: float) -> Any:
    """Write a time in the style the file used ("MM:SS" strings stay strings)."""
    if isinstance(old, str) and ":" in old:
        m, s = divmod(v, 60.0)
        sec = f"{int(s):02d}" if float(s).is_integer() else f"{s:06.3f}".rstrip("0")
        return f"{int(m):02d}:{sec}"
    if isinstance(old, str):
        return f"{v:g}"
    return whole(v)


def patch(item: Item, doc: Any, field: str, v: Any) -> Any:
    part, tid, prop = split_field(field)
    scene = item.meta.get("scene_type")
    slots = item.meta.get("slots") or []
    if part == "target" and prop == "window":
        raise ValueError(f"{item.id}: OmniInteract slot windows follow the question/answer times; edit the anchor")
    if scene == "1QnA":
        if part == "request":
            if "answers" in doc:
                key = "question_time" if prop == "time" else "question_text"
                doc[key] = _like(doc.get(key), v) if prop == "time" else v
                return doc
            turn = next(t for t in doc["conversations"] if isinstance(t, dict) and t.get("from") == "user")
            if prop == "text" and doc.get("inferred_knowledge"):
                raise ValueError(f"{item.id}: the request text includes inferred_knowledge; edit the native file")
            if prop == "time":
                turn["timestamp"] = _like(turn.get("timestamp"), v)
            else:
                turn["value"] = v
            return doc
        slot = next((s for s in slots if str(s["slot_id"]) == tid), None)
        if slot is None:
            raise KeyError(f"{item.id}: no target {tid!r}")
        if "answers" in doc:
            row = doc["answers"][slot["row"]]
            if prop == "anchor":
                row["answer_time"] = _like(row.get("answer_time"), v)
            else:
                row["answer_text"] = v
        else:
            row = doc["conversations"][slot["row"]]
            if prop == "anchor":
                row["timestamp"] = _like(row.get("timestamp"), v)
            else:
                row["value"] = v
        return doc
    rows = _om_rows(doc)
    if part == "request":
        first = min(slots, key=lambda s: (s["start"], s["t_a"]))
        row = rows[first["row"]]
        if prop == "time":
            row["question_time"] = _like(row.get("question_time"), v)
        else:
            row["question_text"] = v
        return doc
    slot = next((s for s in slots if str(s["slot_id"]) == tid), None)
    if slot is None:
        raise KeyError(f"{item.id}: no target {tid!r}")
    row = rows[slot["row"]]
    if prop == "anchor":
        row["answer_time"] = _like(row.get("answer_time"), v)
    else:
        row["answer_text"] = v
    return doc


def rebuild(item: Item, doc: Any) -> Item:
    from annotation.omniinteract import loader as om
    problems = Problems()
    scene = item.meta.get("scene_type")
    name = item.meta.get("annotation_file", item.source_file)
    if scene == "1QnA":
        q, steps = om._qna_steps(doc, name, item.id, problems)
        raise_errors(problems)
        slots = om.one_qna_slots(q["q"], steps, q["text"])
        request = Request(text=q["text"], time=q["q"], modality="audio")
    else:
        rows = om._qa_rows(doc, name, item.id, problems)
        raise_errors(problems)
        try:
            slots = om.nested_slots(rows) if scene == "nested" and item.meta.get("scorable", True) \
                else om.multi_turn_slots(rows)
        except ValueError as exc:
            raise ValueError(f"{name}: {item.id}: {exc}") from None
        first = min(rows, key=lambda r: (r["q"], r["a"]))
        request = Request(text=first["question_text"], time=first["q"], modality="audio")
    targets = tuple(Target(id=str(s["slot_id"]), kind=s["nested_role"] or ("step" if scene == "1QnA" else "turn"),
                           anchor=s["t_a"], window=(s["start"], s["end"]), window_closed=False,
                           reference=s["gt_answer"], label=s["question_type"]) for s in slots)
    return replace(item, native=doc, targets=targets, request=request, meta={**item.meta, "slots": slots})

