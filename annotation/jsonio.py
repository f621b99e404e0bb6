"""The one place JSON and JSONL files are read and written: reads return values plus Problems that
name the file and position; writes are atomic (temp file then rename)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Optional

from annotation.errors import Problem


TOO_DEEP = "expected JSON nested at most a few hundred levels deep, found deeper nesting"
_BOM = b"\xef\xbb\xbf"
_SCAN = json.JSONDecoder().scan_once  # json's own C scanner, configured as json.loads's decoder is
_WS = json.decoder.WHITESPACE.match


def _loads(text: str) -> Any:
    """json.loads(text) without its two Python-level wrappers (JSONDecoder.decode and raw_decode, a third of the
    cost of a 250-byte line): the same scanner, whitespace rule and value; anything the scanner refuses goes
    through json.loads itself, so errors keep json's exception and message."""
    try:
        value, end = _SCAN(text, _WS(text, 0).end())
    except (StopIteration, ValueError):
        return json.loads(text)
    if end != len(text) and _WS(text, end).end() != len(text):
        return json.loads(text)  # "Extra data"
    return value


def _read_text(path: Path, name: str) -> tuple[Optional[str], Optional[Problem]]:
    """The file's UTF-8 text (a BOM is dropped), or the Problem that stops it being read."""
    try:
        raw = _read_bytes(path)
    except OSError as exc:
        if not os.path.isfile(path):
            return None, Problem(name, None, None, f"file not found: {path}")
        return None, Problem(name, None, None, f"cannot read file: {exc}")
    try:
        return (raw[3:] if raw.startswith(_BOM) else raw).decode("utf-8"), None
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
    """Parse a JSON file (json: the parser whose values and messages the reference scorers see); on failure
    return (None, Problem) saying what is wrong and where."""
    name = label or str(path)
    text, problem = _read_text(path, name)
    if problem is not None:
        return None, problem
    if not text or text.isspace():
        return None, Problem(name, None, None, "file is empty; expected a JSON document")
    try:
        return _loads(text), None
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
    text, problem = _read_text(path, name)
    if problem is not None:
        return [], [problem]
    rows: list[tuple[int, Any]] = []
    problems: list[Problem] = []
    loads = _loads
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line or line.isspace():
            continue
        try:
            row = loads(line)
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


def write_text_atomic(path: Path, text: str | Iterable[str], mkdir: bool = True) -> None:
    """Write text (a str, or pieces written one after the other) to a temporary file beside `path`, flush it to
    disk, then rename it over `path`: readers and crashes see the old file or the whole new one, never half, even
    when producing a piece raises. With mkdir=False the parent must exist."""
    import os
    import tempfile
    path = Path(path)
    if mkdir:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", buffering=1 << 16) as fh:
            if isinstance(text, str):
                fh.write(text)
            else:
                fh.writelines(text)
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
