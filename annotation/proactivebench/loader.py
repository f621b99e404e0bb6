"""ProactiveBench (streaming) loader, validator and exporter for our layout `<root>/annotations.json`.

Times are 1-based second indices (interval k covers clip time [k-1, k)); windows are inclusive.
Items with annotation errors are left out of the Dataset; a missing video only adds a problem."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from annotation.dataset import Dataset
from annotation.loaders import _single_file
from annotation.loaders._common import Problems, check_window
from annotation.media import probe_or_problem
from annotation.model import Item, Request, Target
from annotation.values import is_int, is_number

BENCHMARK = "proactivebench"
ANNOTATION_FILE = "annotations.json"
VERSION = 1
SUBTASKS = ("ES", "OR", "WR", "AA", "SS", "DC")
WINDOW_SUBTASKS = ("WR", "AA", "SS")
OR_WINDOW = (0, 2)          # OR window = [u + 0, u + 2] (spec A4)
SS_SILENCE_RANGE = (60, 194)  # verified silence before an SS window (spec A.10, warning only)
DEFAULT_EVAL_START = 2
LAYOUT = _single_file.Layout(BENCHMARK, ANNOTATION_FILE, VERSION, records="items", noun="item", id_key="item_id")


def load(root: str | Path, probe_media: bool = True) -> Dataset:
    """Read and validate `<root>/annotations.json`; every problem found is kept in Dataset.problems."""
    return _single_file.load(LAYOUT, root, _build_item, probe_media)


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
    started = _single_file.start_record(LAYOUT, rec, index, name, problems, seen)
    if started is None:
        return None
    iid, n_before = started
    subtask = _single_file.check_choice(rec, "subtask", SUBTASKS, name, iid, problems)

    duration = _second(rec, "duration", name, iid, problems, required=True, minimum=1)
    eval_start = _second(rec, "eval_start", name, iid, problems, required=False, minimum=1)
    eval_start = DEFAULT_EVAL_START if eval_start is None else eval_start

    request = rec.get("request")
    if request is not None and not isinstance(request, str):
        problems.error(name, iid, "request", f"expected a string, got {type(request).__name__}")

    video_rel, video_path = _single_file.check_video(rec, root, name, iid, problems)

    targets = _targets(rec, subtask, duration, eval_start, name, iid, problems)

    if problems.error_count() > n_before:
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
    return _single_file.export_dataset(LAYOUT, dataset, out_dir)
