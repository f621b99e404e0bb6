"""`python app.py run …`: a batch evaluation in the foreground with a tqdm bar (the UI uses BatchRunner directly)."""
from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Optional

from annotation.loaders import demo_dir
from annotation.store import Store
from runners.batch import BatchRunner, RunSpec


def parse_options(pairs: list[str]) -> dict:
    """KEY=VALUE pairs; values parsed as JSON when they are (numbers, true/false), else kept as text."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {pair!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


TUNABLE_PROTOCOLS = ("sliding", "cumulative", "interleaved", "blind")


def resolve_options(protocol: str, options: dict, backend) -> dict:
    """Explicit options win. Without any, a backend's `protocol_hints` (e.g. the motion baseline's denser ticks)
    apply to InteractionBench's polling protocols only; the fixed 1-s protocols keep their paper timing. The
    result is stored with the run, so what was scored is always on record."""
    if options or protocol not in TUNABLE_PROTOCOLS:
        return options
    return dict(getattr(backend, "protocol_hints", {}) or {})


def read_item_list(path: str) -> tuple[str, ...]:
    ids = tuple(line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()
                and not line.startswith("#"))
    if not ids:
        raise ValueError(f"{path}: no item ids (one per line expected)")
    return ids


def prepare_run(benchmark: str, model: str, data_dir=None, protocol: Optional[str] = None,
                options: Optional[dict] = None, backend_options: Optional[dict] = None,
                items: Optional[tuple[str, ...]] = None, limit: Optional[int] = None,
                judge: Optional[str] = None, timing: str = "decision", on_error: str = "exclude"):
    """The RunSpec and loaded backend for a run request, the same from the CLI and the Runs tab, so a run
    started in one resumes from the other (the data folder is resolved, the paper protocol is the default)."""
    from runners.backends import load_backend
    from runners.protocols import DEFAULT_FOR_BENCHMARK
    from runners.protocols.base import TIMINGS
    from runners.run_health import ON_ERROR
    if timing not in TIMINGS:
        raise ValueError(f"--timing must be one of {', '.join(TIMINGS)}, got {timing!r}")
    if on_error not in ON_ERROR:
        raise ValueError(f"--on-error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
    backend_options = dict(backend_options or {})
    backend = load_backend(model, **backend_options)
    protocol = protocol or DEFAULT_FOR_BENCHMARK[benchmark]
    spec = RunSpec(benchmark=benchmark, model=model,
                   data_dir=str(Path(data_dir).resolve()) if data_dir else str(demo_dir(benchmark)),
                   protocol=protocol, options=resolve_options(protocol, dict(options or {}), backend),
                   items=items, limit=limit, judge=judge, backend_options=backend_options, timing=timing,
                   on_error=on_error)
    return spec, backend


def run_command(a) -> int:
    from tqdm import tqdm

    from runners.run_health import RunFailed, format_health

    spec, backend = prepare_run(a.benchmark, a.model, a.data, a.protocol, parse_options(a.option),
                                parse_options(getattr(a, "backend_option", []) or []),
                                read_item_list(a.items) if a.items else None, a.limit, a.judge,
                                timing=getattr(a, "timing", None) or "decision",
                                on_error=getattr(a, "on_error", None) or "exclude")
    protocol, options = spec.protocol, spec.options
    store = Store(a.db)
    bar = tqdm(total=None, unit="call", desc=f"{a.benchmark} {a.model}", file=sys.stderr)

    def call_progress(p: dict) -> None:
        """Per model call: calls done/total, items done, the item and media time of the last call."""
        if p.get("calls_total") is not None:
            bar.total = p["calls_total"]
        bar.n = p["calls_done"]
        where = f"{p['item']} t={p['t']:.1f}s" if p.get("item") and p.get("t") is not None else ""
        bar.set_postfix_str(f"items {p['items_done']}/{p['items_total']} {where}"
                            + (f" | {p['waiting']}" if p.get("waiting") else ""), refresh=False)
        if p.get("waiting"):
            bar.refresh()  # a wait is news at once
        else:
            bar.update(0)  # redraws at most every mininterval

    if options:
        print(f"protocol {protocol} with options {options}", file=sys.stderr)
    runner = BatchRunner(store, spec, out_dir=a.out, concurrency=a.concurrency, backend=backend,
                         on_call_progress=call_progress,
                         on_progress=lambda done, total: call_progress(dict(runner.progress)))
    signal.signal(signal.SIGINT, lambda *_: runner.cancel())
    try:
        report = runner.run()
    except RunFailed as exc:
        bar.close()
        print(f"error: run {runner.run_id}: {exc}", file=sys.stderr)
        return 1
    bar.close()
    if report.get("status") == "cancelled":
        print(f"cancelled after {report['n_done']}/{report['n_total']} items; run again to resume ({runner.run_id})")
        return 130
    from runners.score_cmd import print_table
    print(f"run {runner.run_id}: {len(store.run_items(runner.run_id))} items")
    print_table(a.benchmark, report, a.model)
    print(format_health(report["run_health"]))
    if a.out:
        print(f"report and native predictions in {a.out}")
    return 0
