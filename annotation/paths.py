"""Keep every user- or dataset-supplied path inside its data root."""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from annotation.errors import PathEscapeError


@lru_cache(maxsize=64)
def _resolved_root(root: str) -> Path:
    return Path(root).resolve()


def resolve_inside(root: str | os.PathLike, rel: str | os.PathLike) -> Path:
    """Resolve `rel` against `root` (symlinks followed) and refuse anything that lands outside it. The root's
    own resolution is cached: a loader checks hundreds of paths against one root."""
    base = _resolved_root(os.fspath(root))
    target = (base / rel).resolve()
    if target != base and not target.is_relative_to(base):
        raise PathEscapeError(f"path {str(rel)!r} resolves to {target}, outside the data root {base}")
    return target


def check_inside(roots: list[str | os.PathLike], path: str | os.PathLike) -> Path:
    """Accept an absolute or relative path only if it lies under one of the allowed roots."""
    target = Path(path).resolve()
    for root in roots:
        base = Path(root).resolve()
        if target == base or target.is_relative_to(base):
            return target
    raise PathEscapeError(f"path {str(path)!r} is outside the allowed data roots ({', '.join(str(r) for r in roots)})")
