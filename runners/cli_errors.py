"""The command line's one error format: `error: <file>[:<line>] <item> <field>: <expected, found>`, with the
exit code that goes with it (2 usage, 1 data). Raised by the checks that run before any work starts."""
from __future__ import annotations

import re
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
