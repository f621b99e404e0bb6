"""Validation problems that name the file, the item and the field, and say what was expected."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file."""
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
