"""The pages' own JS and CSS: a fixed list of files under `static/`, read once and served by the host at
`/ib-static/<name>?v=<content hash>` (ibench_ui.host), and the script and link tags a page loads them with.

A name from the browser is only ever a key into that list, never a path: anything else under the prefix is 404.
The hash in each URL changes with the file, so a deploy is picked up at once while an unchanged file stays
cached. (The prefix is not `/static/`: the studio's Gradio app serves its own fonts and images there.)"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from fastapi.responses import PlainTextResponse, Response

STATIC_PREFIX = "/ib-static/"
STATIC_DIR = Path(__file__).resolve().parent / "static"
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# every file the host serves; each page names the ones it loads (ibench_ui.app, .participant, .session, ...)
FILES = ("base.css", "session.css", "timeline.css", "runs.css",
         "session.js", "session_transport.js", "session_input.js", "session_clock.js", "session_model.js",
         "session_flow.js", "timeline.js", "compare.js", "leaderboard.js", "browse.js", "inpage.js", "runs.js",
         "signin.js")
CACHE_FOREVER = "public, max-age=31536000, immutable"  # a URL whose hash is the file's own never changes


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str
    version: str  # the first 16 hex digits of the body's sha256


@lru_cache(maxsize=1)
def catalog() -> dict[str, Asset]:
    """Every served file by name, read once (the files ship with the code; they do not change while it runs)."""
    out = {}
    for name in FILES:
        body = (STATIC_DIR / name).read_bytes()
        out[name] = Asset(body, TYPES[Path(name).suffix], hashlib.sha256(body).hexdigest()[:16])
    return out


def static_url(name: str) -> str:
    """The URL of a listed file with its content hash; KeyError for a name that is not listed."""
    return f"{STATIC_PREFIX}{name}?v={catalog()[name].version}"


def script_tags(names: Iterable[str]) -> str:
    """Script tags with src, in order (Gradio runs a head's scripts in order, before the component's js_on_load)."""
    return "".join(f'<script src="{static_url(n)}"></script>' for n in names)


def link_tags(names: Iterable[str]) -> str:
    return "".join(f'<link rel="stylesheet" href="{static_url(n)}">' for n in names)


def static_response(name: str, version: str = "", etag: str | None = None) -> Response:
    """The reply to GET <prefix><name>: the listed file with its type, cached for good when the URL carries its
    current hash (else revalidated), 304 for a matching If-None-Match; 404 for any other name."""
    asset = catalog().get(name)
    if asset is None:
        return PlainTextResponse("Not found.", status_code=404)
    tag = f'"{asset.version}"'
    headers = {"Cache-Control": CACHE_FOREVER if version == asset.version else "no-cache", "ETag": tag,
               "X-Content-Type-Options": "nosniff"}
    if etag == tag:
        return Response(status_code=304, headers=headers)
    return Response(asset.body, media_type=asset.content_type, headers=headers)
