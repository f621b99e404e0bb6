"""Validation problems that name the file, the item and the field, and say what was expected."""
from __future__ import annotations

from typing import NamedTuple, Optional


class Problem(NamedTuple):
    """One thing wrong with an input file. (Immutable and typed as a NamedTuple rather than a frozen dataclass:
    every command imports it, and `score` starts faster without importing dataclasses.)"""
    file: str
    item: Optional[str]
    field: Optional[str]
    message: str
    severity: str = "error"  # error | warning

    def __str__(self) -> str:
        where = self.file
        if self.item is not None:
            where += f" item {self.item}"
        if self.field is not None:
            where += f" field '{self.field}'"
        return f"{self.severity}: {where}: {self.message}"


class DatasetError(ValueError):
    """Raised when a dataset has errors; carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        head = "\n".join(str(p) for p in errors[:20])
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"{len(errors)} problem(s) in dataset:\n{head}{more}")


class PathEscapeError(ValueError):
    """A user- or dataset-supplied path that resolves outside its data root."""
