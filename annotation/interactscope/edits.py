"""Omni-InteractScope: one review edit applied to its native record (`patch`), and the item rebuilt and validated
by its loader's own checks (`rebuild`); annotation.edits dispatches here through the registry."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from annotation.edits import split_field, find_target, whole, raise_errors
from annotation.loaders._common import Problems
from annotation.model import Item, Request


def patch(item: Item, rec: dict, field: str, v: Any) -> dict:
    part, tid, prop = split_field(field)
    if part == "request":
        if prop == "text":
            rec["query_text"] = v
        else:
            rec["query_time"] = whole(v)
        return rec
    for tg in rec["targets"]:
        if tg.get("id") == tid:
            break
    else:
        raise KeyError(f"{item.id}: no target {tid!r}")
    if prop == "reference":
        tg["reference"] = v
        return rec
    cur = find_target(item, tid).window
    new = [v, cur[1]] if prop == "anchor" else list(v)
    if new[1] is None:
        raise ValueError(f"{item.id}: an InteractScope window needs an end")
    tg.pop("window_rel", None)  # a query-relative window becomes absolute once edited
    tg.pop("query_time", None)
    tg["window"] = [whole(new[0]), whole(new[1])]
    return rec


def rebuild(item: Item, rec: dict) -> Item:
    from annotation.interactscope import loader as isc
    problems = Problems()
    qt = rec.get("query_time")
    targets = isc._targets(rec, rec.get("task"), float(qt) if qt is not None else None, item.source_file, item.id,
                           problems)
    raise_errors(problems)
    req = Request(text=rec.get("query_text") or "", time=float(qt) if qt is not None else 0.0,
                  modality="audio" if qt is not None else "standing")
    return replace(item, native=rec, targets=tuple(targets), request=req)

