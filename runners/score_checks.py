"""What `score` checks before it scores, shared by every benchmark's score plan (runners/<benchmark>/score_plan.py):
the dataset, the prediction file and its lines, predictions and --items ids the dataset lacks, the judge. What the
reference scorer reads without crashing is a warning (grouped by kind; `--strict` refuses the first), what it
cannot score is an error; --skip-invalid / --skip-unknown leave such items or lines out instead. The result, a
Plan, says which items are left out and what was tolerated, so the report can carry it, and scores the inputs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Union

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
        self.warned: dict[str, list] = {}  # kind -> every tolerated Problem or CliError of that kind, in order

    def warn(self, kind: str, problem) -> None:
        """A problem the reference scorer reads without crashing: scored as it scores it, counted under `kind`."""
        self.warned.setdefault(kind, []).append(problem)

    def warnings(self) -> list[str]:
        """One line per kind: the kind, its count and the first problem (file, item, field: message)."""
        return [f"{kind}: {len(ps)} time(s), first {_line(ps[0])}" for kind, ps in self.warned.items()]

    def strict_error(self) -> CliError:
        """--strict: the first warning as the one error line, with the count of the rest."""
        kinds = list(self.warned.values())
        first = kinds[0][0]
        err = from_problem(first) if isinstance(first, Problem) else first
        n = sum(map(len, kinds))
        err.message += f" (--strict: {n} warning(s) of {len(kinds)} kind(s); without --strict it is scored as " \
                       "the reference scores it)"
        return err

    def skip(self, problem: Problem, item: Optional[str] = None) -> None:
        self.skipped.append(problem)
        if item is not None:
            self.left_out.add(item)

    def lines(self) -> list[str]:
        """Each skipped problem in the one error format (without the `error:` prefix)."""
        return [_line(p) for p in self.skipped]

    def report_block(self) -> Optional[dict]:
        if not self.skipped:
            return None
        return {"n_items_left_out": len(self.left_out), "items_left_out": sorted(self.left_out),
                "problems": self.lines()}


def _line(p) -> str:
    """A Problem or CliError in the one error format (without the `error:` prefix)."""
    return str(from_problem(p) if isinstance(p, Problem) else p)


def data_kind(p) -> str:
    """A dataset problem's warning kind: "annotation <field>" with list indices dropped (answers[].time_s)."""
    import re
    field = re.sub(r"\[\d+\]", "[]", str(getattr(p, "field", None) or "file")).lstrip(".")
    return f"annotation {field}"


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


def dataset(ds, skip_invalid: bool, tolerate: Union[bool, Callable[[Problem], bool]], chk: Checked,
            hint: str = "--skip-invalid to leave those items out") -> None:
    """A dataset (a Dataset or DataView) with problems. Its warnings are warnings. Its errors are tolerated when
    `tolerate` says so (True, or a function saying which problems the reference reads without crashing): scored
    as the reference reads them, each a warning. The rest are refused, or with --skip-invalid their items left
    out."""
    ds = ds if isinstance(ds, DataView) else DataView.of(ds)
    for p in ds.problems:
        if p.severity != "error":  # what validate lists as a warning: scored, and refused by --strict
            chk.warn(data_kind(p), p)
    errors = ds.errors
    if tolerate and not skip_invalid:
        reads = tolerate if callable(tolerate) else (lambda p: True)
        for p in errors:
            if reads(p):
                chk.warn(data_kind(p), p)
        errors = [p for p in errors if not reads(p)]
        if not errors:
            return
    if not errors:
        if not ds.item_file:
            raise CliError("expected a dataset with items, found none", file=str(ds.root), field="--data")
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


def items(path: str, ds_ids, skip_unknown: bool, as_reference: bool, chk: Checked,
          allow_empty: bool = False) -> tuple[str, ...]:
    """--items: ids the dataset lacks are ignored as the reference ignores them (a warning; --skip-unknown lists
    them under skipped); an empty list scores no item (n_items 0) where the reference does (`allow_empty`)."""
    ids = read_id_list(path, allow_empty=allow_empty)
    if not ids:
        chk.warn("empty --items list", Problem(path, None, "--items", "no item ids: no item is scored (n_items 0)"))
    unknown = [i for i in ids if i not in ds_ids]
    if unknown:
        if not (skip_unknown or as_reference):
            raise CliError(f"expected item ids of the dataset, found {len(unknown)} unknown: "
                           f"{', '.join(unknown[:3])}{' ...' if len(unknown) > 3 else ''} (pass --skip-unknown to "
                           "ignore them)", file=path, field="--items")
        for i in unknown:
            p = Problem(path, i, "--items", "no such item in the dataset; ignored")
            if skip_unknown:
                chk.skipped.append(p)
            else:
                chk.warn("unknown --items id", p)
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
    --skip-unknown (or, by default, ignored with a warning as the reference ignores them), bad lines unless
    --skip-invalid."""
    preds, problems = check_predictions(a.preds, ds)
    if not preds and not [p for p in problems if p.severity == "error"]:
        raise CliError("expected one prediction line per item, found none", file=a.preds, field="--preds")
    for p in problems:
        unknown = p.severity == "warning" and "in the dataset" in p.message
        if unknown:
            if not (a.skip_unknown or a.as_reference):
                raise CliError(f"expected an item of the dataset, found unknown item {p.item} (pass --skip-unknown "
                               "to ignore predictions for items not in the data)", file=p.file, field=p.field)
            if a.skip_unknown:
                chk.skipped.append(p)
            else:
                chk.warn("prediction for an unknown item", p)
            preds.pop(p.item, None)
        elif p.severity == "error":
            if not a.skip_invalid:
                err = from_problem(p)
                err.message += " (or pass --skip-invalid)"
                raise err
            chk.skip(p, p.item if p.item in ds else None)
    return preds

