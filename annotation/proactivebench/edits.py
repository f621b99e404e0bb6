"""ProactiveBench: one review edit applied to its native record (`patch`), and the item rebuilt and validated
by its loader's own checks (`rebuild`); annotation.edits dispatches here through the registry."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from annotation.edits import split_field, whole, raise_errors
from annotation.loaders._common import Problems
from annotation.model import Item


def patch(item: Item, rec: dict, field: str, v: Any) -> dict:
    part, tid, prop = split_field(field)
    if part == "request":
        rec["request" if prop == "text" else "request_time"] = v if prop == "text" else whole(v)
        return rec
    if tid == "onset":
        if prop != "anchor":
            raise ValueError(f"{item.id}: the OR window follows onset_second; edit target.onset.anchor")
        rec["onset_second"] = whole(v)
    elif tid == "window":
        if prop == "anchor":
            rec["window"] = [whole(v), rec["window"][1]]
        elif prop == "window":
            if v[1] is None:
                raise ValueError(f"{item.id}: a ProactiveBench window needs an end")
            rec["window"] = [whole(v[0]), whole(v[1])]
        else:
            raise ValueError(f"{item.id}: a {item.kind} window has no reference answer")
    elif tid.startswith("alert"):
        if prop != "anchor":
            raise ValueError(f"{item.id}: an ES alert is a single second; edit target.{tid}.anchor")
        rec["alert_seconds"][int(tid[5:]) - 1] = whole(v)
    elif tid.startswith("silence"):
        if prop != "window" or v[1] is None:
            raise ValueError(f"{item.id}: edit target.{tid}.window as 'start, end'")
        rec["silence_segments"][int(tid[7:]) - 1] = [whole(v[0]), whole(v[1])]
    elif tid == "count":
        if prop != "reference" or not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{item.id}: edit target.count.reference as a whole number >= 0")
        rec["ref_count"] = v
    else:
        raise KeyError(f"{item.id}: no target {tid!r}")
    return rec


def rebuild(item: Item, rec: dict) -> Item:
    from annotation.proactivebench import loader as pb
    problems = Problems()
    targets = pb._targets(rec, rec.get("subtask"), rec.get("duration"), item.meta.get("eval_start", pb.DEFAULT_EVAL_START),
                          item.source_file, item.id, problems)
    raise_errors(problems)
    req = replace(item.request, text=rec.get("request") or "")
    return replace(item, native=rec, targets=tuple(targets), request=req)

