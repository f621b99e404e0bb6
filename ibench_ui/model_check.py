"""Check before doing: a model spec is loaded and its server answers before a run or a live demo starts,
so an unreachable server is reported in seconds with its reason instead of after the first ticks."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def reach(backend: Any, timeout: float = 3.0) -> str:
    """'' when the backend can be used now, else why not. HTTP backends (a `base_url`) must answer
    GET <base_url>/models; local backends (baselines, hf, plugins) are ready once built."""
    local = getattr(backend, "path", None)
    if isinstance(local, str) and local and getattr(backend, "name", "").startswith("hf:"):
        import os
        # hub downloads are off (HF_HUB_OFFLINE=1): a hub name or a missing folder cannot load
        if not Path(local).is_dir() and os.environ.get("HF_HUB_OFFLINE", "1") != "0":
            return f"model folder {local} not found (hub downloads are off)"
        return ""
    base = getattr(backend, "base_url", None)
    if not base:
        return ""
    url = str(base).rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=timeout) as resp:
            json.loads(resp.read(1_000_000) or b"{}")
        return ""
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):  # the server is there; the key is checked on the first call
            return ""
        return f"{url} answered HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"cannot reach {url}: {reason}"
