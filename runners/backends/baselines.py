"""Baselines that need no weights, so the demo runs anywhere: silent, always, periodic and a real
OpenCV motion/scene-change detector. They answer in the same DECISION/RESPONSE format as models
(timed `[t=..]` lines under the offline protocol), so their replies go through the same parser."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from runners.backends.base import Backend, Reply
from runners.protocols.base import Decision

WAIT = "DECISION: WAIT\nRESPONSE:"


def speak(text: str) -> str:
    return f"DECISION: SPEAK\nRESPONSE: {text}"


class _PerItem:
    """Bounded per-item state (keyed by item id) so one backend can serve many items, even at once."""

    def __init__(self, factory, limit: int = 256):
        self._factory = factory
        self._states: "OrderedDict[str, object]" = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def get(self, item_id: str, t: float):
        with self._lock:
            st = self._states.get(item_id)
            if st is None or t < getattr(st, "last_decision_t", -1.0):  # new item, or the item restarted
                st = self._factory()
                self._states[item_id] = st
            self._states.move_to_end(item_id)
            while len(self._states) > self._limit:
                self._states.popitem(last=False)
            return st

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


class SilentBaseline(Backend):
    """Never speaks (scores the silence-required items and nothing else)."""
    name = "baseline:silent"

    def respond(self, decision: Decision) -> Reply:
        return Reply("NO_RESPONSE" if decision.expects == "offline" else WAIT, 0.0)


class AlwaysBaseline(Backend):
    """Speaks at every decision."""
    name = "baseline:always"

    def __init__(self, text: str = "Something is happening."):
        self.text = text

    def respond(self, decision: Decision) -> Reply:
        if decision.expects == "offline":
            return Reply("\n".join(f"[t={f.t:.2f}] {self.text}" for f in decision.frames) or "NO_RESPONSE", 0.0)
        return Reply(speak(self.text), 0.0)


@dataclass
class _PeriodicState:
    last_decision_t: float = -1.0
    last_spoke: Optional[float] = None


class PeriodicBaseline(Backend):
    """Speaks once every `period` seconds of media time (first at the first decision)."""

    def __init__(self, period: float = 5.0, text: str = "Still watching."):
        if period <= 0:
            raise ValueError(f"baseline:periodic: the period must be > 0 s, got {period}")
        self.period = float(period)
        self.text = text
        self.name = f"baseline:periodic:{period:g}"
        self._states = _PerItem(_PeriodicState)

    def respond(self, decision: Decision) -> Reply:
        if decision.expects == "offline":
            n = int(decision.t // self.period)
            return Reply("\n".join(f"[t={k * self.period:.1f}] {self.text}" for k in range(1, n + 1)) or "NO_RESPONSE", 0.0)
        st = self._states.get(decision.item_id, decision.t)
        st.last_decision_t = decision.t
        if st.last_spoke is None or decision.t - st.last_spoke >= self.period - 1e-9:
            st.last_spoke = decision.t
            return Reply(speak(self.text), 0.0)
        return Reply(WAIT, 0.0)

    def reset(self) -> None:
        self._states.clear()


@dataclass
class _MotionState:
    last_decision_t: float = -1.0
    last_frame_t: float = -1.0
    prev: Optional[tuple[np.ndarray, np.ndarray]] = None
    scores: deque = field(default_factory=lambda: deque(maxlen=30))
    last_spoke: Optional[float] = None


class MotionDetector:
    """Scene-change scores on downscaled grey frames: the share of pixels that changed strongly (more than
    `pixel_delta` grey levels, which compression noise and small burned-in clocks stay under) plus half the
    Bhattacharyya distance of grey histograms (global colour or lighting changes). A frame is a change when
    its score exceeds an adaptive threshold: median + k * 1.4826 * MAD of the recent scores, never below
    `min_threshold`, and only once `warmup` scores exist. The share of moved pixels catches small motion
    (a waving arm) that a mean difference drowns in the static background."""

    def __init__(self, width: int = 64, k: float = 5.0, min_threshold: float = 0.005, warmup: int = 3,
                 pixel_delta: float = 60.0):
        self.width = width
        self.warmup = warmup
        self.k = k
        self.min_threshold = min_threshold
        self.pixel_delta = pixel_delta

    def features(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import cv2

        grey = cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
        h, w = grey.shape[:2]
        small = cv2.resize(grey, (self.width, max(1, round(h * self.width / max(w, 1)))), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        hist = cv2.calcHist([small], [0], None, [32], [0, 256])
        cv2.normalize(hist, hist, alpha=1.0, norm_type=cv2.NORM_L1)
        return small.astype(np.float32), hist

    def score(self, a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
        import cv2

        moved = float(np.mean(np.abs(a[0] - b[0]) > self.pixel_delta))
        hist = float(cv2.compareHist(a[1], b[1], cv2.HISTCMP_BHATTACHARYYA))
        return moved + 0.5 * hist

    def threshold(self, scores) -> float:
        if len(scores) < self.warmup:  # no baseline of ordinary change yet: stay quiet
            return float("inf")
        arr = np.asarray(scores, dtype=np.float64)
        med = float(np.median(arr))
        mad = float(np.median(np.abs(arr - med)))
        return max(self.min_threshold, med + self.k * 1.4826 * mad)


class MotionBaseline(Backend):
    """Speaks ("Something changed.") when a frame it has not seen before differs from the previous
    one by more than the adaptive threshold; waits `cooldown` seconds before speaking again.
    Best run with denser ticks: `protocol_hints` (0.5 s interval, 4 fps) keep it within 1 s."""
    name = "baseline:motion"
    protocol_hints = {"interval": 0.5, "sample_fps": 4.0}

    def __init__(self, text: str = "Something changed.", cooldown: float = 1.0, **detector):
        self.text = text
        self.cooldown = float(cooldown)
        self.detector = MotionDetector(**detector)
        self._states = _PerItem(_MotionState)

    def changes(self, frames, st: _MotionState) -> list[float]:
        """Times of the new frames (t > last seen) that are scene changes; updates the state."""
        out = []
        for f in sorted(frames, key=lambda f: f.t):
            if f.t <= st.last_frame_t:
                continue
            feat = self.detector.features(f.image)
            if st.prev is not None:
                s = self.detector.score(feat, st.prev)
                thr = self.detector.threshold(st.scores)
                st.scores.append(s)
                if s > thr:
                    out.append(f.t)
            st.prev = feat
            st.last_frame_t = f.t
        return out

    def respond(self, decision: Decision) -> Reply:
        started = time.perf_counter()
        if decision.expects == "offline":
            st = _MotionState()
            times = self.changes(decision.frames, st)
            text = "\n".join(f"[t={t:.2f}] {self.text}" for t in times) or "NO_RESPONSE"
            return Reply(text, time.perf_counter() - started, {"changes": times})
        st = self._states.get(decision.item_id, decision.t)
        st.last_decision_t = decision.t
        times = self.changes(decision.frames, st)
        if times and (st.last_spoke is None or decision.t - st.last_spoke >= self.cooldown - 1e-9):
            st.last_spoke = decision.t
            return Reply(speak(self.text), time.perf_counter() - started, {"changes": times})
        return Reply(WAIT, time.perf_counter() - started, {"changes": times})

    def reset(self) -> None:
        self._states.clear()


def make_baseline(name: str, arg: Optional[str] = None, **options) -> Backend:
    """baseline:silent | always | periodic[:N] | motion."""
    if name == "silent":
        return SilentBaseline()
    if name == "always":
        return AlwaysBaseline(**options)
    if name == "periodic":
        return PeriodicBaseline(float(arg) if arg else options.pop("period", 5.0), **options)
    if name == "motion":
        return MotionBaseline(**options)
    raise ValueError(f"unknown baseline {name!r}; choose silent, always, periodic[:N] or motion")
