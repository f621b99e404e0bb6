"""What `score` checks in an InteractionBench prediction file (line by line: objects, ids, finite emission times
inside the stream) and in its answer key, before anything is scored."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Collection, Optional

from runners.checks import DATA, CliError, from_problem, input_file
from runners.score_checks import Checked, refuse_or_skip, show


def ib_predictions(path: str, rows: list[dict], known: Collection[str], skip_invalid: bool, skip_unknown: bool,
                   as_reference: bool, chk: Checked) -> list[dict]:
    """Read and check an InteractionBench preds.jsonl against the dataset's rows and their item ids (`known`);
    returns the lines to score. Structure errors (not an object, emissions not a list of {t, content}, non-finite
    t) are always errors; out-of-stream times, odd item_index values, duplicates and unknown items pass only with
    --as-reference (scored as the reference does)."""
    from annotation import jsonio
    name = str(path)
    pairs, problems = jsonio.read_jsonl_lines(Path(path), name)
    if problems and problems[0].item is None:  # the file itself cannot be read
        raise from_problem(problems[0])
    bad_line = {int(p.item.split()[1]) for p in problems}
    for p in problems:
        refuse_or_skip(p, None, skip_invalid, chk, "or pass --skip-invalid")
    durations = {r["video_id"]: _seconds(r.get("duration_s")) for r in rows}
    if not pairs and not bad_line and not as_reference:  # the reference scores an empty file as all silent
        raise CliError("expected one prediction line per item, found an empty file (--as-reference scores it "
                       "as all silent)", file=name, field="--preds")
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
            refuse_or_skip(err("video_id", f"expected a non-empty string, found {show(vid)}"), None, skip_invalid,
                            chk, "or pass --skip-invalid")
            continue
        idx = line.get("item_index")
        if not as_reference and idx is not None and not (isinstance(idx, int) and not isinstance(idx, bool)
                                                         and idx >= 0):
            refuse_or_skip(err("item_index", f"expected an integer >= 0, found {show(idx)}"), None, skip_invalid,
                            chk, "or pass --skip-invalid")
            continue
        try:
            iid = f"{vid}#{int(idx or 0)}"
        except (TypeError, ValueError, OverflowError):  # only with --as-reference: the reference matches no item
            chk.skipped.append(err("item_index", f"matches no item ({show(idx)}); ignored as the reference does"))
            continue
        if iid not in known:
            if not (skip_unknown or as_reference):
                raise CliError(f"expected an item of the dataset, found unknown item {iid} (pass --skip-unknown "
                               "to ignore predictions for items not in the data)", file=name, line=lineno,
                               field="video_id")
            chk.skipped.append(err("video_id", "no such item in the dataset; ignored", iid))
            continue
        ok = _check_emissions(line, iid, durations.get(vid, 0.0), as_reference, skip_invalid, chk, err)
        if not ok:
            continue
        if iid in seen and not as_reference:
            refuse_or_skip(err("video_id", f"a second prediction line for this item (first at line {seen[iid]})",
                                iid), iid, skip_invalid, chk, "keep one line per item, or pass --skip-invalid")
            continue
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
    try:
        return f"{line['video_id']}#{int(line.get('item_index') or 0)}"
    except (TypeError, ValueError, OverflowError):
        return ""


def _check_emissions(line: dict, iid: str, duration: float, as_reference: bool, skip_invalid: bool,
                     chk: Checked, err) -> bool:
    ems = line.get("emissions")
    if ems is None and as_reference:
        return True
    if not isinstance(ems, list):
        refuse_or_skip(err("emissions", f"expected a list of {{t, content}}, found {show(ems)}", iid), iid,
                        skip_invalid, chk, "or pass --skip-invalid")
        return False
    end = duration if duration > 0 else sys.float_info.max  # past a known end: refused (not with --as-reference)
    for k, e in enumerate(ems):  # (the field name is spelled only for a problem)
        if not as_reference and type(e) is dict:  # the common case first: a number inside [0, end] is fine
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
        if not (isinstance(t, (int, float)) and not isinstance(t, bool)) or not math.isfinite(t):
            refuse_or_skip(err(f"emissions[{k}].t", f"expected a finite number of stream seconds, found {show(t)}",
                                iid), iid, skip_invalid, chk, "or pass --skip-invalid")
            return False
        if not as_reference and (t < 0 or (duration > 0 and t > duration)):
            where = f"inside the stream [0, {duration:g}] s" if duration > 0 else "a time >= 0 s"
            refuse_or_skip(err(f"emissions[{k}].t", f"expected {where}, found {t:g}", iid), iid, skip_invalid, chk,
                            "or pass --skip-invalid; --as-reference scores it as the reference does")
            return False
    return True


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
