"""A score report as the commands and the Runs tab give it: written as JSON (atomically) and printed as its
benchmark's paper table."""
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
    """The paper-style table of a report (the benchmark's scoring hook `format_table`), on stdout; the report's
    warnings on stderr."""
    from annotation import registry
    print(registry.get(benchmark).hook("scoring", "format_table")(report, model))
    for w in report.get("warnings", []) or []:
        print(f"warning: {w}", file=sys.stderr)
