"""ProactiveBench (streaming) loader, validator and exporter for our layout `<root>/annotations.json`.

Times are 1-based second indices (interval k covers clip time [k-1, k)); windows are inclusive.
Items with annotation errors are left out of the Dataset; a missing video only adds a problem."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from annotation.dataset import Dataset
from annotation.errors import PathEscapeError
from annotation.loaders._common import (Problems, check_window, is_int, is_missing,
                                        is_number, item_label, link_or_copy, read_json, resolve_inside,
                                        write_json)
from annotation.media import probe_or_problem
from annotation.model import Item, Request, Target

BENCHMARK = "proactivebench"
ANNOTATION_FILE = "annotations.json"
VERSION = 1
SUBTASKS = ("ES", "OR", "WR", "AA", "SS", "DC")
WINDOW_SUBTASKS = ("WR", "AA", "SS")
OR_WINDOW = (0, 2)          # OR window = [u + 0, u + 2] (spec A4)
SS_SILENCE_RANGE = (60, 194)  # verified silence before an SS window (spec A.10, warning only)
DEFAULT_EVAL_START = 2


def load(root: str | Path, probe_media: bool = True) -> Dataset:
    """Read and validate `<root>/annotations.json`; every problem found is kept in Dataset.problems."""
    root = Path(root)
    problems = Problems()
    ds = Dataset(BENCHMARK, str(root))
    if not root.is_dir():
        problems.error(str(root), None, None, "annotation root not found (expected a folder holding "
                                              f"{ANNOTATION_FILE})")
        ds.problems = list(problems)
        return ds
    name = ANNOTATION_FILE
    top = read_json(root / name, name, problems)
    if is_missing(top):
        ds.problems = list(problems)
        return ds
    records = _check_header(top, name, problems)
    if isinstance(top, dict):
        ds.extra["header"] = {k: (None if k == "items" else v) for k, v in top.items()}
    seen: dict[str, int] = {}
    for index, rec in enumerate(records):
        item = _build_item(rec, index, root, name, problems, seen, probe_media)
        if item is not None:
            ds.add(item)
    if isinstance(records, list) and not records:
        problems.error(name, None, "items", "empty dataset: the items list has no entries")
    elif records and not ds.items:
        problems.error(name, None, "items", "no valid item could be loaded")
    ds.problems = list(problems)
    return ds


def _check_header(top: Any, name: str, problems: Problems) -> list:
    if not isinstance(top, dict):
        problems.error(name, None, None, f"expected a JSON object with 'benchmark', 'version' and 'items', "
                                         f"got {type(top).__name__}")
        return []
    if top.get("benchmark") != BENCHMARK:
        problems.error(name, None, "benchmark", f"expected \"{BENCHMARK}\", got {json.dumps(top.get('benchmark'))}")
    if "version" not in top:
        problems.warn(name, None, "version", f"missing; assuming version {VERSION}")
    elif top["version"] != VERSION:
        problems.error(name, None, "version", f"unsupported version {json.dumps(top['version'])} (expected {VERSION})")
    items = top.get("items")
    if items is None:
        problems.error(name, None, "items", "missing field (expected a list of items)")
        return []
    if not isinstance(items, list):
        problems.error(name, None, "items", f"expected a list, got {type(items).__name__}")
        return []
    return items


def _second(rec: dict, key: str, name: str, iid: str, problems: Problems, required: bool,
            minimum: float = 0) -> Optional[float]:
    """A time in seconds: present (if required), a number, not below minimum; non-integers warn."""
    if key not in rec or rec[key] is None:
        if required:
            problems.error(name, iid, key, "missing field")
        return None
    v = rec[key]
    if not is_number(v):
        problems.error(name, iid, key, f"expected a number of seconds, got {json.dumps(v)}")
        return None
    if v < minimum:
        problems.error(name, iid, key, f"must be >= {minimum}, got {v}")
        return None
    if not float(v).is_integer():
        problems.warn(name, iid, key, f"{v} is not a whole second; ProactiveBench times are 1-s interval indices")
    return float(v)


def _build_item(rec: Any, index: int, root: Path, name: str, problems: Problems, seen: dict[str, int],
                probe_media: bool) -> Optional[Item]:
    iid = item_label(rec, "item_id", index)
    if not isinstance(rec, dict):
        problems.error(name, iid, None, f"expected an object, got {type(rec).__name__}")
        return None
    n_before = sum(p.severity == "error" for p in problems)

    if "item_id" not in rec:
        problems.error(name, iid, "item_id", "missing field")
    elif not isinstance(rec["item_id"], str) or not rec["item_id"].strip():
        problems.error(name, iid, "item_id", f"expected a non-empty string, got {json.dumps(rec['item_id'])}")
    elif rec["item_id"] in seen:
        problems.error(name, iid, "item_id", f"duplicate id: item #{index} repeats the id of item "
                                             f"#{seen[rec['item_id']]}; ids must be unique")
    else:
        seen[rec["item_id"]] = index

    subtask = rec.get("subtask")
    if "subtask" not in rec:
        problems.error(name, iid, "subtask", f"missing field (one of {', '.join(SUBTASKS)})")
        subtask = None
    elif subtask not in SUBTASKS:
        problems.error(name, iid, "subtask", f"unknown subtask {json.dumps(subtask)} (expected one of {', '.join(SUBTASKS)})")
        subtask = None

    duration = _second(rec, "duration", name, iid, problems, required=True, minimum=1)
    eval_start = _second(rec, "eval_start", name, iid, problems, required=False, minimum=1)
    eval_start = DEFAULT_EVAL_START if eval_start is None else eval_start

    request = rec.get("request")
    if request is not None and not isinstance(request, str):
        problems.error(name, iid, "request", f"expected a string, got {type(request).__name__}")

    video_rel = rec.get("video")
    video_path = None
    if "video" not in rec:
        problems.error(name, iid, "video", "missing field (path of the video relative to the dataset root)")
    elif not isinstance(video_rel, str) or not video_rel.strip():
        problems.error(name, iid, "video", f"expected a relative path string, got {json.dumps(video_rel)}")
    else:
        try:
            video_path = resolve_inside(root, video_rel)
        except PathEscapeError as exc:
            problems.error(name, iid, "video", str(exc))

    targets = _targets(rec, subtask, duration, eval_start, name, iid, problems)

    if sum(p.severity == "error" for p in problems) > n_before:
        return None
    stream, problem = probe_or_problem(video_rel, video_path, name, iid, "video", probe_media)
    if problem is not None:
        problems.append(problem)
    elif stream.duration is not None and duration is not None and abs(stream.duration - duration) > 1.0:
        problems.warn(name, iid, "duration", f"annotated {duration:g} s but the video lasts {stream.duration:.2f} s")
    req = Request(text=request or "", time=0.0, modality="standing")
    meta = {"video": video_rel, "duration": duration, "eval_start": eval_start, "index": index}
    return Item(id=rec["item_id"], benchmark=BENCHMARK, kind=subtask, stream=stream, request=req,
                targets=tuple(targets), native=rec, source_file=name, meta=meta)


def _targets(rec: dict, subtask: Optional[str], duration: Optional[float], eval_start: float, name: str,
             iid: str, problems: Problems) -> list[Target]:
    """The scored time structures of one item; problems recorded for every bad field."""
    targets: list[Target] = []

    def past_end(field: str, end: float) -> None:
        if duration is not None and end > duration:
            problems.warn(name, iid, field, f"ends at second {end}, after the clip duration {duration}")

    if subtask == "OR":
        u = _second(rec, "onset_second", name, iid, problems, required=True, minimum=1)
        if u is not None:
            w = (u + OR_WINDOW[0], u + OR_WINDOW[1])
            past_end("onset_second", u)
            targets.append(Target("onset", "window", anchor=u, window=w, window_closed=True, label="OR"))
    elif subtask in WINDOW_SUBTASKS:
        if "window" not in rec:
            problems.error(name, iid, "window", "missing field (inclusive [start, end] seconds)")
        else:
            w = check_window(rec["window"], name, iid, "window", problems)
            if w is not None:
                past_end("window", w[1])
                targets.append(Target("window", "window", anchor=w[0], window=w, window_closed=True,
                                      label=subtask))
                if subtask == "SS":
                    lead = w[0] - eval_start
                    if not SS_SILENCE_RANGE[0] <= lead <= SS_SILENCE_RANGE[1]:
                        problems.warn(name, iid, "window", f"SS window opens {lead:g} s after eval_start; "
                                      f"the benchmark's verified silence is {SS_SILENCE_RANGE[0]}-"
                                      f"{SS_SILENCE_RANGE[1]} s")
        if subtask == "SS" and "verified_silence_seconds" in rec:
            _second(rec, "verified_silence_seconds", name, iid, problems, required=False)
    elif subtask == "DC":
        c = rec.get("ref_count")
        if "ref_count" not in rec:
            problems.error(name, iid, "ref_count", "missing field (reference occurrence count)")
        elif not is_int(c) or c < 0:
            problems.error(name, iid, "ref_count", f"expected a non-negative integer, got {json.dumps(c)}")
        else:
            targets.append(Target("count", "count", anchor=None, window=None, reference=c, label="DC"))
    elif subtask == "ES":
        alerts = rec.get("alert_seconds")
        if "alert_seconds" not in rec:
            problems.error(name, iid, "alert_seconds", "missing field (list of alert seconds)")
        elif not isinstance(alerts, list):
            problems.error(name, iid, "alert_seconds", f"expected a list of seconds, got {type(alerts).__name__}")
        else:
            for k, a in enumerate(alerts):
                f = f"alert_seconds[{k}]"
                if not is_number(a):
                    problems.error(name, iid, f, f"expected a number of seconds, got {json.dumps(a)}")
                elif a < 1:
                    problems.error(name, iid, f, f"must be >= 1, got {a}")
                else:
                    past_end(f, a)
                    targets.append(Target(f"alert{k + 1}", "alert", anchor=float(a), window=(float(a), float(a)),
                                          window_closed=True, label="ES"))
        segs = rec.get("silence_segments")
        if "silence_segments" not in rec:
            problems.error(name, iid, "silence_segments", "missing field (list of inclusive [start, end])")
        elif not isinstance(segs, list):
            problems.error(name, iid, "silence_segments", f"expected a list of [start, end], got {type(segs).__name__}")
        else:
            for k, seg in enumerate(segs):
                w = check_window(seg, name, iid, f"silence_segments[{k}]", problems)
                if w is not None:
                    past_end(f"silence_segments[{k}]", w[1])
                    targets.append(Target(f"silence{k + 1}", "silence", anchor=None, window=w,
                                          window_closed=True, label="ES"))
    return targets


def export_dataset(dataset: Dataset, out_dir: str | Path) -> Path:
    """Write `annotations.json` from each Item.native (header kept) and link or copy the videos."""
    out = Path(out_dir)
    header = dict(dataset.extra.get("header") or {"benchmark": BENCHMARK, "version": VERSION, "items": None})
    header["items"] = [it.native for it in dataset.items]
    write_json(out / ANNOTATION_FILE, header)
    src_root = Path(dataset.root)
    for rel in sorted({it.native.get("video") for it in dataset.items if isinstance(it.native, dict)} - {None}):
        link_or_copy(resolve_inside(src_root, rel), resolve_inside(out, rel))
    return out / ANNOTATION_FILE

