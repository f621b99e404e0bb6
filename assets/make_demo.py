"""Regenerate the embedded demo benchmark: small H.264/AAC clips drawn with OpenCV, spoken requests
from espeak-ng, and annotations in the native layout of all four benchmarks.

Usage: python assets/make_demo.py --out assets/demo

Every visual event happens at a known media time and every spoken request starts at a known time;
both are listed in <out>/events.json, which the annotations are written from, so they agree by
construction. Output is deterministic for a given ffmpeg/x264/espeak-ng build.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

W, H, FPS = 320, 240, 25
AUDIO_RATE = 16000
TONE_HZ, TONE_AMP = 220.0, 0.015
SPEECH_GAIN = 0.8
REQUIRED_TOOLS = ("ffmpeg", "espeak-ng", "sox")
FONT = 0  # cv2.FONT_HERSHEY_SIMPLEX
FONT_PLAIN = 1  # cv2.FONT_HERSHEY_PLAIN


# --------------------------------------------------------------------------------------------
# Clip definitions


@dataclass(frozen=True)
class VisualEvent:
    """A visible change at media time `t` (seconds) that a viewer or a motion detector can see."""
    id: str
    t: float
    kind: str  # object_appears | counter_change | colour_change | scene_change | motion_start | gesture
    description: str


@dataclass(frozen=True)
class Speech:
    """A request spoken by espeak-ng, placed so that its audio starts at media time `t`."""
    id: str
    t: float
    text: str


@dataclass(frozen=True)
class Motion:
    """An interval during which something visibly moves."""
    start: float
    end: float
    description: str


@dataclass
class Clip:
    """One demo clip: how to draw a frame at time t, and what happens when."""
    id: str
    duration: float
    draw: Callable[[float], np.ndarray]
    events: list[VisualEvent]
    speech: list[Speech]
    motion: list[Motion] = field(default_factory=list)

    def event(self, eid: str) -> VisualEvent:
        return next(e for e in self.events if e.id == eid)

    def say(self, sid: str) -> Speech:
        return next(s for s in self.speech if s.id == sid)


def _cv2():
    import cv2  # local import so `--help` works without OpenCV
    return cv2


def _canvas(bgr: tuple[int, int, int]) -> np.ndarray:
    img = np.empty((H, W, 3), np.uint8)
    img[:] = bgr
    return img


def _text_center(img, text, cx, cy, scale, color, thick, font=FONT):
    cv2 = _cv2()
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(cx - tw / 2), int(cy + th / 2)), font, scale, color, thick, cv2.LINE_AA)


# ball_counter: a big digit counter increments at known seconds; a ball appears at 8 s.
BALL_T = 8.0
COUNTER_TIMES = (12.0, 16.0, 20.0, 24.0)


def draw_ball_counter(t: float) -> np.ndarray:
    cv2 = _cv2()
    img = _canvas((45, 45, 45))
    count = sum(1 for c in COUNTER_TIMES if t >= c)
    _text_center(img, "COUNT", 95, 38, 0.7, (200, 200, 200), 2)
    cv2.rectangle(img, (30, 60), (160, 190), (90, 90, 90), 2)
    _text_center(img, str(count), 95, 125, 4.0, (255, 255, 255), 8)
    if t >= BALL_T:
        cv2.circle(img, (245, 120), 34, (30, 30, 225), -1, cv2.LINE_AA)
        cv2.circle(img, (233, 106), 9, (160, 160, 255), -1, cv2.LINE_AA)
    return img


# color_scene: background red, blue from 10 s; a new scene at 20 s; the figure waves 25-28 s.
BLUE_T, SCENE_T, WAVE_T0, WAVE_T1 = 10.0, 20.0, 25.0, 28.0


def draw_color_scene(t: float) -> np.ndarray:
    cv2 = _cv2()
    if t < BLUE_T:
        return _canvas((0, 0, 210))
    if t < SCENE_T:
        return _canvas((210, 40, 0))
    img = _canvas((235, 206, 135))  # sky
    cv2.rectangle(img, (0, 150), (W, H), (60, 170, 60), -1)  # grass
    cv2.rectangle(img, (40, 95), (140, 175), (0, 215, 255), -1)  # house
    roof = np.array([[30, 97], [150, 97], [90, 50]], np.int32)
    cv2.fillPoly(img, [roof], (30, 30, 160), cv2.LINE_AA)
    cv2.rectangle(img, (78, 130), (102, 175), (40, 70, 110), -1)  # door
    # stick figure
    hx, hy = 240, 80
    ink = (20, 20, 20)
    cv2.circle(img, (hx, hy), 16, ink, 4, cv2.LINE_AA)
    cv2.line(img, (hx, hy + 16), (hx, hy + 80), ink, 5, cv2.LINE_AA)
    cv2.line(img, (hx, hy + 80), (hx - 22, hy + 120), ink, 5, cv2.LINE_AA)
    cv2.line(img, (hx, hy + 80), (hx + 22, hy + 120), ink, 5, cv2.LINE_AA)
    sx, sy = hx, hy + 35
    cv2.line(img, (sx, sy), (sx - 30, sy + 35), ink, 5, cv2.LINE_AA)  # left arm down
    if WAVE_T0 <= t < WAVE_T1:
        ang = math.radians(-60 + 35 * math.sin(2 * math.pi * 2.0 * (t - WAVE_T0)))
        ex, ey = sx + int(55 * math.cos(ang)), sy + int(55 * math.sin(ang))
        cv2.line(img, (sx, sy), (ex, ey), ink, 6, cv2.LINE_AA)
        cv2.circle(img, (ex, ey), 8, (120, 170, 230), -1, cv2.LINE_AA)
    else:
        cv2.line(img, (sx, sy), (sx + 30, sy + 35), ink, 5, cv2.LINE_AA)
    return img


# moving_square: a blue square rests, moves right 6-14 s, stops; a green triangle appears at 18 s.
MOVE_T0, MOVE_T1, TRIANGLE_T = 6.0, 14.0, 18.0
SQ_X0, SQ_X1, SQ_Y, SQ = 20, 250, 70, 50


def draw_moving_square(t: float) -> np.ndarray:
    cv2 = _cv2()
    img = _canvas((230, 230, 230))
    # the frame at MOVE_T0 is the first displaced one and the frame at MOVE_T1 the first at rest
    frac = min(max((t - MOVE_T0 + 1.0 / FPS) / (MOVE_T1 - MOVE_T0), 0.0), 1.0)
    x = int(round(SQ_X0 + frac * (SQ_X1 - SQ_X0)))
    cv2.rectangle(img, (x, SQ_Y), (x + SQ, SQ_Y + SQ), (200, 60, 20), -1)
    if t >= TRIANGLE_T:
        tri = np.array([[40, 215], [120, 215], [80, 145]], np.int32)
        cv2.fillPoly(img, [tri], (40, 170, 40), cv2.LINE_AA)
    return img


# whiteboard: a static chalkboard with two sums; wiped clean at 32 s (quiet until then).
ERASE_T = 32.0


def draw_whiteboard(t: float) -> np.ndarray:
    cv2 = _cv2()
    img = _canvas((40, 70, 110))  # wooden frame
    cv2.rectangle(img, (14, 14), (W - 15, H - 15), (50, 95, 45), -1)
    if t < ERASE_T:
        _text_center(img, "6 x 7 = ?", W / 2, 80, 1.3, (240, 240, 240), 3)
        _text_center(img, "12 + 5 = ?", W / 2, 150, 1.3, (240, 240, 240), 3)
    return img


# cooking_steps: step cards change at 8, 16, 24 and 32 s.
STEP_TIMES = (8.0, 16.0, 24.0, 32.0)
STEPS = (("CRACK EGGS", (150, 230, 250)), ("WHISK", (240, 210, 160)),
         ("HEAT PAN", (80, 150, 250)), ("POUR", (170, 230, 170)))


def draw_cooking_steps(t: float) -> np.ndarray:
    cv2 = _cv2()
    k = sum(1 for s in STEP_TIMES if t >= s)
    if k == 0:
        img = _canvas((150, 150, 150))
        _text_center(img, "READY?", W / 2, 110, 1.6, (255, 255, 255), 3)
        return img
    label, bg = STEPS[k - 1]
    img = _canvas(bg)
    _text_center(img, f"STEP {k}", W / 2, 45, 1.3, (30, 30, 30), 3)
    _text_center(img, label, W / 2, 100, 1.1, (30, 30, 30), 3)
    if k == 1:
        for cx in (120, 200):
            cv2.ellipse(img, (cx, 170), (22, 30), 0, 0, 360, (245, 250, 255), -1, cv2.LINE_AA)
    elif k == 2:
        cv2.ellipse(img, (160, 165), (60, 30), 0, 0, 180, (120, 80, 40), -1, cv2.LINE_AA)
    elif k == 3:
        cv2.rectangle(img, (95, 160), (225, 175), (40, 40, 40), -1)
        _text_center(img, "HOT!", W / 2, 200, 1.0, (0, 0, 220), 3)
    else:
        cv2.circle(img, (160, 175), 28, (60, 200, 250), -1, cv2.LINE_AA)
    return img


def build_clips() -> list[Clip]:
    """The five demo clips with their event and request schedules."""
    return [
        Clip("ball_counter", 32.0, draw_ball_counter,
             [VisualEvent("ball_appears", BALL_T, "object_appears", "a red ball appears on the right")]
             + [VisualEvent(f"counter_{i + 1}", c, "counter_change", f"the counter changes from {i} to {i + 1}")
                for i, c in enumerate(COUNTER_TIMES)],
             [Speech("ask_ball", 1.0, "Tell me when the ball appears."),
              Speech("ask_count", 9.0, "How many times does the counter change?"),
              Speech("ask_number", 27.0, "What number is the counter showing now?")]),
        Clip("color_scene", 30.0, draw_color_scene,
             [VisualEvent("turns_blue", BLUE_T, "colour_change", "the background turns from red to blue"),
              VisualEvent("new_scene", SCENE_T, "scene_change", "cut to a field with a house and a person"),
              VisualEvent("person_waves", WAVE_T0, "gesture", "the person raises an arm and waves")],
             [Speech("ask_blue", 1.0, "Tell me when the background turns blue."),
              Speech("ask_colour", 4.0, "Keep telling me what colour the background is."),
              Speech("ask_wave", 14.0, "Say hello if someone waves at you."),
              Speech("ask_start_colour", 23.0, "What colour was the background at the start?"),
              Speech("ask_scene_time", 27.0, "When did the scene change?")],
             [Motion(WAVE_T0, WAVE_T1, "the person waves")]),
        Clip("moving_square", 24.0, draw_moving_square,
             [VisualEvent("square_moves", MOVE_T0, "motion_start", "the blue square starts moving right"),
              VisualEvent("triangle_appears", TRIANGLE_T, "object_appears", "a green triangle appears")],
             [Speech("ask_describe", 1.0, "Describe what the square is doing."),
              Speech("ask_stop", 4.0, "Tell me when the square stops moving."),
              Speech("ask_direction_now", 8.0, "Which way is the square moving?"),
              Speech("ask_new", 11.0, "Alert me if something new appears."),
              Speech("ask_direction", 20.0, "Which way did the square move before it stopped?")],
             [Motion(MOVE_T0, MOVE_T1, "the blue square slides from left to right and stops")]),
        Clip("whiteboard", 40.0, draw_whiteboard,
             [VisualEvent("board_erased", ERASE_T, "scene_change", "the board is wiped clean")],
             [Speech("ask_erase", 1.0, "Tell me if the board gets erased."),
              Speech("ask_ball", 5.0, "Tell me when a ball appears."),
              Speech("ask_red", 9.0, "Tell me if the board turns red."),
              Speech("ask_mult", 13.0, "What is six times seven?"),
              Speech("ask_add", 18.0, "What is twelve plus five?"),
              Speech("ask_remind", 24.0, "Remind me in five seconds.")]),
        Clip("cooking_steps", 40.0, draw_cooking_steps,
             [VisualEvent(f"step_{i + 1}", s, "scene_change", f"step card {i + 1} ({STEPS[i][0].lower()}) appears")
              for i, s in enumerate(STEP_TIMES)],
             [Speech("ask_guide", 1.0, "Guide me through making scrambled eggs."),
              Speech("ask_cards", 4.0, "Tell me each time a new step card appears."),
              Speech("ask_danger", 10.0, "Warn me if anything looks dangerous."),
              Speech("ask_timer", 18.0, "Set a timer for three minutes when the pan goes on the heat.")]),
    ]


# --------------------------------------------------------------------------------------------
# Media


def check_tools() -> None:
    """Fail early, naming the apt package, when an external tool is missing."""
    missing = [t for t in REQUIRED_TOOLS if shutil.which(t) is None]
    if missing:
        raise SystemExit(f"make_demo: missing tool(s): {', '.join(missing)}. "
                         f"Install with: apt-get install {' '.join(missing)}")
    try:
        import cv2  # noqa: F401
        import soundfile  # noqa: F401
    except ImportError as exc:
        raise SystemExit(f"make_demo: {exc}. Install with: pip install opencv-python-headless soundfile")


def stamp(img: np.ndarray, frame_index: int) -> np.ndarray:
    """Burn a small frame-index and media-time stamp into the bottom-left corner."""
    cv2 = _cv2()
    text = f"f{frame_index:04d} {frame_index / FPS:05.2f}s"
    cv2.rectangle(img, (0, H - 14), (94, H), (0, 0, 0), -1)
    cv2.putText(img, text, (2, H - 3), FONT_PLAIN, 0.75, (255, 255, 255), 1, cv2.LINE_AA)
    return img


def speak(text: str, tmp: Path) -> np.ndarray:
    """espeak-ng -> WAV, resampled by sox to AUDIO_RATE mono (no dither, so it is deterministic)."""
    import soundfile as sf
    raw, wav = tmp / "raw.wav", tmp / "speech.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "165", "-w", str(raw), text], check=True)
    subprocess.run(["sox", "-D", str(raw), "-r", str(AUDIO_RATE), "-c", "1", "-b", "16", str(wav)], check=True)
    data, rate = sf.read(str(wav), dtype="float32")
    assert rate == AUDIO_RATE
    return data


def render_audio(clip: Clip, tmp: Path) -> tuple[np.ndarray, list[dict]]:
    """Quiet tone plus each request at its time; returns samples and per-request timing facts."""
    n = int(round(clip.duration * AUDIO_RATE))
    t = np.arange(n, dtype=np.float64) / AUDIO_RATE
    audio = (TONE_AMP * np.sin(2 * np.pi * TONE_HZ * t)).astype(np.float32)
    facts: list[dict] = []
    prev_end = 0.0
    for sp in clip.speech:
        voice = speak(sp.text, tmp) * SPEECH_GAIN
        loud = np.flatnonzero(np.abs(voice) > 0.02)
        onset = sp.t + (loud[0] / AUDIO_RATE if loud.size else 0.0)
        offset = sp.t + (loud[-1] / AUDIO_RATE if loud.size else 0.0)
        if sp.t < prev_end:
            raise SystemExit(f"make_demo: clip {clip.id}: request {sp.id!r} at {sp.t}s overlaps the previous "
                             f"request, which ends at {prev_end:.2f}s; move it later")
        i0 = int(round(sp.t * AUDIO_RATE))
        if i0 + voice.size > n:
            raise SystemExit(f"make_demo: clip {clip.id}: request {sp.id!r} runs past the clip end")
        audio[i0:i0 + voice.size] += voice
        prev_end = sp.t + voice.size / AUDIO_RATE
        facts.append({"id": sp.id, "t": sp.t, "text": sp.text,
                      "voice_onset_s": round(onset, 3), "voice_end_s": round(offset, 3)})
    return np.clip(audio, -1.0, 1.0), facts


def encode(clip: Clip, audio: np.ndarray, dest: Path, tmp: Path) -> int:
    """Pipe raw BGR frames into ffmpeg: libx264 yuv420p, 1-s GOP, AAC mono, +faststart, bitexact."""
    import soundfile as sf
    wav = tmp / f"{clip.id}.wav"
    sf.write(str(wav), audio, AUDIO_RATE, subtype="PCM_16")
    n_frames = int(round(clip.duration * FPS))
    cmd = ["ffmpeg", "-y", "-loglevel", "error",
           "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{W}x{H}", "-r", str(FPS), "-i", "-",
           "-i", str(wav),
           "-map", "0:v", "-map", "1:a",
           "-c:v", "libx264", "-preset", "veryfast", "-crf", "26", "-pix_fmt", "yuv420p",
           "-profile:v", "high", "-g", str(FPS), "-keyint_min", str(FPS), "-sc_threshold", "0",
           "-threads", "1",
           "-c:a", "aac", "-b:a", "32k", "-ar", str(AUDIO_RATE), "-ac", "1",
           "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
           "-movflags", "+faststart", str(dest)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for i in range(n_frames):
        proc.stdin.write(stamp(clip.draw(i / FPS), i).tobytes())
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit(f"make_demo: ffmpeg failed for clip {clip.id} (command: {' '.join(cmd)})")
    return n_frames


# --------------------------------------------------------------------------------------------
# Annotations, one writer per benchmark. Each returns {clip_id: [relative copy paths]}.


def _k(t: float) -> int:
    """ProactiveBench 1-based second index whose interval [k-1, k) contains media time t."""
    return int(math.floor(t)) + 1


def _mmss(t: float) -> str:
    if t != int(t):
        raise ValueError(f"1q1a times must be whole seconds, got {t}")
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"


def _dump(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _ib_item(capability, time_type, question, q_time, answers, *, interaction="INS", sub_tag=None,
             is_negative=False, auto_number=False):
    return {"capability": capability, "time_type": time_type, "interaction_type": interaction,
            "range_length": "0-1min", "sub_tag": sub_tag, "is_negative": is_negative,
            "auto_number": auto_number, "question": question, "question_time_s": q_time, "answers": answers}


def _ans(t, content, evidence=None):
    a = {"time_s": t, "content": content}
    if evidence is not None:
        a["evidence_time_s"] = evidence
    return a


def write_interactionbench(root: Path, clips: dict[str, Clip], media: dict[str, Path]) -> dict[str, list[str]]:
    """annotations/demo/<video_id>.json, videos/, splits/demo_all.txt, mcq/ (spec interactionbench §1, §6)."""
    b, c, m, w, k = (clips[x] for x in ("ball_counter", "color_scene", "moving_square", "whiteboard",
                                        "cooking_steps"))
    items: dict[str, list[dict]] = {
        "ball_counter": [
            _ib_item("PTR", "B", b.say("ask_ball").text, b.say("ask_ball").t,
                     [_ans(BALL_T, "The ball appeared.")]),
            _ib_item("PTR", "C", b.say("ask_count").text, b.say("ask_count").t,
                     [_ans(t, str(i + 1)) for i, t in enumerate(COUNTER_TIMES)],
                     interaction="QA", sub_tag="counting", auto_number=True),
            _ib_item("IVQA", "A", b.say("ask_number").text, b.say("ask_number").t,
                     [_ans(b.say("ask_number").t, "4", evidence=COUNTER_TIMES[-1])], interaction="QA"),
        ],
        "color_scene": [
            _ib_item("PTR", "B", c.say("ask_blue").text, c.say("ask_blue").t,
                     [_ans(BLUE_T, "The background turned blue.")]),
            _ib_item("BRC", "C", c.say("ask_colour").text, c.say("ask_colour").t,
                     [_ans(6.0, "The background is red."), _ans(BLUE_T, "Now the background is blue."),
                      _ans(SCENE_T, "The scene changed to a green field with a yellow house.")]),
            _ib_item("LVM", "A", c.say("ask_start_colour").text, c.say("ask_start_colour").t,
                     [_ans(c.say("ask_start_colour").t, "red", evidence=5.0)], interaction="QA"),
            _ib_item("TOA", "A", c.say("ask_scene_time").text, c.say("ask_scene_time").t,
                     [_ans(c.say("ask_scene_time").t, "at 20 seconds", evidence=SCENE_T)], interaction="QA"),
        ],
        "moving_square": [
            _ib_item("LCG", "C", m.say("ask_describe").text, m.say("ask_describe").t,
                     [_ans(3.0, "A blue square is resting on the left."),
                      _ans(MOVE_T0, "The square starts moving to the right."),
                      _ans(MOVE_T1, "The square stopped on the right."),
                      _ans(TRIANGLE_T, "A green triangle appeared.")], sub_tag="narration"),
            _ib_item("CST", "B", m.say("ask_stop").text, m.say("ask_stop").t,
                     [_ans(MOVE_T1, "The square stopped moving.")]),
            _ib_item("CIR", "A", m.say("ask_direction").text, m.say("ask_direction").t,
                     [_ans(m.say("ask_direction").t, "to the right", evidence=10.0)], interaction="QA"),
        ],
        "whiteboard": [
            _ib_item("PTR", "B", w.say("ask_ball").text, w.say("ask_ball").t, [], is_negative=True),
            _ib_item("PTR", "B", w.say("ask_red").text, w.say("ask_red").t,
                     [_ans(None, "SHOULD_REMAIN_SILENT")]),
            _ib_item("IVQA", "A", w.say("ask_mult").text, w.say("ask_mult").t,
                     [_ans(w.say("ask_mult").t, "42", evidence=w.say("ask_mult").t)], interaction="QA"),
            _ib_item("PTR", "B", w.say("ask_erase").text, w.say("ask_erase").t,
                     [_ans(ERASE_T, "The board was erased.")]),
        ],
        "cooking_steps": [
            _ib_item("PTR", "C", k.say("ask_cards").text, k.say("ask_cards").t,
                     [_ans(t, f"Step {i + 1}: {STEPS[i][0].lower()}.") for i, t in enumerate(STEP_TIMES)]),
        ],
    }
    copies: dict[str, list[str]] = {}
    ids: list[str] = []
    for vid, its in items.items():
        rel = f"videos/{vid}.mp4"
        shutil.copyfile(media[vid], root / rel)
        copies.setdefault(vid, []).append(f"interactionbench/{rel}")
        _dump(root / "annotations" / "demo" / f"{vid}.json",
              {"video_id": vid, "domain": "demo", "video": rel, "duration_s": clips[vid].duration, "items": its})
        ids += [f"{vid}#{i}" for i in range(len(its))]
    (root / "splits").mkdir(parents=True, exist_ok=True)
    ids.sort(key=lambda iid: (iid.split("#")[0], int(iid.split("#")[1])))  # the reference's video order
    (root / "splits" / "demo_all.txt").write_text("\n".join(ids) + "\n", encoding="utf-8")
    mcq = [("ball_counter#2", b.say("ask_number").text, ["3", "4", "5", "0"], 1),
           ("color_scene#2", c.say("ask_start_colour").text, ["blue", "red", "green", "yellow"], 1)]
    key_lines, opt_lines = [], []
    for iid, stem, options, ci in mcq:
        key_lines.append({"item_id": iid, "correct_index": ci, "answer_text": options[ci],
                          "distractors": [o for j, o in enumerate(options) if j != ci]})
        opt_lines.append({"item_id": iid, "stem": stem, "options": options})
    (root / "mcq").mkdir(parents=True, exist_ok=True)
    for name, rows in (("mcq_key_v4.jsonl", key_lines), ("mcq_options_v4.jsonl", opt_lines)):
        (root / "mcq" / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return copies


def _oi_row(q, q_text, a, a_text, qtype, interrupted=False, **extra):
    return {"question_time": _mmss(q), "question_text": q_text, "answer_time": _mmss(a), "answer_text": a_text,
            "question_type": qtype, "is_interrupted": interrupted, **extra}


def write_omniinteract(root: Path, clips: dict[str, Clip], media: dict[str, Path]) -> dict[str, list[str]]:
    """data/1q1a, data/1q1a_math and data/1qna in the published layout (spec omniinteract §1)."""
    b, c, m, w, k = (clips[x] for x in ("ball_counter", "color_scene", "moving_square", "whiteboard",
                                        "cooking_steps"))
    copies: dict[str, list[str]] = {}

    def put(rel: str, clip_id: str) -> None:
        dest = root / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(media[clip_id], dest)
        copies.setdefault(clip_id, []).append(f"omniinteract/{rel}")

    q1a = {
        "0001": ("ball_counter", "multi_turn", [
            _oi_row(b.say("ask_ball").t, b.say("ask_ball").text, BALL_T, "The ball just appeared.", "proactive"),
            _oi_row(b.say("ask_count").t, b.say("ask_count").text, COUNTER_TIMES[-1],
                    "It changed four times.", "proactive"),
            _oi_row(b.say("ask_number").t, b.say("ask_number").text, b.say("ask_number").t, "Four.", "realtime"),
        ]),
        "0002": ("color_scene", "multi_turn", [
            _oi_row(c.say("ask_blue").t, c.say("ask_blue").text, BLUE_T, "The background just turned blue.",
                    "proactive"),
            _oi_row(c.say("ask_start_colour").t, c.say("ask_start_colour").text, c.say("ask_start_colour").t,
                    "It was red.", "realtime", interrupted=True),
            _oi_row(c.say("ask_scene_time").t, c.say("ask_scene_time").text, c.say("ask_scene_time").t,
                    "At twenty seconds.", "realtime"),
        ]),
        # nested: the outer proactive row contains the inner realtime row (q_O < q_I < a_O, a_I <= a_O)
        "0003": ("moving_square", "nested", [
            _oi_row(m.say("ask_stop").t, m.say("ask_stop").text, MOVE_T1, "The square has stopped.", "proactive"),
            _oi_row(m.say("ask_direction_now").t, m.say("ask_direction_now").text, m.say("ask_direction_now").t,
                    "It is moving to the right.", "realtime"),
        ]),
    }
    for name, (clip_id, scene, rows) in q1a.items():
        put(f"data/1q1a/videos/{name}.mp4", clip_id)
        _dump(root / "data/1q1a/annotations" / f"{name}.json", rows)
    _dump(root / "data/1q1a/video_json_map.json",
          {"total": len(q1a), "entries": [{"video": f"videos/{n}.mp4", "annotation": f"annotations/{n}.json",
                                           "scene_type": s} for n, (_, s, _) in q1a.items()]})

    placeholder = {"question_time": "time the question starts (mm:ss)", "question_text": "question text",
                   "answer_time": "time the answer may start (mm:ss)", "answer_text": "reference answer",
                   "question_type": "realtime", "is_interrupted": False, "source": "https://example.org/problem"}
    math_rows = [placeholder,
                 _oi_row(w.say("ask_mult").t, w.say("ask_mult").text, w.say("ask_mult").t + 2, "42", "realtime",
                         source="https://example.org/ibench-demo/6x7"),
                 _oi_row(w.say("ask_add").t, w.say("ask_add").text, w.say("ask_add").t + 2, "17", "realtime",
                         source="https://example.org/ibench-demo/12+5")]
    put("data/1q1a_math/videos/0001.mp4", "whiteboard")
    _dump(root / "data/1q1a_math/annotations/0001.json", math_rows)
    _dump(root / "data/1q1a_math/video_json_map.json",
          {"total": 1, "entries": [{"video": "videos/0001.mp4", "annotation": "annotations/0001.json",
                                    "scene_type": "multi_turn"}]})

    step_texts = ("Crack two eggs into the bowl.", "Whisk the eggs.",
                  "Heat the pan. Careful, it is hot.", "Pour the eggs into the pan.")
    labels = ("instruction", "instruction", "feedback", "instruction")
    guide = k.say("ask_guide")
    conv = {"inferred_knowledge": "1. Crack eggs. 2. Whisk. 3. Heat pan. 4. Pour.",
            "conversations": [{"from": "user", "timestamp": guide.t, "value": guide.text}]
            + [{"from": "assistant", "timestamp": t, "value": s, "label": lab}
               for t, s, lab in zip(STEP_TIMES, step_texts, labels)]}
    put("data/1qna/videos_bench/captaincook4d/Eggs-1_1.mp4", "cooking_steps")
    _dump(root / "data/1qna/annotations/captaincook4d/Eggs-1_1.json", conv)
    flat = {"question_time": guide.t, "question_text": guide.text,
            "answers": [{"answer_time": t, "answer_text": s, "label": lab, "interrupted": i == 1}
                        for i, (t, s, lab) in enumerate(zip(STEP_TIMES, step_texts, labels))]}
    put("data/1qna/videos_bench/egoper/eggs_u1_a1.mp4", "cooking_steps")
    _dump(root / "data/1qna/annotations/egoper/eggs_u1_a1.json", flat)
    return copies


def write_proactivebench(root: Path, clips: dict[str, Clip], media: dict[str, Path]) -> dict[str, list[str]]:
    """annotations.json in our ProactiveBench layout (spec A.3): integer 1-based seconds, k covers [k-1, k)."""
    b, c, m, w, k = (clips[x] for x in ("ball_counter", "color_scene", "moving_square", "whiteboard",
                                        "cooking_steps"))

    def base(iid, clip, subtask, sp):
        rec = {"item_id": iid, "video": f"videos/{clip.id}.mp4", "subtask": subtask,
               "duration": int(math.ceil(clip.duration)), "request": sp.text, "request_time": sp.t}
        if _k(sp.t) > 2:  # decisions before the request is spoken are not scored
            rec["eval_start"] = _k(sp.t)
        return rec

    erase = _k(ERASE_T)
    es_alerts = [_k(t) for t in STEP_TIMES]
    es_silence = [[_k(k.say("ask_cards").t) + 1, es_alerts[0] - 1]]
    es_silence += [[a + 2, nxt - 1] for a, nxt in zip(es_alerts, es_alerts[1:])]
    es_silence += [[es_alerts[-1] + 2, int(k.duration)]]
    items = [
        {**base("pb-or-ball", b, "OR", b.say("ask_ball")), "onset_second": _k(BALL_T)},
        {**base("pb-wr-blue", c, "WR", c.say("ask_blue")), "window": [_k(BLUE_T), _k(BLUE_T) + 3]},
        {**base("pb-aa-triangle", m, "AA", m.say("ask_new")), "window": [_k(TRIANGLE_T), _k(TRIANGLE_T) + 3]},
        {**base("pb-ss-erase", w, "SS", w.say("ask_erase")), "window": [erase, erase + 3],
         "verified_silence_seconds": erase - 2},
        {**base("pb-dc-counter", b, "DC", b.say("ask_count")), "ref_count": len(COUNTER_TIMES)},
        {**base("pb-es-steps", k, "ES", k.say("ask_cards")), "alert_seconds": es_alerts,
         "silence_segments": es_silence},
    ]
    copies: dict[str, list[str]] = {}
    for it in items:
        clip_id = Path(it["video"]).stem
        dest = root / it["video"]
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(media[clip_id], dest)
            copies.setdefault(clip_id, []).append(f"proactivebench/{it['video']}")
    _dump(root / "annotations.json", {"benchmark": "proactivebench", "version": 1, "items": items})
    return copies


def write_interactscope(root: Path, clips: dict[str, Clip], media: dict[str, Path]) -> dict[str, list[str]]:
    """interactions.json in our Omni-InteractScope layout (spec B.2): float seconds, inclusive windows."""
    b, c, m, w, k = (clips[x] for x in ("ball_counter", "color_scene", "moving_square", "whiteboard",
                                        "cooking_steps"))

    def inter(iid, clip, task, sp, targets, subtype=None):
        rec = {"interaction_id": iid, "video": f"videos/{clip.id}.mp4", "task": task}
        if subtype:
            rec["subtype"] = subtype
        rec.update({"query_time": sp.t, "query_text": sp.text, "targets": targets})
        return rec

    def tg(i, start, end, ref):
        return {"id": f"g{i}", "window": [start, end], "reference": ref}

    remind = w.say("ask_remind")
    interactions = [
        inter("is-t1-timer", k, "T1", k.say("ask_timer"),
              [tg(1, STEP_TIMES[2], STEP_TIMES[2] + 4.0, {"tool": "set_timer", "args": {"minutes": 3}})]),
        inter("is-t2-blue", c, "T2", c.say("ask_blue"), [tg(1, BLUE_T, BLUE_T + 3.0, "The background turned blue.")]),
        inter("is-t3-hot", k, "T3", k.say("ask_danger"),
              [tg(1, STEP_TIMES[2], STEP_TIMES[2] + 3.0, "Careful, the pan is hot.")]),
        inter("is-t4-count", b, "T4", b.say("ask_count"),
              [tg(i + 1, t, t + 3.0, f"The counter has changed {i + 1} time{'s' if i else ''}.")
               for i, t in enumerate(COUNTER_TIMES)]),
        inter("is-t5-remind", w, "T5", remind,
              [{"id": "g1", "query_time": remind.t, "window_rel": [5.0, 8.0], "reference": "Five seconds have passed."}]),
        inter("is-t6-wave", c, "T6", c.say("ask_wave"), [tg(1, WAVE_T0, WAVE_T1, "Hello!")]),
        inter("is-t7-narrate", m, "T7", m.say("ask_describe"),
              [tg(1, MOVE_T0, MOVE_T0 + 3.0, "The square starts moving to the right."),
               tg(2, MOVE_T1, MOVE_T1 + 3.0, "The square stopped."),
               tg(3, TRIANGLE_T, TRIANGLE_T + 3.0, "A green triangle appeared.")]),
        inter("is-t8a-math", w, "T8", w.say("ask_mult"),
              [tg(1, w.say("ask_mult").t, w.say("ask_mult").t + 5.0, "42")], subtype="A"),
        inter("is-t8b-colour", c, "T8", c.say("ask_start_colour"),
              [tg(1, c.say("ask_start_colour").t, c.say("ask_start_colour").t + 5.0, "It was red.")], subtype="B"),
        inter("is-t8c-eggs", k, "T8", k.say("ask_guide"),
              [tg(1, STEP_TIMES[0], STEP_TIMES[0] + 4.0, "Crack two eggs into the bowl."),
               tg(2, STEP_TIMES[1], STEP_TIMES[1] + 4.0, "Whisk the eggs.")], subtype="C"),
    ]
    copies: dict[str, list[str]] = {}
    for it in interactions:
        clip_id = Path(it["video"]).stem
        dest = root / it["video"]
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(media[clip_id], dest)
            copies.setdefault(clip_id, []).append(f"interactscope/{it['video']}")
    _dump(root / "interactions.json", {"benchmark": "interactscope", "version": 1, "interactions": interactions})
    return copies


# --------------------------------------------------------------------------------------------
# README and driver


def write_readme(out: Path) -> None:
    """assets/demo/README.md: what is in each benchmark folder, generated from the files written."""
    ev = json.loads((out / "events.json").read_text())
    lines = ["# Embedded demo benchmark", "",
             "Generated by `python assets/make_demo.py --out assets/demo`; do not edit by hand.",
             f"{len(ev['clips'])} clips, {W}x{H}, {FPS} fps, 1-s GOP, H.264 + AAC mono {AUDIO_RATE} Hz. "
             "`events.json` lists every visual event and spoken request per clip (media seconds).", "",
             "## Clips", ""]
    for cl in ev["clips"]:
        evs = ", ".join(f"{e['id']} @{e['t']:g}s" for e in cl["visual_events"]) or "none (static)"
        sps = "; ".join(f"@{s['t']:g}s \"{s['text']}\"" for s in cl["speech"])
        lines += [f"- **{cl['clip_id']}** ({cl['duration_s']:g} s): events {evs}. Requests: {sps}"]
    lines += ["", "## interactionbench/ (annotations/demo/<video_id>.json)", ""]
    for f in sorted((out / "interactionbench/annotations/demo").glob("*.json")):
        d = json.loads(f.read_text())
        for i, it in enumerate(d["items"]):
            silent = bool(it["answers"]) and all("SHOULD_REMAIN_SILENT" in a["content"].upper() for a in it["answers"])
            tag = ("negative (is_negative)" if it["is_negative"] else "silence-required (all answers silent)"
                   if silent else it.get("sub_tag") or "")
            times = ", ".join(f"{a['time_s']:g}" for a in it["answers"] if a["time_s"] is not None)
            tag += f" q@{it['question_time_s']:g}s" + (f", answers @ {times}" if times else "")
            lines.append(f"- `{d['video_id']}#{i}` {it['capability']} type {it['time_type']} {tag}: {it['question']}")
    lines += ["", "MCQ (mcq/mcq_key_v4.jsonl): " + ", ".join(
        f"`{json.loads(x)['item_id']}`" for x in (out / "interactionbench/mcq/mcq_key_v4.jsonl").read_text().split("\n") if x),
        "", "## omniinteract/data/", ""]
    for sub in ("1q1a", "1q1a_math"):
        mp = json.loads((out / f"omniinteract/data/{sub}/video_json_map.json").read_text())
        for e in mp["entries"]:
            rows = json.loads((out / f"omniinteract/data/{sub}" / e["annotation"]).read_text())
            kinds = ", ".join(f"{r['question_type']}{' (interrupted)' if r['is_interrupted'] else ''} @{r['question_time']}"
                              for r in rows if ":" in r["question_time"] and r["question_time"][0].isdigit())
            lines.append(f"- `{sub}/{e['video']}` {e['scene_type']}: {kinds}")
    for f in sorted((out / "omniinteract/data/1qna/annotations").glob("*/*.json")):
        d = json.loads(f.read_text())
        shape = "conversation" if "conversations" in d else "flat"
        lines.append(f"- `1qna/{f.parent.name}/{f.stem}` {shape} shape")
    lines += ["", "## proactivebench/annotations.json", ""]
    for it in json.loads((out / "proactivebench/annotations.json").read_text())["items"]:
        keys = {k: it[k] for k in ("onset_second", "window", "ref_count", "alert_seconds", "silence_segments",
                                   "verified_silence_seconds", "eval_start") if k in it}
        lines.append(f"- `{it['item_id']}` {it['subtask']} ({it['video']}): {it['request']} {json.dumps(keys)}")
    lines += ["", "SS item: its verified silence (31 s) is shorter than the published 60-194 s range, "
              "so a loader may warn about it.", "", "## interactscope/interactions.json", ""]
    for it in json.loads((out / "interactscope/interactions.json").read_text())["interactions"]:
        sub = f"-{it['subtype']}" if "subtype" in it else ""
        wins = "; ".join(str(t.get("window") or [f"q+{t['window_rel'][0]:g}", f"q+{t['window_rel'][1]:g}"])
                         for t in it["targets"])
        lines.append(f"- `{it['interaction_id']}` {it['task']}{sub} q@{it['query_time']:g}s \"{it['query_text']}\", "
                     f"targets {wins}")
    lines += ["", "All four layouts use the same spoken audio per clip, so a clip's soundtrack also holds "
              "requests that belong to other benchmarks' items.", ""]
    (out / "README.md").write_text("\n".join(lines), encoding="utf-8")


def _prepare_out(out: Path) -> None:
    """Start from an empty output folder; refuse to wipe a folder that is not a previous demo build."""
    if out.exists() and any(out.iterdir()):
        if not (out / "events.json").exists():
            raise SystemExit(f"make_demo: {out} is not empty and has no events.json; refusing to overwrite it")
        shutil.rmtree(out)
    for sub in ("interactionbench/videos", "proactivebench/videos", "interactscope/videos"):
        (out / sub).mkdir(parents=True, exist_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "demo")
    args = ap.parse_args(argv)
    check_tools()
    out: Path = args.out
    _prepare_out(out)
    clips = {c.id: c for c in build_clips()}
    media: dict[str, Path] = {}
    facts: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ibench_demo_") as tmpd:
        tmp = Path(tmpd)
        for clip in clips.values():
            audio, speech = render_audio(clip, tmp)
            dest = tmp / f"{clip.id}.mp4"
            n_frames = encode(clip, audio, dest, tmp)
            media[clip.id] = dest
            facts[clip.id] = {"clip_id": clip.id, "duration_s": clip.duration, "fps": FPS, "frame_count": n_frames,
                              "width": W, "height": H, "audio_rate": AUDIO_RATE,
                              "sha256": hashlib.sha256(dest.read_bytes()).hexdigest(),
                              "visual_events": [vars(e) for e in clip.events],
                              "motion": [vars(mo) for mo in clip.motion],
                              "speech": speech, "copies": []}
        copies: dict[str, list[str]] = {}
        for writer, sub in ((write_interactionbench, "interactionbench"), (write_omniinteract, "omniinteract"),
                            (write_proactivebench, "proactivebench"), (write_interactscope, "interactscope")):
            for cid, paths in writer(out / sub, clips, media).items():
                copies.setdefault(cid, []).extend(paths)
    for cid, paths in copies.items():
        facts[cid]["copies"] = sorted(paths)
    _dump(out / "events.json", {"version": 1, "time_unit": "media seconds",
                                "note": "visual event t = first frame showing the change; speech t = where the "
                                        "request's audio is placed (voice_onset_s = first audible sample)",
                                "clips": list(facts.values())})
    write_readme(out)
    total = 0
    for p in sorted(out.rglob("*")):
        if p.is_file():
            total += p.stat().st_size
    for cid, f in facts.items():
        size = (out / f["copies"][0]).stat().st_size
        print(f"{cid:14s} {f['duration_s']:5.1f} s  {size / 1024:7.1f} KiB  x{len(f['copies'])} copies")
    unique = sum((out / f["copies"][0]).stat().st_size for f in facts.values())
    print(f"unique media {unique / 1024:.1f} KiB; everything on disk under {out}: {total / 1024:.1f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
