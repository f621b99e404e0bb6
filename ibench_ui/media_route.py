"""The one route that serves media: `/media/<id>` maps an opaque id to a loaded item's video or
audio file and streams it with HTTP Range (Starlette's FileResponse; `add_media_route`). Nothing else on disk is
reachable: no dataset folder is handed to Gradio's `allowed_paths`, and no page sees a path.

An id is an HMAC of the file's resolved path under a key drawn once per process, so ids cannot
be guessed or derived from a path; a participant only ever learns the ids of their own items."""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from pathlib import Path
from typing import Optional

from fastapi import FastAPI
from fastapi.responses import FileResponse, PlainTextResponse

MEDIA_PREFIX = "/media/"
_KEY = secrets.token_bytes(32)  # drawn once at import, never changed: the same for every user on purpose
_ID = re.compile(r"[0-9a-f]{32}")


def media_id(path: str | Path) -> str:
    return hmac.new(_KEY, str(Path(path).resolve()).encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def media_url(path: str | Path) -> str:
    """The URL of a media file; the route resolves it only if it is a loaded item's media."""
    return MEDIA_PREFIX + media_id(path)


class MediaIndex:
    """id -> file for every loaded item's video and audio (built on first use, once per loaded dataset)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self._ids: dict[str, Path] = {}
        self._indexed: set[str] = set()
        self._lock = threading.Lock()

    def _index(self) -> None:
        for b in self.ctx.benchmarks():
            if b in self._indexed:
                continue
            try:
                ds = self.ctx.dataset(b)
            except Exception:  # a dataset that cannot load has no media to serve
                self._indexed.add(b)
                continue
            for it in ds.items:
                for p in (it.stream.video_path, it.stream.audio_path):
                    if p and Path(p).is_file():
                        self._ids[media_id(p)] = Path(p).resolve()
            self._indexed.add(b)

    def resolve(self, mid: str) -> Optional[Path]:
        if not isinstance(mid, str) or not _ID.fullmatch(mid):
            return None
        with self._lock:
            if mid not in self._ids:
                self._index()
            p = self._ids.get(mid)
        return p if p is not None and p.is_file() else None


def add_media_route(app: FastAPI, ctx) -> MediaIndex:
    """GET /media/{mid}: the file of a loaded item's media id with Range support, else 404 (the same for
    an id that is malformed, unknown or whose file is gone, so a reply tells nothing about the disk)."""
    index = MediaIndex(ctx)

    @app.get(MEDIA_PREFIX + "{mid}")
    def media(mid: str):
        path = index.resolve(mid)
        if path is None:
            return PlainTextResponse("Not found.", status_code=404)
        return FileResponse(path, headers={"Cache-Control": "private, max-age=3600"})

    return index
