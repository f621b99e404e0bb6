"""The one place JSON and JSONL files are read and written: reads return values plus Problems that
name the file and position; writes are atomic (temp file then rename)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Optional

from annotation.errors import Problem


TOO_DEEP = "expected JSON nested at most a few hundred levels deep, found deeper nesting"
# orjson reads integers beyond 64 bits as floats (json keeps them exact): text holding 19+ digits in a row goes to json
_LONG_DIGITS = None


def _fast_loads(data: bytes | str) -> tuple[bool, Any]:
    """(True, value) when orjson parses `data` to exactly what json.loads gives; (False, None) for json to decide
    (errors and their messages, NaN/Infinity, overflowing numbers, lone surrogates, 19+ digit runs). orjson parses
    the dataset's hundreds of files several times faster; json stays the judge of every case orjson refuses."""
    global _LONG_DIGITS
    if _LONG_DIGITS is None:
        import re
        _LONG_DIGITS = (re.compile(rb"[0-9]{19}"), re.compile(r"[0-9]{19}"))
    if _LONG_DIGITS[isinstance(data, str)].search(data):
        return False, None
    import orjson
    try:
        return True, orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None


def _read_text(path: Path, name: str) -> tuple[Optional[str], Optional[Problem]]:
    """The file's UTF-8 text (a BOM is dropped), or the Problem that stops it being read."""
    if not path.is_file():
        return None, Problem(name, None, None, f"file not found: {path}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, Problem(name, None, None, f"cannot read file: {exc}")
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, Problem(name, None, None, f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} "
                                               f"(line {line}); re-save the file as UTF-8")


def _read_bytes(path: Path) -> bytes:
    """The file's bytes through os.open/os.read: a third of Path.read_bytes's cost (no buffered file object),
    which counts on the hundreds of small annotation files `score` reads."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_json(path: Path, label: Optional[str] = None) -> tuple[Any, Optional[Problem]]:
    """Parse a JSON file; on failure return (None, Problem) saying what is wrong and where."""
    name = label or str(path)
    path = path if isinstance(path, Path) else Path(path)  # not rebuilt: Path(a Path) parses it again
    try:
        raw = _read_bytes(path)
    except OSError:
        raw = None  # _read_text says why
    if raw is not None:
        ok, value = _fast_loads(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)
        if ok:
            return value, None
    text, problem = _read_text(path, name)
    if problem is not None:
        return None, problem
    if not text.strip():
        return None, Problem(name, None, None, "file is empty; expected a JSON document")
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, Problem(name, None, None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
                                               " (truncated or hand-edited file?)")
    except RecursionError:
        return None, Problem(name, None, None, TOO_DEEP)


def read_jsonl_lines(path: Path, label: Optional[str] = None,
                     objects_only: bool = False) -> tuple[list[tuple[int, Any]], list[Problem]]:
    """Parse a JSONL file into (line number, value) pairs; bad lines (and, with `objects_only`, lines that
    are not objects) become Problems, the rest are kept."""
    name = label or str(path)
    text, problem = _read_text(Path(path), name)
    if problem is not None:
        return [], [problem]
    rows: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    fast = _fast_loads
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ok, row = fast(line)
            if not ok:
                row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(name, f"line {lineno}", None,
                                    f"invalid JSON at line {lineno} column {exc.colno}: {exc.msg}"))
            continue
        except RecursionError:
            problems.append(Problem(name, f"line {lineno}", None, TOO_DEEP))
            continue
        if objects_only and not isinstance(row, dict):
            problems.append(Problem(name, f"line {lineno}", None, f"expected a JSON object, got {type(row).__name__}"))
            continue
        rows.append((lineno, row))
    return rows, problems


def read_jsonl(path: Path, label: Optional[str] = None) -> tuple[list[dict], list[Problem]]:
    """Parse a JSONL file of objects; bad and non-object lines become Problems and are skipped."""
    pairs, problems = read_jsonl_lines(path, label, objects_only=True)
    return [row for _, row in pairs], problems


def write_text_atomic(path: Path, text: str, mkdir: bool = True) -> None:
    """Write text to a temporary file beside `path`, flush it to disk, then rename it over `path`: readers
    and crashes see the old file or the whole new one, never half. With mkdir=False the parent must exist."""
    import os
    import tempfile
    path = Path(path)
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; an output file is as readable as one written directly
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_atomic(path: Path, text: str) -> None:
    write_text_atomic(path, text)


def write_json(path: Path, value: Any) -> None:
    """Write JSON (UTF-8, non-ASCII kept readable, two-space indent) atomically, so a crash never leaves half a file."""
    _write_atomic(Path(path), json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write JSONL atomically, one value per line."""
    _write_atomic(Path(path), "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
