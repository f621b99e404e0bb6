"""Apply one review edit to an item's native record, per benchmark, and rebuild the item from it.

Fields: `request.time`, `request.text`, `target.<id>.anchor`, `target.<id>.window`, `target.<id>.reference`.
Each benchmark stores these differently (ProactiveBench `onset_second`/`window`, InteractScope `targets[k]`,
InteractionBench `answers[k].time_s`, OmniInteract QA rows); the rebuilt item is validated with the
loader's own checks, so an edit that the loader would reject is refused before it is recorded."""
from __future__ import annotations

import copy
import json
import math
from typing import Any, Optional

from annotation import registry
from annotation.loaders._common import parse_time
from annotation.model import Item, Target

TARGET_PROPS = ("anchor", "window", "reference")


def split_field(field: str) -> tuple[str, Optional[str], str]:
    """'request.time' -> ('request', None, 'time'); 'target.g1.window' -> ('target', 'g1', 'window')."""
    if field in ("request.time", "request.text"):
        return "request", None, field.split(".", 1)[1]
    if field.startswith("target.") and field.count(".") >= 2:
        tid, prop = field[len("target."):].rsplit(".", 1)
        if prop in TARGET_PROPS and tid:
            return "target", tid, prop
    raise ValueError(f"unknown field {field!r}: expected request.time, request.text or target.<id>.{{anchor,window,reference}}")


def editable_fields(item: Item) -> list[str]:
    out = ["request.time", "request.text"]
    for t in item.targets:
        out += [f"target.{t.id}.{p}" for p in TARGET_PROPS]
    return out


def valid_fields(item: Item) -> list[str]:
    """The fields this item's benchmark lets a reviewer change (re-applying the current value passes the
    loader's checks): an InteractionBench type B/C question has no request time, its windows follow the
    answers, and so on."""
    out = []
    for f in editable_fields(item):
        cur = current_value(item, f)
        if cur is None and not f.endswith((".text", ".reference")):
            continue
        try:
            apply_field(item, f, cur)
        except (ValueError, KeyError, TypeError, IndexError):
            continue
        out.append(f)
    return out


def default_field(item: Item) -> Optional[str]:
    """The field the review form opens on: the first target's time, else the first field that can change."""
    fields = valid_fields(item)
    for f in fields:
        if f.startswith("target.") and f.endswith(".anchor"):
            return f
    return fields[0] if fields else None


def current_value(item: Item, field: str) -> Any:
    part, tid, prop = split_field(field)
    if part == "request":
        return getattr(item.request, prop)
    t = find_target(item, tid)
    return list(t.window) if prop == "window" and t.window is not None else getattr(t, prop)


def find_target(item: Item, tid: str) -> Target:
    for t in item.targets:
        if t.id == tid:
            return t
    raise KeyError(f"{item.benchmark}/{item.id}: no target {tid!r} (targets: {', '.join(t.id for t in item.targets) or 'none'})")


def parse_value(item: Item, field: str, raw: Any) -> Any:
    """Turn what a user typed into the field's value: seconds (number or MM:SS), [start, end], or text/JSON."""
    part, tid, prop = split_field(field)
    if prop in ("time", "anchor"):
        return _seconds(raw, field)
    if prop == "window":
        if isinstance(raw, (list, tuple)):
            parts = list(raw)
        else:
            parts = [p for p in str(raw).replace("[", "").replace("]", "").replace(";", ",").split(",")]
        if len(parts) != 2:
            raise ValueError(f"{field}: expected 'start, end' in seconds, got {raw!r}")
        s = _seconds(parts[0], field)
        e = None if str(parts[1]).strip().lower() in ("", "none", "null", "open") else _seconds(parts[1], field)
        if e is not None and s > e:
            raise ValueError(f"{field}: window start {s:g} is after its end {e:g}")
        return [s, e]
    if prop == "reference":
        old = find_target(item, tid).reference
        if isinstance(old, str) or old is None:
            return "" if raw is None else str(raw)
        if not isinstance(raw, str):
            return raw
        try:
            return json.loads(raw)  # structured references (tool calls, counts) are edited as JSON
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{field}: the reference is structured ({type(old).__name__}); enter JSON ({exc})") from None
    return "" if raw is None else str(raw)


def _seconds(raw: Any, field: str) -> float:
    v = parse_time(raw.strip() if isinstance(raw, str) else raw)
    if v is None or not math.isfinite(v) or v < 0:
        raise ValueError(f"{field}: expected a time in seconds >= 0 (or MM:SS), got {raw!r}")
    return round(float(v), 6)


def whole(v: float) -> float | int:
    """Whole seconds stay integers in the native JSON (ProactiveBench, and tidy diffs elsewhere)."""
    return int(v) if float(v).is_integer() else v


def apply_field(item: Item, field: str, value: Any) -> Item:
    """The item with one field changed: native record patched, targets rebuilt and validated."""
    native = copy.deepcopy(item.native)
    edits = registry.get(item.benchmark).hook("annotation", "edits")()
    return edits.rebuild(item, edits.patch(item, native, field, value))


def raise_errors(problems) -> None:
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise ValueError("; ".join(str(p) for p in errors))


