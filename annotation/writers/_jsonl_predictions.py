"""The shared shape of one-line-per-record prediction files (ProactiveBench `preds.jsonl`, InteractScope
`responses.jsonl`): every row checked before writing, rows keyed by id on reading, coverage of a Dataset."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from annotation.dataset import Dataset
from annotation.jsonio import write_jsonl
from annotation.loaders._common import Problems, raise_if_errors, read_jsonl

# check_row(row, file name, line number, problems) -> True when the row has no errors
CheckRow = Callable[[Any, str, int, Problems], bool]


def write_rows(path: str | Path, rows: list[dict], default_file: str, check_row: CheckRow) -> Path:
    """Check every row, then write them (a path not ending in .jsonl is a folder that gets `default_file`)."""
    path = Path(path)
    if path.suffix != ".jsonl":
        path = path / default_file
    problems = Problems()
    for i, row in enumerate(rows):
        check_row(row, str(path), i + 1, problems)
    raise_if_errors(problems)
    write_jsonl(path, rows)
    return path


def read_rows(path: str | Path, default_file: str, id_key: str, check_row: CheckRow,
              duplicate: str) -> tuple[str, dict[str, dict], Problems]:
    """(file name, {id: row}, problems) of a prediction file (a folder holds `default_file`); rows with
    errors are left out, a repeated id is an error worded `<duplicate> at line N` and the first row is kept."""
    path = Path(path)
    if path.is_dir():
        path = path / default_file
    name = str(path)
    problems = Problems()
    rows: dict[str, dict] = {}
    for lineno, row in read_jsonl(path, name, problems):
        if not check_row(row, name, lineno, problems):
            continue
        iid = row[id_key]
        if iid in rows:
            problems.error(name, iid, id_key, f"{duplicate} at line {lineno}")
            continue
        rows[iid] = row
    return name, rows, problems


def check_coverage(name: str, preds: Mapping[str, Any], dataset: Dataset, id_key: str, noun: str, missing: str,
                   problems: Problems, check_known: Optional[Callable[[str], None]] = None) -> None:
    """Warn about predicted ids the dataset lacks (`check_known(id)` runs for the others) and about dataset
    items without a prediction (`missing` says how they are scored)."""
    for iid in preds:
        if iid not in dataset:
            problems.warn(name, iid, id_key, f"no such {noun} in the dataset")
        elif check_known is not None:
            check_known(iid)
    for it in dataset.items:
        if it.id not in preds:
            problems.warn(name, it.id, None, missing)


def row_label(row: Any, id_key: str, lineno: int) -> str:
    """How problems name a row: its id when that is a non-empty string, else `line N`."""
    ok = isinstance(row, dict) and isinstance(row.get(id_key), str) and row[id_key]
    return row[id_key] if ok else f"line {lineno}"
