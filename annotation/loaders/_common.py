"""Helpers shared by the native-layout loaders and writers: a Problems collector (with JSON/JSONL reading
into it), time parsing, path checks, and media copying for dataset export."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Optional

from annotation import jsonio
from annotation.errors import DatasetError, PathEscapeError, Problem
from annotation.values import finite_time, is_number

_MISSING = object()


class Problems(list):
    """A list of Problem with shorthands; loaders collect everything instead of stopping early."""

    def error(self, file: str, item: Optional[str], field: Optional[str], message: str) -> None:
        self.append(Problem(file, item, field, message, "error"))

    def warn(self, file: str, item: Optional[str], field: Optional[str], message: str) -> None:
        self.append(Problem(file, item, field, message, "warning"))

    def error_count(self) -> int:
        """How many errors (not warnings) were collected so far; compare before and after a check."""
        return sum(p.severity == "error" for p in self)


def raise_if_errors(problems: list[Problem]) -> None:
    """Raise DatasetError listing every problem when any of them is an error (warnings alone pass)."""
    if any(p.severity == "error" for p in problems):
        raise DatasetError(list(problems))


def display_path(path: Path, root: Path) -> str:
    """The path as shown in problems: relative to the dataset root when inside it."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


def read_json(path: Path, name: str, problems: Problems) -> Any:
    """Parse one JSON file; on a missing, non-UTF-8 or invalid file, record a problem and return _MISSING."""
    value, problem = jsonio.read_json(path, name)
    if problem is not None:
        problems.append(problem)
        return _MISSING
    return value


def read_jsonl(path: Path, name: str, problems: Problems) -> list[tuple[int, Any]]:
    """Parse a JSONL file into (line number, value) pairs; bad lines become problems, the rest are kept."""
    rows, found = jsonio.read_jsonl_lines(path, name)
    problems.extend(found)
    return rows


def is_missing(value: Any) -> bool:
    return value is _MISSING


def parse_time(value: Any) -> Optional[float]:
    """OmniInteract time parsing: numbers, plain float strings, MM:SS or HH:MM:SS (fractional parts);
    bools and non-finite values are not times."""
    return finite_time(value)


def resolve_inside(root: Path, rel: str) -> Path:
    """Join a dataset-relative path onto root; raise PathEscapeError if it leaves the root."""
    p = Path(rel)
    if p.is_absolute():
        raise PathEscapeError(f"path '{rel}' must be relative to the dataset root {root}")
    full = (root / p).resolve()
    try:
        full.relative_to(root.resolve())
    except ValueError:
        raise PathEscapeError(f"path '{rel}' resolves outside the dataset root {root}") from None
    return full


def check_window(value: Any, file: str, item: str, field: str, problems: Problems,
                 allow_negative: bool = False) -> Optional[tuple[float, float]]:
    """Validate a [start, end] pair of numbers with start <= end; record every problem found."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        problems.error(file, item, field, f"expected [start, end] (two numbers), got {json.dumps(value)}")
        return None
    ok = True
    for k, v in enumerate(value):
        if not is_number(v):
            problems.error(file, item, f"{field}[{k}]", f"expected a number of seconds, got {json.dumps(v)}")
            ok = False
        elif v < 0 and not allow_negative:
            problems.error(file, item, f"{field}[{k}]", f"time must not be negative, got {v}")
            ok = False
    if not ok:
        return None
    s, e = float(value[0]), float(value[1])
    if s > e:
        problems.error(file, item, field, f"window start {s} is after its end {e}")
        return None
    return s, e


def item_label(record: Any, key: str, index: int) -> str:
    """The id used in problems: the record's id when it is a non-empty string, else '#<index>'."""
    if isinstance(record, dict):
        v = record.get(key)
        if isinstance(v, str) and v.strip():
            return v
    return f"#{index}"


def link_or_copy(src: Path, dst: Path) -> bool:
    """Hard-link a media file into an export (copy when linking fails); False when src is missing."""
    src = Path(src)
    if not src.is_file():
        return False
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        if dst.resolve() == src.resolve() or os.path.samefile(src, dst):
            return True
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return True
