"""Helpers shared by the ProactiveBench and InteractScope scorers: option checks, predictions keyed by id,
percentages, the terminal table, and the record and [start, end] checks of the validators."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from annotation.errors import Problem
from annotation.values import is_int, is_real

__all__ = ["check_options", "check_pair", "format_table", "index_predictions", "is_int", "is_real", "not_an_object",
           "pair_problem", "pct", "record_id", "round1"]

Predictions = Union[Iterable[Mapping], Mapping[str, Mapping], None]


def index_predictions(predictions: Predictions, known: set, id_key: str, noun: str,
                      warnings: list[str]) -> tuple[dict[str, Mapping], list[str]]:
    """(predictions keyed by `id_key`, sorted known ids without one); unknown and duplicate ids are dropped
    with a warning, and one more warning counts the missing, which are scored as silent."""
    if predictions is None:
        pairs = []
    elif isinstance(predictions, Mapping):
        pairs = [(str(k), v) for k, v in predictions.items()]
    else:
        pairs = [(str(p.get(id_key)), p) for p in predictions]
    out: dict[str, Mapping] = {}
    for pid, pred in pairs:
        if pid not in known:
            warnings.append(f"prediction for unknown {id_key} {pid!r} ignored")
        elif pid in out:
            warnings.append(f"duplicate prediction for {id_key} {pid!r}: the first one is kept")
        else:
            out[pid] = pred
    missing = sorted(known - set(out))
    if missing:
        warnings.append(f"{len(missing)} {noun}(s) without a prediction scored as silent")
    return out, missing


def pct(num: int, den: int) -> Optional[float]:
    """num / den as a percentage; None when there is nothing to divide by."""
    return 100.0 * num / den if den else None


def round1(v: Optional[float]) -> Optional[float]:
    """A table cell: one decimal, None kept."""
    return None if v is None else round(v, 1)


def pair_problem(v: Any, file: str, iid: Optional[str], fld: str) -> Problem:
    """The error for a value that is not an [start, end] pair of times."""
    return Problem(file, iid, fld, f"expected [start, end] in seconds, got {v!r}")


def check_pair(v: Any, file: str, iid: Optional[str], fld: str, out: list[Problem],
               bounds_ok: Callable[[Sequence], bool]) -> bool:
    """A two-element [start, end] whose bounds pass `bounds_ok` (which reports its own problems) and whose
    start is not after its end; problems go to `out`."""
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        out.append(pair_problem(v, file, iid, fld))
        return False
    if not bounds_ok(v):
        return False
    if v[0] > v[1]:
        out.append(Problem(file, iid, fld, f"window start {v[0]} is after its end {v[1]}"))
        return False
    return True


def check_options(owner: str, checks: Mapping[str, tuple[Any, Sequence]]) -> None:
    """Raise ValueError naming `owner.field` for the first option whose value is not among its allowed ones."""
    for name, (value, allowed) in checks.items():
        if value not in allowed:
            raise ValueError(f"{owner}.{name}={value!r}: expected one of {allowed}")


def not_an_object(value: Any, file: str, what: str) -> Problem:
    """The error for a record (an item, interaction or prediction) that is not a JSON object."""
    return Problem(file, None, None, f"expected an object per {what}, got {type(value).__name__}")


def record_id(record: Mapping, file: str, key: str, out: list[Problem], missing: str,
              empty_is_missing: bool = False) -> Optional[str]:
    """The record's id as a string (None when absent); an absent (or, if asked, empty) id is an error."""
    iid = record.get(key)
    if iid is None or (empty_is_missing and iid == ""):
        out.append(Problem(file, None, key, missing))
    return None if iid is None else str(iid)


def format_table(table: Mapping[str, Any], columns: Sequence[str], model: str = "model") -> str:
    """Paper-style header and one row for the terminal: numbers with one decimal, text as is, None as '-'."""
    width = max(len(model), 5)
    cols = [(c, max(len(c), 5)) for c in columns]
    head = f"{'Model':<{width}} | " + " | ".join(f"{c:>{w}}" for c, w in cols)
    cells = []
    for c, w in cols:
        v = table.get(c)
        text = "-" if v is None else (v if isinstance(v, str) else f"{v:.1f}")
        cells.append(f"{text:>{w}}")
    return f"{head}\n{'-' * len(head)}\n{model:<{width}} | " + " | ".join(cells)
