"""`python app.py run …`: a batch evaluation in the foreground with a tqdm bar, checked before anything exists
(runners.run_checks); the Runs tab starts the same runs through runners.run_plan."""
from __future__ import annotations

import json
import signal
import sys

from runners.cli.common import benchmarks


def main(argv: list[str], p) -> int:
    p.add_argument("--benchmark", required=True, choices=benchmarks())
    p.add_argument("--model", required=True, help="openai:<model>@<base_url>[,<base_url>...] | realtime:<ws url>[,<ws url>...] | "
                                                  "hf:<path> | plugin:<module>:<Class> | "
                                                  "baseline:<silent|always|periodic[:N]|motion> (several URLs: an "
                                                  "endpoint pool, docs/scale.md)")
    p.add_argument("--data", help="dataset folder (default: the embedded demo)")
    p.add_argument("--protocol", help="default: the benchmark's paper protocol")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="protocol option, e.g. interval=1.0 sample_fps=2 max_frames=16 (repeatable)")
    p.add_argument("--backend-option", dest="backend_option", action="append", default=[], metavar="KEY=VALUE",
                   help="model backend option, e.g. api_key_env=OPENAI_API_KEY (the variable's NAME, never the key), "
                        "timeout=60, retries=3, concurrency=4, max_tokens=96, device=cpu, dtype=float32 (repeatable)")
    p.add_argument("--limit", type=int, help="only the first N items")
    p.add_argument("--items", help="file with one item id per line (a split)")
    p.add_argument("--concurrency", type=int, default=1, help="items in flight at once (HTTP backends)")
    p.add_argument("--timing", choices=("decision", "arrival"), default="decision",
                   help="decision: a reply counts at its tick (the published protocol); arrival: at tick + the "
                        "model's latency, ticks that come due during a call are skipped (as live)")
    p.add_argument("--on-error", dest="on_error", choices=("exclude", "silence", "fail"), default="exclude",
                   help="items with failed model calls: exclude (left out and counted), silence (scored as "
                        "silent), fail (no score; resume to retry)")
    p.add_argument("--judge", help="content judge spec for scoring (default: the benchmark's reference judge)")
    p.add_argument("--db", default="ibench.sqlite")
    p.add_argument("--out", help="folder for report.json and the native prediction files (its parent must exist)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the items as Ray tasks on the cluster at ADDRESS "
                   "(HOST:PORT, ray://HOST:PORT, auto), or `local` to start a Ray instance here (docs/scale.md)")
    p.add_argument("--ray-media", dest="ray_media", choices=("shared", "ship"),
                   help="with --ray: workers open the media at its own paths (shared: a filesystem every node sees; "
                        "the default) or get it shipped through Ray's object store (ship)")
    p.add_argument("--skip-invalid", dest="skip_invalid", action="store_true",
                   help="leave out items whose annotation or media has problems (listed and stored in the report) "
                        "instead of refusing")
    p.add_argument("--skip-unknown", dest="skip_unknown", action="store_true",
                   help="ignore --items ids that are not in the data instead of refusing")
    a = p.parse_args(argv)

    from dataclasses import replace

    from tqdm import tqdm

    from annotation.store import Store
    from runners.batch import BatchRunner
    from runners.run_checks import check_run_args, guarded_run, load_checked_backend
    from runners.run_health import RunFailed, format_health
    from runners.score_report import print_table
    options, backend_options = parse_options(a.option), parse_options(getattr(a, "backend_option", []) or [])
    plan = check_run_args(a, options, backend_options)  # nothing exists yet; refusals leave nothing behind
    spec, backend = load_checked_backend(a, options, backend_options, plan)
    executor = ray_executor(a, backend_options) if getattr(a, "ray", None) else None
    # --timing decides what is scored (part of the run's identity); --on-error only how stored calls are scored
    spec = replace(spec, timing=getattr(a, "timing", None) or "decision",
                   on_error=getattr(a, "on_error", None) or "exclude")
    protocol, options = spec.protocol, spec.options
    store = Store(a.db)
    bar = tqdm(total=None, unit="call", desc=f"{a.benchmark} {a.model}", file=sys.stderr)

    def call_progress(progress: dict) -> None:
        """Per model call: calls done/total, items done, the item and media time of the last call."""
        if progress.get("calls_total") is not None:
            bar.total = progress["calls_total"]
        bar.n = progress["calls_done"]
        at = progress.get("item") and progress.get("t") is not None
        where = f"{progress['item']} t={progress['t']:.1f}s" if at else ""
        bar.set_postfix_str(f"items {progress['items_done']}/{progress['items_total']} {where}"
                            + (f" | {progress['waiting']}" if progress.get("waiting") else ""), refresh=False)
        if progress.get("waiting"):
            bar.refresh()  # a wait is news at once
        else:
            bar.update(0)  # redraws at most every mininterval

    if options:
        print(f"protocol {protocol} with options {options}", file=sys.stderr)
    runner = BatchRunner(store, spec, out_dir=a.out, concurrency=a.concurrency, backend=backend,
                         on_call_progress=call_progress, executor=executor,
                         on_progress=lambda done, total: call_progress(dict(runner.progress)))
    previous = {sig: signal.signal(sig, lambda *_: runner.cancel())  # a kill ends the run `cancelled`
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        report = guarded_run(runner, store, plan, a.out)
    except RunFailed as exc:  # every call failed, or --on-error fail met a failed call: one line, no traceback
        bar.close()
        print(f"error: run {runner.run_id}: {exc}", file=sys.stderr)
        return 1
    finally:
        bar.close()  # ends the bar's line, so an error after it is a line of its own
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if report.get("status") == "cancelled":
        print(f"cancelled after {report['n_done']}/{report['n_total']} items; run again to resume ({runner.run_id})")
        return 130
    print(f"run {runner.run_id}: {len(store.run_items(runner.run_id))} items")
    print_table(a.benchmark, report, a.model)
    print(format_health(report["run_health"]))
    if a.out:
        print(f"report and native predictions in {a.out}")
    return 0


def ray_executor(a, backend_options: dict):
    """Join the cluster before the run row exists (a cluster that cannot be reached is one error line)."""
    from runners.ray_run import RayExecutor, join
    join(a.ray)
    return RayExecutor(media=a.ray_media or "shared", resources=backend_options)


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
