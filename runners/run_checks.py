"""Everything `run` checks before a run row, a folder or a model call exists: counts and limits, the store,
the output folder, protocol options (known names, types and ranges), backend options, the judge, the model
spec, the item list and every selected item's media. A refused run leaves nothing behind."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

from runners import checks
from runners.checks import CliError, usage

# protocol option -> (kind, allow None); kinds: "pos_float", "pos_int", "bool", "str"
PROTOCOL_OPTIONS = {
    "interval": ("pos_float", False), "a_window": ("pos_float", False), "sample_fps": ("pos_float", False),
    "context_s": ("pos_float", True), "max_frames": ("pos_int", False), "max_new_per_turn": ("pos_int", False),
    "max_new_tokens": ("pos_int", False), "max_long_side": ("pos_int", True), "audio_rate": ("pos_int", False),
    "max_audio_chunks": ("pos_int", False), "blind": ("bool", False), "hint_set": ("str", False),
}
BACKEND_NUMBERS = {"timeout", "retries", "concurrency", "max_tokens", "period", "max_new_tokens", "endpoint_cooldown",
                   "num_cpus", "num_gpus"}
# retries=0: one attempt per call, no retry (issue 12's fault tests use it); num_cpus=0: an HTTP item needs no core
BACKEND_COUNTS_FROM_ZERO = {"retries", "num_cpus", "num_gpus"}
RAY_ADDRESS = r"^(local|auto|(ray://)?[A-Za-z0-9.\-]+:[0-9]{1,5})$"


@dataclass
class RunPlan:
    """The checked inputs: item ids to run (None: the dataset's own order), problems skipped with --skip-invalid."""
    items: Optional[tuple[str, ...]]
    given: Optional[tuple[str, ...]] = None  # --items as read (used when nothing was skipped: same run key)
    skipped: list = field(default_factory=list)
    left_out: list = field(default_factory=list)

    def report_block(self) -> Optional[dict]:
        if not self.skipped:
            return None
        return {"n_items_left_out": len(self.left_out), "items_left_out": self.left_out, "problems": self.skipped}


def check_run_args(a, options: dict, backend_options: dict) -> RunPlan:
    """Raise a CliError for the first thing wrong with a `run` command line; nothing is created."""
    from annotation.loaders import demo_dir, load
    from runners.protocols import DEFAULT_FOR_BENCHMARK, PROTOCOLS
    checks.positive_int(a.limit, "--limit")
    checks.positive_int(a.concurrency, "--concurrency")
    protocol = a.protocol if a.protocol is not None else DEFAULT_FOR_BENCHMARK[a.benchmark]
    if protocol not in PROTOCOLS:
        raise usage(f"expected one of {', '.join(sorted(PROTOCOLS))}, found {protocol!r}", "--protocol")
    for key, value in options.items():
        protocol_option(key, value)
    for key, value in backend_options.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise usage(f"expected a finite number, found {value}", f"--backend-option {key}")
        if key in BACKEND_COUNTS_FROM_ZERO and (not _is_real(value) or value < 0):
            raise usage(f"expected a number >= 0, found {value!r}", f"--backend-option {key}")
        if key in BACKEND_NUMBERS - BACKEND_COUNTS_FROM_ZERO and (not _is_real(value) or value <= 0):
            raise usage(f"expected a number > 0, found {value!r}", f"--backend-option {key}")
    check_ray_args(getattr(a, "ray", None), getattr(a, "ray_media", None), backend_options)
    _pool(a.model)
    checks.check_db(a.db, create=True)
    checks.output_dir(a.out, "--out")
    _judge(a.benchmark, a.judge)
    if a.data is not None:
        checks.input_dir(a.data, "--data")
    ds = load(a.benchmark, a.data if a.data is not None else demo_dir(a.benchmark), probe_media=True)
    plan = RunPlan(items=None)
    wanted = None
    if a.items:
        wanted = plan.given = checks.read_id_list(a.items, "--items")
        unknown = [i for i in wanted if i not in ds]
        if unknown and not a.skip_unknown:
            raise CliError(f"expected item ids of the dataset, found {len(unknown)} unknown: {', '.join(unknown[:3])}"
                           f"{' ...' if len(unknown) > 3 else ''} (pass --skip-unknown to ignore them)",
                           file=a.items, field="--items")
        plan.skipped += [f"{a.items} {i} --items: no such item in the dataset; ignored" for i in unknown]
        wanted = tuple(i for i in wanted if i in ds)
    selected = [it for it in ds.items if (it.id in set(wanted) if wanted is not None else it.kind != "invalid")]
    if a.limit:
        selected = selected[:a.limit]
    bad = _item_problems(ds, selected)
    if bad:
        if not a.skip_invalid:
            err = bad[0][1]
            err.message += (f" ({len(bad)} problem(s) in the selected items; python app.py validate "
                            f"{a.benchmark} {ds.root}, or pass --skip-invalid to leave those items out)")
            raise err
        out = sorted({i for i, _ in bad})
        plan.left_out = out
        plan.skipped += [str(e) for _, e in bad]
        selected = [it for it in selected if it.id not in set(out)]
    if not selected:
        raise CliError("expected at least one item to run, found none", file=str(ds.root), field="--data")
    if plan.skipped:  # something was left out: run exactly the remaining items
        plan.items = tuple(it.id for it in selected)
    return plan


def check_ray_args(address: Optional[str], media: Optional[str], backend_options: dict) -> None:
    """--ray is `local`, `auto` or a cluster address, with Ray installed (looked up, not imported); --ray-media
    and resource requests (num_cpus, num_gpus) only go with it. Shared by `run` and `serve`."""
    import importlib.util
    import re

    from runners.backends import RESOURCE_OPTIONS
    if address is None:
        if media is not None:
            raise usage("expected --ray ADDRESS with it, found none", "--ray-media")
        asked = sorted(RESOURCE_OPTIONS & set(backend_options))
        if asked:
            raise usage("expected --ray ADDRESS with it (a resource request for the cluster's scheduler), found none",
                        f"--backend-option {asked[0]}")
        return
    if not re.fullmatch(RAY_ADDRESS, address):
        raise usage(f"expected local, auto or a cluster address HOST:PORT (or ray://HOST:PORT), found {address!r}",
                    "--ray")
    if importlib.util.find_spec("ray") is None:
        raise usage("expected Ray installed, found none: pip install -r requirements-ray.txt", "--ray")


def _pool(model: str) -> None:
    """An openai: or realtime: spec naming several servers: each URL of the right scheme, none twice."""
    from runners.backends.pool import check_urls, split_urls
    kind, _, rest = (model or "").partition(":")
    if kind not in ("openai", "realtime"):
        return
    urls = split_urls(rest if kind == "realtime" else rest.rpartition("@")[2])
    if len(urls) > 1:
        why = check_urls(kind, urls)
        if why:
            raise usage(why, "--model")


def _item_problems(ds, selected) -> list[tuple[str, CliError]]:
    """(item id, error) for dataset errors touching the selected items and for media that cannot be played."""
    from pathlib import Path

    from runners.checks import from_problem
    ids = {it.id for it in selected}
    files = {it.source_file for it in selected}
    root = Path(ds.root)

    def error(p, item: str) -> CliError:
        e = from_problem(p)
        e.file = str(root / p.file) if not Path(p.file).is_absolute() else p.file
        e.item = item
        return e
    out: list[tuple[str, CliError]] = []
    for p in ds.problems:
        if p.severity != "error" and p.field not in ("video", "audio"):
            continue
        if p.item in ids:
            out.append((p.item, error(p, p.item)))
        elif p.item is None and p.file in files:
            out += [(it.id, error(p, it.id)) for it in selected if it.source_file == p.file]
    for it in selected:
        path = it.stream.video_path
        if (not path or not Path(path).is_file()) and not any(i == it.id for i, _ in out):
            out.append((it.id, CliError(f"expected a playable video file, found "
                                        f"{'none named' if not path else 'nothing at ' + str(path)}",
                                        file=str(root / (it.source_file or "")), item=it.id, field="video")))
    return out


def protocol_option(key: str, value: Any) -> None:
    if key not in PROTOCOL_OPTIONS:
        raise usage(f"expected one of {', '.join(sorted(PROTOCOL_OPTIONS))}, found {key!r}", "--option")
    kind, nullable = PROTOCOL_OPTIONS[key]
    flag = f"--option {key}"
    if value is None and nullable:
        return
    if kind == "pos_float":
        if not _is_real(value) or not math.isfinite(value) or value <= 0:
            raise usage(f"expected a finite number > 0, found {value!r}", flag)
    elif kind == "pos_int":
        if not (isinstance(value, int) and not isinstance(value, bool)) or value < 1:
            raise usage(f"expected an integer >= 1, found {value!r}", flag)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise usage(f"expected true or false, found {value!r}", flag)
    elif not isinstance(value, str):
        raise usage(f"expected text, found {value!r}", flag)


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _judge(benchmark: str, spec: Optional[str]) -> None:
    """A judge spec that parses, and that the benchmark can use: its runners hook `check_run_judge`, when it has
    one, refuses the kinds it cannot (or any judge, for a benchmark scored without one)."""
    if spec is None:
        return
    from runners.benchmarks import hook
    hook(benchmark, "check_run_judge", lambda spec: None)(spec)
    checks.judge_spec(spec)


def load_checked_backend(a, options: dict, backend_options: dict, plan: RunPlan):
    """runners.run_plan.prepare_run with the checked item list; a model spec or backend option the backend refuses
    is one usage error (the backend is built before the run row exists)."""
    from runners.run_plan import prepare_run
    try:
        items, limit = (plan.items, None) if plan.items is not None else (plan.given, a.limit)
        on_workers = getattr(a, "ray", None) is not None and a.model.startswith("hf:")  # weights load there only
        return prepare_run(a.benchmark, a.model, a.data, a.protocol, options, backend_options, items, limit,
                           a.judge, load=not on_workers)
    except CliError:
        raise
    except (ValueError, TypeError, KeyError, ImportError, OSError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise usage(f"expected a model this program can load, found: {type(exc).__name__}: {msg}",
                    "--model") from None


def guarded_run(runner, store, plan: RunPlan, out: Optional[str]) -> dict:
    """Run; whatever stops it, the run row ends `failed` (with the reason) or `cancelled`, never `running`.
    Items left out with --skip-invalid are listed in the report (and report.json)."""
    try:
        report = runner.run()
    except KeyboardInterrupt:
        _finish(runner, store, "cancelled", "interrupted")
        raise
    except BaseException as exc:
        _finish(runner, store, "failed", f"{type(exc).__name__}: {exc}")
        raise
    if report.get("status") == "cancelled":  # stored `cancelled` by the runner; say why
        store.update_run(runner.run_id, error="interrupted (SIGINT or SIGTERM); run the same command to resume")
    block = plan.report_block()
    if block is not None and report.get("status") != "cancelled":
        report["skipped"] = block
        store.update_run(runner.run_id, report=report)
        if out:
            from pathlib import Path

            from annotation.jsonio import write_json
            write_json(Path(out) / "report.json", report)
        import sys
        for line in block["problems"]:
            print(f"warning: skipped {line}", file=sys.stderr)
        print(f"warning: {block['n_items_left_out']} item(s) left out of the run", file=sys.stderr)
    return report


def _finish(runner, store, status: str, reason: str) -> None:
    if runner.run_id is None:
        return
    run = store.get_run(runner.run_id)
    if run is not None and run.status in ("running", "queued"):
        store.update_run(runner.run_id, status=status, error=reason)
