"""Apply one review edit to an item's native record, per benchmark, and rebuild the item from it.

Fields: `request.time`, `request.text`, `target.<id>.anchor`, `target.<id>.window`, `target.<id>.reference`.
Each benchmark stores these differently (ProactiveBench `onset_second`/`window`, InteractScope `targets[k]`,
InteractionBench `answers[k].time_s`, OmniInteract QA rows); the rebuilt item is validated with the
loader's own checks, so an edit that the loader would reject is refused before it is recorded."""
from __future__ import annotations

import copy
import json
import math
from dataclasses import replace
from typing import Any, Optional

from annotation import ib_rules
from annotation.loaders._common import Problems, parse_time
from annotation.model import Item, Request, Target

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


def _num(v: float) -> float | int:
    """Whole seconds stay integers in the native JSON (ProactiveBench, and tidy diffs elsewhere)."""
    return int(v) if float(v).is_integer() else v


def apply_field(item: Item, field: str, value: Any) -> Item:
    """The item with one field changed: native record patched, targets rebuilt and validated."""
    native = copy.deepcopy(item.native)
    patch = _PATCHERS[item.benchmark]
    native = patch(item, native, field, value)
    return _REBUILD[item.benchmark](item, native)


# ---------------------------------------------------------------- ProactiveBench

def _pb_patch(item: Item, rec: dict, field: str, v: Any) -> dict:
    part, tid, prop = split_field(field)
    if part == "request":
        rec["request" if prop == "text" else "request_time"] = v if prop == "text" else _num(v)
        return rec
    if tid == "onset":
        if prop != "anchor":
            raise ValueError(f"{item.id}: the OR window follows onset_second; edit target.onset.anchor")
        rec["onset_second"] = _num(v)
    elif tid == "window":
        if prop == "anchor":
            rec["window"] = [_num(v), rec["window"][1]]
        elif prop == "window":
            if v[1] is None:
                raise ValueError(f"{item.id}: a ProactiveBench window needs an end")
            rec["window"] = [_num(v[0]), _num(v[1])]
        else:
            raise ValueError(f"{item.id}: a {item.kind} window has no reference answer")
    elif tid.startswith("alert"):
        if prop != "anchor":
            raise ValueError(f"{item.id}: an ES alert is a single second; edit target.{tid}.anchor")
        rec["alert_seconds"][int(tid[5:]) - 1] = _num(v)
    elif tid.startswith("silence"):
        if prop != "window" or v[1] is None:
            raise ValueError(f"{item.id}: edit target.{tid}.window as 'start, end'")
        rec["silence_segments"][int(tid[7:]) - 1] = [_num(v[0]), _num(v[1])]
    elif tid == "count":
        if prop != "reference" or not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{item.id}: edit target.count.reference as a whole number >= 0")
        rec["ref_count"] = v
    else:
        raise KeyError(f"{item.id}: no target {tid!r}")
    return rec


def _pb_rebuild(item: Item, rec: dict) -> Item:
    from annotation.loaders import proactivebench as pb
    problems = Problems()
    targets = pb._targets(rec, rec.get("subtask"), rec.get("duration"), item.meta.get("eval_start", pb.DEFAULT_EVAL_START),
                          item.source_file, item.id, problems)
    _raise(problems)
    req = replace(item.request, text=rec.get("request") or "")
    return replace(item, native=rec, targets=tuple(targets), request=req)


# ---------------------------------------------------------------- InteractScope

def _is_patch(item: Item, rec: dict, field: str, v: Any) -> dict:
    part, tid, prop = split_field(field)
    if part == "request":
        if prop == "text":
            rec["query_text"] = v
        else:
            rec["query_time"] = _num(v)
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
    tg["window"] = [_num(new[0]), _num(new[1])]
    return rec


def _is_rebuild(item: Item, rec: dict) -> Item:
    from annotation.loaders import interactscope as isc
    problems = Problems()
    qt = rec.get("query_time")
    targets = isc._targets(rec, rec.get("task"), float(qt) if qt is not None else None, item.source_file, item.id,
                           problems)
    _raise(problems)
    req = Request(text=rec.get("query_text") or "", time=float(qt) if qt is not None else 0.0,
                  modality="audio" if qt is not None else "standing")
    return replace(item, native=rec, targets=tuple(targets), request=req)


# ---------------------------------------------------------------- InteractionBench

def _ib_patch(item: Item, row: dict, field: str, v: Any) -> dict:
    part, tid, prop = split_field(field)
    fam = ib_rules.family(row)
    if part == "request":
        if prop == "text":
            row["question"] = v
        elif row.get("time_type") == "A":
            row["question_time_s"] = _num(v)
        else:
            raise ValueError(f"{item.id}: a type {row.get('time_type')} question stands from t=0; it has no time")
        return row
    t = find_target(item, tid)
    if prop == "window":
        raise ValueError(f"{item.id}: InteractionBench windows follow the answer times; edit the anchor")
    if fam == "A_retro_qa":
        if prop == "anchor":
            row["question_time_s"] = _num(v)
        else:
            ib_rules.timed_answers(row)[0]["content"] = v
        return row
    hits = [a for a in ib_rules.timed_answers(row) if float(a["time_s"]) == t.anchor]
    if prop == "anchor":
        for a in hits:
            a["time_s"] = _num(v)
    else:
        if len(hits) != 1:
            raise ValueError(f"{item.id}: target {tid} merges {len(hits)} answers at {t.anchor:g} s; "
                             "edit their content in the native file")
        hits[0]["content"] = v
    return row


def _ib_rebuild(item: Item, row: dict) -> Item:
    from annotation.loaders import interactionbench as ib
    ck = ib._Checker(item.source_file)
    core = {k: v for k, v in row.items() if k not in ib.VIDEO_FIELDS}
    if not ib._check_item(ck, item.id, core, float(row.get("duration_s") or 0.0)):
        _raise(ck.problems)
    kind = ib_rules.family(row) if ib_rules.is_valid(row) else "invalid"
    return replace(item, native=row, kind=kind, targets=ib._targets(row) if kind != "invalid" else (),
                   request=ib._request(row))


# ---------------------------------------------------------------- OmniInteract

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
    return _num(v)


def _om_patch(item: Item, doc: Any, field: str, v: Any) -> Any:
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


def _om_rebuild(item: Item, doc: Any) -> Item:
    from annotation.loaders import omniinteract as om
    problems = Problems()
    scene = item.meta.get("scene_type")
    name = item.meta.get("annotation_file", item.source_file)
    if scene == "1QnA":
        q, steps = om._qna_steps(doc, name, item.id, problems)
        _raise(problems)
        slots = om.one_qna_slots(q["q"], steps, q["text"])
        request = Request(text=q["text"], time=q["q"], modality="audio")
    else:
        rows = om._qa_rows(doc, name, item.id, problems)
        _raise(problems)
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


def _raise(problems) -> None:
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise ValueError("; ".join(str(p) for p in errors))


_PATCHERS = {"proactivebench": _pb_patch, "interactscope": _is_patch, "interactionbench": _ib_patch,
             "omniinteract": _om_patch}
_REBUILD = {"proactivebench": _pb_rebuild, "interactscope": _is_rebuild, "interactionbench": _ib_rebuild,
            "omniinteract": _om_rebuild}
