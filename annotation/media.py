"""Read a media file's fps, duration, size, audio presence and start offset from the file itself."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Optional

from annotation.errors import Problem
from annotation.model import Stream


class MediaError(ValueError):
    """A media file that is missing or cannot be decoded."""


def _probe_av(path: str) -> dict:
    """Container facts through PyAV (duration, start offset, audio track)."""
    import av  # PyAV comes with faster-whisper

    with av.open(path) as box:
        video = next((s for s in box.streams if s.type == "video"), None)
        audio = next((s for s in box.streams if s.type == "audio"), None)
        duration = float(box.duration) / 1e6 if box.duration else None
        start = float(box.start_time) / 1e6 if box.start_time else 0.0
        fps = None
        width = height = None
        if video is not None:
            rate = video.average_rate or video.base_rate
            fps = float(rate) if rate else None
            width, height = video.codec_context.width, video.codec_context.height
            if video.duration and video.time_base:
                duration = float(video.duration * video.time_base)
            if video.start_time is not None and video.time_base:
                start = float(video.start_time * video.time_base)
        elif audio is not None and audio.duration and audio.time_base:
            duration = float(audio.duration * audio.time_base)
        return {"duration": duration, "fps": fps, "has_audio": audio is not None,
                "start_offset": start, "width": width, "height": height, "has_video": video is not None}


def _probe_cv2(path: str) -> dict:
    """Fallback through OpenCV when PyAV is not importable; it cannot see audio."""
    import cv2

    cap = cv2.VideoCapture(path)
    try:
        if not cap.isOpened():
            raise MediaError(f"{path}: OpenCV cannot open the file")
        fps = cap.get(cv2.CAP_PROP_FPS) or None
        frames = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        ok, _ = cap.read()
        if not ok:
            raise MediaError(f"{path}: no decodable video frame")
        return {"duration": (frames / fps) if fps and frames > 0 else None, "fps": fps, "has_audio": None,
                "start_offset": 0.0, "width": int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
                "height": int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)), "has_video": True}
    finally:
        cap.release()


@lru_cache(maxsize=4096)
def _probe_cached(path: str, mtime: float, size: int) -> dict:
    try:
        import av  # noqa: F401
    except ImportError:
        return _probe_cv2(path)
    try:
        facts = _probe_av(path)
    except Exception as exc:  # PyAV raises its own error types for corrupt files
        raise MediaError(f"{path}: cannot be decoded ({type(exc).__name__}: {exc})") from None
    if facts["has_video"] is False and not facts["has_audio"]:
        raise MediaError(f"{path}: holds neither a video nor an audio track")
    return facts


def probe(path: str | os.PathLike, stream_id: Optional[str] = None) -> Stream:
    """Probe a media file; raises MediaError naming the file when it is missing or corrupt."""
    p = Path(path)
    if not p.is_file():
        raise MediaError(f"{p}: file not found")
    st = p.stat()
    if st.st_size == 0:
        raise MediaError(f"{p}: file is empty")
    facts = _probe_cached(str(p.resolve()), st.st_mtime, st.st_size)
    return Stream(id=stream_id or p.stem, video_path=str(p) if facts.get("has_video", True) else None,
                  audio_path=None if facts.get("has_video", True) else str(p),
                  duration=facts["duration"], fps=facts["fps"], has_audio=facts["has_audio"],
                  start_offset=facts["start_offset"] or 0.0, width=facts["width"], height=facts["height"])


def probe_or_problem(stream_id: str, path: str | os.PathLike, file: str, item_id: Optional[str],
                     field: str = "video", probe_media: bool = True) -> tuple[Stream, Optional[Problem]]:
    """Probe for a loader: always returns a Stream, plus a Problem naming file/item/field on failure."""
    if not probe_media:
        return Stream(id=stream_id, video_path=str(path)), None
    try:
        return probe(path, stream_id), None
    except MediaError as exc:
        return Stream(id=stream_id, video_path=str(path)), Problem(file, item_id, field, str(exc))
