"""What `score` checks in an InteractionBench prediction file (line by line: objects, ids, finite emission times
inside the stream) and in its answer key, before anything is scored."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Callable, Collection, Optional

from runners.checks import DATA, CliError, from_problem, input_file
from runners.score_checks import Checked, refuse_or_skip, show


def ib_predictions(path: str, rows: list[dict], known: Collection[str], skip_invalid: bool, skip_unknown: bool,
                   as_reference: bool, chk: Checked) -> list[dict]:
    """Read and check an InteractionBench preds.jsonl against the dataset's rows and their item ids (`known`);
    returns the lines to score. What the reference cannot score (not an object, an emission that is not an object,
    a missing, non-numeric or NaN t) is an error; what it reads (out-of-stream or infinite times, odd item_index
    values, duplicate lines, unknown items, an empty file) is a warning with `as_reference` (the default) and an
    error (or, with --skip-invalid, a line left out) without."""
    from annotation import jsonio
    name = str(path)
    pairs, problems = jsonio.read_jsonl_lines(Path(path), name)
    if problems and problems[0].item is None:  # the file itself cannot be read
        raise from_problem(problems[0])
    bad_line = {int(p.item.split()[1]) for p in problems}
    for p in problems:
        refuse_or_skip(p, None, skip_invalid, chk, "or pass --skip-invalid")
    durations = {r["video_id"]: _seconds(r.get("duration_s")) for r in rows}
    silent: list[set] = []  # the silence-required items, found on the first NaN time (rare: no cost otherwise)

    def is_silent(item: str) -> bool:
        if not silent:
            from annotation.interactionbench import rules as ib_rules
            silent.append({ib_rules.item_id(r) for r in rows if ib_rules.family(r) == "negative"})
        return as_reference and item in silent[0]
    if not pairs and not bad_line:  # the reference scores an empty file as all silent
        empty = CliError("expected one prediction line per item, found an empty file; every item scored silent",
                         file=name, field="--preds")
        if not as_reference:
            raise empty
        chk.warn("empty prediction file", empty)
    out: list[dict] = []
    seen: dict[str, int] = {}
    for lineno, line in pairs:
        def err(field_: Optional[str], msg: str, item: Optional[str] = None) -> CliError:
            return CliError(msg, file=name, line=lineno, item=item, field=field_)
        if not isinstance(line, dict):
            refuse_or_skip(err(None, f"expected an object, found {type(line).__name__}"), None, skip_invalid, chk,
                            "or pass --skip-invalid")
            continue
        vid = line.get("video_id")
        if not isinstance(vid, str) or not vid:
            odd = err("video_id", f"expected a non-empty string, found {show(vid)}")
            if not as_reference or "video_id" not in line:  # (the reference cannot key a line without one)
                refuse_or_skip(odd, None, skip_invalid, chk, "or pass --skip-invalid")
                continue
            chk.warn("video_id not a non-empty string", odd)
        idx = line.get("item_index")
        if idx is not None and not (isinstance(idx, int) and not isinstance(idx, bool) and idx >= 0):
            odd = err("item_index", f"expected an integer >= 0, found {show(idx)}; the reference keys the line "
                                    f"{vid}#{show(idx)}")
            if not as_reference:
                refuse_or_skip(odd, None, skip_invalid, chk, "or pass --skip-invalid")
                continue
            chk.warn("item_index not an integer >= 0", odd)
        iid = _key(line)
        if iid not in known:
            if not (skip_unknown or as_reference):
                raise CliError(f"expected an item of the dataset, found unknown item {iid} (pass --skip-unknown "
                               "to ignore predictions for items not in the data)", file=name, line=lineno,
                               field="video_id")
            unknown = err("video_id", "no such item in the dataset; ignored", iid)
            if skip_unknown:
                chk.skipped.append(unknown)
            else:
                chk.warn("prediction for an unknown item", unknown)
            continue
        duration = durations.get(vid, 0.0) if isinstance(vid, str) else 0.0
        ok = _check_emissions(line, iid, duration, as_reference, is_silent, skip_invalid, chk, err)
        if not ok:
            continue
        if iid in seen:
            twice = err("video_id", f"a second prediction line for this item (first at line {seen[iid]}); the "
                                    "reference keeps the last", iid)
            if not as_reference:
                refuse_or_skip(twice, iid, skip_invalid, chk, "keep one line per item, or pass --skip-invalid")
                continue
            chk.warn("second prediction line for an item", twice)
        seen[iid] = lineno
        out.append(line)
    return [ln for ln in out if _key(ln) not in chk.left_out] if chk.left_out else out


def _seconds(v: Any) -> float:
    """A duration as the checks use it: a finite number of seconds, else 0 (unknown: no end-of-stream check)."""
    try:
        d = float(v or 0.0)
    except (TypeError, ValueError):
        return 0.0
    return d if math.isfinite(d) else 0.0


def _key(line: dict) -> str:
    """The item id the reference keys a line by: `<video_id>#<item_index as written>` (missing: 0)."""
    return f"{line['video_id']}#{line.get('item_index', 0)}"


def _check_emissions(line: dict, iid: str, duration: float, as_reference: bool, is_silent: Callable[[str], bool],
                     skip_invalid: bool, chk: Checked, err) -> bool:
    """A line's emissions; `is_silent(item)`: a silence-required item, where the reference only counts the
    emissions (so even a NaN time is read: a warning)."""
    ems = line.get("emissions")
    if not ems and not isinstance(ems, list) and as_reference:  # the reference reads `emissions or []`
        chk.warn("emissions not a list", err("emissions", f"expected a list of {{t, content}}, found {show(ems)}; "
                                                          "scored as none", iid))
        return True
    if not isinstance(ems, list):
        refuse_or_skip(err("emissions", f"expected a list of {{t, content}}, found {show(ems)}", iid), iid,
                        skip_invalid, chk, "or pass --skip-invalid")
        return False
    end = duration if duration > 0 else sys.float_info.max  # past a known end: a warning (--skip-invalid: left out)
    for k, e in enumerate(ems):  # (the field name is spelled only for a problem)
        if type(e) is dict:  # the common case first: a number inside [0, end] is fine
            t = e.get("t")
            if (type(t) is float or type(t) is int) and 0 <= t <= end:
                continue
        if not isinstance(e, dict):
            refuse_or_skip(err(f"emissions[{k}]", f"expected an object {{t, content}}, found {show(e)}", iid), iid,
                            skip_invalid, chk, "or pass --skip-invalid")
            return False
        if as_reference:
            c = e.get("content")
            if c is None or not str(c).strip():
                continue  # the reference drops blank emissions before reading their time
        t = e.get("t")
        number = isinstance(t, (int, float)) and not isinstance(t, bool)
        if number and math.isnan(t) and is_silent(iid):
            chk.warn("NaN emission time on a silence-required item", err(f"emissions[{k}].t", "expected a finite "
                     "number of stream seconds, found NaN; the item is silence-required, so it counts as a response",
                                                                          iid))
            continue
        if not number or math.isnan(t) or (math.isinf(t) and not as_reference):
            refuse_or_skip(err(f"emissions[{k}].t", f"expected a finite number of stream seconds, found {show(t)}",
                                iid), iid, skip_invalid, chk, "or pass --skip-invalid")
            return False
        if t < 0 or (duration > 0 and t > duration):
            where = f"inside the stream [0, {duration:g}] s" if duration > 0 else "a time >= 0 s"
            outside = err(f"emissions[{k}].t", f"expected {where}, found {t:g}", iid)
            if not as_reference:
                refuse_or_skip(outside, iid, skip_invalid, chk, "or pass --skip-invalid; without it the reference's "
                                                                "number is given with a warning")
                return False
            chk.warn("emission time outside the stream", outside)
    return True


# annotation errors the reference's loader and scorer read without crashing (`or []`, `or "UNKNOWN"`, bool(),
# plain arithmetic on negative times): (field ends with, message starts with); "" matches any
_READS = (("capability", "unknown capability"), ("time_s", "negative time"), ("question_time_s", "negative time"),
          ("is_negative", ""), ("auto_number", ""), ("question", "expected text"), ("answers", "missing;"),
          ("video_id", "expected a non-empty string"), ("duration_s", "expected seconds >= 0, got -"))


def reference_reads(rows: list[dict]) -> Callable[[Any], bool]:
    """Whether the reference scores through an annotation error of these rows (then it is a warning); an
    unreadable file, an item or answer that is not an object, a time or text of the wrong type stop it (an
    error), except a question time it reads with float() (`"12"`)."""
    by_id = {f"{r['video_id']}#{r['item_index']}": r for r in rows}

    def reads(p) -> bool:
        field, msg = str(p.field or ""), p.message
        if field == "question_time_s" and p.item in by_id:
            try:
                float(by_id[p.item].get("question_time_s") or 0.0)
                return True
            except (TypeError, ValueError):
                return False
        return p.severity == "error" and any(field.endswith(f) and msg.startswith(m) for f, m in _READS)
    return reads


def mcq_key(path: str) -> list[dict]:
    """The answer key's rows; unreadable lines and rows the key reader rejects are one error naming the file."""
    from annotation import jsonio
    from scoring.interactionbench.mcq import load_key
    input_file(path, "--mcq-key")
    pairs, problems = jsonio.read_jsonl_lines(Path(path), path, objects_only=True)
    if problems:
        raise from_problem(problems[0])
    rows = [r for _, r in pairs]
    try:
        load_key(rows)
    except Exception as exc:  # noqa: BLE001 - any rejection by the key reader is a data error in this file
        raise CliError(f"expected answer-key rows, found one the key reader rejects ({type(exc).__name__}: {exc})",
                       file=path, field="--mcq-key", code=DATA) from None
    return rows
