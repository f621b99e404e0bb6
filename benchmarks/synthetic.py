"""Synthetic full-size datasets for the performance scripts (shapes as in the published benchmarks)."""
from __future__ import annotations

import json
import random
from pathlib import Path

CAPS = ["IVQA"] * 159 + ["LVM"] * 80 + ["CIR"] * 83 + ["TOA"] * 126 + ["PTR"] * 313 + ["CST"] * 150 + ["BRC"] * 42 + ["LCG"] * 107


def interactionbench(root: Path, n_items: int = 1060, per_video: int = 2, seed: int = 0) -> list[dict]:
    """Write n_items InteractionBench items (paper-like task mix) in n_items/per_video files; return preds rows
    with 3 emissions per item."""
    rng = random.Random(seed)
    caps = (CAPS * (n_items // len(CAPS) + 1))[:n_items]
    rng.shuffle(caps)
    preds = []
    for v in range(0, n_items, per_video):
        vid = f"syn{v:05d}"
        items = []
        for k, cap in enumerate(caps[v:v + per_video]):
            tt = "A" if cap in ("IVQA", "LVM", "CIR") else ("C" if cap in ("LCG", "BRC", "CST") else "B")
            q = round(rng.uniform(20, 100), 1) if tt == "A" else 0.0
            times = [round(rng.uniform(5, 110), 1) for _ in range(1 if tt != "C" else 3)]
            neg = rng.random() < 0.065
            items.append({"capability": cap, "time_type": tt, "interaction_type": "QA", "range_length": "1-5min",
                          "sub_tag": "counting" if cap == "CST" and k % 2 else None, "is_negative": neg,
                          "auto_number": False, "question": f"question {v}-{k}", "question_time_s": q,
                          "answers": [{"time_s": q if tt == "A" else t, "content": f"answer {j} red ball"}
                                      for j, t in enumerate(times)]})
            preds.append({"video_id": vid, "item_index": k,
                          "emissions": [{"t": round(rng.uniform(0, 120), 2), "content": "the red ball 2"} for _ in range(3)]})
        path = root / "annotations" / "synthetic" / f"{vid}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"video_id": vid, "domain": "synthetic", "duration_s": 120.0, "items": items}))
    return preds


def omniinteract(root: Path, n_videos: int = 250, seed: int = 0) -> None:
    """Write 250 OmniInteract annotation files: 150 1q1a (60 nested), 60 math, 40 1QnA."""
    rng = random.Random(seed)

    def mmss(t: float) -> str:
        return f"{int(t) // 60:02d}:{int(t) % 60:02d}"

    def rows(n: int, nested: bool) -> list[dict]:
        out, t = [], 5.0
        for i in range(n):
            q, a = t, t + rng.randint(2, 20)
            out.append({"question_time": mmss(q), "question_text": f"q{i}", "answer_time": mmss(a),
                        "answer_text": f"a{i}", "question_type": "proactive" if nested and i % 2 == 0 else "realtime",
                        "is_interrupted": rng.random() < 0.1})
            t = a + rng.randint(3, 30) if not (nested and i % 2 == 0) else q + 1
        return out

    for subset, count, n_nested in (("1q1a", 150, 60), ("1q1a_math", 60, 0)):
        base = root / "data" / subset
        (base / "annotations").mkdir(parents=True, exist_ok=True)
        entries = []
        for i in range(count):
            nested = i < n_nested
            name = f"{i + 1:04d}"
            (base / "annotations" / f"{name}.json").write_text(json.dumps(rows(4 if nested else 6, nested), ensure_ascii=False))
            entries.append({"video": f"videos/{name}.mp4", "annotation": f"annotations/{name}.json",
                            "scene_type": "nested" if nested else "multi_turn"})
        (base / "video_json_map.json").write_text(json.dumps({"total": count, "entries": entries}))
    for i in range(n_videos - 210):
        ds = "captaincook4d" if i % 2 else "egoper"
        path = root / "data" / "1qna" / "annotations" / ds / f"rec{i:03d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        steps = sorted(rng.sample(range(10, 600), 9))
        path.write_text(json.dumps({"question_time": 2.0, "question_text": "Guide me through the recipe.",
                                    "answers": [{"answer_time": float(s), "answer_text": f"step {k}", "label": "step"}
                                                for k, s in enumerate(steps)]}))


def proactivebench(root: Path, n_items: int = 200, duration: int = 6, seed: int = 0) -> Path:
    """n_items short ProactiveBench items (onset and window subtasks) over the demo's videos, copied into root
    (a dataset's media must lie inside it): real media, small enough to run whole on two cores. Returns root."""
    import shutil

    from annotation.loaders import demo_dir

    rng = random.Random(seed)
    videos = sorted((demo_dir("proactivebench") / "videos").glob("*.mp4"))
    (root / "videos").mkdir(parents=True, exist_ok=True)
    for v in videos:
        if not (root / "videos" / v.name).exists():
            shutil.copyfile(v, root / "videos" / v.name)
    items = []
    for i in range(n_items):
        start = rng.randint(2, duration - 2)
        base = {"item_id": f"gen-{i:03d}", "video": f"videos/{videos[i % len(videos)].name}", "duration": duration,
                "request_time": 1.0}
        if i % 2:
            items.append({**base, "subtask": "WR", "request": "Tell me when it changes.", "window": [start, start + 2]})
        else:
            items.append({**base, "subtask": "OR", "request": "Tell me when it appears.", "onset_second": start})
    (root / "annotations.json").write_text(json.dumps({"benchmark": "proactivebench", "version": 1, "items": items}))
    return root
