"""Frames and audio by media time, read from the stream's own file.

`FrameSampler` keeps one OpenCV capture open, reads forward when the next request is close and
seeks (by frame index) only when it is not, and keeps a bounded LRU cache so memory stays flat on
long streams. A frame returned for time t was always shown at or before t: there is no lookahead."""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

import numpy as np


class SamplingError(RuntimeError):
    """A media file that cannot be opened or decoded at the requested time."""


@dataclass(frozen=True, eq=False)
class Frame:
    """A sampled frame: `t` its stamp (the sample time), `image` RGB uint8 HxWx3, `source_t` the time of
    the decoded video frame (always <= t). Unpacks as (t, image)."""
    t: float
    image: np.ndarray = field(repr=False)
    source_t: float = 0.0

    def __iter__(self) -> Iterator:
        return iter((self.t, self.image))


def sample_stamps(t0: float, t1: float, fps: float) -> list[float]:
    """Stamps (i + 0.5) / fps lying in (t0, t1], the reference's stamping of an fps-decoded stream."""
    if fps <= 0:
        raise ValueError(f"sample fps must be > 0, got {fps}")
    eps = 1e-9
    i = max(0, math.floor(t0 * fps - 0.5))
    while (i + 0.5) / fps <= t0 + eps:
        i += 1
    out = []
    while (i + 0.5) / fps <= t1 + eps:
        out.append(round((i + 0.5) / fps, 6))
        i += 1
    return out


def resize_long_side(image: np.ndarray, max_long_side: Optional[int]) -> np.ndarray:
    """Downscale so the longer side is at most `max_long_side` px (never upscale)."""
    if not max_long_side:
        return image
    h, w = image.shape[:2]
    long_side = max(h, w)
    if long_side <= max_long_side:
        return image
    import cv2

    scale = max_long_side / long_side
    return cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)


class FrameSampler:
    """Random access to a video's frames by media time, with one open capture and a bounded cache.

    `cache_frames` and `cache_bytes` bound the LRU cache; frames are stored already converted to RGB
    and resized to `max_long_side`. Frame k is taken to be shown from k / fps on (constant fps)."""

    def __init__(self, path: str | Path, *, max_long_side: Optional[int] = 512, cache_frames: int = 64,
                 cache_bytes: int = 64 * 2**20, forward_limit_s: float = 4.0):
        import cv2

        self.path = str(path)
        if not Path(self.path).is_file():
            raise SamplingError(f"{self.path}: video file not found")
        self._cap = cv2.VideoCapture(self.path)
        if not self._cap.isOpened():
            raise SamplingError(f"{self.path}: OpenCV cannot open the video")
        self.fps = float(self._cap.get(cv2.CAP_PROP_FPS) or 0.0)
        if not self.fps or self.fps != self.fps or self.fps > 1000:
            raise SamplingError(f"{self.path}: the file reports no usable frame rate ({self.fps})")
        count = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count: Optional[int] = count if count > 0 else None
        self.duration: Optional[float] = count / self.fps if count > 0 else None
        self.max_long_side = max_long_side
        self.cache_frames = max(1, int(cache_frames))
        self.cache_bytes = max(1, int(cache_bytes))
        self.forward_limit = max(2, int(self.fps * forward_limit_s))
        self._cache: "OrderedDict[int, np.ndarray]" = OrderedDict()
        self._cache_nbytes = 0
        self._next = 0  # index the capture returns on its next read
        self._lock = threading.RLock()
        self.stats = {"reads": 0, "seeks": 0, "hits": 0, "misses": 0}

    # -- public -------------------------------------------------------------------------------
    def index_at(self, t: float) -> int:
        """The index of the frame on screen at media time t (frame time <= t)."""
        if t < 0:
            raise ValueError(f"{self.path}: no frame exists before t=0 (asked for t={t})")
        k = math.floor(t * self.fps + 1e-6)
        if self.frame_count is not None:
            k = min(k, self.frame_count - 1)
        return max(0, k)

    def frame_at(self, t: float) -> tuple[float, np.ndarray]:
        """(frame_time, RGB image) of the latest frame with frame_time <= t."""
        with self._lock:
            k = self.index_at(t)
            k, image = self._get(k)
            return k / self.fps, image

    def frames_between(self, t0: float, t1: float, fps: float,
                       duration: Optional[float] = None) -> list[Frame]:
        """Frames stamped (i + 0.5) / fps in (t0, t1], each the latest video frame at its stamp."""
        end = t1 if duration is None else min(t1, duration)
        return [self.frame(s) for s in sample_stamps(t0, end, fps)]

    def frame(self, stamp: float) -> Frame:
        """The frame sampled at `stamp` (its image is the video frame on screen at that time)."""
        source_t, image = self.frame_at(stamp)
        return Frame(round(float(stamp), 6), image, source_t)

    @property
    def cache_nbytes(self) -> int:
        return self._cache_nbytes

    def close(self) -> None:
        with self._lock:
            self._cap.release()
            self._cache.clear()
            self._cache_nbytes = 0

    def __enter__(self) -> "FrameSampler":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------------
    def _get(self, k: int) -> tuple[int, np.ndarray]:
        if k in self._cache:
            self.stats["hits"] += 1
            self._cache.move_to_end(k)
            return k, self._cache[k]
        self.stats["misses"] += 1
        image = self._decode(k)
        tries = 0
        while image is None:  # past the real end (frame counts can be off by a few): step back
            if k == 0 or tries > 2 * self.forward_limit:
                raise SamplingError(f"{self.path}: no decodable frame at or before index {k}")
            self.frame_count = k
            self.duration = k / self.fps
            k, tries = k - 1, tries + 1
            if k in self._cache:
                return self._get(k)
            image = self._decode(k)
        self._put(k, image)
        return k, image

    def _decode(self, k: int) -> Optional[np.ndarray]:
        import cv2

        if not (self._next <= k <= self._next + self.forward_limit):
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, k)
            self.stats["seeks"] += 1
            self._next = k
        while self._next < k:  # skip forward without converting the frames in between
            if not self._cap.grab():
                self._next = -(10**9)  # position unknown: force a seek next time
                return None
            self._next += 1
        ok, bgr = self._cap.read()
        self.stats["reads"] += 1
        if not ok or bgr is None:
            self._next = -(10**9)
            return None
        self._next = k + 1
        image = resize_long_side(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), self.max_long_side)
        image.setflags(write=False)
        return image

    def _put(self, k: int, image: np.ndarray) -> None:
        self._cache[k] = image
        self._cache_nbytes += image.nbytes
        while len(self._cache) > self.cache_frames or (self._cache_nbytes > self.cache_bytes and len(self._cache) > 1):
            _, old = self._cache.popitem(last=False)
            self._cache_nbytes -= old.nbytes


class AudioSampler:
    """Audio of a media file as mono float32 at `rate` Hz, cut by media time.

    WAV/FLAC/OGG are read with soundfile; anything else (an mp4's audio track) is decoded with PyAV.
    The track is decoded once on first use."""

    def __init__(self, path: str | Path, rate: int = 16000):
        self.path = str(path)
        self.rate = int(rate)
        if not Path(self.path).is_file():
            raise SamplingError(f"{self.path}: audio file not found")
        self._samples: Optional[np.ndarray] = None
        self._lock = threading.Lock()

    @property
    def samples(self) -> np.ndarray:
        with self._lock:
            if self._samples is None:
                self._samples = self._load()
            return self._samples

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate

    def chunk(self, t0: float, t1: float, pad: bool = True) -> np.ndarray:
        """Samples of [t0, t1); zero-padded to the full length when the file is shorter (pad=True)."""
        if t1 < t0:
            raise ValueError(f"audio chunk: t1 ({t1}) < t0 ({t0})")
        a = max(0, round(t0 * self.rate))
        b = max(a, round(t1 * self.rate))
        out = self.samples[a:b]
        if pad and len(out) < b - a:
            out = np.concatenate([out, np.zeros(b - a - len(out), dtype=np.float32)])
        return out

    def _load(self) -> np.ndarray:
        suffix = Path(self.path).suffix.lower()
        if suffix in (".wav", ".flac", ".ogg"):
            import soundfile as sf

            data, sr = sf.read(self.path, dtype="float32", always_2d=True)
            mono = data.mean(axis=1).astype(np.float32)
            return _resample(mono, sr, self.rate)
        return self._load_av()

    def _load_av(self) -> np.ndarray:
        try:
            import av
        except ImportError as exc:
            raise SamplingError("reading audio from video files needs PyAV: pip install av") from exc
        try:
            with av.open(self.path) as box:
                if not box.streams.audio:
                    raise SamplingError(f"{self.path}: the file has no audio track")
                stream = box.streams.audio[0]
                resampler = av.AudioResampler(format="flt", layout="mono", rate=self.rate)
                parts = []
                for frame in box.decode(stream):
                    for out in resampler.resample(frame):
                        parts.append(out.to_ndarray().reshape(-1))
                for out in resampler.resample(None):
                    parts.append(out.to_ndarray().reshape(-1))
        except SamplingError:
            raise
        except Exception as exc:
            raise SamplingError(f"{self.path}: cannot decode audio ({type(exc).__name__}: {exc})") from None
        return np.concatenate(parts).astype(np.float32) if parts else np.zeros(0, np.float32)


def _resample(x: np.ndarray, sr: int, rate: int) -> np.ndarray:
    """Linear resampling (enough for chunking and ASR input; PyAV does the real thing for videos)."""
    if sr == rate or len(x) == 0:
        return x.astype(np.float32)
    n = int(round(len(x) * rate / sr))
    src = np.arange(len(x)) / sr
    dst = np.arange(n) / rate
    return np.interp(dst, src, x).astype(np.float32)
