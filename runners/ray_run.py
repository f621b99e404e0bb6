"""`run --ray ADDRESS|local`: a run's items as Ray tasks (one actor per worker for `hf:` models, so weights load
once), each streaming its model calls and then its result back to the driver, which alone writes the store.
Imported only when --ray is given; the cluster's workers import it from the code shipped with the job."""
from __future__ import annotations

import hashlib
import logging
import os
import queue
import tempfile
import threading
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

import ray
from ray.exceptions import TaskCancelledError

from runners.backends import RESOURCE_OPTIONS, load_backend

RETRIES = 3  # times Ray runs an item again on another worker when the one running it died
MEDIA_MODES = ("shared", "ship")
PACKAGES = ("annotation", "scoring", "runners")  # the code a worker needs, shipped with the job
RESOURCE_NAMES = {"num_cpus": "CPU", "num_gpus": "GPU"}
POOL_THREADS = 1024  # calls that may wait at once for a slot of the cluster-wide endpoint pool


def connect(address: str) -> None:
    """Join the cluster at `address` (or start a local one for `local`) with this project's packages shipped to
    its workers; raises ConnectionError with the reason in one line."""
    root = Path(__file__).resolve().parents[1]
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # the core's retry chatter would break the progress bar
    env = {"py_modules": [str(root / p) for p in PACKAGES],
           "env_vars": {k: os.environ[k] for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE") if k in os.environ}}
    kwargs = {"include_dashboard": False} if address == "local" else {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ray.init(address=None if address == "local" else address, runtime_env=env, logging_level=logging.WARNING,
                     log_to_driver=False, ignore_reinit_error=True, **kwargs)
    except Exception as exc:  # noqa: BLE001 - any failure to join is one line for the user
        raise ConnectionError(f"cannot join the Ray cluster at {address}: {type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else ''}") from None


def join(address: str) -> None:
    """connect(), refused as the one usage error of --ray (run and serve check before doing)."""
    from runners.checks import usage
    try:
        connect(address)
    except ConnectionError as exc:
        raise usage(f"expected a Ray cluster to join, found: {exc}", "--ray") from None


def cluster_cpus() -> float:
    """The CPUs the joined cluster offers (every node)."""
    return float(ray.cluster_resources().get("CPU", 1.0))


class RayExecutor:
    """BatchRunner's executor for a Ray cluster: `item_driver` returns the function its threads call per item
    (submit, relay calls and retry waits to the driver's recorder, return the result); `release` ends the run's
    tasks and actors. Cancelling the run cancels the tasks in flight (they stop at their next tick)."""

    def __init__(self, media: str = "shared", resources: Optional[dict] = None):
        if media not in MEDIA_MODES:
            raise ValueError(f"media must be one of {', '.join(MEDIA_MODES)}, got {media!r}")
        self.media = media
        self.resources = {"num_cpus": 1, **{k: v for k, v in (resources or {}).items() if k in RESOURCE_OPTIONS}}
        self._refs: dict[str, tuple[str, object]] = {}
        self._live: set = set()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._actors: Optional[queue.Queue] = None
        self._all_actors: list = []  # item actors and the endpoint pool's actor, ended with the run

    def slots(self) -> int:
        """Items the cluster can run at once with the requested resources per item."""
        have = ray.cluster_resources()
        fits = [int(have.get(RESOURCE_NAMES[k], 0) // v) for k, v in self.resources.items() if v]
        return max(1, min(fits) if fits else int(cluster_cpus()))

    def in_flight(self, concurrency: int) -> int:
        """Items submitted at once: the cluster's slots, or more when --concurrency asks (queued by Ray)."""
        return max(int(concurrency), self.slots())

    def item_driver(self, spec, cancel: threading.Event, on_wait: Callable[[float, str], None]):
        job = {"benchmark": spec.benchmark, "protocol": spec.protocol, "options": spec.options,
               "timing": spec.timing, "model": spec.model, "backend_options": spec.backend_options,
               "pool": self._pool_actor(spec)}
        self._done.clear()
        threading.Thread(target=self._watch, args=(cancel,), name="ray-cancel", daemon=True).start()
        if spec.model.startswith("hf:"):  # a model loads once per actor, not once per item
            self._actors = queue.Queue()
            for _ in range(self.slots()):
                actor = ItemActor.options(max_restarts=RETRIES, max_task_retries=RETRIES, **self.resources).remote(
                    spec.model, spec.backend_options)
                self._all_actors.append(actor)
                self._actors.put(actor)

        def drive_item(item, reuse: dict, on_call) -> dict:
            if cancel.is_set():
                return {"cancelled": True}
            work = {**job, "item": item, "reuse": reuse, "media": self._ship(item)}
            actor = self._actors.get() if self._actors is not None else None
            gen = (actor.drive.options(num_returns="streaming").remote(work) if actor is not None
                   else drive_task.options(max_retries=RETRIES, **self.resources).remote(work))
            with self._lock:
                self._live.add(gen)
            try:
                return _collect(item.id, gen, on_call, on_wait)
            except TaskCancelledError:
                return {"cancelled": True}
            except Exception:
                # after a cancel, a task may also end by closing its stream early or with the error of the item
                # it was stopping: the item is cancelled like the others (its calls are stored for a resume)
                if cancel.is_set():
                    return {"cancelled": True}
                raise
            finally:
                with self._lock:
                    self._live.discard(gen)
                if actor is not None:
                    self._actors.put(actor)
        return drive_item

    def _pool_actor(self, spec):
        """For a served model (openai:, realtime:), one actor holding its endpoint pool, so the per-endpoint limit
        and the cooldown of a failed endpoint hold across every worker of the cluster; else None."""
        if spec.model.partition(":")[0] not in ("openai", "realtime"):
            return None
        pool = load_backend(spec.model, **spec.backend_options).pool  # HTTP clients are built lazily: no call
        actor = PoolActor.options(num_cpus=0, max_concurrency=POOL_THREADS).remote(pool.urls, pool.limit,
                                                                                    pool.cooldown)
        self._all_actors.append(actor)
        return actor

    def _ship(self, item) -> Optional[dict]:
        """shared: None (workers open the item's own paths). ship: {path: (key, object ref)}, each file put into
        the object store once per run."""
        if self.media != "ship":
            return None
        out = {}
        for path in (item.stream.video_path, item.stream.audio_path):
            if path and path not in self._refs:
                st = Path(path).stat()
                key = hashlib.sha256(f"{path}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:20]
                self._refs[path] = (key, ray.put(Path(path).read_bytes()))
            if path:
                out[path] = self._refs[path]
        return out

    def _watch(self, cancel: threading.Event) -> None:
        """Once the run is cancelled, cancel every task in flight (and any submitted in the meantime)."""
        done: set = set()
        while not self._done.is_set():
            if cancel.wait(0.1):
                with self._lock:
                    live = [g for g in self._live if id(g) not in done]
                for gen in live:
                    ray.cancel(gen)
                    done.add(id(gen))

    def release(self) -> None:
        """The run is over: stop watching, free shipped media and end the actors."""
        self._done.set()
        self._refs.clear()
        for actor in self._all_actors:
            ray.kill(actor)
        self._all_actors.clear()
        self._actors = None


def _collect(item_id: str, gen, on_call, on_wait) -> dict:
    """Relay a task's stream: calls to `on_call` (stored by tick, so a call sent twice is one row), retry waits to
    `on_wait`; return its result, with the times Ray ran the item again after a worker died as `worker_retries`."""
    for ref in gen:
        attempt, kind, body = ray.get(ref)
        if kind == "calls":
            for call in body:
                on_call(call)
        elif kind == "wait":
            on_wait(0.0, body)
        elif kind == "error":
            raise RuntimeError(f"item {item_id} failed on the cluster: {body}")
        else:
            if attempt:
                body["worker_retries"] = attempt
            return body
    raise RuntimeError(f"item {item_id}: its Ray task ended without a result")


# -- the workers' side -------------------------------------------------------------------------------------------
def _local_item(item, media: Optional[dict]):
    """The item with its media paths on this node: its own (shared filesystem) or copies of the shipped bytes,
    written once per node into the temp folder (atomically, so two workers never read half a file)."""
    if not media:
        return item
    local = {}
    for path, (key, ref) in media.items():
        target = Path(tempfile.gettempdir()) / "ibench-media" / key / Path(path).name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
            tmp.write_bytes(ray.get(ref))
            os.replace(tmp, target)
        local[path] = str(target)
    stream = replace(item.stream, video_path=local.get(item.stream.video_path, item.stream.video_path),
                     audio_path=local.get(item.stream.audio_path, item.stream.audio_path))
    return replace(item, stream=stream)


def _stream(backend, work: dict):
    """Drive one item on a thread, yielding (attempt, kind, body) as its calls happen (those that came while the
    last message went out together), then its result. When Ray cancels the task (or the driver is gone) the item
    stops at its next tick."""
    from runners.evaluate import item_result
    from runners.protocols import get_protocol

    item = _local_item(work["item"], work["media"])
    if work["pool"] is not None:
        backend.pool = RemotePool(work["pool"], backend.pool.urls)
    cancel = threading.Event()
    out: queue.Queue = queue.Queue()
    if hasattr(backend, "on_wait"):
        backend.on_wait = lambda seconds, message: out.put(("wait", message))

    def run() -> None:
        try:
            proto = get_protocol(work["protocol"], **work["options"])
            out.put(("result", item_result(work["benchmark"], item, proto, backend, cancel, timing=work["timing"],
                                           on_call=lambda call: out.put(("call", call)), reuse=work["reuse"])))
        except Exception as exc:  # noqa: BLE001 - sent to the driver, which fails the run with it
            out.put(("error", f"{type(exc).__name__}: {exc}"))

    # which run of this task this is (0: the first; Ray's retry after a worker died counts up); no public API yet
    attempt = ray._private.worker.global_worker.core_worker.get_current_task_attempt_number()
    thread = threading.Thread(target=run, name=f"item-{item.id}", daemon=True)
    thread.start()
    made: list = []
    try:
        while True:
            batch = [out.get()]
            while batch[-1][0] == "call" and not out.empty():  # calls faster than the stream: one message
                batch.append(out.get())
            calls = [body for kind, body in batch if kind == "call"]
            made += calls
            if calls:
                yield attempt, "calls", calls
            kind, body = batch[-1]
            if kind == "result" and attempt:
                # a retry's messages line up with the dead attempt's by position only, and Ray passes on just
                # those past what the driver already has: send every call of this attempt once more
                yield attempt, "calls", made
            if kind != "call":
                yield attempt, kind, body
            if kind in ("result", "error"):
                return
    finally:
        cancel.set()
        thread.join(timeout=30)


@ray.remote
class PoolActor:
    """An EndpointPool every worker shares (its blocking acquire runs on one of the actor's threads)."""

    def __init__(self, urls: list[str], limit: int, cooldown: float):
        from runners.backends.pool import EndpointPool
        self.pool = EndpointPool(urls, limit, cooldown)

    def acquire(self) -> str:
        return self.pool.acquire()

    def release(self, url: str, ok: bool) -> None:
        self.pool.release(url, ok)

    def healthy(self) -> list[str]:
        return self.pool.healthy()


class RemotePool:
    """The EndpointPool interface a backend calls, answered by the cluster's PoolActor."""

    def __init__(self, actor, urls: list[str]):
        self.actor, self.urls = actor, urls

    def acquire(self) -> str:
        return ray.get(self.actor.acquire.remote())

    def release(self, url: str, ok: bool) -> None:
        ray.get(self.actor.release.remote(url, ok))

    def healthy(self) -> list[str]:
        return ray.get(self.actor.healthy.remote())


_WORKER_BACKENDS: dict = {}  # this worker process's backends, reused by the tasks it runs (one at a time)


@ray.remote
def drive_task(work: dict):
    """One item, on this worker's backend for the model (built by its first task: HTTP clients, baselines)."""
    import json
    key = json.dumps([work["model"], work["backend_options"]], sort_keys=True)
    if key not in _WORKER_BACKENDS:
        _WORKER_BACKENDS[key] = load_backend(work["model"], **work["backend_options"])
    backend = _WORKER_BACKENDS[key]
    backend.reset()
    yield from _stream(backend, work)


@ray.remote
class ItemActor:
    """A worker holding one loaded model (hf:) that drives items one after another."""

    def __init__(self, model: str, backend_options: dict):
        self.backend = load_backend(model, **backend_options)

    def drive(self, work: dict):
        self.backend.reset()
        yield from _stream(self.backend, work)
