"""OmniInteract loader, validator and exporter for the published layout (`data/1q1a*`, `data/1qna`).

One Item per annotated video, id `<subset>__<video name>` as the reference scorer's sample ids.
Targets are the reference's slots (build_slots.py geometry): window [start, end) half-open,
anchor = t_a (the answer time). Rows the reference would silently drop become warnings."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from annotation.dataset import Dataset
from annotation.errors import PathEscapeError
from annotation.jsonio import write_json
from annotation.loaders._common import (Problems, display_path, is_missing, link_or_copy, parse_time, read_json,
                                        resolve_inside)
from annotation.media import probe_or_problem
from annotation.model import Item, Request, Target
from annotation.values import is_number, to_bool

BENCHMARK = "omniinteract"
MAP_FILE = "video_json_map.json"
SCENE_TYPES = ("multi_turn", "nested")          # allowed in video_json_map.json
QUESTION_TYPES = ("realtime", "proactive")      # 1Q1A rows
TAIL_SECONDS = 60.0                             # --last_slot_tail_sec
_NESTED_MARKS = ("/nested/", "/nested2/", "__nested__", "__nested2__")


def video_name(video_rel: str, one_qna: bool = False) -> str:
    """Output-folder name of a video: path below the subset, `/` -> `__`, `.mp4` removed.

    1QnA drops the `videos_bench/` prefix (`videos_bench/egoper/X.mp4` -> `egoper__X`)."""
    v = video_rel.lstrip("./")
    if one_qna and v.startswith("videos_bench/"):
        v = v[len("videos_bench/"):]
    if v.endswith(".mp4"):
        v = v[:-4]
    return v.replace("/", "__")


def _data_dir(root: Path) -> Path:
    """The folder holding the subsets: `root/data` when present, else root itself."""
    return root / "data" if (root / "data").is_dir() else root


def _is_1qna(subset: Path) -> bool:
    return "1qna" in subset.name.lower() or (subset / "videos_bench").is_dir()


def load(root: str | Path, probe_media: bool = True) -> Dataset:
    """Read every subset under root (or root/data); every problem found is kept in Dataset.problems."""
    root = Path(root)
    problems = Problems()
    ds = Dataset(BENCHMARK, str(root), extra={"files": {}})
    if not root.is_dir():
        problems.error(str(root), None, None, "annotation root not found (expected a folder holding "
                                              "data/1q1a, data/1q1a_math and/or data/1qna)")
        ds.problems = list(problems)
        return ds
    data = _data_dir(root)
    subsets = sorted(p for p in data.iterdir()
                     if p.is_dir() and ((p / MAP_FILE).is_file() or (p / "annotations").is_dir()))
    if not subsets:
        problems.error(display_path(data, root), None, None,
                       f"no OmniInteract subset found: expected <subset>/{MAP_FILE} or <subset>/annotations/")
    ctx = _Ctx(root, data, ds, problems, probe_media)
    for subset in subsets:
        if _is_1qna(subset):
            _load_1qna(subset, ctx)
        else:
            _load_1q1a(subset, ctx)
    if subsets and not ds.items:
        problems.error(display_path(data, root), None, None, "empty dataset: no annotated video could be loaded")
    ds.problems = list(problems)
    return ds


class _Ctx:
    """What every subset loader needs; kept together to keep signatures short."""

    def __init__(self, root: Path, data: Path, ds: Dataset, problems: Problems, probe_media: bool):
        self.root, self.data, self.ds, self.problems, self.probe_media = root, data, ds, problems, probe_media

    def rel(self, p: Path) -> str:
        return display_path(p, self.root)

    def errors(self) -> int:
        return sum(p.severity == "error" for p in self.problems)


# ---------------------------------------------------------------- 1Q1A (multi_turn / nested)

def _map_entries(subset: Path, ctx: _Ctx) -> Optional[list[dict]]:
    """Validated (video, annotation, scene_type, index) entries of video_json_map.json; None if unreadable."""
    path = subset / MAP_FILE
    name = ctx.rel(path)
    if not path.is_file():
        ctx.problems.warn(name, None, None, "missing; every annotation file is read as multi_turn")
        return []
    doc = read_json(path, name, ctx.problems)
    if is_missing(doc):
        return None
    ctx.ds.extra["files"][name] = doc
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
        ctx.problems.error(name, None, "entries", "expected an object with an 'entries' list")
        return None
    out, seen = [], {}
    for i, e in enumerate(doc["entries"]):
        label = f"#{i}"
        if not isinstance(e, dict):
            ctx.problems.error(name, label, None, f"expected an object, got {type(e).__name__}")
            continue
        n = ctx.errors()
        for key in ("video", "annotation"):
            if not isinstance(e.get(key), str) or not e[key].strip():
                ctx.problems.error(name, label, key, f"missing or not a path string: {json.dumps(e.get(key))}")
        if isinstance(e.get("video"), str):
            label = e["video"]
        scene = e.get("scene_type")
        if scene not in SCENE_TYPES:
            ctx.problems.error(name, label, "scene_type", f"unknown scene_type {json.dumps(scene)} "
                                                          f"(expected one of {', '.join(SCENE_TYPES)})")
        if ctx.errors() > n:
            continue
        key = e["video"].lstrip("./")
        if key in seen:
            ctx.problems.error(name, label, "video", f"duplicate entry: entry #{i} repeats entry #{seen[key]}")
            continue
        seen[key] = i
        out.append({"video": e["video"], "annotation": e["annotation"], "scene_type": scene, "index": i})
    return out


def _load_1q1a(subset: Path, ctx: _Ctx) -> None:
    entries = _map_entries(subset, ctx)
    if entries is None:
        return  # the map's own problems are reported; scene types would be guesses
    listed = set()
    for e in entries:
        try:
            listed.add(resolve_inside(subset, e["annotation"]))
        except PathEscapeError:
            pass
    ann_dir = subset / "annotations"
    extra_files = sorted(p for p in ann_dir.glob("*.json")) if ann_dir.is_dir() else []
    for p in extra_files:
        if p.resolve() in listed:
            continue
        video = f"videos/{p.stem}.mp4"
        if (subset / MAP_FILE).is_file():
            ctx.problems.warn(ctx.rel(p), f"{subset.name}__{video_name(video)}", None,
                              f"not listed in {MAP_FILE}; scene type taken from the path as the reference does")
        scene = "nested" if any(m in f"/{subset.name}/{video}" for m in _NESTED_MARKS) else "multi_turn"
        entries.append({"video": video, "annotation": f"annotations/{p.name}", "scene_type": scene, "index": None})
    for e in entries:
        _load_1q1a_file(subset, e, ctx)


def _time_field(row: dict, key: str, name: str, sid: str, f: str, problems: Problems) -> tuple[Optional[float], bool]:
    """(seconds, ok): ok False means a hard error; None with ok True means unparseable (row dropped)."""
    if key not in row:
        problems.error(name, sid, f, "missing field (\"MM:SS\" or seconds)")
        return None, False
    v = row[key]
    if not (isinstance(v, str) or is_number(v)):
        problems.error(name, sid, f, f"expected \"MM:SS\" or a number of seconds, got {json.dumps(v)}")
        return None, False
    t = parse_time(v)
    if t is None:
        problems.warn(name, sid, f, f"unparseable time {json.dumps(v)}; the reference drops this row")
        return None, True
    if t < 0 or (isinstance(v, str) and v.strip().startswith("-")):
        problems.error(name, sid, f, f"time must not be negative, got {json.dumps(v)}")
        return None, False
    return t, True


def _text_field(row: dict, key: str, name: str, sid: str, f: str, problems: Problems) -> str:
    if key not in row:
        problems.error(name, sid, f, "missing field")
        return ""
    if not isinstance(row[key], str):
        problems.error(name, sid, f, f"expected a string, got {type(row[key]).__name__}")
        return ""
    return row[key]


def _qa_rows(doc: Any, name: str, sid: str, problems: Problems) -> list[dict]:
    """Validate 1Q1A rows; return usable rows as dicts with parsed times (file order)."""
    rows = doc.get("items") if isinstance(doc, dict) else doc
    if not isinstance(rows, list):
        problems.error(name, sid, None, "expected a JSON list of QA rows (or an object with an 'items' list)")
        return []
    out = []
    for i, row in enumerate(rows):
        f = f"[{i}]"
        if not isinstance(row, dict):
            problems.error(name, sid, f, f"expected an object, got {type(row).__name__}")
            continue
        n = sum(p.severity == "error" for p in problems)
        q, ok_q = _time_field(row, "question_time", name, sid, f"{f}.question_time", problems)
        a, ok_a = _time_field(row, "answer_time", name, sid, f"{f}.answer_time", problems)
        qtext = _text_field(row, "question_text", name, sid, f"{f}.question_text", problems)
        atext = _text_field(row, "answer_text", name, sid, f"{f}.answer_text", problems)
        qt = row.get("question_type")
        if qt is None or (isinstance(qt, str) and not qt.strip()):
            problems.warn(name, sid, f"{f}.question_type", "missing or empty; scored as \"unknown\"")
            qt = "unknown"
        elif not isinstance(qt, str):
            problems.error(name, sid, f"{f}.question_type", f"expected a string, got {type(qt).__name__}")
        elif qt.strip().lower() not in QUESTION_TYPES:
            problems.error(name, sid, f"{f}.question_type", f"unknown question_type {json.dumps(qt)} "
                                                           f"(expected one of {', '.join(QUESTION_TYPES)})")
        else:
            qt = qt.strip().lower()
        intr = row.get("is_interrupted", False)
        if not isinstance(intr, (bool, int, float, str)):
            problems.error(name, sid, f"{f}.is_interrupted", f"expected true/false, got {json.dumps(intr)}")
        if sum(p.severity == "error" for p in problems) > n or q is None or a is None:
            continue
        if a < q:
            problems.warn(name, sid, f"{f}.answer_time", f"answer time {a:g} s is before its question time "
                                                         f"{q:g} s (accepted; the slot has no early phase)")
        out.append({"q": q, "a": a, "question_text": qtext, "answer_text": atext, "question_type": qt,
                    "is_interrupted": to_bool(intr), "row": i})
    return out


def _slot(slot_id: int, start: float, t_a: float, end: float, boundary: str, r: dict, **more) -> dict:
    s = {"slot_id": slot_id, "start": start, "t_a": t_a, "end": max(end, start), "boundary_type": boundary,
         "question_text": r["question_text"], "gt_answer": r["answer_text"], "question_type": r["question_type"],
         "is_interrupted": r["is_interrupted"], "turn_index": 1, "step_index": None, "nested_group_id": None,
         "nested_role": None, "label": r.get("label", ""), "row": r["row"]}
    s.update(more)
    return s


def multi_turn_slots(rows: list[dict]) -> list[dict]:
    """§3.1: [q_i, a_i, q_{i+1}) with the last slot closing at a_last + 60; Hard boundaries."""
    rows = sorted(rows, key=lambda r: (r["q"], r["a"]))
    out = []
    for i, r in enumerate(rows):
        end = rows[i + 1]["q"] if i + 1 < len(rows) else r["a"] + TAIL_SECONDS
        out.append(_slot(i + 1, r["q"], r["a"], end, "Hard", r, turn_index=i + 1))
    return out


def nested_slots(rows: list[dict]) -> list[dict]:
    """§3.3: pair each outer row with the first later row inside it; raise ValueError when pairing fails."""
    rows = sorted(rows, key=lambda r: (r["q"], r["a"]))
    if len(rows) < 2:
        raise ValueError(f"a nested video needs at least 2 QA rows, found {len(rows)}")
    pairs, i = [], 0
    while i < len(rows):
        o = rows[i]
        j = next((j for j in range(i + 1, len(rows))
                  if o["q"] < rows[j]["q"] < o["a"] and rows[j]["a"] <= o["a"]), None)
        if j is None:
            raise ValueError(f"outer row {o['row']} (question at {o['q']:g} s) has no inner row "
                             f"asked before its answer at {o['a']:g} s")
        pairs.append((o, rows[j]))
        i = j + 1
    out = []
    for g, (o, inner) in enumerate(pairs, 1):
        end = max(pairs[g][0]["q"], o["a"]) if g < len(pairs) else o["a"] + TAIL_SECONDS
        out.append(_slot(2 * g - 1, o["q"], o["a"], end, "Hard", o, turn_index=g, nested_group_id=g,
                         nested_role="outer"))
        out.append(_slot(2 * g, inner["q"], inner["a"], o["a"], "Hard", inner, turn_index=g, nested_group_id=g,
                         nested_role="inner"))
    return out


def _load_1q1a_file(subset: Path, e: dict, ctx: _Ctx) -> None:
    sid = f"{subset.name}__{video_name(e['video'])}"
    try:
        ann_path = resolve_inside(subset, e["annotation"])
    except PathEscapeError as exc:
        ctx.problems.error(ctx.rel(subset / MAP_FILE), sid, "annotation", str(exc))
        return
    name = ctx.rel(ann_path)
    derived = f"annotations/{Path(e['video']).stem}.json"
    if e["index"] is not None and Path(e["annotation"].lstrip("./")).as_posix() != derived:
        ctx.problems.warn(ctx.rel(subset / MAP_FILE), sid, "annotation",
                          f"the reference scorer reads {derived} for this video, not {e['annotation']}")
    n = ctx.errors()
    doc = read_json(ann_path, name, ctx.problems)
    if is_missing(doc):
        return
    if sid in ctx.ds:
        ctx.problems.error(name, sid, None, "duplicate sample id (two entries map to the same video name)")
        return
    rows = _qa_rows(doc, name, sid, ctx.problems)
    if ctx.errors() > n:
        ctx.ds.extra["files"][name] = doc
        return
    if not rows:
        ctx.problems.error(name, sid, None, "no usable QA row (every row was dropped)")
        ctx.ds.extra["files"][name] = doc
        return
    scene = e["scene_type"]
    meta: dict[str, Any] = {"subset": subset.name, "scene_type": scene, "video": e["video"],
                            "annotation": e["annotation"], "video_name": video_name(e["video"]),
                            "annotation_file": name, "scorable": True}
    if scene == "nested":
        try:
            slots = nested_slots(rows)
        except ValueError as exc:
            ctx.problems.warn(name, sid, None, f"nested pairing failed ({exc}); the reference fails this video")
            slots = multi_turn_slots(rows)
            meta.update(scorable=False, slot_error=str(exc))
    else:
        slots = multi_turn_slots(rows)
    first = min(rows, key=lambda r: (r["q"], r["a"]))
    request = Request(text=first["question_text"], time=first["q"], modality="audio")
    _add_item(ctx, subset, sid, scene, e["video"], name, doc, slots, request, meta)


def _add_item(ctx: _Ctx, subset: Path, sid: str, scene: str, video_rel: str, name: str, doc: Any,
              slots: list[dict], request: Request, meta: dict) -> None:
    video_path: Optional[Path] = None
    try:
        video_path = resolve_inside(subset, video_rel)
    except PathEscapeError as exc:
        ctx.problems.error(name, sid, "video", str(exc))
        return
    meta["video_file"] = ctx.rel(video_path)
    stream, problem = probe_or_problem(sid, video_path, name, sid, "video", ctx.probe_media)
    if problem is not None:
        ctx.problems.append(problem)
    meta["slots"] = slots
    targets = tuple(Target(id=str(s["slot_id"]), kind=s["nested_role"] or ("step" if scene == "1QnA" else "turn"),
                           anchor=s["t_a"], window=(s["start"], s["end"]), window_closed=False,
                           reference=s["gt_answer"], label=s["question_type"]) for s in slots)
    ctx.ds.add(Item(id=sid, benchmark=BENCHMARK, kind=scene, stream=stream, request=request, targets=targets,
                    native=doc, source_file=name, meta=meta))


# ---------------------------------------------------------------- 1QnA

def _qna_steps(doc: Any, name: str, sid: str, problems: Problems) -> tuple[Optional[dict], list[dict]]:
    """Validate a 1QnA file (conversation or flat shape); return (question, answer steps)."""
    if not isinstance(doc, dict):
        problems.error(name, sid, None, f"expected a JSON object (conversations or answers), got {type(doc).__name__}")
        return None, []
    knowledge = doc.get("inferred_knowledge")
    if knowledge is not None and not isinstance(knowledge, str):
        problems.error(name, sid, "inferred_knowledge", f"expected a string, got {type(knowledge).__name__}")
        knowledge = None
    steps: list[dict] = []
    q_time, q_text = None, ""
    if "conversations" in doc:
        conv = doc["conversations"]
        if not isinstance(conv, list):
            problems.error(name, sid, "conversations", f"expected a list of turns, got {type(conv).__name__}")
            return None, []
        for i, turn in enumerate(conv):
            f = f"conversations[{i}]"
            if not isinstance(turn, dict):
                problems.error(name, sid, f, f"expected an object, got {type(turn).__name__}")
                continue
            who = turn.get("from")
            if who not in ("user", "assistant"):
                problems.error(name, sid, f"{f}.from", f"expected \"user\" or \"assistant\", got {json.dumps(who)}")
                continue
            text = turn.get("value", "")
            if not isinstance(text, str):
                problems.error(name, sid, f"{f}.value", f"expected a string, got {type(text).__name__}")
                continue
            ts = turn.get("timestamp")
            if ts is not None and not (isinstance(ts, str) or is_number(ts)):
                problems.error(name, sid, f"{f}.timestamp", f"expected seconds, got {json.dumps(ts)}")
                continue
            t = parse_time(ts)
            if t is not None and t < 0:
                problems.error(name, sid, f"{f}.timestamp", f"time must not be negative, got {json.dumps(ts)}")
                continue
            if who == "user":
                if q_time is None and not q_text:
                    q_time, q_text = t, text
                continue
            if t is None:
                problems.warn(name, sid, f"{f}.timestamp", f"missing or unparseable ({json.dumps(ts)}); "
                                                           "the reference drops this answer step")
                continue
            steps.append({"a": t, "answer_text": text, "label": turn.get("label") or "",
                          "is_interrupted": to_bool(turn.get("interrupted", False)), "row": i})
        if knowledge:
            q_text = f"{knowledge}\n\n{q_text}"
    elif "answers" in doc:
        answers = doc["answers"]
        if not isinstance(answers, list):
            problems.error(name, sid, "answers", f"expected a list, got {type(answers).__name__}")
            return None, []
        qt = doc.get("question_time")
        if qt is not None and not (isinstance(qt, str) or is_number(qt)):
            problems.error(name, sid, "question_time", f"expected seconds or \"MM:SS\", got {json.dumps(qt)}")
        q_time = parse_time(qt)
        if q_time is not None and q_time < 0:
            problems.error(name, sid, "question_time", f"time must not be negative, got {json.dumps(qt)}")
        q_text = doc.get("question_text", "")
        if not isinstance(q_text, str):
            problems.error(name, sid, "question_text", f"expected a string, got {type(q_text).__name__}")
            q_text = ""
        for i, ans in enumerate(answers):
            f = f"answers[{i}]"
            if not isinstance(ans, dict):
                problems.error(name, sid, f, f"expected an object, got {type(ans).__name__}")
                continue
            at = ans.get("answer_time")
            if at is not None and not (isinstance(at, str) or is_number(at)):
                problems.error(name, sid, f"{f}.answer_time", f"expected seconds or \"MM:SS\", got {json.dumps(at)}")
                continue
            t = parse_time(at)
            if t is None:
                problems.warn(name, sid, f"{f}.answer_time", f"missing or unparseable ({json.dumps(at)}); "
                                                             "the reference drops this answer step")
                continue
            if t < 0:
                problems.error(name, sid, f"{f}.answer_time", f"time must not be negative, got {json.dumps(at)}")
                continue
            text = ans.get("answer_text", "")
            if not isinstance(text, str):
                problems.error(name, sid, f"{f}.answer_text", f"expected a string, got {type(text).__name__}")
                continue
            intr = ans["interrupted"] if "interrupted" in ans else ans.get("is_interrupted", False)
            steps.append({"a": t, "answer_text": text, "label": ans.get("label") or "",
                          "is_interrupted": to_bool(intr), "row": i})
    else:
        problems.error(name, sid, "conversations", "neither 'conversations' nor 'answers' is present")
        return None, []
    if q_time is None:
        problems.warn(name, sid, "question_time", "missing or unparseable question time; the reference uses 0.0")
        q_time = 0.0
    for s in steps:
        if s["a"] < q_time:
            problems.warn(name, sid, f"{'answers' if 'answers' in doc else 'conversations'}[{s['row']}]",
                          f"answer step at {s['a']:g} s is before the question at {q_time:g} s")
    return {"q": q_time, "text": q_text}, steps


def one_qna_slots(q: float, steps: list[dict], question_text: str = "") -> list[dict]:
    """§3.2: step k = [q or t_k, t_k, t_{k+1}) with the last closing at t_n + 60; Soft boundaries."""
    steps = sorted(steps, key=lambda s: s["a"])
    out = []
    for k, s in enumerate(steps):
        end = steps[k + 1]["a"] if k + 1 < len(steps) else s["a"] + TAIL_SECONDS
        label = str(s["label"]).strip().lower() or "step"
        r = {"question_text": question_text, "answer_text": s["answer_text"], "question_type": label,
             "is_interrupted": s["is_interrupted"], "label": s["label"], "row": s["row"]}
        out.append(_slot(k + 1, q if k == 0 else s["a"], s["a"], end, "Soft", r, step_index=k + 1))
    return out


def _load_1qna(subset: Path, ctx: _Ctx) -> None:
    ann_root = subset / "annotations"
    files = sorted(ann_root.rglob("*.json")) if ann_root.is_dir() else []
    if not files:
        ctx.problems.error(ctx.rel(ann_root), None, None, "no annotation file (expected annotations/<dataset>/*.json)")
    for path in files:
        rel = path.relative_to(ann_root)
        if len(rel.parts) != 2:
            ctx.problems.warn(ctx.rel(path), None, None, "1QnA annotations must sit at annotations/<dataset>/<name>.json; skipped")
            continue
        video_rel = f"videos_bench/{rel.parts[0]}/{path.stem}.mp4"
        sid = f"{subset.name}__{video_name(video_rel, one_qna=True)}"
        name = ctx.rel(path)
        n = ctx.errors()
        doc = read_json(path, name, ctx.problems)
        if is_missing(doc):
            continue
        question, steps = _qna_steps(doc, name, sid, ctx.problems)
        if ctx.errors() > n or question is None:
            ctx.ds.extra["files"][name] = doc
            continue
        if not steps:
            ctx.problems.error(name, sid, None, "no usable answer step")
            ctx.ds.extra["files"][name] = doc
            continue
        slots = one_qna_slots(question["q"], steps, question["text"])
        meta = {"subset": subset.name, "scene_type": "1QnA", "video": video_rel, "dataset": rel.parts[0],
                "annotation": f"annotations/{rel.as_posix()}", "video_name": video_name(video_rel, one_qna=True),
                "annotation_file": name, "scorable": True}
        request = Request(text=question["text"], time=question["q"], modality="audio")
        _add_item(ctx, subset, sid, "1QnA", video_rel, name, doc, slots, request, meta)


# ---------------------------------------------------------------- export

def export_dataset(dataset: Dataset, out_dir: str | Path) -> Path:
    """Write the native tree (maps, annotation files from Item.native) under out_dir and link the videos."""
    out = Path(out_dir)
    src = Path(dataset.root)
    for rel, doc in (dataset.extra.get("files") or {}).items():
        write_json(resolve_inside(out, rel), doc)
    for it in dataset.items:
        write_json(resolve_inside(out, it.meta["annotation_file"]), it.native)
        video_file = it.meta.get("video_file")
        if video_file:
            link_or_copy(resolve_inside(src, video_file), resolve_inside(out, video_file))
    return out
