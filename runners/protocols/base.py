"""The decision loop shared by every benchmark: what a model sees at decision time t (`Decision`),
what it said back (`Emission`), and `drive`, the loop that asks a backend at every tick.

A protocol alone chooses ticks and frames; backends only render a Decision into their own wire
format. So two backends given the same protocol always see the same frames."""
from __future__ import annotations

import math
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

import numpy as np

from annotation.model import Item
from runners.parsing import follows_format, parse_decision
from runners.sampling import AudioSampler, Frame, FrameSampler, sample_stamps

EMPTY_REPLY = ""


@dataclass(frozen=True)
class ProtocolConfig:
    """Every knob a protocol reads. Defaults are InteractionBench's (ProtocolConfig / RunConfig)."""
    interval: float = 1.0
    a_window: float = 10.0
    max_frames: int = 16
    max_new_per_turn: int = 8
    max_new_tokens: int = 96
    sample_fps: float = 2.0
    max_long_side: Optional[int] = 512
    blind: bool = False
    hint_set: str = "default"
    context_s: Optional[float] = None  # only frames from (t - context_s, t) (ProactiveBench/InteractScope)
    audio_rate: int = 16000
    max_audio_chunks: int = 8  # duplex: audio parts kept in the conversation

    def with_options(self, **options: Any) -> "ProtocolConfig":
        unknown = sorted(set(options) - set(self.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown protocol option(s) {unknown}; known: {sorted(self.__dataclass_fields__)}")
        return replace(self, **options)


@dataclass(frozen=True, eq=False)
class AudioChunk:
    """Mono float32 samples of the stream's audio over [t0, t1)."""
    t0: float
    t1: float
    samples: np.ndarray = field(repr=False)
    rate: int = 16000


@dataclass(eq=False)
class Decision:
    """Everything a backend may use at decision time t; nothing in it comes from after t.

    `messages` is a chat: [{"role", "content": [parts]}] with parts {"type": "text", "text"},
    {"type": "image", "frame": Frame} and {"type": "audio", "chunk": AudioChunk}. `frames` lists
    every image in `messages` in order; `prompt` is the text of the last user turn."""
    item_id: str
    protocol: str
    t: float
    messages: list[dict]
    frames: list[Frame]
    prompt: str
    history: list[dict] = field(default_factory=list)  # earlier {"t", "reply", "spoke"} of this item
    audio: list[AudioChunk] = field(default_factory=list)
    tools: list[dict] = field(default_factory=list)
    max_new_tokens: int = 96
    expects: str = "decision"  # decision | offline | tool_or_decision
    meta: dict = field(default_factory=dict)

    @property
    def latest_frame_t(self) -> Optional[float]:
        return max((f.t for f in self.frames), default=None)

    def images(self) -> list:
        """The frames as PIL images (RGB), in message order."""
        from PIL import Image

        return [Image.fromarray(np.ascontiguousarray(f.image)) for f in self.frames]

    def text_messages(self) -> list[dict]:
        """The chat with images and audio left out (for text-only backends and logs)."""
        out = []
        for m in self.messages:
            text = "\n".join(p["text"] for p in m["content"] if p.get("type") == "text")
            out.append({"role": m["role"], "content": text})
        return out


@dataclass(frozen=True)
class Reply:
    """A backend's answer to one Decision: its text, wall latency and the raw payload. A reply with `error`
    (e.g. a malformed body) is a failed call: missing data, never silence."""
    text: str
    latency_s: float
    raw: Any = None
    error: Optional[str] = None
    attempts: int = 1
    error_kind: Optional[str] = None  # http_<status> | timeout | connection | malformed | backend
    endpoints: tuple = ()  # [url, ok, latency_s, kind] per attempt, when the backend calls a pool of servers


@dataclass
class CallRecord:
    """One tick of an item: the call made (or why none was), what came back and how it was read. Stored
    as a `run_calls` row; resume replays the ok ones instead of calling again."""
    t: float
    status: str  # ok | error | skipped
    error_kind: Optional[str] = None
    attempts: int = 0
    latency_s: Optional[float] = None
    prompt: str = ""
    raw_reply: str = ""
    decision: Optional[str] = None  # speak | silent | tool_call | offline (parsed from the reply)
    text: str = ""
    compliant: Optional[bool] = None  # the reply followed the protocol's format (ok calls only)
    frame_times: tuple[float, ...] = ()
    audio_span: Optional[tuple[float, float]] = None
    endpoints: tuple = ()  # [url, ok, latency_s, kind] per attempt (HTTP backends)
    reused: bool = False  # replayed from an earlier attempt (not stored again)

    def store_fields(self) -> dict:
        """Keyword arguments for Store.add_run_call."""
        return {"status": self.status, "error_kind": self.error_kind, "attempts": self.attempts,
                "latency_s": self.latency_s,  # unrounded: a replayed call arrives exactly when it did "prompt": self.prompt,
                "raw_reply": self.raw_reply, "decision": self.decision, "text": self.text,
                "compliant": self.compliant, "frame_times": self.frame_times, "audio_span": self.audio_span,
                "endpoints": self.endpoints}

    @classmethod
    def from_row(cls, row: dict) -> "CallRecord":
        span = row.get("audio_span")
        return cls(t=float(row["t"]), status=row["status"], error_kind=row.get("error_kind"),
                   attempts=int(row.get("attempts") or 0), latency_s=row.get("latency_s"),
                   prompt=row.get("prompt") or "", raw_reply=row.get("raw_reply") or "",
                   decision=row.get("decision"), text=row.get("text") or "",
                   compliant=None if row.get("compliant") is None else bool(row["compliant"]),
                   frame_times=tuple(row.get("frame_times") or ()), audio_span=tuple(span) if span else None,
                   endpoints=tuple(tuple(a) for a in row.get("endpoints") or ()))


@dataclass(frozen=True)
class Emission:
    """One timed output of a model: `t` is the decision time (stream seconds, 3 decimals)."""
    t: float
    content: str
    latency_s: float = 0.0
    kind: str = "speech"  # speech | tool_call
    tool: Optional[dict] = None  # {"name", "args"} for tool calls
    frame_t: Optional[float] = None  # the latest frame the model had
    raw: str = ""
    meta: dict = field(default_factory=dict)


@dataclass
class Trace:
    """The outcome of driving one item: emissions, per-poll latencies and what was shown when."""
    item_id: str
    protocol: str
    backend: str
    emissions: list[Emission] = field(default_factory=list)
    poll_latencies: list[float] = field(default_factory=list)
    n_polls: int = 0
    n_errors: int = 0
    skipped_ticks: int = 0
    failed: Optional[str] = None
    cancelled: bool = False
    shown: list[tuple[float, tuple[float, ...], tuple[float, ...]]] = field(default_factory=list)
    hindsight: bool = False  # offline protocol: the model saw the whole video
    timing: str = "decision"  # decision: responses count at the tick; arrival: at tick + latency
    calls: list[CallRecord] = field(default_factory=list)  # one per tick reached (ok, error or skipped)
    n_reused: int = 0  # calls replayed from an earlier attempt at this item (resume)

    def errors_by_kind(self) -> dict[str, int]:
        return dict(Counter(c.error_kind or "error" for c in self.calls if c.status == "error"))

    @property
    def n_retries(self) -> int:
        return sum(max(0, c.attempts - 1) for c in self.calls if c.status != "skipped")

    @property
    def n_compliant(self) -> int:
        return sum(1 for c in self.calls if c.status == "ok" and c.compliant)


class Media:
    """Lazily opened samplers for one stream (frames resized to the protocol's max_long_side)."""

    def __init__(self, video_path: Optional[str], audio_path: Optional[str] = None, *,
                 max_long_side: Optional[int] = 512, audio_rate: int = 16000, duration: Optional[float] = None):
        self.video_path = video_path
        self.audio_path = audio_path or video_path
        self.max_long_side = max_long_side
        self.audio_rate = audio_rate
        self._duration = duration
        self._frames: Optional[FrameSampler] = None
        self._audio: Optional[AudioSampler] = None
        self._audio_failed = False

    @classmethod
    def for_item(cls, item: Item, config: ProtocolConfig) -> "Media":
        s = item.stream
        return cls(s.video_path, s.audio_path, max_long_side=config.max_long_side,
                   audio_rate=config.audio_rate, duration=s.duration)

    @property
    def frames(self) -> FrameSampler:
        if self._frames is None:
            if not self.video_path:
                raise ValueError("this stream has no video file")
            self._frames = FrameSampler(self.video_path, max_long_side=self.max_long_side)
        return self._frames

    @property
    def audio(self) -> Optional[AudioSampler]:
        """The audio sampler, or None when the stream has no decodable audio."""
        if self._audio is None and not self._audio_failed and self.audio_path:
            try:
                a = AudioSampler(self.audio_path, rate=self.audio_rate)
                _ = a.samples
                self._audio = a
            except Exception:
                self._audio_failed = True
        return self._audio

    @property
    def duration(self) -> float:
        if self._duration:
            return float(self._duration)
        d = self.frames.duration
        if d is None:
            raise ValueError(f"{self.video_path}: duration unknown (set Stream.duration)")
        return d

    def close(self) -> None:
        if self._frames is not None:
            self._frames.close()


@dataclass
class ItemState:
    """A protocol's per-item memory (the growing conversation of interleaved/duplex protocols)."""
    item: Item
    media: Media
    conversation: list[dict] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    prev_t: float = -1.0
    extra: dict = field(default_factory=dict)


class Protocol:
    """Base class: `ticks`, `start`, `decide`, `absorb`. Subclasses own the benchmark's rules."""
    name = "base"
    benchmark = ""
    default_options: dict = {}

    def __init__(self, config: Optional[ProtocolConfig] = None, **options: Any):
        base = config if config is not None else ProtocolConfig().with_options(**self.default_options)
        self.config = base.with_options(**options)

    def duration(self, item: Item, media: Optional[Media] = None) -> float:
        d = item.stream.duration
        if not d and isinstance(item.native, dict):
            d = item.native.get("duration_s") or item.native.get("duration")
        if not d and media is not None:
            d = media.duration
        if not d:
            raise ValueError(f"item {item.id}: stream duration unknown (Stream.duration / native duration_s)")
        return float(d)

    def ticks(self, item: Item, media: Optional[Media] = None) -> list[float]:
        raise NotImplementedError

    def start(self, item: Item, media: Media) -> ItemState:
        return ItemState(item=item, media=media)

    def decide(self, state: ItemState, t: float) -> Decision:
        raise NotImplementedError

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        raise NotImplementedError

    # -- shared helpers -----------------------------------------------------------------------
    def visible_stamps(self, state: ItemState, t: float, since: Optional[float] = None) -> list[float]:
        """Sample stamps <= t (and > since), never past the stream's end."""
        dur = self.duration(state.item, state.media)
        lo = -1.0 if since is None else since
        return sample_stamps(lo, min(t, dur), self.config.sample_fps)

    def frames_for(self, state: ItemState, stamps: list[float], t: float) -> list[Frame]:
        """Decode the frames at `stamps`; with none, fall back to the frame on screen at time 0."""
        if self.config.blind:
            return []
        if not stamps:
            return [state.media.frames.frame(0.0)] if t >= 0 else []
        return [state.media.frames.frame(s) for s in stamps]


def tick_range(start: float, stop: float, interval: float) -> list[float]:
    """start, start+interval, ... up to stop + 1e-6 (computed by multiplication, no drift)."""
    if interval <= 0:
        raise ValueError(f"interval must be > 0, got {interval}")
    out, k = [], 0
    while True:
        t = round(start + k * interval, 6)
        if t > stop + 1e-6:
            return out
        out.append(t)
        k += 1


def even_subsample(n: int, m: int) -> list[int]:
    """Indices round(i(n-1)/(m-1)), deduplicated; all of them when n <= m; always keeps the last."""
    if n <= m:
        return list(range(n))
    if m <= 1:
        return [n - 1]
    seen, out = set(), []
    for i in range(m):
        j = round(i * (n - 1) / (m - 1))
        if j not in seen:
            seen.add(j)
            out.append(j)
    return out


def image_parts(frames: list[Frame]) -> list[dict]:
    return [{"type": "image", "frame": f} for f in frames]


def single_turn(system: str, frames: list[Frame], text: str) -> list[dict]:
    """A fresh two-message conversation: the system prompt, then the frames and the text as one user turn."""
    return [{"role": "system", "content": [{"type": "text", "text": system}]},
            {"role": "user", "content": image_parts(frames) + [{"type": "text", "text": text}]}]


def spoken_emissions(state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
    """Parse a speak-or-stay-silent reply, log it in the state's history, and emit the speech (if any)
    at the decision time."""
    parsed = parse_decision(reply.text)
    state.history.append({"t": decision.t, "reply": parsed.response, "spoke": parsed.speak})
    if not parsed.speak:
        return []
    return [Emission(t=round_t(decision.t), content=parsed.response, latency_s=reply.latency_s,
                     frame_t=decision.latest_frame_t, raw=reply.text or "")]


def drop_old_images(conversation: list[dict], keep: int, part_type: str = "image") -> None:
    """Drop the oldest image (or audio) parts so at most `keep` remain; text parts stay."""
    total = sum(1 for m in conversation for p in m["content"] if p.get("type") == part_type)
    excess = total - keep
    if excess <= 0:
        return
    for m in conversation:
        if excess <= 0:
            break
        kept = []
        for p in m["content"]:
            if excess > 0 and p.get("type") == part_type:
                excess -= 1
                continue
            kept.append(p)
        m["content"] = kept


def frames_in(messages: list[dict]) -> list[Frame]:
    return [p["frame"] for m in messages for p in m["content"] if p.get("type") == "image"]


def audio_in(messages: list[dict]) -> list[AudioChunk]:
    return [p["chunk"] for m in messages for p in m["content"] if p.get("type") == "audio"]


class BackendFailure(RuntimeError):
    """Raised by backends when a poll failed after retries (transport, server or timeout). `kind` names the
    failure for the run's counts (http_500, http_429, timeout, connection, malformed, backend)."""

    def __init__(self, message: str, kind: str = "backend", attempts: int = 1, endpoints: tuple = ()):
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts
        self.endpoints = endpoints


TIMINGS = ("decision", "arrival")


def _decision_label(expects: str, emissions: list[Emission]) -> str:
    if expects == "offline":
        return "offline"
    if any(e.kind == "tool_call" for e in emissions):
        return "tool_call"
    return "speak" if emissions else "silent"


def _arrive(e: Emission, arrival: float) -> Emission:
    """An emission re-stamped at the time its reply arrived (arrival timing); the tick stays in meta."""
    meta = {**e.meta, "decision_t": e.t}
    if "second" in e.meta:  # per-second protocols: the first decision second at or after the arrival
        meta["second"] = max(int(e.meta["second"]), math.ceil(round(arrival, 6)))
    return replace(e, t=round_t(arrival), meta=meta)


def drive(item: Item, protocol: Protocol, backend, *, media: Optional[Media] = None,
          on_emission: Optional[Callable[[Emission], None]] = None,
          on_decision: Optional[Callable[[Decision], None]] = None,
          on_call: Optional[Callable[[CallRecord], None]] = None,
          clock=None, cancel: Optional[threading.Event] = None, skip_late: bool = True,
          max_consecutive_errors: Optional[int] = 3, timing: str = "decision",
          reuse: Optional[dict[float, CallRecord]] = None) -> Trace:
    """Ask `backend` at every tick of `protocol` for `item`; return the timed emissions and a CallRecord
    per tick (`on_call` sees each as soon as it is known, so a caller can store it durably).

    timing="decision": a reply counts at its tick (the benchmarks' published protocol). timing="arrival": it
    counts at tick + latency, and ticks that come due while a call is in flight are skipped (`status` skipped),
    as a live model experiences them (batch and live apply the same rule to the measured latency, so they
    agree). With a live `clock` (runners.clock.MediaClock) each decision waits for media time to reach the
    tick, and ticks the page has run more than one interval past (a seek, a stall) are skipped (`skip_late`). `reuse` maps ticks to
    ok CallRecords of an earlier attempt: those replies are replayed (with their latency) instead of asked."""
    if timing not in TIMINGS:
        raise ValueError(f"timing must be one of {TIMINGS}, got {timing!r}")
    own_media = media is None
    media = media or Media.for_item(item, protocol.config)
    trace = Trace(item_id=item.id, protocol=protocol.name, backend=getattr(backend, "name", type(backend).__name__),
                  hindsight=protocol.name == "offline", timing=timing)
    reuse = reuse or {}
    errors_in_row = 0
    busy_until = -math.inf  # arrival timing: media time the call in flight comes back at

    def record(call: CallRecord) -> None:
        trace.calls.append(call)
        if on_call is not None:
            on_call(call)

    try:
        state = protocol.start(item, media)
        for t in protocol.ticks(item, media):
            if cancel is not None and cancel.is_set():
                trace.cancelled = True
                break
            if timing == "arrival" and t < busy_until - 1e-9:
                trace.skipped_ticks += 1
                record(CallRecord(t=t, status="skipped"))
                continue
            if clock is not None:
                from runners.clock import ClockStale

                try:
                    now = clock.wait_until(t)
                except ClockStale as exc:
                    trace.failed = str(exc)
                    break
                if skip_late and now - t > protocol.config.interval:  # the page is ahead (a seek, a stall)
                    trace.skipped_ticks += 1
                    record(CallRecord(t=t, status="skipped"))
                    continue
            decision = protocol.decide(state, t)
            trace.shown.append((decision.t, tuple(f.t for f in decision.frames),
                                tuple(f.source_t for f in decision.frames)))
            if on_decision is not None:
                on_decision(decision)
            trace.n_polls += 1
            call = CallRecord(t=t, status="ok", prompt=decision.prompt,
                              frame_times=tuple(round(f.t, 6) for f in decision.frames),
                              audio_span=(min(a.t0 for a in decision.audio), max(a.t1 for a in decision.audio))
                              if decision.audio else None)
            old = reuse.get(round(float(t), 6))
            started = time.perf_counter()
            if old is not None and old.status == "ok":
                reply = Reply(old.raw_reply, float(old.latency_s or 0.0), None, None, old.attempts)
                trace.n_reused += 1
                call.reused = True
            else:
                try:
                    reply = backend.respond(decision)
                except BackendFailure as exc:
                    reply = Reply("", time.perf_counter() - started, None, str(exc),
                                  getattr(exc, "attempts", 1), getattr(exc, "kind", "backend"),
                                  getattr(exc, "endpoints", ()))
                if not isinstance(reply, Reply):
                    reply = Reply(str(reply or ""), time.perf_counter() - started)
            call.attempts, call.latency_s = reply.attempts, reply.latency_s
            call.endpoints = tuple(old.endpoints if call.reused else reply.endpoints)  # resume keeps per-endpoint counts
            trace.poll_latencies.append(reply.latency_s)
            arrival = busy_until = t + reply.latency_s
            emissions = protocol.absorb(state, decision, reply)
            if reply.error is not None:
                trace.n_errors += 1
                errors_in_row += 1
                call.status, call.error_kind = "error", reply.error_kind or "malformed"
                call.raw_reply = reply.text or reply.error
                record(call)
                if max_consecutive_errors and errors_in_row >= max_consecutive_errors:
                    trace.failed = f"{errors_in_row} failed polls in a row; last: {reply.error}"
                    break
                continue
            errors_in_row = 0
            if timing == "arrival" and not trace.hindsight:
                emissions = [_arrive(e, arrival) for e in emissions]
            call.raw_reply, call.compliant = reply.text or "", follows_format(decision.expects, reply.text)
            call.decision = _decision_label(decision.expects, emissions)
            call.text = " | ".join(e.content for e in emissions)
            record(call)
            for e in emissions:
                trace.emissions.append(e)
                if on_emission is not None:
                    on_emission(e)
    finally:
        if own_media:
            media.close()
    return trace


def round_t(t: float) -> float:
    """Emission time: decision time rounded to 3 decimals (the reference runner's rule)."""
    return round(float(t) + 0.0, 3) if math.isfinite(t) else t
