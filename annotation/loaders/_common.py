"""Helpers shared by the native-layout loaders: strict JSON/JSONL reading that reports problems with
line and column, time parsing, path checks, and media copying for dataset export."""
from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any, Iterable, Optional

from annotation.errors import PathEscapeError, Problem

_MISSING = object()


class Problems(list):
    """A list of Problem with shorthands; loaders collect everything instead of stopping early."""

    def error(self, file: str, item: Optional[str], field: Optional[str], message: str) -> None:
        self.append(Problem(file, item, field, message, "error"))

    def warn(self, file: str, item: Optional[str], field: Optional[str], message: str) -> None:
        self.append(Problem(file, item, field, message, "warning"))


def display_path(path: Path, root: Path) -> str:
    """The path as shown in problems: relative to the dataset root when inside it."""
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


def _decode(raw: bytes, name: str, problems: Problems) -> Optional[str]:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        problems.error(name, None, None, f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} "
                                         f"(line {line}); re-save the file as UTF-8")
        return None


def read_json(path: Path, name: str, problems: Problems) -> Any:
    """Parse one JSON file; on a missing, non-UTF-8 or invalid file, record a problem and return _MISSING."""
    if not path.is_file():
        problems.error(name, None, None, f"file not found: {path}")
        return _MISSING
    text = _decode(path.read_bytes(), name, problems)
    if text is None:
        return _MISSING
    if not text.strip():
        problems.error(name, None, None, "file is empty (expected JSON)")
        return _MISSING
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problems.error(name, None, None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
        return _MISSING


def read_jsonl(path: Path, name: str, problems: Problems) -> list[tuple[int, Any]]:
    """Parse a JSONL file into (line number, value) pairs; bad lines become problems, the rest are kept."""
    if not path.is_file():
        problems.error(name, None, None, f"file not found: {path}")
        return []
    text = _decode(path.read_bytes(), name, problems)
    if text is None:
        return []
    rows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.error(name, f"line {lineno}", None,
                           f"invalid JSON at line {lineno} column {exc.colno}: {exc.msg}")
    return rows


def is_missing(value: Any) -> bool:
    return value is _MISSING


def is_number(value: Any) -> bool:
    """A real JSON number (bools excluded), finite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_time(value: Any) -> Optional[float]:
    """OmniInteract time parsing: numbers, plain float strings, MM:SS or HH:MM:SS (fractional parts)."""
    if is_number(value):
        return float(value)
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not s:
        return None
    try:
        v = float(s)
        return v if math.isfinite(v) else None
    except ValueError:
        pass
    parts = s.split(":")
    if len(parts) not in (2, 3):
        return None
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        return None
    if not all(math.isfinite(n) for n in nums):
        return None
    total = 0.0
    for n in nums:
        total = total * 60 + n
    return total


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


def write_json(path: Path, data: Any) -> None:
    """Write JSON as UTF-8, non-ASCII kept readable, two-space indent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


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
