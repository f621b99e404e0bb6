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


@dataclass(frozen=True)
class RunSpec:
    """Everything that defines a run; equal specs resume the same run."""
    benchmark: str
    model: str
    data_dir: str
    protocol: str
    options: dict = field(default_factory=dict)
    items: Optional[tuple[str, ...]] = None
    limit: Optional[int] = None
    judge: Optional[str] = None
    backend_options: dict = field(default_factory=dict)  # e.g. api_key_env: the variable's name, never a key

    def key(self) -> str:
        blob = json.dumps({"benchmark": self.benchmark, "model": self.model, "data": self.data_dir,
                           "protocol": self.protocol, "options": self.options, "items": self.items,
                           "limit": self.limit, "judge": self.judge, "backend": self.backend_options},
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


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
            store.update_run(run.id, status="running")
            return store.get_run(run.id)
    run = Run(id=new_id("run"), benchmark=spec.benchmark, model_spec=spec.model, protocol=spec.protocol,
              data_dir=spec.data_dir, config={"key": key, "options": spec.options, "items": spec.items,
                                              "limit": spec.limit, "judge": spec.judge,
                                              "backend_options": spec.backend_options},
              status="running", n_total=n_total, created=time.time())
    return store.create_run(run)


class BatchRunner:
    """Runs one RunSpec. `start()` runs it in a background thread; `run()` blocks. Thread-safe progress."""

    def __init__(self, store: Store, spec: RunSpec, out_dir: Optional[str | Path] = None, concurrency: int = 1,
                 on_progress: Optional[Callable[[int, int], None]] = None, backend=None):
        self.store = store
        self.spec = spec
        self.out_dir = Path(out_dir) if out_dir else None
        self.concurrency = max(1, int(concurrency))
        self.on_progress = on_progress
        self.cancel_event = threading.Event()
        self._backend = backend
        self.thread: Optional[threading.Thread] = None
        self.run_id: Optional[str] = None
        self.error: Optional[str] = None
        self.report: Optional[dict] = None

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
            self.error = f"{type(exc).__name__}: {exc}"

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
        todo = [it for it in items if it.id not in done]
        n_done = len(items) - len(todo)
        self._progress(n_done, len(items))
        backend = self._backend or load_backend(self.spec.model, **self.spec.backend_options)
        protocol_name, options = self.spec.protocol, self.spec.options
        try:
            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                futures = {}
                for it in todo:
                    if self.cancel_event.is_set():
                        break
                    proto = get_protocol(protocol_name, **options)  # per item: protocols keep per-item state
                    futures[pool.submit(item_result, self.spec.benchmark, it, proto, backend,
                                        self.cancel_event)] = it
                failed = []
                for fut in as_completed(futures):
                    it = futures[fut]
                    result = fut.result()
                    if result.get("cancelled"):
                        continue
                    if result.get("failed"):  # not stored: a resumed run retries it
                        failed.append(f"{it.id}: {result['failed']}")
                        continue
                    self.store.add_run_item(run.id, it.id, result)
                    n_done += 1
                    self._progress(n_done, len(items))
        except Exception as exc:
            self.store.update_run(run.id, status="failed", error=f"{type(exc).__name__}: {exc}")
            raise
        if failed:
            msg = f"{len(failed)} item(s) failed (resume to retry): " + "; ".join(failed[:3])
            self.store.update_run(run.id, status="failed", error=msg)
            raise RuntimeError(msg)
        if self.cancel_event.is_set() and n_done < len(items):
            self.store.update_run(run.id, status="cancelled")
            return {"status": "cancelled", "run_id": run.id, "n_done": n_done, "n_total": len(items)}
        results = self.store.run_items(run.id)
        report = score_run(self.spec.benchmark, ds, [it.id for it in items], results, judge=self.spec.judge,
                           store=self.store)
        report["run"] = {"id": run.id, "model": self.spec.model, "protocol": protocol_name, "options": options,
                         "benchmark": self.spec.benchmark, "n_items": len(items)}
        if self.out_dir:
            write_outputs(self.spec.benchmark, ds, results, report, self.out_dir, model=self.spec.model)
        self.store.update_run(run.id, status="done", report=report, finished=time.time(), n_done=len(results))
        self.report = report
        return report

    def _progress(self, done: int, total: int) -> None:
        if self.on_progress:
            self.on_progress(done, total)
