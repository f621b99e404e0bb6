"""What every command (and the studio's start) checks before any work, and the one error it refuses with:
`error: <file>[:<line>] <item> <field>: <expected, found>` with its exit code (2 usage, 1 data). Paths of the
right kind, output locations that can be written (the parent folder must already exist: nothing is created on a
guess), numbers in range, item lists, judge specs, the store. Library code: the CLI and the studio both call it."""
from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Optional

USAGE = 2  # the command line itself is wrong (unknown flag, bad value, impossible combination)
DATA = 1   # a file, dataset or store the command was pointed at is wrong


class CliError(Exception):
    """A refused command: where (file, line, item, field) and what was expected against what was found."""

    def __init__(self, message: str, file: Optional[str] = None, line: Optional[int] = None,
                 item: Optional[str] = None, field: Optional[str] = None, code: int = DATA):
        super().__init__(message)
        self.message, self.file, self.line, self.item, self.field, self.code = message, file, line, item, field, code

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"{self.file}:{self.line}" if self.line else str(self.file))
        if self.item is not None:
            where.append(str(self.item))
        if self.field is not None:
            where.append(str(self.field))
        text = " ".join(where + [""]).rstrip()
        return one_line(f"{text}: {self.message}" if text else self.message)


def usage(message: str, flag: Optional[str] = None) -> CliError:
    """A usage error (exit 2), e.g. usage("expected a positive integer, found -1", "--limit")."""
    return CliError(message, file=flag, code=USAGE)


_LINE_ITEM = r"^line (\d+)$"  # (compiled by re on first use: only a refusal needs it)


def from_problem(problem, code: int = DATA) -> CliError:
    """A loader/reader Problem (file, item, field, message) as a CliError; an item 'line N' becomes file:N."""
    line, item = None, problem.item
    m = re.match(_LINE_ITEM, str(item or ""))
    if m:
        line, item = int(m.group(1)), None
    return CliError(problem.message, file=problem.file, line=line, item=item, field=problem.field, code=code)


def one_line(text: str) -> str:
    """Collapse a message onto one line (a refused command prints exactly one)."""
    return " ".join(str(text).split())


def _kind(p: Path) -> str:
    if p.is_dir():
        return "a folder"
    if p.is_file():
        return "a file"
    return "nothing" if not p.exists() else "a special file"


def input_file(path: str, flag: str) -> Path:
    """An existing, readable regular file."""
    p = Path(path)
    if not p.is_file():
        raise CliError(f"expected an existing file, found {_kind(p)}", file=path, field=flag, code=DATA)
    if not os.access(p, os.R_OK):
        raise CliError("expected a readable file, found one without read permission", file=path, field=flag)
    return p


def input_dir(path: str, flag: str) -> Path:
    """An existing folder."""
    p = Path(path)
    if not p.is_dir():
        raise CliError(f"expected an existing folder, found {_kind(p)}", file=path, field=flag, code=DATA)
    return p


def output_file(path: Optional[str], flag: str = "--out") -> Optional[Path]:
    """Where a file will be written: not a folder, its parent an existing writable folder (never created)."""
    if path is None:
        return None
    p = Path(path)
    if p.is_dir():
        raise CliError("expected a file name to write, found an existing folder", file=path, field=flag, code=USAGE)
    if p.exists() and not p.is_file():
        raise CliError("expected a file name to write, found a special file", file=path, field=flag, code=USAGE)
    _writable_parent(p, path, flag)
    return p


def output_dir(path: Optional[str], flag: str = "--out") -> Optional[Path]:
    """A folder that will be written into: an existing folder, or a new one whose parent exists (never created
    deeper than one level)."""
    if path is None:
        return None
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise CliError(f"expected a folder to write into, found {_kind(p)}", file=path, field=flag, code=USAGE)
    if p.is_dir():
        if not os.access(p, os.W_OK | os.X_OK):
            raise CliError("expected a writable folder, found one without write permission", file=path, field=flag)
        return p
    _writable_parent(p, path, flag)
    return p


def _writable_parent(p: Path, path: str, flag: str) -> None:
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise CliError(f"expected its parent folder {parent} to exist, found {_kind(parent)} (create it first)",
                       file=path, field=flag, code=USAGE)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"expected a writable parent folder, found {parent} without write permission",
                       file=path, field=flag)


def positive_int(value: Optional[int], flag: str) -> Optional[int]:
    if value is not None and value < 1:
        raise usage(f"expected a positive integer, found {value}", flag)
    return value


def positive_float(value: Optional[float], flag: str, allow_zero: bool = False) -> Optional[float]:
    if value is None:
        return None
    ok = math.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        want = "a finite number >= 0" if allow_zero else "a finite number > 0"
        raise usage(f"expected {want}, found {value}", flag)
    return value


def read_id_list(path: str, flag: str = "--items", allow_empty: bool = False) -> tuple[str, ...]:
    """Item ids of a split file, one per line (blank lines and # comments skipped); UTF-8 required; none is an
    error unless `allow_empty`."""
    p = input_file(path, flag)
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CliError(f"expected UTF-8 text, found byte 0x{raw[exc.start]:02x}", file=path, line=line,
                       field=flag) from None
    ids = tuple(s.strip() for s in text.splitlines() if s.strip() and not s.strip().startswith("#"))
    if not ids and not allow_empty:
        raise CliError("expected item ids, one per line, found none", file=path, field=flag)
    return ids


def judge_spec(spec: Optional[str], flag: str = "--judge") -> Optional[str]:
    """A judge spec that parses, and whose stored-verdict files (cache:<glob>) are readable JSONL files."""
    if spec is None:
        return None
    text = spec.strip()
    if not text:
        raise usage("expected a judge spec, found an empty string", flag)
    kind = text.split(":", 1)[0].strip().lower()
    if kind in ("replay",):
        input_file(text.split(":", 1)[1] if ":" in text else "", flag)
        return text
    if kind in ("none", "nojudge"):
        return text
    from scoring.judges.spec import parse_judge_spec
    try:
        parse_judge_spec(text)
    except ValueError as exc:
        raise usage(str(exc), flag) from None
    if kind == "cache":
        import glob
        for pattern in (x.strip() for x in text.split(":", 1)[1].split(",")):
            matches = sorted(glob.glob(os.path.expanduser(pattern))) or \
                ([pattern] if os.path.isfile(pattern) else [])
            if not matches:
                raise CliError("expected verdict files (JSONL), found no file matching", file=pattern, field=flag)
            for m in matches:
                _verdict_file(m, flag)
    return text


def _verdict_file(path: str, flag: str) -> None:
    from annotation.jsonio import read_jsonl_lines
    if not Path(path).is_file():
        raise CliError(f"expected a verdict file (JSONL), found {_kind(Path(path))}", file=path, field=flag)
    rows, problems = read_jsonl_lines(Path(path), path, objects_only=True)
    if problems:
        raise from_problem(problems[0])
    for lineno, row in rows:
        if "k" not in row or "s" not in row:
            raise CliError('expected a verdict object {"k", "s"}, found keys ' + ", ".join(map(str, row)) or "none",
                           file=path, line=lineno, field=flag)


def check_db(path: str, create: bool = False, flag: str = "--db") -> str:
    """--db: an existing store (or, for verbs that create one, a new file whose parent exists); a folder, a
    file that is not SQLite or a newer schema is refused before anything is opened for writing."""
    from annotation.store_check import StoreError, check_store_path
    try:
        check_store_path(path, create)
    except StoreError as exc:
        raise CliError(str(exc), file=path, field=flag, code=DATA) from None
    return path
