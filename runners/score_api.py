"""`score` from Python: the same flags, loader, checks and scoring as `python app.py score`, returning the report
instead of writing it. What the reference tolerates is listed under the report's `warnings`; `strict=True`
raises the first as the command's one error (a CliError), as `--strict` does."""
from __future__ import annotations

from typing import Any, Optional


def score_files(benchmark: str, data: str, preds: Optional[str] = None, *, outputs: Optional[str] = None,
                **options: Any) -> dict:
    """The report of `python app.py score <benchmark> --data DATA [--preds PREDS] [--outputs DIR] …`: each
    keyword is a flag by its argparse name (delta=5.0, pre_tol="inf", use_gate=True, items="split.txt",
    mcq_key="key.jsonl", judge="cache:…", judge_cache_dir=…, reference_args="--w_ack 0.3", dry_run=True,
    strict=True, fixed=True, …); unset flags take the command's defaults."""
    import argparse

    from annotation import registry
    from runners.score_command import arguments, score_report
    if benchmark not in registry.names():
        raise ValueError(f"score_files: expected one of {', '.join(registry.names())}, found {benchmark!r}")
    parser = argparse.ArgumentParser(prog="python app.py score")
    arguments(parser)
    a = parser.parse_args([benchmark])  # every flag at the command's default
    unknown = sorted(set(options) - set(vars(a)) - {"flag_names"})
    if unknown:
        raise TypeError(f"score_files: unknown option(s) {', '.join(unknown)}")
    types = {x.dest: x.type for x in parser._actions if x.type is not None}
    for name, value in options.items():  # a value given as text is read as the command reads it (delta="inf")
        setattr(a, name, types[name](value) if isinstance(value, str) and name in types else value)
    a.data, a.preds, a.outputs = (None if v is None else str(v) for v in (data, preds, outputs))
    for name in ("items", "mcq_key", "judge_cache_dir"):
        if getattr(a, name) is not None and getattr(a, name) is not False:
            setattr(a, name, str(getattr(a, name)))
    return score_report(a)
