"""Runner performance: harness overhead per decision, frame-sampling throughput against one ffmpeg call per
poll, and memory while a baseline runs over a 10-minute synthetic stream.

Aims: overhead < 5 ms per decision (1 Hz protocol, null model); sampler >= 10x an ffmpeg subprocess per poll;
memory flat as the stream grows (the frame cache is bounded)."""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.loaders import load  # noqa: E402
from annotation.model import Item, Request, Stream  # noqa: E402


class NullModel:
    """Answers instantly and never speaks: what is left is the harness."""
    name = "null"

    def respond(self, decision):
        return "DECISION: WAIT\nRESPONSE:"


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def overhead() -> None:
    """Steady-state time between consecutive decisions with a model that answers at once: context building,
    frame decoding and reply handling. Opening the file and first imports happen once per item and are excluded."""
    import cv2  # noqa: F401 - warm the import so it is not billed to the first decision
    from runners.protocols import drive, get_protocol
    ds = load("proactivebench")
    gaps: list[float] = []
    for it in ds.items:
        stamps: list[float] = []
        drive(it, get_protocol("proactive"), NullModel(), on_decision=lambda d: stamps.append(time.perf_counter()))
        gaps.extend(b - a for a, b in zip(stamps, stamps[1:]))
    gaps.sort()
    med, p95 = statistics.median(gaps) * 1000, gaps[int(0.95 * (len(gaps) - 1))] * 1000
    print(f"harness overhead, 1 Hz protocol, null model, {len(ds)} demo items ({len(gaps)} decisions): median "
          f"{med:.2f} ms, p95 {p95:.2f} ms per decision (aim < 5 ms -> median {5 / med:.1f}x under)")


def sampling(video: str, seconds: int = 30) -> None:
    from runners.sampling import FrameSampler
    stamps = [k + 0.5 for k in range(seconds)]
    t0 = time.perf_counter()
    with FrameSampler(video) as fs:
        for t in stamps:
            fs.frame_at(t)
    ours = (time.perf_counter() - t0) / len(stamps)
    if not shutil.which("ffmpeg"):
        print(f"frame sampling: {ours * 1000:.2f} ms per 1 fps grab (ffmpeg not installed: no comparison)")
        return
    t0 = time.perf_counter()
    for t in stamps:
        subprocess.run(["ffmpeg", "-v", "error", "-ss", f"{t:.3f}", "-i", video, "-frames:v", "1", "-f", "rawvideo",
                        "-pix_fmt", "rgb24", "-"], check=True, capture_output=True)
    theirs = (time.perf_counter() - t0) / len(stamps)
    print(f"frame sampling, 1 fps over {seconds} s: FrameSampler {ours * 1000:.2f} ms/frame, one ffmpeg subprocess per "
          f"poll {theirs * 1000:.1f} ms/frame -> ratio {theirs / ours:.1f}x (aim >= 10x)")


def long_stream(minutes: int) -> None:
    from runners.backends import load_backend
    from runners.protocols import drive, get_protocol
    if not shutil.which("ffmpeg"):
        print("long stream: ffmpeg not installed, skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.mp4"
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"testsrc=size=320x240:rate=25:duration={minutes * 60}",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", str(path)],
                       check=True)
        item = Item(id="long#0", benchmark="proactivebench", kind="SS",
                    stream=Stream(id="long", video_path=str(path), duration=minutes * 60.0, fps=25.0),
                    request=Request("Tell me when something changes."), targets=(),
                    native={"item_id": "long#0", "subtask": "SS", "duration": minutes * 60, "window": [5, 10]})
        samples: list[tuple[float, float]] = []
        stop = threading.Event()

        def watch():
            while not stop.is_set():
                samples.append((time.perf_counter(), rss_mb()))
                time.sleep(0.2)

        backend = load_backend("baseline:motion")
        proto = get_protocol("proactive")
        base = rss_mb()
        th = threading.Thread(target=watch, daemon=True)
        th.start()
        t0 = time.perf_counter()
        emitted_at: list[float] = []
        trace = drive(item, proto, backend, on_decision=lambda d: emitted_at.append(d.t))
        stop.set()
        th.join()
        wall = time.perf_counter() - t0
        peak = max(m for _, m in samples) if samples else rss_mb()
        n = len(samples)
        thirds = [statistics.mean(m for _, m in samples[i * n // 3:(i + 1) * n // 3] or [(0, 0)]) for i in range(3)]
        print(f"long stream: {minutes} min, {trace.n_polls} decisions in {wall:.1f} s; RSS before {base:.0f} MB, "
              f"peak {peak:.0f} MB; mean RSS by third of the stream {thirds[0]:.0f} / {thirds[1]:.0f} / "
              f"{thirds[2]:.0f} MB (flat = bounded caches)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--minutes", type=int, default=10, help="length of the synthetic long stream")
    a = ap.parse_args()
    overhead()
    ds = load("interactionbench")
    sampling(ds.items[0].stream.video_path)
    long_stream(a.minutes)


if __name__ == "__main__":
    main()
