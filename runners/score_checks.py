"""What `score` checks before it scores, shared by every benchmark's score plan (runners/<benchmark>/score_plan.py):
the dataset (refused with errors unless --skip-invalid), the prediction file and its lines, predictions and --items
ids the dataset lacks (refused unless --skip-unknown), the judge. The result, a Plan, says which items are left out
and why, so the report can carry it, and scores inputs already known to be good."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from annotation.errors import Problem
from runners.checks import CliError, from_problem, input_file, read_id_list, usage

if TYPE_CHECKING:  # (InteractionBench scoring reads rows, never builds the data model)
    from annotation.dataset import Dataset


class Checked:
    """What the checks let through: bad items to leave out (with every problem that put them there) and the
    problems that were skipped or tolerated, for the report. (A plain class: `score` does not import
    dataclasses, whose import costs more than the rest of its start-up.)"""

    def __init__(self) -> None:
        self.left_out: set[str] = set()
        self.skipped: list = []  # Problem or CliError, printed and stored in the report

    def skip(self, problem: Problem, item: Optional[str] = None) -> None:
        self.skipped.append(problem)
        if item is not None:
            self.left_out.add(item)

    def lines(self) -> list[str]:
        """Each skipped problem in the one error format (without the `error:` prefix)."""
        return [str(from_problem(p) if isinstance(p, Problem) else p) for p in self.skipped]

    def report_block(self) -> Optional[dict]:
        if not self.skipped:
            return None
        return {"n_items_left_out": len(self.left_out), "items_left_out": sorted(self.left_out),
                "problems": self.lines()}


class DataView:
    """What the dataset check needs: the problems found and which file each item came from."""

    def __init__(self, benchmark: str, root: str, problems: list, item_file: dict) -> None:
        self.benchmark, self.root, self.problems = benchmark, root, problems
        self.item_file = item_file  # item id -> annotation file (as problems name it)

    @property
    def errors(self) -> list:
        return [p for p in self.problems if p.severity == "error"]

    def __contains__(self, item_id: str) -> bool:
        return item_id in self.item_file

    @classmethod
    def of(cls, ds: Dataset) -> "DataView":
        return cls(ds.benchmark, str(ds.root), list(ds.problems), {it.id: it.source_file for it in ds.items})


def dataset(ds, skip_invalid: bool, tolerate: bool, chk: Checked,
            hint: str = "--skip-invalid to leave those items out") -> None:
    """Refuse a dataset (a Dataset or DataView) with errors, naming the first one with the count, unless
    skipping (its items are left out) or tolerating (--as-reference: scored as the reference reads it)."""
    ds = ds if isinstance(ds, DataView) else DataView.of(ds)
    errors = ds.errors
    if not errors:
        if not ds.item_file:
            raise CliError("expected a dataset with items, found none", file=str(ds.root), field="--data")
        return
    if tolerate:
        chk.skipped.extend(errors)
        return
    if not skip_invalid:
        first = from_problem(errors[0])
        more = f" (and {len(errors) - 1} more error(s); see python app.py validate {ds.benchmark} {ds.root}," \
               f" or pass {hint})" if len(errors) > 1 else f" (pass {hint})"
        first.message += more
        raise first
    bad_files = {p.file for p in errors if p.item is None}
    for p in errors:
        chk.skip(p, p.item)
    for iid, f in ds.item_file.items():
        if f in bad_files:
            chk.left_out.add(iid)
    if all(i in chk.left_out for i in ds.item_file):
        raise CliError(f"expected at least one item without errors, found none of {len(ds.item_file)}",
                       file=str(ds.root), field="--skip-invalid")


def refuse_or_skip(p, item: Optional[str], skip: bool, chk: Checked, hint: str) -> None:
    """Raise the problem (a Problem or CliError) with a hint, or record it and leave `item` out."""
    if not skip:
        err = from_problem(p) if isinstance(p, Problem) else p
        err.message += f" ({hint})"
        raise err
    chk.skip(p, item)


def items(path: str, ds_ids, skip_unknown: bool, as_reference: bool, chk: Checked) -> tuple[str, ...]:
    """--items: ids the dataset lacks are an error unless --skip-unknown (or --as-reference)."""
    ids = read_id_list(path)
    unknown = [i for i in ids if i not in ds_ids]
    if unknown:
        if not (skip_unknown or as_reference):
            raise CliError(f"expected item ids of the dataset, found {len(unknown)} unknown: "
                           f"{', '.join(unknown[:3])}{' ...' if len(unknown) > 3 else ''} (pass --skip-unknown to "
                           "ignore them)", file=path, field="--items")
        for i in unknown:
            chk.skipped.append(Problem(path, i, "--items", "no such item in the dataset; ignored"))
    return ids


def show(v: Any) -> str:
    import json
    try:
        text = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


class Plan:
    """What the checks let through and the scoring still to run on it."""

    def __init__(self, checked: Checked, score: Callable[[], dict]) -> None:
        self.checked, self.score = checked, score


def runs_a_model(a) -> bool:
    """Whether `score` calls a model judge; lexical and stored-verdict judges (cache:, ensemble:, replay:) do not."""
    spec = (a.judge or "").strip().lower()
    return bool(spec) and spec != "lexical" and not spec.startswith(("cache:", "ensemble:", "replay:"))


def verdict_store(a):
    """The SQLite store that caches model-judge verdicts; lexical and stored-verdict judges need none."""
    if not runs_a_model(a):
        return None
    from annotation.store import Store
    return Store(a.db)


def usable_judge(build: Callable, spec: str):
    """`build()` (a judge from `spec`), its refusal as one data error naming --judge."""
    try:
        return build()
    except (ValueError, OSError) as exc:
        raise CliError(f"expected a usable judge, found: {exc}", file=spec, field="--judge") from None


def prediction_file(a) -> None:
    """--preds (or the positional file): given and readable."""
    if not a.preds:
        raise usage(f"score {a.benchmark} needs the prediction file", "--preds")
    input_file(a.preds, "--preds")


def jsonl_predictions(a, ds, check_predictions: Callable, chk: Checked) -> dict:
    """A one-line-per-item prediction file read and checked by the benchmark's writer's own reader
    (`check_predictions(path, ds) -> (predictions by item, problems)`): unknown items refused unless
    --skip-unknown (or --as-reference), bad lines unless --skip-invalid."""
    preds, problems = check_predictions(a.preds, ds)
    if not preds and not [p for p in problems if p.severity == "error"]:
        raise CliError("expected one prediction line per item, found none", file=a.preds, field="--preds")
    for p in problems:
        unknown = p.severity == "warning" and "in the dataset" in p.message
        if unknown:
            if not (a.skip_unknown or a.as_reference):
                raise CliError(f"expected an item of the dataset, found unknown item {p.item} (pass --skip-unknown "
                               "to ignore predictions for items not in the data)", file=p.file, field=p.field)
            chk.skipped.append(p)
            preds.pop(p.item, None)
        elif p.severity == "error":
            if not a.skip_invalid:
                err = from_problem(p)
                err.message += " (or pass --skip-invalid)"
                raise err
            chk.skip(p, p.item if p.item in ds else None)
    return preds

