"""`python app.py score <benchmark> …`: load a dataset and a prediction file, score, write JSON, print the table."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Iterator, Optional



def _finite(v):
    """JSON has no infinity: write it as the string "inf", as the golden files do."""
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_finite(x) for x in v]
    return v


def write_report(report: dict, out: Optional[str]) -> None:
    """The report as compact JSON (json's C encoder: several times faster than an indented dump on 1,000+
    items), written atomically; `python -m json.tool` pretty-prints it."""
    if out:
        from annotation.jsonio import write_text_atomic
        try:  # the common case has no infinity: skip the walk that spells it "inf"
            write_text_atomic(Path(out), json_pieces(report, allow_nan=False), mkdir=False)
        except ValueError:
            value = _finite(report)
            conf = (report.get("aggregate") or {}).get("config") if isinstance(report.get("aggregate"), dict) \
                else None
            if isinstance(conf, dict) and isinstance(conf.get("pre_tol_s"), float):
                value["aggregate"]["config"]["pre_tol_s"] = conf["pre_tol_s"]  # the reference writes inf as Infinity
            write_text_atomic(Path(out), json_pieces(value), mkdir=False)
        print(f"wrote {out}", file=sys.stderr)


_BATCH = 128  # list elements / dict entries encoded per json call when writing a report


def json_pieces(value: Any, allow_nan: bool = True) -> Iterator[str]:
    """`json.dumps(value, ensure_ascii=False) + "\n"` in pieces: each top-level entry, a long list or dict inside it
    128 elements at a time (json's encoding of a slice, brackets dropped). The same text, without holding the
    fragments of a whole report's encoding at once: their ~5 MB of fresh pages cost more than the encoding."""
    import json
    from itertools import islice
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=allow_nan, check_circular=False).encode  # trees

    def pieces(v: Any) -> Iterator[str]:
        if type(v) is list and len(v) > _BATCH:
            yield "["
            for i in range(0, len(v), _BATCH):
                yield (", " if i else "") + encode(v[i:i + _BATCH])[1:-1]
            yield "]"
        elif type(v) is dict and len(v) > _BATCH and all(type(k) is str for k in v):
            yield "{"
            entries, sep = iter(v.items()), ""
            while batch := dict(islice(entries, _BATCH)):
                yield sep + encode(batch)[1:-1]
                sep = ", "
            yield "}"
        else:
            yield encode(v)

    if type(value) is dict and value and all(type(k) is str for k in value):
        sep = "{"
        for k, v in value.items():
            yield sep + encode(k) + ": "
            yield from pieces(v)
            sep = ", "
        yield "}\n"
    else:
        yield encode(value) + "\n"


def print_table(benchmark: str, report: dict, model: str = "model") -> None:
    """The paper-style table of a report, on stdout."""
    if benchmark == "interactionbench":
        from scoring.interactionbench import format_table
        print(format_table(report))
    elif benchmark == "omniinteract":
        from scoring.omniinteract import format_table
        print(format_table(report["summary"]))
    elif benchmark == "proactivebench":
        from scoring.proactivebench import format_table
        print(format_table(report, model))
    else:
        from scoring.interactscope import format_table
        print(format_table(report, model))
    for w in report.get("warnings", []) or []:
        print(f"warning: {w}", file=sys.stderr)


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


def score_command(a) -> int:
    """`python app.py score <benchmark>`: check every argument and file first (runners.score_args), then score,
    write --out atomically and print the table."""
    import gc
    # Without a model, score builds a few hundred thousand objects (parsed files, records) that hold no reference
    # cycles: the cyclic collector's passes over that growing heap find nothing and cost ~2 ms of a 100 ms
    # command. It is paused for the command (and resumed after, for a caller in the same process); a model
    # judge's clients may hold cycles, so with one it keeps running.
    paused = gc.isenabled() and not runs_a_model(a)
    if paused:
        gc.disable()
    try:
        return _score(a)
    finally:
        if paused:
            gc.enable()


def _score(a) -> int:
    from runners.score_args import check_score_args
    plan = check_score_args(a)
    report = plan.score()
    block = plan.checked.report_block()
    if block is not None:
        report["skipped"] = block
        for line in plan.checked.lines():
            print(f"warning: skipped {line}", file=sys.stderr)
        if plan.checked.left_out:
            print(f"warning: {len(plan.checked.left_out)} item(s) left out of the score", file=sys.stderr)
    write_report(report, a.out)
    print_table(a.benchmark, report, a.model_name or Path(a.preds or a.outputs).stem)
    return 0


def _tol(v: str) -> float:
    if str(v).lower() in ("inf", "infinity"):
        return float("inf")
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"--pre-tol {v!r}: expected seconds or 'inf'") from None


def _demo(benchmark: str) -> Path:
    from annotation.loaders import demo_dir
    return demo_dir(benchmark)
