"""A full-size synthetic OmniInteract benchmark (250 videos, ~1,430 slots) with transcripts, for the speed script
and a structural test."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any



def _mmss(t: float) -> str:
    return f"{int(t // 60):02d}:{int(t % 60):02d}"


def _chunk(text: str, start: float, cjk: bool = True) -> dict[str, Any]:
    tokens = list(text) if cjk else text.split()
    step = 0.25
    words = [{"text": tok, "start": round(start + i * step, 3), "end": round(start + i * step + 0.2, 3)}
             for i, tok in enumerate(tokens)]
    return {"text": text, "timestamp": [start, round(start + len(tokens) * step, 3)], "aligned_words": words}


def _write(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")


def build_synthetic(root: Path, seed: int = 7) -> int:
    """250 videos in the released layout: 90 multi_turn + 60 nested (1q1a), 60 math, 40 1QnA."""
    rng = random.Random(seed)
    results = []
    slots = 0
    maps: dict[str, list[dict[str, str]]] = {"1q1a": [], "1q1a_math": []}
    for n in range(150 + 60):
        subset = "1q1a" if n < 150 else "1q1a_math"
        nested = subset == "1q1a" and n >= 90
        stem = f"{n + 1:04d}"
        rows, chunks, t = [], [], 5.0
        if nested:
            for _ in range(2):
                q_o, q_i = t, t + 4
                a_i, a_o = t + 8, t + 20
                rows += [{"question_time": _mmss(q_o), "question_text": "外面下雨了吗", "answer_time": _mmss(a_o),
                          "answer_text": "下雨了", "question_type": "proactive", "is_interrupted": False},
                         {"question_time": _mmss(q_i), "question_text": "桌上有什么", "answer_time": _mmss(a_i),
                          "answer_text": "一个杯子", "question_type": "realtime", "is_interrupted": False}]
                chunks += [_chunk("好的", q_o + 1), _chunk("桌上有一个杯子", a_i + 0.5), _chunk("下雨了", a_o + 1)]
                t += 40
            slots += 4
        else:
            # the paper's counts: 702 slots over the 90 non-nested 1q1a videos (518 realtime + 184 proactive),
            # 2 per math video, so the whole set has 1,430 slots
            k = 2 if subset == "1q1a_math" else (8 if n < 72 else 7)
            for i in range(k):
                a = t + rng.choice([0, 3, 10])
                rows.append({"question_time": _mmss(t), "question_text": "这是什么", "answer_time": _mmss(a),
                             "answer_text": "一个苹果", "question_type": rng.choice(["realtime", "proactive"]),
                             "is_interrupted": rng.random() < 0.15})
                if a > t:
                    chunks.append(_chunk("我看一下", t + 0.5))
                chunks.append(_chunk("这是一个苹果", a + 1))
                t += 30
            slots += k
        _write(root / "data" / subset / "annotations" / f"{stem}.json", rows)
        maps[subset].append({"video": f"videos/{stem}.mp4", "annotation": f"annotations/{stem}.json",
                             "scene_type": "nested" if nested else "multi_turn"})
        _write(root / "outputs" / "m" / subset / f"videos__{stem}" / "precise_truncation.json",
               {"text": "", "chunks": chunks})
        results.append({"video": f"data/{subset}/videos/{stem}.mp4",
                        "output_dir": f"outputs/m/{subset}/videos__{stem}", "status": "ok"})
    for subset, entries in maps.items():
        _write(root / "data" / subset / "video_json_map.json", {"total": len(entries), "entries": entries})
    for n in range(40):
        ds = "egoper" if n % 2 else "captaincook4d"
        name = f"Task{n}"
        conv = [{"from": "user", "timestamp": 2, "value": "教我做这道菜"}]
        chunks = [_chunk("好的我们开始", 3)]
        steps = 10 if n < 8 else 9
        for k in range(steps):
            at = 10 + 20 * k
            conv.append({"from": "assistant", "timestamp": at, "value": f"第{k + 1}步", "label": "step",
                         "interrupted": k == 3})
            chunks.append(_chunk(f"现在做第{k + 1}步", at + 1))
        slots += steps
        _write(root / "data" / "1qna" / "annotations" / ds / f"{name}.json",
               {"inferred_knowledge": "1. a\n2. b", "conversations": conv})
        _write(root / "outputs" / "m" / "1qna" / f"{ds}__{name}" / "precise_truncation.json",
               {"text": "", "chunks": chunks})
        results.append({"video": f"data/1qna/videos_bench/{ds}/{name}.mp4",
                        "output_dir": f"outputs/m/1qna/{ds}__{name}", "status": "ok"})
    _write(root / "outputs" / "m" / "batch_summary.json",
           {"total": len(results), "success": len(results), "incomplete": 0, "results": results})
    return slots


def _instant(stage: str, sample_id: str, slot_id: int, system_prompt: str, user_prompt: str) -> str:
    if stage == "early":
        return '{"flag": "Neutral", "score": 0.8, "rationale": "ok"}'
    if stage == "core":
        return '{"score": 0.9, "trigger_phrase": "苹果", "spoiler": false, "rationale": "ok"}'
    return '{"score": 0.6, "hallucination": false, "rationale": "ok"}'
