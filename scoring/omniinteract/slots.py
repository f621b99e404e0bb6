"""Slot construction per scene type (spec §3) and scene dispatch from video_json_map.json (§1.2, §2.6)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

from .common import HARD, SOFT, parse_time, to_bool

SCENES = ("multi_turn", "nested", "1QnA")
_NESTED_MARKERS = ("/nested/", "/nested2/", "__nested__", "__nested2__")


@dataclass(frozen=True)
class Slot:
    """One scored window ``[start, t_a, end)`` with its reference answer and metadata."""

    slot_id: int
    start: float
    t_a: float
    end: float
    boundary_type: str
    question_text: str
    gt_answer: str
    scene_type: str
    step_index: Optional[int] = None
    turn_index: Optional[int] = None
    question_type: str = "unknown"
    is_interrupted: bool = False
    label: str = ""
    nested_group_id: Optional[int] = None
    nested_role: Optional[str] = None
    inferred_knowledge: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _QARow:
    q_time: float
    a_time: float
    question_text: str
    answer_text: str
    question_type: str
    is_interrupted: bool


def _qa_rows(gt_root: Any) -> list[_QARow]:
    """1Q1A rows with parseable times, sorted by (question_time, answer_time)."""
    if isinstance(gt_root, list):
        items = gt_root
    elif isinstance(gt_root, dict):
        items = gt_root.get("items", [])
    else:
        items = []
    rows: list[_QARow] = []
    if not isinstance(items, list):
        return rows
    for item in items:
        if not isinstance(item, dict):
            continue
        q, a = parse_time(item.get("question_time")), parse_time(item.get("answer_time"))
        if q is None or a is None:
            continue
        qtype = str(item.get("question_type", "") or "unknown").strip().lower() or "unknown"
        rows.append(_QARow(float(q), float(a), str(item.get("question_text", "") or ""),
                           str(item.get("answer_text", "") or ""), qtype,
                           to_bool(item.get("is_interrupted", False))))
    rows.sort(key=lambda r: (r.q_time, r.a_time))
    return rows


def build_multi_turn_slots(gt_root: Any, tail: float) -> list[Slot]:
    """Realtime/proactive rows: each window closes at the next question (last: answer + tail)."""
    rows = _qa_rows(gt_root)
    slots: list[Slot] = []
    for i, row in enumerate(rows):
        end = rows[i + 1].q_time if i + 1 < len(rows) else row.a_time + float(tail)
        end = max(float(end), row.q_time)
        slots.append(Slot(i + 1, row.q_time, row.a_time, end, HARD, row.question_text, row.answer_text,
                          "multi_turn", turn_index=i + 1, question_type=row.question_type,
                          is_interrupted=row.is_interrupted))
    return slots


def _parse_1qna(gt_root: dict) -> tuple[float, str, str, list[dict[str, Any]]]:
    """(question time, question text, inferred knowledge, sorted answer steps) from either 1QnA shape."""
    inferred = str(gt_root.get("inferred_knowledge", "") or "").strip()
    q_time = parse_time(gt_root.get("question_time"))
    question = str(gt_root.get("question_text", "") or "")
    answers: list[dict[str, Any]] = []
    conversations = gt_root.get("conversations")
    if isinstance(conversations, list):
        first_user = next((x for x in conversations
                           if isinstance(x, dict) and str(x.get("from", "")) == "user"), None)
        if first_user is not None:
            q_time = parse_time(first_user.get("timestamp"))
            question = str(first_user.get("value", "") or "")
        for turn in conversations:
            if not isinstance(turn, dict) or str(turn.get("from", "")) != "assistant":
                continue
            t = parse_time(turn.get("timestamp"))
            if t is None:
                continue
            answers.append({"time": float(t), "text": str(turn.get("value", "") or ""),
                            "interrupted": to_bool(turn.get("interrupted", False)),
                            "label": str(turn.get("label", "") or "")})
        if inferred:
            question = (inferred + "\n\n" + question).strip()
    elif isinstance(gt_root.get("answers"), list):
        for ans in gt_root["answers"]:
            if not isinstance(ans, dict):
                continue
            t = parse_time(ans.get("answer_time"))
            if t is None:
                continue
            answers.append({"time": float(t), "text": str(ans.get("answer_text", "") or ""),
                            "interrupted": to_bool(ans.get("interrupted", ans.get("is_interrupted", False))),
                            "label": str(ans.get("label", "") or "")})
    else:
        raise ValueError("1QnA GT must contain conversations[] or answers[].")
    answers.sort(key=lambda r: r["time"])
    return float(q_time) if q_time is not None else 0.0, question, inferred, answers


def build_1qna_slots(gt_root: Any, tail: float) -> list[Slot]:
    """Soft step slots; only step 1 starts at the question (later steps start at their own t_a)."""
    if not isinstance(gt_root, dict):
        raise ValueError("scene_type=1QnA requires GT as a JSON object.")
    q_start, question, inferred, answers = _parse_1qna(gt_root)
    slots: list[Slot] = []
    for i, ans in enumerate(answers):
        t_a = ans["time"]
        start = q_start if i == 0 else t_a
        end = answers[i + 1]["time"] if i + 1 < len(answers) else t_a + float(tail)
        end = max(end, start)
        label = ans["label"]
        slots.append(Slot(i + 1, start, t_a, end, SOFT, question, ans["text"], "1QnA", step_index=i + 1,
                          turn_index=1, question_type=(label or "step").strip().lower() or "step",
                          is_interrupted=bool(ans["interrupted"]), label=label,
                          inferred_knowledge=inferred))
    return slots


def build_nested_slots(gt_root: Any, tail: float) -> list[Slot]:
    """Outer/inner pairs by time containment; an outer without an inner fails the whole video."""
    rows = _qa_rows(gt_root)
    if len(rows) < 2:
        raise ValueError("scene_type=nested requires at least two QA rows.")
    pairs: list[tuple[_QARow, _QARow]] = []
    i = 0
    while i < len(rows):
        outer = rows[i]
        inner_idx = next((j for j in range(i + 1, len(rows))
                          if outer.q_time < rows[j].q_time < outer.a_time and rows[j].a_time <= outer.a_time),
                         None)
        if inner_idx is None:
            raise ValueError("Failed to infer nested pair from QA rows.")
        pairs.append((outer, rows[inner_idx]))
        i = inner_idx + 1
    slots: list[Slot] = []
    for g, (outer, inner) in enumerate(pairs):
        nxt = pairs[g + 1][0].q_time if g + 1 < len(pairs) else outer.a_time + float(tail)
        outer_end = max(float(nxt), outer.a_time)
        common = dict(boundary_type=HARD, scene_type="nested", turn_index=g + 1, nested_group_id=g + 1)
        slots.append(Slot(2 * g + 1, outer.q_time, outer.a_time, outer_end, question_text=outer.question_text,
                          gt_answer=outer.answer_text, question_type=outer.question_type,
                          is_interrupted=outer.is_interrupted, nested_role="outer", **common))
        slots.append(Slot(2 * g + 2, inner.q_time, inner.a_time, outer.a_time, question_text=inner.question_text,
                          gt_answer=inner.answer_text, question_type=inner.question_type,
                          is_interrupted=inner.is_interrupted, nested_role="inner", **common))
    return slots


def build_slots(gt_root: Any, scene_type: str, tail: float = 60.0) -> list[Slot]:
    """Dispatch on scene type (``multi_turn``, ``nested``, ``1QnA``). Error texts are the reference's: a failed
    sample's record carries them."""
    scene = str(scene_type).strip()
    if scene == "multi_turn":
        return build_multi_turn_slots(gt_root, tail)
    if scene == "1QnA":
        return build_1qna_slots(gt_root, tail)
    if scene == "nested":
        return build_nested_slots(gt_root, tail)
    raise ValueError("scene_type must be one of: multi_turn, 1QnA, nested")


def load_scene_map(data_dir: Path) -> dict[str, str]:
    """``{"<subset>/<video>": scene_type}`` from each subset's video_json_map.json (unreadable maps ignored)."""
    out: dict[str, str] = {}
    for subset in ("1q1a", "1q1a_math", "1qna"):
        path = data_dir / subset / "video_json_map.json"
        if not path.exists():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        entries = data.get("entries", []) if isinstance(data, dict) else []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            video = str(entry.get("video", "")).replace("\\", "/").lstrip("./")
            scene = str(entry.get("scene_type", "")).strip()
            if video and scene:
                out[f"{subset}/{video}"] = scene
    return out


def scene_from_video(video: str, scene_map: dict[str, str]) -> str:
    """Scene of a batch-summary video path: 1QnA by path, else the map, else nested markers, else multi_turn."""
    v = str(video).replace("\\", "/")
    if "/1qna/" in v.lower() or "videos_bench" in v:
        return "1QnA"
    for subset in ("1q1a_math", "1q1a"):
        idx = v.rfind(f"{subset}/")
        if idx >= 0:
            scene = scene_map.get(v[idx:])
            if scene:
                return scene
    if any(m in v for m in _NESTED_MARKERS):
        return "nested"
    return "multi_turn"
