"""InteractionBench native layout: annotations/<domain>/<video_id>.json, or the legacy
results/<domain>/<vid>/annotation.json. Files are found as the reference's `load_benchmark` finds them:
annotations/ when it exists (else results/, else the root), every *.json below it (any depth), and only the
annotation.json files when there are any."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from annotation.interactionbench import rules as ib_rules
from annotation.errors import Problem
from annotation.jsonio import read_json, write_json
from annotation.values import is_number

if TYPE_CHECKING:  # `score` reads rows through scan() and needs neither the data model nor media probing
    from annotation.dataset import Dataset
    from annotation.model import Item, Request, Stream, Target

BENCHMARK = "interactionbench"
VIDEO_FIELDS = ("video_id", "item_index", "domain", "duration_s")


def annotation_root(root: Path) -> Path:
    """The folder the reference searches: annotations/ wins over results/; with neither, the root itself."""
    for name in ("annotations", "results"):
        if (root / name).is_dir():
            return root / name
    return root


def annotation_files(root: Path) -> list[str]:
    """The files the reference reads, in its order: any annotation.json below the search folder (path order),
    else every *.json below it ordered by (directory parts..., file stem). Found as pathlib's rglob finds them
    (symlinked folders not entered, unreadable ones skipped) in one os.scandir pass over the tree; each spelled
    as str(Path) spells it (the labels in problems depend on it), without building 530 Path objects."""
    base = str(annotation_root(root))
    folders = _folders(base)
    prefix = "" if base == "." else base.rstrip("/") + "/"  # str(Path(base, *parts)): "." vanishes, "/" stays one
    legacy = [(*parts, "annotation.json") for parts, names in folders
              if "annotation.json" in names and os.path.exists(prefix + "/".join((*parts, "annotation.json")))]
    if legacy:
        return [prefix + "/".join(key) for key in sorted(legacy)]
    # Path.stem of a name ending in .json: the name without it, unless that would leave nothing
    found = [((*parts, name[:-5] if len(name) > 5 else name), (*parts, name)) for parts, names in folders
             for name in names if name.endswith(".json")]
    found.sort(key=lambda f: f[0])
    return [prefix + "/".join(rel) for _, rel in found]


def _folders(base: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """(folder parts relative to base, entry names) for base and every folder below it; like rglob, a symlink
    to a folder is listed but not entered and a folder that cannot be read (PermissionError) is skipped."""
    out: list[tuple[tuple[str, ...], list[str]]] = []
    todo: list[tuple[str, ...]] = [()]
    while todo:
        parts = todo.pop()
        try:
            with os.scandir(os.path.join(base, *parts)) as it:
                entries = list(it)
        except PermissionError:
            continue
        out.append((parts, [e.name for e in entries]))
        todo.extend((*parts, e.name) for e in entries if e.is_dir(follow_symlinks=False))
    return out


class _Checker:
    """Collects problems for one file."""

    def __init__(self, file: str):
        self.file = file
        self.problems: list[Problem] = []
        self.n_errors = 0

    def error(self, item: Optional[str], field: Optional[str], msg: str) -> None:
        self.problems.append(Problem(self.file, item, field, msg))
        self.n_errors += 1

    def warn(self, item: Optional[str], field: Optional[str], msg: str) -> None:
        self.problems.append(Problem(self.file, item, field, msg, "warning"))

    def time(self, item: str, field: str, value: Any, allow_null: bool) -> None:
        if value is None:
            if not allow_null:
                self.error(item, field, "missing; expected a time in seconds")
            return
        if not is_number(value):
            self.error(item, field, f"expected a number of seconds, got {value!r}")
        elif value < 0:
            self.error(item, field, f"negative time {value}; expected seconds >= 0")


def _check_item(ck: _Checker, iid: str, it: Any, duration: float) -> bool:
    """Validate one item dict; returns False when it has errors and cannot become an Item."""
    n_errors = ck.n_errors
    if not isinstance(it, dict):
        ck.error(iid, None, f"expected an object, got {type(it).__name__}")
        return False
    cap = it.get("capability")
    if cap is None:
        ck.warn(iid, "capability", "missing; scored as UNKNOWN")
    elif cap not in ib_rules.CAPABILITIES:
        ck.error(iid, "capability", f"unknown capability {cap!r}; expected one of {', '.join(ib_rules.CAPABILITIES)}")
    tt = it.get("time_type")
    if tt not in ib_rules.TIME_TYPES:
        ck.warn(iid, "time_type", f"{tt!r} is not A, B or C; the item is not scoreable and is skipped")
    q = it.get("question")
    if q is not None and not isinstance(q, str):
        ck.error(iid, "question", f"expected text, got {type(q).__name__}")
    qt = it.get("question_time_s")
    qt_ok = is_number(qt)
    if qt is not None and not (qt_ok and qt >= 0):  # (field names are spelled only for a problem)
        ck.time(iid, "question_time_s", qt, allow_null=True)
    for flag in ("is_negative", "auto_number"):
        if flag in it and not isinstance(it[flag], bool) and it[flag] is not None:
            ck.error(iid, flag, f"expected true or false, got {it[flag]!r}")
    answers = it.get("answers")
    if answers is None:
        ck.error(iid, "answers", "missing; expected a list of {time_s, content}")
        return False
    if not isinstance(answers, list):
        ck.error(iid, "answers", f"expected a list, got {type(answers).__name__}")
        return False
    ok = True
    qt = qt if qt_ok else 0.0
    late = duration or sys.float_info.max  # answers after the end are warned about when the duration is known
    early = qt if tt == "A" else 0.0  # answers before 0 are errors, type A answers before the question warnings
    for k, a in enumerate(answers):
        if not isinstance(a, dict):
            ck.error(iid, f"answers[{k}]", f"expected an object, got {type(a).__name__}")
            ok = False
            continue
        t = a.get("time_s")
        # the common case first: a number inside [early, late] needs no check and no warning (JSON gives exact
        # int and float types; NaN and infinities fail the comparison and go the long way)
        odd = t is not None and not ((type(t) is float or type(t) is int) and early <= t <= late)
        if odd and not (is_number(t) and t >= 0):
            ck.time(iid, f"answers[{k}].time_s", t, allow_null=True)
            odd = False  # an error: no timing warnings on top
        if "evidence_time_s" in a:
            ck.time(iid, f"answers[{k}].evidence_time_s", a.get("evidence_time_s"), allow_null=True)
        c = a.get("content")
        if c is not None and not isinstance(c, str):
            ck.error(iid, f"answers[{k}].content", f"expected text, got {type(c).__name__}")
            ok = False
        if odd:
            if t < early:
                ck.warn(iid, f"answers[{k}].time_s", f"answer at {t}s comes before its question at {qt}s"
                                                     " (type A is timed at the question; check the annotation)")
            if t > late:
                ck.warn(iid, f"answers[{k}].time_s", f"answer at {t}s is after the video ends ({duration}s)")
    if tt in ib_rules.TIME_TYPES and not ib_rules.is_valid(it):
        ck.warn(iid, "answers", "no timed answer and not silence-required; the item is not scoreable and is skipped")
    return ok and ck.n_errors == n_errors


def _label(path: str, root: Path) -> str:
    """The file's path relative to the dataset root (as text; a string prefix test, the files being found
    below the root), else the path as given."""
    prefix = str(root).rstrip(os.sep) + os.sep
    if path.startswith(prefix) and prefix != os.sep:
        return path[len(prefix):]
    return str(Path(path).relative_to(root)) if Path(path).is_relative_to(root) else path


def _read_video_file(path: str, root: Path, keep_all: bool = False) -> tuple[Optional[dict], list[dict], list[Problem]]:
    """One annotation file -> (video header, golden-shaped rows, problems). With `keep_all`, items with errors
    are kept as the reference reads them (it scores e.g. an unknown capability as a trigger)."""
    label = _label(path, root)
    ck = _Checker(label)
    doc, prob = read_json(path, label)
    if prob:
        return None, [], [prob]
    if not isinstance(doc, dict):
        return None, [], [Problem(label, None, None, f"expected a JSON object with video_id and items, got {type(doc).__name__}")]
    folder, name = os.path.split(path)
    legacy = name == "annotation.json"
    vid = doc.get("video_id")
    if not vid:  # the reference falls back on a missing, null or empty video_id
        vid = os.path.basename(folder) if legacy else Path(name).stem
        ck.warn(None, "video_id", f"missing; using {vid!r} from the file name")
    elif not isinstance(vid, str):
        ck.error(None, "video_id", f"expected a non-empty string, got {vid!r}")
        vid = str(vid)
    domain = doc.get("domain") or doc.get("category")  # null/empty domain: category, then the folder
    if not domain:
        domain = os.path.basename(os.path.dirname(folder)) if legacy else os.path.basename(folder)
    duration = doc.get("duration_s")
    if not duration:
        if duration is None:
            ck.warn(None, "duration_s", "missing; the reference uses 0.0 (segment ends and chatter rates depend on it)")
        duration = 0.0
    elif isinstance(duration, bool) or not isinstance(duration, (int, float, str)):
        ck.error(None, "duration_s", f"expected seconds >= 0, got {duration!r}")
        duration = 0.0
    else:
        try:  # the reference reads float(duration_s): a number written as text ("90") counts
            given, duration = duration, float(duration)
        except ValueError:
            ck.error(None, "duration_s", f"expected seconds >= 0, got {duration!r}")
            duration = 0.0
        else:
            if isinstance(given, str):
                ck.warn(None, "duration_s", f"given as text {given!r}; read as {duration} seconds")
            if duration < 0 or duration != duration:
                ck.error(None, "duration_s", f"expected seconds >= 0, got {given!r}")
    items = doc.get("items")
    if items is None and keep_all:
        items = []
    if not isinstance(items, list):
        ck.error(None, "items", "missing or not a list; expected a list of items")
        return None, [], ck.problems
    rows = []
    for idx, it in enumerate(items):
        iid = f"{vid}#{idx}"
        if _check_item(ck, iid, it, float(duration)) or (keep_all and isinstance(it, dict)):
            # the video's fields win over same-named item keys (and come first), as in the reference's BenchItem
            row = {"video_id": vid, "item_index": idx, "domain": domain, "duration_s": float(duration)}
            row.update(it)
            if not it.keys().isdisjoint(VIDEO_FIELDS):
                row.update(video_id=vid, item_index=idx, domain=domain, duration_s=float(duration))
            rows.append(row)
    header = {"video_id": vid, "domain": domain, "duration_s": float(duration), "video": doc.get("video"),
              "file": label, "doc": doc}
    return header, rows, ck.problems


def load_rows(data_dir: str | Path) -> list[dict]:
    """Golden-shaped item rows (video fields added) in reference order, for the scorer: every item the
    reference would read, even those `load` reports errors for (validate first to see them). One row per
    scoreable item id: a later file's item replaces an earlier one in its place (the reference keys items by
    id); items that are not scoreable follow."""
    root = Path(data_dir)
    scoreable: dict[str, dict] = {}
    rest: list[dict] = []
    for path in annotation_files(root):
        _, file_rows, _ = _read_video_file(path, root, keep_all=True)
        for row in file_rows:
            if ib_rules.is_valid(row):
                scoreable[ib_rules.item_id(row)] = row
            else:
                rest.append(row)
    return [*scoreable.values(), *rest]


def scan(data_dir: str | Path) -> tuple[list[dict], list[Problem], dict[str, str]]:
    """One pass for `score`: the rows `load_rows` gives, every problem `load` reports about the annotation files
    (media not probed) and each item's file. Builds no Items or Streams, so checking costs no second read."""
    root = Path(data_dir)
    if not root.is_dir():
        return [], [Problem(str(root), None, None, "dataset folder not found")], {}
    files = annotation_files(root)
    if not files:
        return [], [Problem(str(root), None, None, "no annotation files: expected annotations/<domain>/<video_id>.json"
                                                   " or results/<domain>/<vid>/annotation.json")], {}
    rows: list[dict] = []
    problems: list[Problem] = []
    item_file: dict[str, str] = {}
    seen: dict[str, str] = {}
    for path in files:
        header, file_rows, found = _read_video_file(path, root, keep_all=True)
        problems.extend(found)
        if header is None:
            continue
        vid = header["video_id"]
        if vid in seen:
            problems.append(_repeated(vid, seen[vid], header["file"]))
        seen[vid] = header["file"]
        rel = str(header["video"] or f"videos/{vid}.mp4")
        if rel.startswith(("/", "\\")) or ".." in rel.replace("\\", "/").split("/"):  # load's escape check, lexically
            problems.append(Problem(header["file"], None, "video", f"path '{rel}' must stay inside the dataset root"))
        for row in file_rows:
            item_file[ib_rules.item_id(row)] = header["file"]
        rows.extend(file_rows)
    if not rows and not any(p.severity == "error" for p in problems):
        problems.append(Problem(str(root), None, "items", "the dataset holds no items"))
    return rows, problems, item_file


def _repeated(vid: str, earlier: str, later: str) -> Problem:
    """A video_id given by two files: the reference keys items by id, so the later file's items replace the
    earlier one's (in their place); a warning, naming both files."""
    return Problem(later, None, "video_id", f"duplicate video_id {vid!r} (also in {earlier}): this later file's items "
                   f"replace those of {earlier} with the same id, as the reference reads them", "warning")


def _targets(row: dict) -> tuple[Target, ...]:
    from annotation.model import Target
    fam = ib_rules.family(row)
    if fam == "negative":
        return ()
    if fam == "A_retro_qa":
        ans = ib_rules.timed_answers(row)
        q = ib_rules.question_time(row)
        return (Target(id="0", kind="answer", anchor=q, window=(q, None), reference=ans[0].get("content") if ans else None),)
    merged: dict[float, list[str]] = {}
    for a in ib_rules.timed_answers(row):
        merged.setdefault(float(a["time_s"]), []).append(a.get("content") or "")
    times = sorted(merged)
    out = []
    for k, t in enumerate(times):
        end = times[k + 1] if k + 1 < len(times) else None
        out.append(Target(id=str(k), kind="event", anchor=t, window=(t, end), window_closed=False,
                          reference="; ".join(c for c in merged[t] if c)))
    return tuple(out)


def _request(row: dict) -> Request:
    from annotation.model import Request
    if row.get("time_type") == "A":
        return Request(text=row.get("question") or "", time=ib_rules.question_time(row), modality="text")
    return Request(text=row.get("question") or "", time=0.0, modality="standing")


def load(root: str | Path, probe_media: bool = True) -> Dataset:
    """Load and validate an InteractionBench dataset, reporting every problem found."""
    from annotation.dataset import Dataset
    from annotation.model import Item
    root = Path(root)
    ds = Dataset(BENCHMARK, str(root))
    if not root.is_dir():
        ds.problems.append(Problem(str(root), None, None, "dataset folder not found"))
        return ds
    files = annotation_files(root)
    if not files:
        ds.problems.append(Problem(str(root), None, None, "no annotation files: expected annotations/<domain>/<video_id>.json"
                                                          " or results/<domain>/<vid>/annotation.json"))
        return ds
    seen: dict[str, str] = {}
    headers = []
    items: dict[str, Item] = {}  # by id: a later file's item replaces an earlier one in its place
    for path in files:
        header, rows, problems = _read_video_file(path, root)
        ds.problems.extend(problems)
        if header is None:
            continue
        headers.append(header)
        vid = header["video_id"]
        if vid in seen:
            ds.problems.append(_repeated(vid, seen[vid], header["file"]))
        seen[vid] = header["file"]
        video_rel = header["video"] or f"videos/{vid}.mp4"
        stream, prob = _resolve_stream(root, vid, video_rel, header["file"], probe_media, header["video"] is not None)
        if prob:
            ds.problems.append(prob)
        for row in rows:
            iid = ib_rules.item_id(row)
            kind = ib_rules.family(row) if ib_rules.is_valid(row) else "invalid"
            if kind == "invalid" and items.get(iid) is not None and items[iid].kind != "invalid":
                continue  # only a scoreable item replaces one (load_rows keeps the same)
            items[iid] = Item(id=iid, benchmark=BENCHMARK, kind=kind, stream=stream, request=_request(row),
                              targets=_targets(row) if kind != "invalid" else (), native=row,
                              source_file=header["file"],
                              meta={"capability": ib_rules.capability(row), "time_type": row.get("time_type"),
                                    "duration_s": row["duration_s"], "video_id": vid, "domain": header["domain"]})
    for item in items.values():
        ds.add(item)
    ds.extra["videos"] = headers
    if not ds.items and not ds.errors:
        ds.problems.append(Problem(str(root), None, "items", "the dataset holds no items"))
    return ds


def _resolve_stream(root: Path, vid: str, video_rel: str, file: str, probe_media: bool,
                    declared: bool) -> tuple[Stream, Optional[Problem]]:
    from annotation.media import probe_or_problem
    from annotation.model import Stream
    from annotation.paths import resolve_inside
    try:
        path = resolve_inside(root, video_rel)
    except ValueError as exc:
        return Stream(id=vid, video_path=None), Problem(file, None, "video", str(exc))
    if not probe_media:
        return Stream(id=vid, video_path=str(path)), None
    if not declared and not path.exists():
        return Stream(id=vid, video_path=None), Problem(file, None, "video", f"missing; no video named and {video_rel} does not exist", "warning")
    return probe_or_problem(vid, path, file, None, "video", probe_media)


def export_dataset(ds: Dataset, out_dir: str | Path) -> list[Path]:
    """Write the native annotation files from the items' native rows (edits included)."""
    out = Path(out_dir)
    written = []
    by_video: dict[str, list[Item]] = {}
    for it in ds.items:
        by_video.setdefault(it.meta["video_id"], []).append(it)
    for header in ds.extra.get("videos", []):
        items = sorted(by_video.get(header["video_id"], []), key=lambda i: i.native["item_index"])
        doc = dict(header["doc"])
        doc["items"] = [{k: v for k, v in i.native.items() if k not in VIDEO_FIELDS} for i in items]
        path = out / header["file"]
        write_json(path, doc)
        written.append(path)
    return written
