"""Reading JSON and JSONL files into values or Problems that name the file and position."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from annotation.errors import Problem


def read_json(path: Path, label: Optional[str] = None) -> tuple[Any, Optional[Problem]]:
    """Parse a JSON file; on failure return (None, Problem) saying what is wrong and where."""
    name = label or str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, Problem(name, None, None, "file not found")
    except OSError as exc:
        return None, Problem(name, None, None, f"cannot read file: {exc}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, Problem(name, None, None, f"not UTF-8 text (bad byte at offset {exc.start}); save the file as UTF-8")
    if not text.strip():
        return None, Problem(name, None, None, "file is empty; expected a JSON document")
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, Problem(name, None, None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
                                               " (truncated or hand-edited file?)")


def read_jsonl(path: Path, label: Optional[str] = None) -> tuple[list[dict], list[Problem]]:
    """Parse a JSONL file line by line; bad lines become Problems and are skipped."""
    name = label or str(path)
    rows: list[dict] = []
    problems: list[Problem] = []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return [], [Problem(name, None, None, "file not found")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [], [Problem(name, None, None, f"not UTF-8 text (bad byte at offset {exc.start})")]
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(name, f"line {lineno}", None, f"invalid JSON: {exc.msg} at column {exc.colno}"))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(name, f"line {lineno}", None, f"expected a JSON object, got {type(row).__name__}"))
            continue
        rows.append(row)
    return rows, problems


def write_json(path: Path, value: Any) -> None:
    """Write JSON atomically (temp file then rename) so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def write_jsonl(path: Path, rows: list[dict]) -> None:
    """Write JSONL atomically, one object per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)
