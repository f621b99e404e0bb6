"""InteractionBench: one review edit applied to its native record (`patch`), and the item rebuilt and validated
by its loader's own checks (`rebuild`); annotation.edits dispatches here through the registry."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from annotation.interactionbench import rules as ib_rules
from annotation.edits import split_field, find_target, whole, raise_errors
from annotation.model import Item


def patch(item: Item, row: dict, field: str, v: Any) -> dict:
    part, tid, prop = split_field(field)
    fam = ib_rules.family(row)
    if part == "request":
        if prop == "text":
            row["question"] = v
        elif row.get("time_type") == "A":
            row["question_time_s"] = whole(v)
        else:
            raise ValueError(f"{item.id}: a type {row.get('time_type')} question stands from t=0; it has no time")
        return row
    t = find_target(item, tid)
    if prop == "window":
        raise ValueError(f"{item.id}: InteractionBench windows follow the answer times; edit the anchor")
    if fam == "A_retro_qa":
        if prop == "anchor":
            row["question_time_s"] = whole(v)
        else:
            ib_rules.timed_answers(row)[0]["content"] = v
        return row
    hits = [a for a in ib_rules.timed_answers(row) if float(a["time_s"]) == t.anchor]
    if prop == "anchor":
        for a in hits:
            a["time_s"] = whole(v)
    else:
        if len(hits) != 1:
            raise ValueError(f"{item.id}: target {tid} merges {len(hits)} answers at {t.anchor:g} s; "
                             "edit their content in the native file")
        hits[0]["content"] = v
    return row


def rebuild(item: Item, row: dict) -> Item:
    from annotation.interactionbench import loader as ib
    ck = ib._Checker(item.source_file)
    core = {k: v for k, v in row.items() if k not in ib.VIDEO_FIELDS}
    if not ib._check_item(ck, item.id, core, float(row.get("duration_s") or 0.0)):
        raise_errors(ck.problems)
    kind = ib_rules.family(row) if ib_rules.is_valid(row) else "invalid"
    return replace(item, native=row, kind=kind, targets=ib._targets(row) if kind != "invalid" else (),
                   request=ib._request(row))

