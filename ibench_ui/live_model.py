"""Live model demo: a model watches the same playback as the participant, on the page's media clock.

The page reports its video clock; for each page a `LiveModel` worker runs `runners.protocols.drive`
for the current item with a `MediaClock` fed by those reports, so every decision waits for media
time to reach its tick (never lookahead). Each emission is committed to the store as a
`model:<spec>@<session>` response (a model responder of its own) first and then appended to the page's event list, where a long-poll
(`LiveModelHub.wait`, async) picks it up at once. One worker per page; it stops at item end, when the
page stops reporting (3 s, the clock goes stale), or on unload. One hub per app: no module state."""
from __future__ import annotations

import asyncio
import base64
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from annotation.model import Item, Response
from annotation.store import Store, model_responder
from ibench_ui.timeline import lane_of, model_mark_html, row_html
from runners.clock import MediaClock

STALE_AFTER = 3.0
MAX_EVENTS = 1000  # events kept per page (older ones are dropped; the store keeps every response)
PAGE_IDLE_S = 120.0  # a page with no worker and no calls for this long is forgotten
LIVE_TIMING = "arrival"  # a live reply counts when it arrives; `run --timing arrival` scores batch runs the same way


def live_run_id(session_id: str) -> str:
    """The run id under which a live session's model calls are stored in `run_calls`."""
    return f"live:{session_id}"


class LiveModelError(ValueError):
    """A model spec or protocol the live demo cannot use; the message says what to change."""


def validate_protocol(name: str) -> str:
    from runners.protocols import PROTOCOLS
    name = str(name or "").strip()
    if name and name not in PROTOCOLS:
        raise LiveModelError(f"Unknown protocol {name!r}; choose one of {', '.join(sorted(PROTOCOLS))} "
                             "or leave it empty for the benchmark's own.")
    return name


@dataclass(frozen=True)
class LiveTarget:
    """What a page is playing and who watches it: the worker key is (session_id, item_index)."""
    session_id: str
    item_index: int
    item: Item
    spec: str
    protocol: str
    benchmark: str
    span: float = 0.0  # the live timeline's time span, for the pushed mark's position

    @property
    def key(self) -> tuple[str, int]:
        return (self.session_id, self.item_index)


MIC_WAIT_S = 0.5  # how long the sender waits for the person's microphone audio of a chunk before sending without it
MIC_MAX_S = 2.0  # longest microphone piece a page may send at once


class MicTrack:
    """The person's microphone on the media timeline (duplex live): pieces the page sends as it records,
    mixed into the stream the realtime model hears. `mix` waits briefly for the audio of the chunk being sent
    while the microphone is streaming, so the model hears the person where they spoke, not later or never."""

    def __init__(self, cancel: threading.Event):
        self.cond = threading.Condition()
        self.pieces: list[tuple[float, int, Any]] = []  # (media start, rate, float32 samples)
        self.until: Optional[float] = None  # media time the microphone has been heard to
        self.added = float("-inf")  # monotonic time of the last piece: the page is streaming its microphone
        self.cancel = cancel

    def add(self, t0: float, rate: int, samples) -> None:
        with self.cond:
            self.pieces.append((float(t0), int(rate), samples))
            self.until = max(self.until or 0.0, float(t0) + len(samples) / rate)
            self.added = time.monotonic()
            self.cond.notify_all()

    def mix(self, t0: float, t1: float, rate: int):
        """float32 samples of [t0, t1) at `rate` (the person's voice, resampled), or None when silent there."""
        import numpy as np
        with self.cond:
            if self.until is not None and time.monotonic() - self.added < 2 * MIC_WAIT_S:  # still streaming
                self.cond.wait_for(lambda: self.until >= t1 - 1e-6 or self.cancel.is_set(), MIC_WAIT_S)
            pieces = [p for p in self.pieces if p[0] < t1 and p[0] + len(p[2]) / p[1] > t0]
            self.pieces = [p for p in self.pieces if p[0] + len(p[2]) / p[1] > t0]  # the past is sent
        if not pieces:
            return None
        n = int(round((t1 - t0) * rate))
        out = np.zeros(n, np.float32)
        at = t0 + np.arange(n) / rate
        for s, r, x in pieces:
            inside = (at >= s) & (at < s + len(x) / r)
            out[inside] += np.interp((at[inside] - s) * r, np.arange(len(x)), x).astype(np.float32)
        return out


class LiveModel:
    """One page's worker: a MediaClock fed by the page and a thread driving the model for one item."""

    def __init__(self, hub: "LiveModelHub", page: "_Page", target: LiveTarget):
        self.hub, self.page, self.target = hub, page, target
        self.clock = hub.clock_factory()
        self.cancel = threading.Event()
        self.mic = MicTrack(self.cancel)
        self.speech_rate = 0  # a realtime model's output rate, once it runs (0: a ticking model)
        self.state = "starting"  # starting | running | done | error | cancelled
        self.reason = ""
        self.emitted = 0
        self.trace = None
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name=f"live-model-{page.id[:8]}-{target.item_index}")

    @property
    def key(self) -> tuple[str, int]:
        return self.target.key

    def alive(self) -> bool:
        return self.thread.is_alive()

    def stop(self, reason: str) -> None:
        """Cancel: the drive loop ends at its next tick (a clock wait wakes at once)."""
        if not self.cancel.is_set():
            self.reason = self.reason or reason
            self.cancel.set()
            self.clock.close()

    def _run(self) -> None:
        from runners.protocols import drive, get_protocol
        from runners.run_plan import resolve_options
        tg = self.target
        try:
            inner = self.hub.backend(tg.spec)
            realtime = bool(getattr(inner, "streams_media", False))
            self.speech_rate = int(inner.options.output_rate) if realtime else 0
            backend = inner if realtime else _Observed(inner, self._call_state)
            options = {} if realtime else resolve_options(tg.protocol, {}, backend)
            protocol = None if realtime else get_protocol(tg.protocol, **options)  # realtime: no ticks
            self.state = "running"
            self.page.publish({"type": "status", "state": "running", "session_id": tg.session_id,
                               "item_index": tg.item_index, "spec": tg.spec,
                               "protocol": "realtime" if realtime else tg.protocol, "options": options})
            if realtime:  # the stream itself goes to the model on the page's clock; its speech comes back
                from runners.realtime_run import drive_realtime
                self.trace = drive_realtime(tg.item, protocol, backend, clock=self.clock, cancel=self.cancel,
                                            on_emission=lambda e: self._emit(e, "realtime", options),
                                            on_speech=self._speech, benchmark=tg.benchmark, mix=self.mic.mix)
            else:
                self.trace = drive(tg.item, protocol, backend, clock=self.clock, cancel=self.cancel,
                                   on_emission=lambda e: self._emit(e, protocol.name, options),
                                   on_call=self._record_call, timing=LIVE_TIMING)
            if self.cancel.is_set() or self.trace.cancelled:
                self.state = "cancelled"
            elif self.trace.failed:
                stale = "stale" in self.trace.failed
                self.state, self.reason = ("cancelled", "stale") if stale else ("error", self.trace.failed)
            else:
                self.state, self.reason = "done", "item finished"
        except Exception as exc:  # a model that cannot load or crashes: the page says so, the session goes on
            self.state, self.reason = "error", f"{type(exc).__name__}: {exc}"
        finally:
            self.page.publish({"type": "status", "state": self.state, "reason": self.reason,
                               "session_id": tg.session_id, "item_index": tg.item_index, "spec": tg.spec,
                               "emitted": self.emitted, **self.call_summary()})

    # ---- per-call records (arrival timing): the same fields a batch run stores, under run id live:<session>
    def _record_call(self, call) -> None:
        tg = self.target
        try:
            self.hub.store.add_run_call(live_run_id(tg.session_id), tg.item.id, call.t, **call.store_fields())
        except Exception:  # noqa: BLE001 - a diagnostics row never stops the live model
            pass

    def call_summary(self) -> dict:
        """Calls, skipped ticks, errors and latency percentiles of this worker's item so far."""
        trace = self.trace
        if trace is None:
            return {}
        if trace.protocol == "realtime":  # a session, not ticks: its model turns and error events
            return {"timing": "realtime", "calls": trace.n_polls, "errors": trace.n_errors}
        from runners.run_health import call_counts, summarise
        h = summarise({trace.item_id: call_counts(trace)}, [trace.item_id], timing=trace.timing, on_error="exclude",
                      interval=None, excluded=[])
        return {"timing": trace.timing, "calls": h["calls"], "skipped_ticks": h["skipped_ticks"],
                "errors": h["errors"], "errors_by_kind": h["errors_by_kind"], "latency_p50": h["latency_p50"],
                "latency_p95": h["latency_p95"], "latency_max": h["latency_max"]}

    def _call_state(self, state: str, media_t: float) -> None:
        """Presenter mode shows the model thinking (a call in flight, with its start) or watching."""
        if self.cancel.is_set():
            return
        tg = self.target
        self.page.publish({"type": "call", "state": state, "t": media_t, "wall_ms": time.time() * 1000.0,
                           "session_id": tg.session_id, "item_index": tg.item_index, "spec": tg.spec})

    def _speech(self, rid: str, t: float, pcm) -> None:
        """A realtime model's audio piece, placed at media time `t`: pushed to the page as base64 pcm16 in the
        event itself (no file, no path), so the page plays it at its media time and grows the span."""
        if self.cancel.is_set() or not len(pcm):
            return
        tg = self.target
        rate = self.speech_rate
        self.page.publish({"type": "speech", "rid": str(rid), "session_id": tg.session_id,
                           "item_index": tg.item_index, "spec": tg.spec, "lane": f"model:{tg.spec}",
                           "t": round(float(t), 4), "end": round(float(t) + len(pcm) / rate, 4), "rate": rate,
                           "span": tg.span, "pcm16": base64.b64encode(pcm.astype("<i2").tobytes()).decode()})

    def _emit(self, e, protocol: str, options: dict) -> None:
        """Commit one emission as a model response, then push it to the page (durable before shown)."""
        if self.cancel.is_set():
            return  # the page is gone or the item ended: nothing after that counts
        emit_ms = time.time() * 1000.0
        tg = self.target
        meta = {"protocol": protocol, "options": options, "latency_s": round(float(e.latency_s), 4),
                "timing": LIVE_TIMING, "decision_t": e.meta.get("decision_t", e.t),
                "item_index": tg.item_index, "emit_wall_ms": round(emit_ms, 1), "clock_media_t": self.clock.now(),
                "live": True}
        if e.tool is not None:
            meta["tool"] = e.tool
        if e.raw:
            meta["raw"] = str(e.raw)[:2000]
        for k in ("end", "aligned_words", "response_id"):  # a realtime utterance: its span and word times
            if k in e.meta:
                meta[k] = e.meta[k]
        r = self.hub.store.add_response(Response(
            id=f"r_{uuid.uuid4().hex[:16]}", item_id=tg.item.id, benchmark=tg.benchmark,
            responder=model_responder(tg.spec, tg.session_id), session_id=tg.session_id, t=float(e.t), kind=e.kind or "speech",
            text=e.content or "", frame_t=e.frame_t, wall_time=emit_ms / 1000.0, page_id=self.page.id, meta=meta))
        self.emitted += 1
        self.page.publish({"type": "response", "rid": r.id, "session_id": tg.session_id,
                           "item_index": tg.item_index, "item_id": tg.item.id, "responder": r.responder,
                           "lane": lane_of(r),
                           "spec": tg.spec, "t": r.t, "kind": r.kind, "text": r.text, "frame_t": r.frame_t,
                           "emit_wall_ms": emit_ms, "push_wall_ms": time.time() * 1000.0,
                           "mark_html": model_mark_html(r, tg.span), "row_html": row_html(r)})


class _Observed:
    """A backend whose calls are reported (thinking when one starts, watching when it returns)."""

    def __init__(self, inner, on_call: Callable[[str, float], None]):
        self._inner, self._on_call = inner, on_call

    def respond(self, decision):
        self._on_call("thinking", float(getattr(decision, "t", 0.0)))
        try:
            return self._inner.respond(decision)
        finally:
            self._on_call("watching", float(getattr(decision, "t", 0.0)))

    def __getattr__(self, name):
        return getattr(self._inner, name)


@dataclass
class _Page:
    """A page's event list (cursor = sequence number) and whoever waits on it."""
    id: str
    cond: threading.Condition = field(default_factory=threading.Condition)
    events: list = field(default_factory=list)
    base: int = 0  # sequence number of events[0]
    waiters: set = field(default_factory=set)
    worker: Optional[LiveModel] = None
    finished: dict = field(default_factory=dict)  # worker key -> final state (not restarted)
    touched: float = field(default_factory=time.monotonic)

    @property
    def cursor(self) -> int:
        return self.base + len(self.events)

    def publish(self, event: dict) -> None:
        with self.cond:
            event = {**event, "seq": self.cursor}
            self.events.append(event)
            if len(self.events) > MAX_EVENTS:
                drop = len(self.events) - MAX_EVENTS
                del self.events[:drop]
                self.base += drop
            self.cond.notify_all()
            wakers = list(self.waiters)
        for wake in wakers:
            wake()

    def since(self, cursor: int) -> list[dict]:
        with self.cond:
            return list(self.events[max(0, int(cursor) - self.base):])


class LiveModelHub:
    """Per-app registry of live model workers, one per page, and their pushed events."""

    def __init__(self, store: Store, *, stale_after: float = STALE_AFTER,
                 clock_factory: Optional[Callable[[], MediaClock]] = None,
                 backend_loader: Optional[Callable[[str], Any]] = None, reap_every: float = 0.25,
                 options_for: Optional[Callable[[str], dict]] = None):
        self.store = store
        self._options = options_for or (lambda spec: {})  # the registry's backend options for a spec
        self.stale_after = stale_after
        self.clock_factory = clock_factory or (lambda: MediaClock(stale_after=self.stale_after))
        self._load = backend_loader
        self._pages: dict[str, _Page] = {}
        self._backends: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._reap_every = reap_every
        self._reaper: Optional[threading.Thread] = None

    # ---- backends
    def backend(self, spec: str):
        """A backend for a worker. Baselines keep per-item state, so each worker gets its own; loaded
        models (hf, openai, plugin) are built once per spec and shared."""
        if self._load is not None:
            return self._load(spec)
        from runners.backends import load_backend
        if spec.startswith("baseline:"):
            return load_backend(spec, **self._options(spec))
        with self._lock:
            if spec not in self._backends:
                self._backends[spec] = load_backend(spec, **self._options(spec))
            return self._backends[spec]

    # ---- pages
    def _page(self, page_id: str) -> _Page:
        page_id = str(page_id or "")[:64]
        if not page_id:
            raise LiveModelError("page_id is missing.")
        with self._lock:
            page = self._pages.get(page_id)
            if page is None:
                page = self._pages[page_id] = _Page(page_id)
            page.touched = time.monotonic()
            return page

    def worker(self, page_id: str) -> Optional[LiveModel]:
        page = self._pages.get(page_id)
        return page.worker if page else None

    def workers(self) -> list[LiveModel]:
        with self._lock:
            return [p.worker for p in self._pages.values() if p.worker is not None and p.worker.alive()]

    def report(self, page_id: str, target: LiveTarget, media_t: float, paused: bool, rate: float = 1.0,
               wall: Optional[float] = None) -> dict:
        """A clock report from a page playing `target`: feeds the worker's clock, starting a worker for
        a new item (and stopping the page's previous one). A finished item is not started again."""
        page = self._page(page_id)
        with page.cond:
            w = page.worker
            if w is not None and w.key != target.key:
                if target.key in page.finished:
                    return {"state": page.finished[target.key], "stale_report": True}
                w.stop("next item")
                page.finished[w.key] = "cancelled"
                w = page.worker = None
            if w is not None and not w.alive() and w.reason == "stale":
                w = page.worker = None  # the page came back after going quiet: watch again from here
            if w is None:
                if target.key in page.finished:
                    return {"state": page.finished[target.key]}
                w = page.worker = LiveModel(self, page, target)
                w.clock.report(media_t, paused, rate, wall)
                w.thread.start()
                self._ensure_reaper()
                return {"state": w.state, "started": True}
        w.clock.report(media_t, paused, rate, wall)
        return {"state": w.state}

    def hear(self, page_id: str, target_key: tuple[str, int], t0: float, rate: int, samples) -> bool:
        """The person's microphone piece at media time `t0` for the page's realtime worker (duplex): mixed
        into what the model hears. False when the page has no realtime worker on that item."""
        page = self._pages.get(str(page_id or ""))
        w = page.worker if page else None
        if w is None or w.key != target_key or not w.alive() or not getattr(w, "speech_rate", 0):
            return False
        w.mic.add(t0, rate, samples)
        return True

    def finish(self, session_id: str, item_index: int, grace: float = 1.0) -> None:
        """The item ended: let its workers finish their last tick (up to `grace` s), then cancel them."""
        key = (session_id, int(item_index))
        with self._lock:
            pages = [p for p in self._pages.values() if p.worker is not None and p.worker.key == key]
        deadline = time.monotonic() + grace
        for p in pages:
            w = p.worker
            w.thread.join(max(0.0, deadline - time.monotonic()))
            w.stop("item ended")
            w.thread.join(1.0)
            with p.cond:
                p.finished[key] = w.state
                if p.worker is w:
                    p.worker = None

    def stop(self, page_id: str, reason: str = "unload") -> bool:
        """Stop a page's worker (page unload); returns whether one was running."""
        page = self._pages.get(str(page_id or ""))
        if page is None or page.worker is None:
            return False
        w = page.worker
        w.stop(reason)
        return True

    # ---- long-poll
    def events(self, page_id: str, cursor: int = 0) -> dict:
        page = self._page(page_id)
        return {"events": page.since(cursor), "cursor": page.cursor}

    def wait_sync(self, page_id: str, cursor: int, timeout: float = 20.0) -> dict:
        """Blocking form of `wait` (threads, tests)."""
        page = self._page(page_id)
        with page.cond:
            page.cond.wait_for(lambda: page.cursor > int(cursor), timeout)
        return {"events": page.since(cursor), "cursor": page.cursor}

    async def wait(self, page_id: str, cursor: int, timeout: float = 20.0) -> dict:
        """Return as soon as the page has an event after `cursor`, or after `timeout` s with none.
        Woken from the worker thread through the event loop, so no thread is held while waiting."""
        page = self._page(page_id)
        cursor = max(0, int(cursor or 0))
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()

        def wake() -> None:
            try:
                loop.call_soon_threadsafe(ready.set)
            except RuntimeError:  # loop closed: the request is gone
                pass

        with page.cond:
            if page.cursor > cursor or page.cursor < cursor:  # news, or a cursor from an older server
                return {"events": page.since(cursor if page.cursor > cursor else 0), "cursor": page.cursor}
            page.waiters.add(wake)
        try:
            await asyncio.wait_for(ready.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        finally:
            with page.cond:
                page.waiters.discard(wake)
        page.touched = time.monotonic()
        return {"events": page.since(cursor), "cursor": page.cursor}

    # ---- page death
    def _ensure_reaper(self) -> None:
        with self._lock:
            if self._reaper is None or not self._reaper.is_alive():
                self._reaper = threading.Thread(target=self._reap_loop, daemon=True, name="live-model-reaper")
                self._reaper.start()

    def reap(self) -> None:
        """Cancel workers whose page stopped reporting; forget idle pages."""
        now = time.monotonic()
        with self._lock:
            pages = list(self._pages.values())
        for p in pages:
            w = p.worker
            if w is not None and w.alive() and w.clock.is_stale():
                w.stop("stale")
            if (w is None or not w.alive()) and not p.waiters and now - p.touched > PAGE_IDLE_S:
                with self._lock:
                    self._pages.pop(p.id, None)

    def _reap_loop(self) -> None:
        while True:
            time.sleep(self._reap_every)
            self.reap()
            with self._lock:
                if not self._pages:
                    self._reaper = None
                    return
