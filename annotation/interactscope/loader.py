"""Omni-InteractScope loader, validator and exporter for our layout `<root>/interactions.json`.

Times are float seconds from stream start; target windows are inclusive at both ends (spec B2).
T5 targets given as `query_time` + `window_rel` are resolved to absolute windows (spec B7)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from annotation.dataset import Dataset
from annotation.loaders import _single_file
from annotation.loaders._common import Problems, check_window
from annotation.media import probe_or_problem
from annotation.model import Item, Request, Target
from annotation.values import is_number

BENCHMARK = "interactscope"
ANNOTATION_FILE = "interactions.json"
VERSION = 1
TASKS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8")
T8_SUBTYPES = ("A", "B", "C")
LAYOUT = _single_file.Layout(BENCHMARK, ANNOTATION_FILE, VERSION, records="interactions", noun="interaction",
                             id_key="interaction_id")


def load(root: str | Path, probe_media: bool = True) -> Dataset:
    """Read and validate `<root>/interactions.json`; every problem found is kept in Dataset.problems."""
    return _single_file.load(LAYOUT, root, _build_item, probe_media)


def _time(v: Any, name: str, iid: str, field: str, problems: Problems) -> Optional[float]:
    if not is_number(v):
        problems.error(name, iid, field, f"expected a number of seconds, got {json.dumps(v)}")
        return None
    if v < 0:
        problems.error(name, iid, field, f"time must not be negative, got {v}")
        return None
    return float(v)


def _build_item(rec: Any, index: int, root: Path, name: str, problems: Problems, seen: dict[str, int],
                probe_media: bool) -> Optional[Item]:
    started = _single_file.start_record(LAYOUT, rec, index, name, problems, seen)
    if started is None:
        return None
    iid, n_before = started
    task = _single_file.check_choice(rec, "task", TASKS, name, iid, problems)

    subtype = rec.get("subtype")
    if task == "T8":
        if subtype is None:
            problems.error(name, iid, "subtype", f"missing field (T8 needs one of {', '.join(T8_SUBTYPES)})")
        elif subtype not in T8_SUBTYPES:
            problems.error(name, iid, "subtype", f"unknown T8 subtype {json.dumps(subtype)} "
                                                 f"(expected one of {', '.join(T8_SUBTYPES)})")
    elif subtype is not None and task is not None:
        problems.warn(name, iid, "subtype", f"subtype is only used by T8; ignored for {task}")

    query_time = None
    if rec.get("query_time") is not None:
        query_time = _time(rec["query_time"], name, iid, "query_time", problems)
    query_text = rec.get("query_text")
    if query_text is not None and not isinstance(query_text, str):
        problems.error(name, iid, "query_text", f"expected a string, got {type(query_text).__name__}")
        query_text = None

    video_rel, video_path = _single_file.check_video(rec, root, name, iid, problems)

    targets = _targets(rec, task, query_time, name, iid, problems)

    if problems.error_count() > n_before:
        return None
    stream, problem = probe_or_problem(video_rel, video_path, name, iid, "video", probe_media)
    if problem is not None:
        problems.append(problem)
    if stream.duration is not None:
        for t in targets:
            if t.window and t.window[1] is not None and t.window[1] > stream.duration:
                problems.warn(name, iid, f"targets.{t.id}.window",
                              f"ends at {t.window[1]:g} s, after the video's duration {stream.duration:g} s")
    if query_time is not None:
        req = Request(text=query_text or "", time=query_time, modality="audio")
    else:
        req = Request(text=query_text or "", time=0.0, modality="standing")
    meta = {"video": video_rel, "task": task, "subtype": subtype if task == "T8" else None, "index": index}
    return Item(id=rec["interaction_id"], benchmark=BENCHMARK, kind=task, stream=stream, request=req,
                targets=tuple(targets), native=rec, source_file=name, meta=meta)


def _targets(rec: dict, task: Optional[str], query_time: Optional[float], name: str, iid: str,
             problems: Problems) -> list[Target]:
    """Validate the targets list and build Targets with absolute inclusive windows."""
    raw = rec.get("targets")
    if "targets" not in rec:
        problems.error(name, iid, "targets", "missing field (list of response targets)")
        return []
    if not isinstance(raw, list):
        problems.error(name, iid, "targets", f"expected a list, got {type(raw).__name__}")
        return []
    if not raw:
        problems.error(name, iid, "targets", "an interaction needs at least one target")
        return []
    out: list[Target] = []
    ids: set[str] = set()
    for k, tg in enumerate(raw):
        f = f"targets[{k}]"
        if not isinstance(tg, dict):
            problems.error(name, iid, f, f"expected an object, got {type(tg).__name__}")
            continue
        tid = tg.get("id")
        if not isinstance(tid, str) or not tid.strip():
            problems.error(name, iid, f"{f}.id", f"missing or not a non-empty string: {json.dumps(tid)}")
            tid = None
        elif tid in ids:
            problems.error(name, iid, f"{f}.id", f"duplicate target id {json.dumps(tid)} in this interaction")
            tid = None
        else:
            ids.add(tid)
        has_abs, has_rel = "window" in tg, "window_rel" in tg
        window = None
        if has_abs and has_rel:
            problems.error(name, iid, f, "give either 'window' or 'query_time' + 'window_rel', not both")
        elif has_abs:
            window = check_window(tg["window"], name, iid, f"{f}.window", problems)
        elif has_rel:
            qt = tg.get("query_time", query_time)
            rel = check_window(tg["window_rel"], name, iid, f"{f}.window_rel", problems, allow_negative=True)
            if qt is None:
                problems.error(name, iid, f"{f}.query_time",
                               "a 'window_rel' target needs a query_time (on the target or the interaction)")
            elif "query_time" in tg:
                qt = _time(qt, name, iid, f"{f}.query_time", problems)
            if qt is not None and rel is not None:
                window = (qt + rel[0], qt + rel[1])
                if window[0] < 0:
                    problems.error(name, iid, f"{f}.window_rel",
                                   f"resolved window starts at {window[0]:g} s, before the stream starts")
                    window = None
        else:
            problems.error(name, iid, f"{f}.window", "missing field (give 'window' or 'query_time' + 'window_rel')")
        if has_rel and task is not None and task != "T5":
            problems.warn(name, iid, f"{f}.window_rel", f"query-relative windows are a T5 form; used as given for {task}")
        if tid is not None and window is not None:
            out.append(Target(tid, "response", anchor=window[0], window=window, window_closed=True,
                              reference=tg.get("reference"), label=task or ""))
    return out


def export_dataset(dataset: Dataset, out_dir: str | Path) -> Path:
    """Write `interactions.json` from each Item.native (header kept) and link or copy the videos."""
    return _single_file.export_dataset(LAYOUT, dataset, out_dir)
