"""Background batch evaluation: drive every item of a benchmark through a model, write each finished
item durably, resume after a crash without duplicates, cancel on request, then score and export."""
from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from annotation.dataset import Dataset
from annotation.loaders import load
from annotation.model import Run
from annotation.store import Store, new_id
from runners.protocols.base import CallRecord
from runners.run_health import RunFailed, check_any_call_succeeded, item_has_errors, scored_items, summarise


# backend options that change how a call is made, never what it answers: changing them resumes the same run
ANSWER_NEUTRAL_OPTIONS = frozenset({"retries", "timeout", "concurrency", "backoff", "api_key_env", "max_retry_after",
                                    "endpoint_cooldown", "num_cpus", "num_gpus"})


@dataclass(frozen=True)
class RunSpec:
    """Everything that defines a run; equal specs resume the same run. `timing` changes what is scored, so it
    is part of the key; `on_error` only changes how stored calls are scored, so it is not."""
    benchmark: str
    model: str
    data_dir: str
    protocol: str
    options: dict = field(default_factory=dict)
    items: Optional[tuple[str, ...]] = None
    limit: Optional[int] = None
    judge: Optional[str] = None
    backend_options: dict = field(default_factory=dict)  # e.g. api_key_env: the variable's name, never a key
    timing: str = "decision"
    on_error: str = "exclude"

    def key(self) -> str:
        answering = {k: v for k, v in self.backend_options.items() if k not in ANSWER_NEUTRAL_OPTIONS}
        fields = {"benchmark": self.benchmark, "model": self.model, "data": self.data_dir,
                  "protocol": self.protocol, "options": self.options, "items": self.items,
                  "limit": self.limit, "judge": self.judge, "backend": answering}
        if self.timing != "decision":  # runs stored before timing modes existed keep their key
            fields["timing"] = self.timing
        blob = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def config(self) -> dict:
        return {"key": self.key(), "options": self.options, "items": self.items, "limit": self.limit,
                "judge": self.judge, "backend_options": self.backend_options, "timing": self.timing,
                "on_error": self.on_error}


def select_items(ds: Dataset, ids: Optional[tuple[str, ...]], limit: Optional[int]) -> list:
    """The run's items in dataset order: a given id list (unknown ids are an error), then --limit."""
    if ids:
        unknown = [i for i in ids if i not in ds]
        if unknown:
            raise KeyError(f"{len(unknown)} item id(s) not in {ds.benchmark} at {ds.root}: {', '.join(unknown[:5])}")
        wanted = set(ids)
        items = [it for it in ds.items if it.id in wanted]
    else:
        items = [it for it in ds.items if it.kind != "invalid"]
    return items[:limit] if limit else items


def find_or_create_run(store: Store, spec: RunSpec, n_total: int) -> Run:
    """Resume the unfinished run with the same spec, or start a new one."""
    key = spec.key()
    for run in reversed(store.runs(spec.benchmark)):
        if run.config.get("key") == key and run.status in ("queued", "running", "failed", "cancelled"):
            # the answer-neutral options (retries, timeouts, ...) and the error policy of this attempt apply
            store.update_run(run.id, status="running", error=None, config=spec.config())
            return store.get_run(run.id)
    run = Run(id=new_id("run"), benchmark=spec.benchmark, model_spec=spec.model, protocol=spec.protocol,
              data_dir=spec.data_dir, config=spec.config(), status="running", n_total=n_total, created=time.time())
    return store.create_run(run)


class BatchRunner:
    """Runs one RunSpec. `start()` runs it in a background thread; `run()` blocks. Thread-safe progress.

    Every model call is stored as it finishes (`run_calls`), so an interrupted item resumes from its
    last call; `progress` holds calls done/total, the item and media time of the last call, and any
    retry wait the backend announced (e.g. a 429's Retry-After)."""

    def __init__(self, store: Store, spec: RunSpec, out_dir: Optional[str | Path] = None, concurrency: int = 1,
                 on_progress: Optional[Callable[[int, int], None]] = None, backend=None,
                 on_call_progress: Optional[Callable[[dict], None]] = None, executor=None):
        self.store = store
        # None: items run on threads of this process; else e.g. runners.ray_run.RayExecutor: items run elsewhere,
        # their calls and results come back here and only this process writes the store
        self.executor = executor
        self.spec = spec
        self.out_dir = Path(out_dir) if out_dir else None
        self.concurrency = max(1, int(concurrency))
        self.on_progress = on_progress
        self.on_call_progress = on_call_progress
        self.cancel_event = threading.Event()
        self._backend = backend
        self.thread: Optional[threading.Thread] = None
        self.run_id: Optional[str] = None
        self.error: Optional[str] = None
        self.report: Optional[dict] = None
        self._plock = threading.Lock()
        self.progress: dict = {"calls_done": 0, "calls_total": None, "items_done": 0, "items_total": 0,
                               "item": None, "t": None, "status": None, "waiting": None}

    def start(self) -> "BatchRunner":
        self.thread = threading.Thread(target=self._run_safely, name=f"batch-{self.spec.model}", daemon=True)
        self.thread.start()
        return self

    def cancel(self) -> None:
        self.cancel_event.set()

    def _run_safely(self) -> None:
        try:
            self.run()
        except Exception as exc:  # noqa: BLE001 - the error is stored on the run and shown in the UI
            self.error = str(exc) if isinstance(exc, RunFailed) else f"{type(exc).__name__}: {exc}"

    def run(self) -> dict:
        from runners.backends import load_backend
        from runners.protocols import get_protocol
        from runners.evaluate import item_result, score_run, write_outputs

        ds = load(self.spec.benchmark, self.spec.data_dir, probe_media=False)
        if ds.errors:
            raise ValueError(f"{ds.benchmark} dataset at {ds.root} has {len(ds.errors)} error(s); "
                             f"run `python app.py validate {ds.benchmark} {ds.root}`")
        items = select_items(ds, self.spec.items, self.spec.limit)
        run = find_or_create_run(self.store, self.spec, len(items))
        self.run_id = run.id
        done = self.store.run_items(run.id)
        # items finished with failed calls are driven again on resume: their ok calls are replayed
        todo = [it for it in items if it.id not in done or item_has_errors(done[it.id])]
        n_done = len(items) - len(todo)
        protocol_name, options = self.spec.protocol, self.spec.options
        self._count_calls(run.id, todo, protocol_name, options, n_done, len(items))
        self._progress(n_done, len(items))
        if self.executor is None:
            backend = self._backend or load_backend(self.spec.model, **self.spec.backend_options)
            if hasattr(backend, "on_wait"):
                backend.on_wait = self._waiting

            def drive_item(it, reuse: dict, on_call) -> dict:
                proto = get_protocol(protocol_name, **options)  # per item: protocols keep per-item state
                return item_result(self.spec.benchmark, it, proto, backend, self.cancel_event,
                                   timing=self.spec.timing, on_call=on_call, reuse=reuse)
            in_flight = self.concurrency
        else:
            drive_item = self.executor.item_driver(self.spec, self.cancel_event, self._waiting)
            in_flight = self.executor.in_flight(self.concurrency)
        failed_before = {it.id for it in todo if it.id in done}
        try:
            with ThreadPoolExecutor(max_workers=in_flight) as pool:
                futures = {}
                for it in todo:
                    if self.cancel_event.is_set():
                        break
                    reuse = {round(float(r["t"]), 6): CallRecord.from_row(r)
                             for r in self.store.run_calls(run.id, it.id) if r["status"] == "ok"}
                    futures[pool.submit(drive_item, it, reuse, self._call_recorder(run.id, it.id))] = it
                for fut in as_completed(futures):
                    it = futures[fut]
                    result = fut.result()
                    if result.get("cancelled"):
                        continue  # its calls are stored; a resumed run replays them
                    self.store.add_run_item(run.id, it.id, result, replace=it.id in failed_before)
                    n_done += 1
                    self._progress(n_done, len(items))
        except Exception as exc:
            self.store.update_run(run.id, status="failed", error=f"{type(exc).__name__}: {exc}")
            raise
        finally:
            if self.executor is not None:
                self.executor.release()
        if self.cancel_event.is_set() and n_done < len(items):
            self.store.update_run(run.id, status="cancelled")
            return {"status": "cancelled", "run_id": run.id, "n_done": n_done, "n_total": len(items)}
        results = self.store.run_items(run.id)
        ids = [it.id for it in items]
        try:
            scored, excluded = scored_items(ids, results, self.spec.on_error)
            health = summarise(results, ids, timing=self.spec.timing, on_error=self.spec.on_error,
                               interval=_interval(protocol_name, options), excluded=excluded)
            check_any_call_succeeded(health, self._first_error(run.id))
            if not scored:
                raise RunFailed(f"no item could be scored: all {len(excluded)} had failed model calls "
                                f"(--on-error exclude); see the run's errors by kind")
        except RunFailed as exc:
            self.store.update_run(run.id, status="failed", error=str(exc))
            raise
        report = score_run(self.spec.benchmark, ds, scored, results, judge=self.spec.judge, store=self.store)
        report["run"] = {"id": run.id, "model": self.spec.model, "protocol": protocol_name, "options": options,
                         "benchmark": self.spec.benchmark, "n_items": len(items), "n_scored": len(scored),
                         "timing": self.spec.timing, "on_error": self.spec.on_error}
        report["run_health"] = health
        if health["compliance_flag"]:
            report.setdefault("warnings", []).append(
                f"format compliance {100 * health['compliance']:.1f} % is below "
                f"{100 * health['compliance_threshold']:.0f} %")
        if self.out_dir:
            write_outputs(self.spec.benchmark, ds, {i: results[i] for i in ids if i in results}, report,
                          self.out_dir, model=self.spec.model)
        self.store.update_run(run.id, status="done", report=report, finished=time.time(), n_done=len(results))
        self.report = report
        return report

    # -- progress -------------------------------------------------------------------------------
    def _count_calls(self, run_id: str, todo: list, protocol_name: str, options: dict, n_done: int,
                     n_items: int) -> None:
        """Ticks still to go (total unknown when an item's duration needs its media)."""
        from runners.protocols import get_protocol
        proto = get_protocol(protocol_name, **options)
        try:
            total = sum(len(proto.ticks(it)) for it in todo)
        except (ValueError, TypeError, KeyError, OSError):  # a duration only the media knows: total unknown
            total = None
        reused = sum(1 for it in todo for r in self.store.run_calls(run_id, it.id) if r["status"] == "ok")
        with self._plock:
            self.progress.update(calls_total=total, calls_done=reused if total is not None else 0,
                                 items_done=n_done, items_total=n_items)

    def _call_recorder(self, run_id: str, item_id: str):
        def on_call(call: CallRecord) -> None:
            if not call.reused:  # a replayed call is already stored and counted
                self.store.add_run_call(run_id, item_id, call.t, **call.store_fields())
            with self._plock:
                if not call.reused:
                    self.progress["calls_done"] += 1
                self.progress.update(item=item_id, t=call.t, status=call.status, waiting=None)
                snapshot = dict(self.progress)
            if self.on_call_progress:
                self.on_call_progress(snapshot)
        return on_call

    def _waiting(self, seconds: float, message: str) -> None:
        with self._plock:
            self.progress["waiting"] = message
            snapshot = dict(self.progress)
        if self.on_call_progress:
            self.on_call_progress(snapshot)

    def _first_error(self, run_id: str) -> Optional[str]:
        for r in self.store.run_calls(run_id):
            if r["status"] == "error":
                return f"{r['item_id']} t={r['t']}: {r['raw_reply'][:200]}"
        return None

    def _progress(self, done: int, total: int) -> None:
        with self._plock:
            self.progress.update(items_done=done, items_total=total)
        if self.on_progress:
            self.on_progress(done, total)


def _interval(protocol_name: str, options: dict) -> Optional[float]:
    from runners.protocols import get_protocol
    try:
        return float(get_protocol(protocol_name, **options).config.interval)
    except (ValueError, TypeError):
        return None
