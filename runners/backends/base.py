"""The common backend interface: `respond(decision) -> Reply`. Backends render a Decision into
their own wire format and never choose frames or timing themselves."""
from __future__ import annotations

import base64
import io
from typing import Optional

import numpy as np

from runners.protocols.base import AudioChunk, BackendFailure, Decision, Reply

__all__ = ["Backend", "BackendFailure", "BackendUnavailable", "Reply", "jpeg_data_url", "wav_base64",
           "missing_dependency"]


class BackendUnavailable(ImportError):
    """A backend's optional dependency or model is missing; the message names what to install."""


def missing_dependency(what: str, pip: str, exc: Exception) -> BackendUnavailable:
    return BackendUnavailable(f"{what} needs packages that are not installed ({exc}); run: pip install {pip}")


class Backend:
    """Base class. `supports_audio` says whether audio parts of a Decision are sent to the model."""
    name = "backend"
    supports_audio = False
    on_wait = None  # optional (seconds, message) hook a backend calls before waiting to retry

    def respond(self, decision: Decision) -> Reply:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget any per-item state (called between items by batch runners)."""

    def close(self) -> None:
        """Release clients, models and threads."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def jpeg_data_url(image: np.ndarray, quality: int = 85) -> str:
    """An RGB uint8 image as a `data:image/jpeg;base64,...` URL."""
    import cv2

    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2BGR),
                           [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def wav_base64(chunk: AudioChunk) -> str:
    """An audio chunk as base64 16-bit PCM WAV (the `input_audio` format)."""
    import soundfile as sf

    bio = io.BytesIO()
    sf.write(bio, np.clip(chunk.samples, -1, 1), chunk.rate, format="WAV", subtype="PCM_16")
    return base64.b64encode(bio.getvalue()).decode("ascii")


def first_text(value: Optional[str]) -> str:
    return value if isinstance(value, str) else ""
