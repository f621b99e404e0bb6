"""`python app.py score <benchmark> …`: load a dataset and a prediction file, score, write JSON, print the table."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any, Optional


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
    """The report as compact JSON, written atomically; `python -m json.tool` pretty-prints it. Encoded by ujson:
    3x faster than json's C encoder on a 1,060-item report (2.6 vs 7.7 ms, most of it spelling 17,000 floats), for
    2.8 ms of import; the same values as json writes (shortest round-trip floats, big integers, keys as json spells
    them), compact separators."""
    if out:
        import ujson

        from annotation.jsonio import write_text_atomic

        def encode(value: Any, allow_nan: bool) -> str:
            return ujson.dumps(value, ensure_ascii=False, escape_forward_slashes=False, allow_nan=allow_nan) + "\n"
        try:  # the common case has no infinity: skip the walk that spells it "inf"
            text = encode(report, allow_nan=False)
        except OverflowError:  # ujson's refusal of an infinity or NaN
            value = _finite(report)
            conf = (report.get("aggregate") or {}).get("config") if isinstance(report.get("aggregate"), dict) \
                else None
            if isinstance(conf, dict) and isinstance(conf.get("pre_tol_s"), float):
                value["aggregate"]["config"]["pre_tol_s"] = conf["pre_tol_s"]  # the reference writes inf as Infinity
            text = encode(value, allow_nan=True)
        write_text_atomic(Path(out), text, mkdir=False)
        print(f"wrote {out}", file=sys.stderr)


def print_table(benchmark: str, report: dict, model: str = "model") -> None:
    """The paper-style table of a report, on stdout."""
    if benchmark == "interactionbench":
        from scoring.interactionbench.scorer import format_table
        print(format_table(report))
    elif benchmark == "omniinteract":
        from scoring.omniinteract import format_table
        print(format_table(report["summary"]))
    elif benchmark == "proactivebench":
        from scoring.proactivebench.scorer import format_table
        print(format_table(report, model))
    else:
        from scoring.interactscope.scorer import format_table
        print(format_table(report, model))
    for w in report.get("warnings", []) or []:
        print(f"warning: {w}", file=sys.stderr)


def score_command(a) -> int:
    """`python app.py score <benchmark>`: check every argument and file first (runners.score_args), then score,
    write --out atomically and print the table."""
    import gc

    from runners.score_args import runs_a_model
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
