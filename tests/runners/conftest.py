"""Session fixtures for the runner tests: generated clips (OpenCV frames + ffmpeg), items built on
them, tiny local models and a scripted OpenAI-compatible server."""
from __future__ import annotations

import json
import select
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tiny_models, fake_openai

from annotation.model import Item, Request, Stream  # noqa: E402

CODE_BITS = 10
W, H, FPS = 320, 180, 25
EVENTS = (3.3, 6.7, 9.2)  # scene changes in the generated clip (seconds)
DURATION = 12.0
TONE = (2.0, 2.5)  # a 1 kHz tone in the clip's audio track


@dataclass(frozen=True)
class Clip:
    path: Path
    fps: float
    duration: float
    events: tuple[float, ...]
    width: int = W
    height: int = H


def draw_frame(k: int, fps: float = FPS, events=EVENTS) -> np.ndarray:
    """BGR frame k: a background colour that changes at each event, a small moving dot, and the frame
    index as a strip of CODE_BITS black/white blocks across the top."""
    import cv2

    t = k / fps
    scene = sum(1 for e in events if t >= e)
    colours = [(40, 40, 40), (30, 140, 220), (200, 60, 60), (60, 200, 90), (220, 220, 40)]
    img = np.full((H, W, 3), colours[scene % len(colours)], np.uint8)
    x = int(40 + 200 * ((t % 4.0) / 4.0))
    cv2.circle(img, (x, 120), 4, (255, 255, 255), -1)
    bw = W // CODE_BITS
    for b in range(CODE_BITS):
        on = (k >> (CODE_BITS - 1 - b)) & 1
        img[0:24, b * bw:(b + 1) * bw] = 255 if on else 0
    return img


def read_code(rgb: np.ndarray) -> int:
    """The frame index burned into a decoded frame (any size: blocks are read at their centres)."""
    h, w = rgb.shape[:2]
    bw = w / CODE_BITS
    y = int(12 * h / H)
    k = 0
    for b in range(CODE_BITS):
        v = rgb[y, int((b + 0.5) * bw)].mean()
        k = (k << 1) | (1 if v > 127 else 0)
    return k


def make_clip(path: Path, duration: float = DURATION, fps: int = FPS, events=EVENTS) -> Path:
    import soundfile as sf

    if shutil.which("ffmpeg") is None:
        pytest.fail("ffmpeg is required for the runner tests (apt-get install ffmpeg)")
    sr = 16000
    ts = np.arange(int(sr * duration)) / sr
    audio = np.zeros_like(ts, dtype=np.float32)
    m = (ts >= TONE[0]) & (ts < TONE[1])
    audio[m] = 0.4 * np.sin(2 * np.pi * 1000 * ts[m])
    wav = path.with_suffix(".wav")
    sf.write(wav, audio, sr)
    n = int(round(duration * fps))
    cmd = ["ffmpeg", "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", f"{W}x{H}",
           "-r", str(fps), "-i", "-", "-i", str(wav), "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18",
           "-pix_fmt", "yuv420p", "-g", str(fps), "-c:a", "aac", "-b:a", "64k", "-shortest", str(path)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    for k in range(n):
        proc.stdin.write(draw_frame(k, fps, events).tobytes())
    proc.stdin.close()
    assert proc.wait() == 0, "ffmpeg failed to write the test clip"
    return path


@pytest.fixture(scope="session")
def clip(tmp_path_factory) -> Clip:
    path = make_clip(tmp_path_factory.mktemp("clips") / "events.mp4")
    return Clip(path=path, fps=FPS, duration=DURATION, events=EVENTS)


@pytest.fixture(scope="session")
def long_clip(tmp_path_factory) -> Path:
    """A 60 s 640x360 synthetic stream (ffmpeg's test source) for memory tests."""
    path = tmp_path_factory.mktemp("clips") / "long.mp4"
    subprocess.run(["ffmpeg", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25",
                    "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-pix_fmt", "yuv420p",
                    str(path)], check=True)
    return path


def ib_item(clip: Clip, time_type: str = "B", capability: str = "PTR", question: str = "Tell me when the colour changes.",
            q: float = 0.0, answers=None, index: int = 0) -> Item:
    """An InteractionBench item on the clip, its native row shaped as the reference loader reads it."""
    answers = answers if answers is not None else [{"time_s": e, "content": "The colour changed."} for e in clip.events]
    native = {"video_id": "events", "item_index": index, "domain": "test", "duration_s": clip.duration,
              "capability": capability, "time_type": time_type, "question": question, "question_time_s": q,
              "answers": answers, "interaction_type": "INS", "range_length": "0-1min", "is_negative": False}
    stream = Stream(id="events", video_path=str(clip.path), duration=clip.duration, fps=clip.fps, has_audio=True)
    req = Request(text=question, time=q, modality="text" if time_type == "A" else "standing")
    return Item(id=f"events#{index}", benchmark="interactionbench", kind=time_type, stream=stream, request=req,
                targets=(), native=native)


def pb_item(clip: Clip, subtask: str = "AA", eval_start: int = 2) -> Item:
    native = {"item_id": "pb1", "subtask": subtask, "duration": int(clip.duration), "eval_start": eval_start,
              "window": [4, 6]}
    stream = Stream(id="events", video_path=str(clip.path), duration=clip.duration, fps=clip.fps, has_audio=True)
    return Item(id="pb1", benchmark="proactivebench", kind=subtask, stream=stream,
                request=Request("Warn me if the colour changes.", 0.0, "standing"), targets=(), native=native)


def is_item(clip: Clip, query_time: float = 2.0) -> Item:
    native = {"interaction_id": "is1", "task": "T1", "query_time": query_time,
              "tools": [{"name": "set_timer", "description": "start a timer", "parameters": {"seconds": "int"}}],
              "targets": [{"id": "g1", "window": [3.0, 5.0], "reference": {"tool": "set_timer", "args": {"seconds": 30}}}]}
    stream = Stream(id="events", video_path=str(clip.path), duration=clip.duration, fps=clip.fps, has_audio=True)
    return Item(id="is1", benchmark="interactscope", kind="T1", stream=stream,
                request=Request("Set a 30 second timer when the colour changes.", query_time, "text"),
                targets=(), native=native)


def oi_item(clip: Clip) -> Item:
    stream = Stream(id="events", video_path=str(clip.path), duration=clip.duration, fps=clip.fps, has_audio=True)
    return Item(id="1q1a__events", benchmark="omniinteract", kind="multi_turn", stream=stream,
                request=Request("", 0.0, "audio"), targets=(), native={})


@pytest.fixture(scope="session")
def tiny_llava(tmp_path_factory) -> Path:
    import tiny_models

    return tiny_models.build_tiny_llava(tmp_path_factory.mktemp("llava"))


@pytest.fixture(scope="session")
def tiny_qwen(tmp_path_factory) -> Path:
    import tiny_models

    return tiny_models.build_tiny_qwen25vl(tmp_path_factory.mktemp("qwen25vl"))


@pytest.fixture(scope="session")
def tiny_text_llm(tmp_path_factory) -> Path:
    """A random text-only Llama: `hf/` (safetensors) and `tiny-llama-f32.gguf` with the same weights."""
    import tiny_models

    return tiny_models.build_tiny_text_llm(tmp_path_factory.mktemp("textllm"))


@pytest.fixture(scope="session")
def tiny_whisper(tmp_path_factory) -> Path:
    import tiny_models

    return tiny_models.build_tiny_whisper(tmp_path_factory.mktemp("whisper"))


@pytest.fixture(scope="session")
def openai_server():
    import fake_openai

    server = fake_openai.ScriptedServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture()
def fake_server(openai_server):
    openai_server.reset()
    return openai_server


@pytest.fixture()
def rt_server(tmp_path):
    """start(config) -> (url, log path): a scripted server process, stopped (by its pid) after the test."""
    procs = []

    def start(config: dict):
        log = tmp_path / f"events{len(procs)}.jsonl"
        cfg = tmp_path / f"server{len(procs)}.json"
        cfg.write_text(json.dumps({**config, "log": str(log)}))
        server = Path(__file__).with_name("realtime_server.py")
        proc = subprocess.Popen([sys.executable, str(server), str(cfg)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        err = proc.stderr.read() if proc.poll() is not None else ""
        assert line.startswith("LISTENING"), f"scripted server did not start: {line!r} {err}"
        return f"ws://127.0.0.1:{int(line.split()[1])}/v1/realtime", log

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=30)
