"""Waveform peaks of a stream's audio, computed on the server for the workbench timeline: the largest
absolute sample per bin (default 100 bins a second), scaled to 0-255 so a 30 s clip is 3 kB. The audio is
decoded once per file version by `runners.sampling.AudioSampler` (soundfile, or PyAV for video files)."""
from __future__ import annotations

import base64
import functools
import os
from typing import Optional

import numpy as np

PEAKS_PER_SECOND = 100
RATE = 8000  # Hz the audio is decoded at: enough for the envelope, cheap to decode


def peaks(samples: np.ndarray, rate: int, per_second: int = PEAKS_PER_SECOND) -> np.ndarray:
    """Max |sample| per bin of rate/per_second samples, as uint8 scaled to the loudest bin (0 when silent)."""
    if per_second <= 0 or rate <= 0:
        raise ValueError(f"peaks: rate and bins per second must be > 0, got {rate} and {per_second}")
    x = np.abs(np.asarray(samples, dtype=np.float32).reshape(-1))
    size = max(1, int(round(rate / per_second)))
    n = int(np.ceil(len(x) / size))
    if n == 0:
        return np.zeros(0, np.uint8)
    padded = np.zeros(n * size, np.float32)
    padded[:len(x)] = x
    env = padded.reshape(n, size).max(axis=1)
    top = float(env.max())
    if top <= 0:
        return np.zeros(n, np.uint8)
    return np.clip(np.round(env / top * 255.0), 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=64)
def _file_peaks(path: str, mtime_ns: int, size: int, per_second: int) -> Optional[bytes]:
    from runners.sampling import AudioSampler, SamplingError
    try:
        s = AudioSampler(path, rate=RATE)
        return peaks(s.samples, RATE, per_second).tobytes()
    except (SamplingError, OSError, ValueError):
        return None


def file_peaks_b64(path: Optional[str], per_second: int = PEAKS_PER_SECOND) -> str:
    """Base64 peaks of a media file's audio for the page ('' when it has no readable audio)."""
    if not path or not os.path.isfile(path):
        return ""
    st = os.stat(path)
    raw = _file_peaks(os.path.realpath(path), st.st_mtime_ns, st.st_size, per_second)
    return base64.b64encode(raw).decode("ascii") if raw else ""
