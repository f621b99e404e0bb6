"""The embedded demo benchmark: every referenced clip exists and decodes with the stated fps and
duration, events are visible at their stated frames, and annotations agree with events.json.
Needs only OpenCV (no ffmpeg)."""
from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

DEMO = Path(__file__).resolve().parents[2] / "assets" / "demo"
EVENTS = json.loads((DEMO / "events.json").read_text(encoding="utf-8"))
CLIPS = {c["clip_id"]: c for c in EVENTS["clips"]}
BENCHMARKS = ("interactionbench", "omniinteract", "proactivebench", "interactscope")  # hand-listed: the demo ships all four
STAMP_ROWS = 16  # the burned-in frame stamp sits in the bottom rows; ignore it when diffing frames


def _clip_of(bench_rel: str) -> dict:
    """The events.json clip whose copies include this path (relative to assets/demo)."""
    for c in CLIPS.values():
        if bench_rel in c["copies"]:
            return c
    raise AssertionError(f"{bench_rel} is referenced by an annotation but listed in no clip's copies")


def _change_times(clip: dict) -> set[float]:
    """Times at which something visible happens: event onsets and motion starts and ends."""
    times = {e["t"] for e in clip["visual_events"]}
    for m in clip["motion"]:
        times |= {m["start"], m["end"]}
    return times


def _speech_at(clip: dict, t: float, text: str, where: str) -> None:
    hits = [s for s in clip["speech"] if math.isclose(s["t"], t) and s["text"] == text]
    assert hits, f"{where}: no spoken request {text!r} at {t}s in clip {clip['clip_id']}"


def _k(t: float) -> int:
    return int(math.floor(t)) + 1


def _mmss(s: str) -> float:
    m, sec = s.split(":")
    return int(m) * 60 + float(sec)


def _referenced_videos() -> list[str]:
    """Every video path the four annotation sets point at, relative to assets/demo."""
    refs = []
    for f in sorted((DEMO / "interactionbench/annotations").rglob("*.json")):
        refs.append("interactionbench/" + json.loads(f.read_text())["video"])
    for sub in ("1q1a", "1q1a_math"):
        for e in json.loads((DEMO / f"omniinteract/data/{sub}/video_json_map.json").read_text())["entries"]:
            refs.append(f"omniinteract/data/{sub}/{e['video']}")
    for f in sorted((DEMO / "omniinteract/data/1qna/annotations").rglob("*.json")):
        refs.append(f"omniinteract/data/1qna/videos_bench/{f.parent.name}/{f.stem}.mp4")
    for it in json.loads((DEMO / "proactivebench/annotations.json").read_text())["items"]:
        refs.append("proactivebench/" + it["video"])
    for it in json.loads((DEMO / "interactscope/interactions.json").read_text())["interactions"]:
        refs.append("interactscope/" + it["video"])
    return sorted(set(refs))


def test_every_benchmark_has_a_data_root():
    for b in BENCHMARKS:
        assert (DEMO / b).is_dir(), f"missing demo data root {DEMO / b}"
    assert (DEMO / "README.md").exists()


@pytest.mark.parametrize("rel", _referenced_videos())
def test_referenced_video_decodes_with_stated_fps_and_duration(rel):
    clip = _clip_of(rel)
    path = DEMO / rel
    assert path.is_file(), f"{path} missing"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == clip["sha256"], f"{rel} differs from its clip"
    cap = cv2.VideoCapture(str(path))
    try:
        assert cap.isOpened(), f"OpenCV cannot open {path}"
        fps = cap.get(cv2.CAP_PROP_FPS)
        n = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        assert abs(fps - clip["fps"]) < 0.01, f"{rel}: fps {fps} != {clip['fps']}"
        assert abs(n / fps - clip["duration_s"]) <= 0.1, f"{rel}: {n} frames at {fps} fps != {clip['duration_s']} s"
        ok, frame = cap.read()
        assert ok and frame.shape[:2] == (clip["height"], clip["width"])
    finally:
        cap.release()


def test_every_copy_listed_in_events_exists():
    for c in CLIPS.values():
        assert c["copies"], f"clip {c['clip_id']} is used by no benchmark"
        for rel in c["copies"]:
            assert (DEMO / rel).is_file(), f"events.json lists {rel}, which does not exist"


def _frames(cap, index: int) -> np.ndarray:
    cap.set(cv2.CAP_PROP_POS_FRAMES, index)
    ok, f = cap.read()
    assert ok, f"cannot read frame {index}"
    return f[:-STAMP_ROWS].astype(np.int16)


def _changed(cap, a: int, b: int) -> int:
    """Pixels (outside the stamp) whose colour differs by more than 40 levels between frames a and b."""
    return int((np.abs(_frames(cap, b) - _frames(cap, a)).max(axis=2) > 40).sum())


MOVED, STILL = 100, 10  # changed-pixel counts: a visible change vs compression noise


@pytest.mark.parametrize("clip_id", sorted(CLIPS))
def test_visual_events_change_the_picture_at_their_stated_frame(clip_id):
    clip = CLIPS[clip_id]
    fps = clip["fps"]
    cap = cv2.VideoCapture(str(DEMO / clip["copies"][0]))
    try:
        for ev in clip["visual_events"]:
            i = round(ev["t"] * fps)
            assert _changed(cap, i - 2, i - 1) < STILL, f"{clip_id}/{ev['id']}: picture changes before {ev['t']}s"
            assert _changed(cap, i - 1, i) >= MOVED, f"{clip_id}/{ev['id']}: no visible change at frame {i}"
            assert _changed(cap, i - 1, i + fps - 1) >= MOVED, f"{clip_id}/{ev['id']}: change gone within 1 s"
        for m in clip["motion"]:
            i = round(m["end"] * fps)
            assert _changed(cap, i - 1, i) >= STILL, f"{clip_id}: still moving into frame {i}"
            assert _changed(cap, i, i + 1) < STILL, f"{clip_id}: motion continues after {m['end']}s"
    finally:
        cap.release()


def test_static_stretch_of_whiteboard_is_quiet():
    clip = CLIPS["whiteboard"]
    cap = cv2.VideoCapture(str(DEMO / clip["copies"][0]))
    try:
        first = _frames(cap, 0)
        for t in range(1, int(clip["visual_events"][0]["t"])):
            assert np.mean(np.abs(_frames(cap, t * clip["fps"]) - first)) < 1.0, f"whiteboard changes at {t}s"
    finally:
        cap.release()


def test_speech_is_ordered_and_inside_the_clip():
    for c in CLIPS.values():
        prev = 0.0
        for s in c["speech"]:
            assert s["t"] >= prev and s["t"] <= s["voice_onset_s"] < s["voice_end_s"] <= c["duration_s"], s
            prev = s["voice_end_s"]


def test_interactionbench_matches_events():
    ids = []
    for f in sorted((DEMO / "interactionbench/annotations/demo").glob("*.json")):
        d = json.loads(f.read_text())
        clip = _clip_of("interactionbench/" + d["video"])
        assert d["video_id"] == f.stem and d["domain"] == "demo" and d["duration_s"] == clip["duration_s"]
        changes = _change_times(clip)
        for i, it in enumerate(d["items"]):
            where = f"{f.name} item {i}"
            ids.append(f"{d['video_id']}#{i}")
            _speech_at(clip, it["question_time_s"], it["question"], where)
            timed = [a for a in it["answers"] if a["time_s"] is not None
                     and "SHOULD_REMAIN_SILENT" not in a["content"].upper()]
            if it["is_negative"] or (it["answers"] and not timed):
                assert not timed, where
                continue
            assert timed, f"{where}: positive item without timed answers"
            if it["time_type"] == "A":
                assert timed[0]["time_s"] == it["question_time_s"], where
                assert timed[0]["evidence_time_s"] <= it["question_time_s"], where
                continue
            opening = timed[1:] if it["capability"] in ("LCG", "BRC") else timed
            for a in opening:
                assert a["time_s"] in changes, f"{where}: answer at {a['time_s']}s matches no visible change"
            if it.get("auto_number") or it.get("sub_tag") == "counting":
                counters = [e for e in clip["visual_events"] if e["kind"] == "counter_change"]
                assert [a["time_s"] for a in timed] == [e["t"] for e in counters], where
                assert int(timed[-1]["content"]) == len(counters), where
    split = (DEMO / "interactionbench/splits/demo_all.txt").read_text().split()
    assert sorted(split) == sorted(ids) and len(set(split)) == len(split)
    keys = [json.loads(x) for x in (DEMO / "interactionbench/mcq/mcq_key_v4.jsonl").read_text().splitlines()]
    opts = {json.loads(x)["item_id"]: json.loads(x) for x in
            (DEMO / "interactionbench/mcq/mcq_options_v4.jsonl").read_text().splitlines()}
    assert len(keys) == 2
    for k in keys:
        options = list(k["distractors"])
        options.insert(k["correct_index"], k["answer_text"])
        assert k["item_id"] in ids and opts[k["item_id"]]["options"] == options


def test_omniinteract_matches_events():
    for sub in ("1q1a", "1q1a_math"):
        base = DEMO / f"omniinteract/data/{sub}"
        for e in json.loads((base / "video_json_map.json").read_text())["entries"]:
            clip = _clip_of(f"omniinteract/data/{sub}/{e['video']}")
            rows = json.loads((base / e["annotation"]).read_text())
            scored = [r for r in rows if r["question_time"][:1].isdigit()]
            if sub == "1q1a_math":
                assert len(scored) == len(rows) - 1, "math files start with the placeholder row"
            for r in scored:
                q, a = _mmss(r["question_time"]), _mmss(r["answer_time"])
                _speech_at(clip, q, r["question_text"], f"{sub}/{e['annotation']}")
                assert a >= q
                if r["question_type"] == "proactive":
                    assert a in _change_times(clip), f"{sub}/{e['annotation']}: proactive answer at {a}s"
            if e["scene_type"] == "nested":
                o, i = sorted(scored, key=lambda r: _mmss(r["question_time"]))
                assert o["question_type"] == "proactive" and i["question_type"] == "realtime"
                assert _mmss(o["question_time"]) < _mmss(i["question_time"]) < _mmss(o["answer_time"])
                assert _mmss(i["answer_time"]) <= _mmss(o["answer_time"])
    for f in sorted((DEMO / "omniinteract/data/1qna/annotations").rglob("*.json")):
        clip = _clip_of(f"omniinteract/data/1qna/videos_bench/{f.parent.name}/{f.stem}.mp4")
        d = json.loads(f.read_text())
        if "conversations" in d:
            user = next(c for c in d["conversations"] if c["from"] == "user")
            _speech_at(clip, user["timestamp"], user["value"], f.name)
            steps = [c["timestamp"] for c in d["conversations"] if c["from"] == "assistant"]
        else:
            _speech_at(clip, d["question_time"], d["question_text"], f.name)
            steps = [a["answer_time"] for a in d["answers"]]
        assert steps == [ev["t"] for ev in clip["visual_events"]], f.name


def test_proactivebench_matches_events():
    top = json.loads((DEMO / "proactivebench/annotations.json").read_text())
    assert top["benchmark"] == "proactivebench" and top["version"] == 1
    assert {it["subtask"] for it in top["items"]} == {"OR", "WR", "AA", "SS", "DC", "ES"}
    for it in top["items"]:
        clip = _clip_of("proactivebench/" + it["video"])
        _speech_at(clip, it["request_time"], it["request"], it["item_id"])
        assert it["duration"] == math.ceil(clip["duration_s"])
        event_secs = {_k(e["t"]) for e in clip["visual_events"]}
        st = it["subtask"]
        if st == "OR":
            assert it["onset_second"] in event_secs, it["item_id"]
        elif st in ("WR", "AA", "SS"):
            s, e = it["window"]
            assert s in event_secs and s <= e <= it["duration"], it["item_id"]
        elif st == "DC":
            assert it["ref_count"] == sum(e["kind"] == "counter_change" for e in clip["visual_events"])
        else:
            assert it["alert_seconds"] == sorted(event_secs), it["item_id"]
            for s, e in it["silence_segments"]:
                assert not any(s <= a <= e for a in it["alert_seconds"]), (it["item_id"], s, e)
                assert s > _k(it["request_time"]) and e <= it["duration"]


def test_interactscope_matches_events():
    top = json.loads((DEMO / "interactscope/interactions.json").read_text())
    assert top["benchmark"] == "interactscope" and top["version"] == 1
    inters = top["interactions"]
    assert {x["task"] for x in inters} == {f"T{i}" for i in range(1, 9)}
    assert {x["subtype"] for x in inters if x["task"] == "T8"} == {"A", "B", "C"}
    assert any(x["task"] == "T8" and x["subtype"] == "C" and len(x["targets"]) == 2 for x in inters)
    assert any(isinstance(t["reference"], dict) and "tool" in t["reference"]
               for x in inters if x["task"] == "T1" for t in x["targets"])
    for x in inters:
        clip = _clip_of("interactscope/" + x["video"])
        _speech_at(clip, x["query_time"], x["query_text"], x["interaction_id"])
        for t in x["targets"]:
            if x["task"] == "T5":
                assert t["query_time"] == x["query_time"] and "window" not in t
                start = t["query_time"] + t["window_rel"][0]
                end = t["query_time"] + t["window_rel"][1]
            else:
                start, end = t["window"]
                assert start in _change_times(clip) | {x["query_time"]}, (x["interaction_id"], t["id"])
            assert x["query_time"] <= start <= end <= clip["duration_s"], (x["interaction_id"], t["id"])


def _make_demo_module():
    import importlib.util
    path = DEMO.parent / "make_demo.py"
    spec = importlib.util.spec_from_file_location("ibench_make_demo", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


def test_generator_names_missing_tools(monkeypatch):
    mod = _make_demo_module()
    monkeypatch.setattr(mod.shutil, "which", lambda name: None if name == "espeak-ng" else "/usr/bin/" + name)
    with pytest.raises(SystemExit, match="espeak-ng.*apt-get install espeak-ng"):
        mod.check_tools()


def test_generator_refuses_to_wipe_a_foreign_folder(tmp_path):
    mod = _make_demo_module()
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(SystemExit, match="refusing"):
        mod._prepare_out(tmp_path)
    assert (tmp_path / "precious.txt").exists()


def test_generator_schedule_matches_events_json():
    """events.json is what the script would write now (catches a hand edit or a stale build)."""
    mod = _make_demo_module()
    for clip in mod.build_clips():
        got = CLIPS[clip.id]
        assert got["duration_s"] == clip.duration
        assert [(e["id"], e["t"]) for e in got["visual_events"]] == [(e.id, e.t) for e in clip.events]
        assert [(s["id"], s["t"], s["text"]) for s in got["speech"]] == [(s.id, s.t, s.text) for s in clip.speech]
