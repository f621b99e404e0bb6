"""`realtime:<url>`: a full-duplex model behind an OpenAI-Realtime-protocol WebSocket server.

Unlike the polled backends, the model is not asked at ticks: the stream itself is played to it. The stream
clock drives sending (`input_audio_buffer.append` at real-time pace, frames as image items at `fps`, a text
request at its time), and everything the model says comes back as events: `response.audio.delta` audio is
placed on the media timeline at the media time it arrived (queued behind audio still playing, as a speaker
would play it), `response.audio_transcript.delta` text is kept with the audio position it arrived at.

A dropped connection is reconnected (`reconnects` times) and streaming resumes at the current media time;
the span without a model is recorded as a gap. When reconnecting fails the item fails (missing data,
never silence). Malformed events and server `error` events are counted, never dropped silently."""
from __future__ import annotations

import base64
import binascii
import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from annotation import registry
from runners.backends.base import Backend, BackendFailure, jpeg_data_url, missing_dependency
from runners.backends.pool import DEFAULT_COOLDOWN, Attempt, shared_pool, split_urls
from runners.benchmarks import hook

DEFAULT_INSTRUCTIONS = ("You are watching and listening to a live video stream together with the user. Answer the "
                        "user's requests out loud, briefly, at the moment you can; stay silent otherwise.")
AUDIO_DELTAS = ("response.audio.delta", "response.output_audio.delta")
TRANSCRIPT_DELTAS = ("response.audio_transcript.delta", "response.output_audio_transcript.delta")
TEXT_DELTAS = ("response.text.delta", "response.output_text.delta")
TOOL_CALL_DONE = "response.function_call_arguments.done"
TURN_MODES = ("server_vad", "manual")
IMAGE_MODES = ("item", "buffer")
REQUEST_MODES = ("auto", "always", "never")
DIALECTS = ("openai", "minicpmo")
STALL_S = 10.0  # media seconds past the stream's end with audio still unsent: the connection is stuck


@dataclass(frozen=True)
class RealtimeOptions:
    """Every knob of a realtime session (all JSON-ready, stored with the run)."""
    model: Optional[str] = None  # sent as ?model= when the URL has none, and in session.update
    voice: Optional[str] = None
    modalities: tuple[str, ...] = ("text", "audio")
    api_key_env: Optional[str] = None  # the NAME of the variable holding the key; the key is never stored
    turn: str = "server_vad"  # server_vad: the server decides turns; manual: commit + response.create every probe_s
    probe_s: float = 1.0
    fps: float = 1.0  # frames per second sent as images (stamps (i + 0.5) / fps, as the protocols stamp)
    chunk_s: Optional[float] = None  # audio per append (openai 0.05 s; minicpmo 1 s units)
    input_rate: Optional[int] = None  # input rate (openai pcm16 24 kHz; minicpmo float32 16 kHz)
    output_rate: int = 24000  # pcm16 rate of response audio
    speed: float = 1.0  # media seconds per wall second in batch (live: the page's clock)
    reconnects: int = 2
    connect_timeout: float = 10.0
    image_mode: str = "item"  # item: conversation.item.create input_image; buffer: input_image_buffer.append
    instructions: Optional[str] = None
    request_text: str = "auto"  # auto: send the request as text unless it is spoken in the stream
    tail_s: float = 0.0  # keep listening this long after the stream ends (speech past the end is cut)
    max_long_side: int = 512
    jpeg_quality: int = 80
    asr_model: Optional[str] = None  # faster-whisper model for speech without transcript deltas (runners.asr)
    session: dict = field(default_factory=dict)  # extra session.update fields for a vendor
    dialect: str = "openai"  # openai: OpenAI Realtime events; minicpmo: MiniCPM-o's /v1/realtime gateway
    max_slice_nums: int = 1  # minicpmo: video slices per frame (1: 64 tokens)
    queue_timeout: float = 600.0  # minicpmo: wall seconds to wait for session.queue_done / session.created

    def __post_init__(self):
        if self.dialect not in DIALECTS:
            raise ValueError(f"realtime backend option: dialect must be one of {DIALECTS}")
        mini = self.dialect == "minicpmo"
        if self.chunk_s is None:
            object.__setattr__(self, "chunk_s", 1.0 if mini else 0.05)
        if self.input_rate is None:
            object.__setattr__(self, "input_rate", 16000 if mini else 24000)
        if mini and (self.turn != "server_vad" or self.chunk_s < 0.25):
            raise ValueError("realtime backend option: the minicpmo dialect has no manual turns and needs "
                             "chunk_s >= 0.25 (the gateway's minimum append)")
        checks = [(self.turn in TURN_MODES, f"turn must be one of {TURN_MODES}"),
                  (self.image_mode in IMAGE_MODES, f"image_mode must be one of {IMAGE_MODES}"),
                  (self.request_text in REQUEST_MODES, f"request_text must be one of {REQUEST_MODES}"),
                  (self.probe_s > 0 and self.chunk_s > 0 and self.speed > 0, "probe_s, chunk_s, speed must be > 0"),
                  (self.fps >= 0, "fps must be >= 0 (0: no frames)"),
                  (self.input_rate > 0 and self.output_rate > 0, "input_rate and output_rate must be > 0"),
                  (int(self.reconnects) >= 0, "reconnects must be >= 0"),
                  (self.tail_s >= 0, "tail_s must be >= 0"),
                  (set(self.modalities) <= {"text", "audio"} and self.modalities, "modalities: text and/or audio"),
                  (isinstance(self.session, dict), "session must be an object")]
        for ok, msg in checks:
            if not ok:
                raise ValueError(f"realtime backend option: {msg}")
        if self.api_key_env is not None and (not isinstance(self.api_key_env, str)
                                             or not self.api_key_env.replace("_", "").isalnum()):
            raise ValueError("realtime backend option api_key_env must be an environment variable NAME")


@dataclass
class ResponseRecord:
    """One model response: when it was created and where its audio and text landed (media seconds)."""
    id: str
    created_t: Optional[float] = None
    spans: list[list[float]] = field(default_factory=list)  # placed audio runs [start, end]
    samples: int = 0  # audio samples received so far (placed or not)
    deltas: list[dict] = field(default_factory=list)  # {"text", "t": arrival, "pos": samples placed then}
    text_only: bool = False
    done: bool = False
    status: Optional[str] = None
    interrupted_t: Optional[float] = None

    @property
    def text(self) -> str:
        return "".join(d["text"] for d in self.deltas)

    def to_json(self) -> dict:
        return {"id": self.id, "created_t": self.created_t, "spans": self.spans, "samples": self.samples,
                "deltas": self.deltas, "text": self.text, "text_only": self.text_only, "done": self.done,
                "status": self.status, "interrupted_t": self.interrupted_t}


class Timeline:
    """The model's speech on the media timeline (int16 at `rate`, as long as the stream). Audio that arrives
    while earlier audio is still playing is queued behind it; audio past the stream's end is cut."""

    def __init__(self, duration: float, rate: int):
        self.rate = int(rate)
        self.audio = np.zeros(int(round(duration * rate)), dtype=np.int16)
        self.cursor = 0  # first sample not yet claimed by queued audio
        self.cut_samples = 0

    def place(self, t: float, pcm: np.ndarray) -> tuple[int, int]:
        """Place samples arriving at media time t; returns the [start, end) sample range actually written."""
        start = max(int(round(max(t, 0.0) * self.rate)), self.cursor)
        end = start + len(pcm)
        kept = max(0, min(end, len(self.audio)) - start)
        if kept:
            self.audio[start:start + kept] = pcm[:kept]
        self.cut_samples += len(pcm) - kept
        self.cursor = end
        return start, start + kept

    def truncate(self, t: float) -> int:
        """Barge-in: drop queued audio after media time t (it was never heard); returns samples dropped."""
        at = int(round(max(t, 0.0) * self.rate))
        if self.cursor <= at:
            return 0
        lo, hi = at, min(self.cursor, len(self.audio))
        if hi > lo:
            self.audio[lo:hi] = 0
        dropped = self.cursor - at
        self.cursor = at
        return dropped


@dataclass
class StreamResult:
    """What a realtime session produced for one item."""
    item_id: str
    duration: float
    timeline: Timeline
    responses: list[ResponseRecord] = field(default_factory=list)
    user_transcripts: list[dict] = field(default_factory=list)
    tool_calls: list[dict] = field(default_factory=list)  # {"t", "name", "args", "call_id"} at arrival
    n_events: int = 0
    n_malformed: int = 0
    malformed: list[str] = field(default_factory=list)  # the first few, for the report
    n_server_errors: int = 0
    server_errors: list[str] = field(default_factory=list)
    n_reconnects: int = 0
    gaps: list[list[float]] = field(default_factory=list)  # media spans with no model connected
    n_frames: int = 0
    n_audio_chunks: int = 0
    endpoints: list = field(default_factory=list)  # [url, ok, seconds, kind] per connection (pools only)
    failed: Optional[str] = None
    cancelled: bool = False

    @property
    def n_errors(self) -> int:
        return self.n_malformed + self.n_server_errors

    def counts(self) -> dict:
        return {"n_events": self.n_events, "n_malformed": self.n_malformed, "malformed": self.malformed[:5],
                "n_server_errors": self.n_server_errors, "server_errors": self.server_errors[:5],
                "n_reconnects": self.n_reconnects, "gaps": self.gaps, "n_frames": self.n_frames,
                "n_audio_chunks": self.n_audio_chunks,
                "cut_s": round(self.timeline.cut_samples / self.timeline.rate, 3)}


class _Dropped(Exception):
    """The connection ended before the stream did."""


def paced_clock(speed: float = 1.0):
    """A media clock that starts at 0 now and runs at `speed` (batch runs: the stream plays by itself)."""
    from runners.clock import MediaClock

    clock = MediaClock(stale_after=math.inf)
    clock.report(0.0, paused=False, rate=float(speed))
    return clock


def realtime_url(url: str, model: Optional[str], mode: Optional[str] = None) -> str:
    """ws(s) URL with ?model= added when a model is given and the URL names none (http(s) becomes ws(s));
    `mode` (MiniCPM-o: video | audio) is added the same way."""
    parts = urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss") or not parts.netloc:
        raise ValueError(f"realtime spec needs a ws://, wss://, http:// or https:// URL, got {url!r}")
    query = parse_qsl(parts.query)
    if model and not any(k == "model" for k, _ in query):
        query.append(("model", model))
    if mode and not any(k == "mode" for k, _ in query):
        query.append(("mode", mode))
    return urlunsplit((scheme, parts.netloc, parts.path, urlencode(query), ""))


def request_in_stream(item, benchmark: str) -> bool:
    """Does the stream itself speak the item's request (the benchmark's `request_in_stream` hook; no)?"""
    if benchmark not in registry.names():
        return False
    return hook(benchmark, "request_in_stream", lambda item: False)(item)


def item_tools(item) -> list[dict]:
    """The tools an item offers (InteractScope's native `tools`, else Item.meta["tools"])."""
    native = item.native if isinstance(item.native, dict) else {}
    return list(native.get("tools") or (item.meta or {}).get("tools") or [])


class RealtimeBackend(Backend):
    """A duplex model over the OpenAI Realtime event protocol. `stream_item` plays one item to it. The URL may
    name several servers (`url1,url2,...`): each connection goes to the least loaded healthy one (at most
    `concurrency` sessions each); one that cannot be reached is left out for `endpoint_cooldown` seconds."""
    supports_audio = True
    streams_media = True  # driven by the stream clock, not by protocol ticks (runners.realtime_run)

    def __init__(self, url: str, **options):
        try:
            import websockets  # noqa: F401
        except ImportError as exc:
            raise missing_dependency("the realtime backend", "websockets==17.4", exc) from None
        limit = options.pop("concurrency", 4)
        cooldown = options.pop("endpoint_cooldown", DEFAULT_COOLDOWN)
        modalities = options.pop("modalities", ("text", "audio"))
        if isinstance(modalities, str):
            modalities = tuple(m.strip() for m in modalities.split(",") if m.strip())
        self.options = RealtimeOptions(modalities=tuple(modalities), **options)
        mode = ("video" if self.options.fps > 0 else "audio") if self.options.dialect == "minicpmo" else None
        self.urls = [realtime_url(u, self.options.model, mode) for u in split_urls(url)] or [realtime_url(url, None)]
        self.url = self.urls[0]
        self.pool = shared_pool(self.urls, limit, cooldown)
        self.name = f"realtime:{self.options.model or urlsplit(self.url).netloc}"

    def respond(self, decision):
        raise BackendFailure("realtime backends stream the whole item (runners.realtime_run); they answer no polls")

    # -- the session ----------------------------------------------------------------------------
    def _headers(self) -> dict:
        headers = {"OpenAI-Beta": "realtime=v1"}
        if self.options.api_key_env:
            key = os.environ.get(self.options.api_key_env)
            if not key:
                raise BackendFailure(f"environment variable {self.options.api_key_env} (api_key_env) is not set")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def session_update(self, item, benchmark: str) -> dict:
        o = self.options
        if o.dialect == "minicpmo":  # instructions (a standing request goes with them), slices per frame
            text = o.instructions or DEFAULT_INSTRUCTIONS
            if self.wants_request_text(item, benchmark):
                text += f"\n\nThe user's request: {item.request.text}"
            return {"type": "session.update", "session": {"instructions": text, "max_slice_nums": o.max_slice_nums,
                                                          **o.session}}
        session = {"modalities": list(o.modalities), "instructions": o.instructions or DEFAULT_INSTRUCTIONS,
                   "input_audio_format": "pcm16", "output_audio_format": "pcm16",
                   "turn_detection": {"type": "server_vad"} if o.turn == "server_vad" else None}
        if o.voice:
            session["voice"] = o.voice
        if o.model:
            session["model"] = o.model
        tools = item_tools(item)
        if tools:  # InteractScope: the item's tools as the API's own function tools
            session["tools"] = [{"type": "function", "name": t["name"], "description": t.get("description", ""),
                                 "parameters": t.get("parameters") if isinstance(t.get("parameters"), dict)
                                 and "type" in t["parameters"] else {"type": "object", "properties": {}}}
                                for t in tools]
        session.update(o.session)
        return {"type": "session.update", "session": session}

    def wants_request_text(self, item, benchmark: str) -> bool:
        """Send the request as a text item? (auto: not when the benchmark's stream speaks it, as OmniInteract's
        does: its `request_in_stream` hook.)"""
        mode = self.options.request_text
        if mode != "auto":
            return mode == "always"
        return bool(item.request.text) and not request_in_stream(item, benchmark)

    def stream_item(self, item, benchmark: str = "", *, clock=None, cancel: Optional[threading.Event] = None,
                    on_speech: Optional[Callable[[str, float, np.ndarray], None]] = None,
                    on_response: Optional[Callable[[ResponseRecord], None]] = None,
                    mix: Optional[Callable[[float, float, int], Optional[np.ndarray]]] = None) -> StreamResult:
        """Play `item`'s stream to the model and collect what it says. `clock` is a live MediaClock (the page's);
        without one the stream plays by itself at `speed`. `on_speech(response_id, t, pcm16)` sees each placed
        audio piece as it arrives (live playback); `on_response(record)` sees each response once it is over
        (done, cut by a barge-in, open when its connection was lost or when the stream ended). `mix(t0, t1, rate)`
        may return float32 samples of [t0, t1) added to the stream's audio before it is sent (duplex live: the
        person's microphone, so the model hears both)."""
        from runners.protocols.base import Media

        o = self.options
        media = Media(item.stream.video_path, item.stream.audio_path, max_long_side=o.max_long_side,
                      audio_rate=o.input_rate, duration=item.stream.duration)
        try:
            duration = float(media.duration)
            audio = media.audio  # decoded once before connecting: the clock must not wait for a decoder
            samples = audio.samples if audio is not None else np.zeros(int(duration * o.input_rate), np.float32)
            result = StreamResult(item.id, duration, Timeline(duration, o.output_rate))
            late = float(item.request.time or 0) > 0
            if o.dialect == "minicpmo" and late and self.wants_request_text(item, benchmark):
                result.failed = (f"the minicpmo dialect cannot send a text request at its time "
                                 f"({item.request.time:g} s); use request_text=never to stream without it")
                return result
            run = _Run(self, item, benchmark, media, samples, result, clock, cancel, on_speech, on_response)
            run.mix = mix
            try:
                run.play()
            finally:
                run.finish_open_responses()
            return result
        finally:
            media.close()


class _Run:
    """One item's session(s): a sender thread paced by the clock, this thread receiving events."""

    def __init__(self, backend: RealtimeBackend, item, benchmark, media, samples, result: StreamResult,
                 clock, cancel, on_speech, on_response=None):
        self.b, self.o = backend, backend.options
        self.item, self.benchmark, self.media, self.samples, self.r = item, benchmark, media, samples, result
        self.clock = clock
        self.cancel = cancel or threading.Event()
        self.on_speech = on_speech
        self.on_response = on_response
        self.reported: set[str] = set()
        self.ws = None
        self.mix = None
        self.sent_until = 0.0  # media time the audio sent so far reaches
        self.frame_i = 0
        self.mini = self.o.dialect == "minicpmo"
        self.request_sent = self.mini or not backend.wants_request_text(item, benchmark)
        self.server_closed: Optional[str] = None
        self.n_turns = 0
        self.next_probe = self.o.probe_s
        self.current: Optional[ResponseRecord] = None
        self.by_id: dict[str, ResponseRecord] = {}
        self.interrupted: set[str] = set()
        self.response_active = False
        self.end_t = result.duration + self.o.tail_s

    def now(self) -> float:
        t = self.clock.now() if self.clock is not None else 0.0
        if t is None:
            from runners.clock import ClockStale
            raise ClockStale("media clock went stale (the page stopped reporting)")
        return float(t)

    def arrival_t(self) -> float:
        """The media time an event arrived at: the stream clock, but never more than one chunk past the audio
        actually sent (a starved sender has not played the stream that far: the model heard only what was
        sent, so a late client must not make the model look late)."""
        return min(self.now(), self.sent_until + self.o.chunk_s)

    def play(self) -> None:
        from runners.clock import ClockStale

        attempts = 0
        drop_t: Optional[float] = None
        while True:
            endpoint, started, lost = self.b.pool.acquire(), time.perf_counter(), "connection"
            try:
                self._connection(drop_t, endpoint)
                lost = None
                return
            except _Dropped as exc:
                # the gap starts where the sent audio ends; speech already received still plays out
                drop_t = None if self.clock is None else self.sent_until
                if self.current is not None:  # a response open on the lost connection ends with what arrived
                    self._report(self.current)
                    self.current, self.response_active = None, False
                attempts += 1
                if attempts > int(self.o.reconnects):
                    where = "before streaming" if drop_t is None else f"at media time {drop_t:.2f}s"
                    self.r.failed = f"connection lost {where}; {attempts - 1} reconnect(s) failed: {exc}"
                    return
                self.r.n_reconnects += 1
                time.sleep(min(2.0, 0.2 * attempts))  # the clock runs on: a slow reconnect is a longer gap
            except ClockStale as exc:
                self.r.failed = str(exc)
                lost = None
                return
            except BackendFailure as exc:
                self.r.failed = str(exc)
                lost = None  # the session's own failure, not the server's
                return
            finally:
                self.b.pool.release(endpoint, ok=lost is None)
                if len(self.b.urls) > 1:
                    self.r.endpoints.append(Attempt(endpoint, lost is None, time.perf_counter() - started,
                                                    lost).to_json())

    # -- one connection ----------------------------------------------------------------------
    def _connect(self, url: str):
        from websockets.exceptions import InvalidHandshake, InvalidURI
        from websockets.sync.client import connect

        try:
            return connect(url, additional_headers=self.b._headers(), open_timeout=self.o.connect_timeout,
                           max_size=None, compression=None)
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
            raise _Dropped(f"cannot connect to {url}: {type(exc).__name__}: {exc}") from None

    def _connection(self, drop_t: Optional[float], url: str) -> None:
        from websockets.exceptions import ConnectionClosed

        ws = self._connect(url)
        self.ws = ws
        stop = threading.Event()
        sender_error: list[BaseException] = []
        self.server_closed = None
        try:
            if self.mini:  # queue first; only then session.update, and stream once the session exists
                self._await(ws, "session.queue_done")
                ws.send(json.dumps(self.b.session_update(self.item, self.benchmark)))
                self._await(ws, "session.created")
            else:
                ws.send(json.dumps(self.b.session_update(self.item, self.benchmark)))
            if self.clock is None:
                self.clock = paced_clock(self.o.speed)  # media time 0 = the first connection is up
            if drop_t is not None:  # resume at the current media time; the missed span is a gap
                resume = min(self.end_t, math.ceil(self.now() / self.o.chunk_s) * self.o.chunk_s)
                resume = max(resume, self.sent_until)
                self.r.gaps.append([round(drop_t, 3), round(resume, 3)])
                self.sent_until = resume
                if self.o.fps > 0:  # frames stamped inside the gap were never shown
                    self.frame_i = max(self.frame_i, math.ceil(resume * self.o.fps - 0.5))
            sender = threading.Thread(target=self._send_loop, args=(ws, stop, sender_error), daemon=True,
                                      name=f"realtime-send-{self.item.id}")
            sender.start()
            try:
                while True:
                    if self.cancel.is_set():
                        self.r.cancelled = True
                        return
                    if sender_error and not isinstance(sender_error[0], ConnectionClosed):
                        raise sender_error[0]
                    if not sender.is_alive() and not sender_error and self.now() >= self.end_t:
                        if self.mini:
                            self._quiet_send(ws, {"type": "session.close", "reason": "user_stop"})
                        return  # the stream (and its tail) is over
                    if self.server_closed is not None:
                        raise _Dropped(f"the server closed the session ({self.server_closed})")
                    if sender.is_alive() and self.now() >= self.end_t + STALL_S:
                        raise _Dropped(f"sending stalled: the stream ended {STALL_S:.0f} media s ago and "
                                       f"audio is sent only up to {self.sent_until:.2f}s")
                    try:
                        msg = ws.recv(timeout=0.05)
                    except TimeoutError:
                        continue
                    except ConnectionClosed as exc:
                        if not sender.is_alive() and not sender_error and self.now() >= self.end_t:
                            return
                        raise _Dropped(f"connection closed ({exc})") from None
                    self._handle(msg)
            finally:
                stop.set()
                sender.join(timeout=5)
        finally:
            try:
                ws.close()
            except Exception:
                pass

    def _send_loop(self, ws, stop: threading.Event, errors: list) -> None:
        try:
            self._send_stream(ws, stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the receiving thread
            errors.append(exc)

    def _send_stream(self, ws, stop: threading.Event) -> None:
        o, dur = self.o, self.r.duration
        k = int(round(self.sent_until / o.chunk_s))
        while not stop.is_set() and not self.cancel.is_set():
            t0 = round(k * o.chunk_s, 6)
            if t0 >= dur - 1e-9:
                break
            t1 = min(round((k + 1) * o.chunk_s, 6), dur)
            self._wait(t1, stop)
            if stop.is_set():
                return
            a, b = int(round(t0 * o.input_rate)), int(round(t1 * o.input_rate))
            chunk = self.samples[a:b]
            if len(chunk) < b - a:
                chunk = np.concatenate([chunk, np.zeros(b - a - len(chunk), np.float32)])
            if self.mix is not None:
                extra = self.mix(t0, t1, o.input_rate)
                if extra is not None and len(extra):
                    chunk = chunk.astype(np.float32, copy=True)
                    n = min(len(chunk), len(extra))
                    chunk[:n] += np.asarray(extra[:n], dtype=np.float32)
            if self.mini:  # float32 audio with this unit's frames inside the append
                ev = {"type": "input_audio_buffer.append",
                      "audio": base64.b64encode(np.clip(chunk, -1, 1).astype("<f4").tobytes()).decode()}
                frames = [url.split(",", 1)[1] for url in self._due_frames(t1)]
                if frames:
                    ev["video_frames"] = frames
                    ev["max_slice_nums"] = o.max_slice_nums
                ws.send(json.dumps(ev))
            else:
                pcm = (np.clip(chunk, -1, 1) * 32767).astype("<i2").tobytes()
                ws.send(json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(pcm).decode()}))
            self.sent_until = t1
            self.r.n_audio_chunks += 1
            if not self.mini:
                self._send_frames(ws, t1)
            self._send_request(ws, t1)
            if o.turn == "manual" and t1 + 1e-9 >= self.next_probe:
                self.next_probe += o.probe_s
                ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
                if not self.response_active:
                    ws.send(json.dumps({"type": "response.create"}))
            k += 1
        if o.tail_s > 0:
            self._wait(self.end_t, stop)

    def _wait(self, t: float, stop: threading.Event) -> None:
        while not stop.is_set() and not self.cancel.is_set():
            try:
                self.clock.wait_until(t, timeout=0.2)
                return
            except TimeoutError:
                continue

    def _due_frames(self, t: float) -> list[str]:
        """JPEG data URLs of the frames stamped (i + 0.5) / fps up to t not yet sent, each the picture on
        screen at its stamp (no lookahead)."""
        out: list[str] = []
        if self.o.fps <= 0 or not self.item.stream.video_path:
            return out
        while (self.frame_i + 0.5) / self.o.fps <= t + 1e-9:
            stamp = (self.frame_i + 0.5) / self.o.fps
            self.frame_i += 1
            out.append(jpeg_data_url(self.media.frames.frame(stamp).image, quality=self.o.jpeg_quality))
            self.r.n_frames += 1
        return out

    def _send_frames(self, ws, t: float) -> None:
        """Each due frame as its own image event (OpenAI dialect)."""
        for url in self._due_frames(t):
            if self.o.image_mode == "buffer":
                ev = {"type": "input_image_buffer.append", "image": url.split(",", 1)[1]}
            else:
                ev = {"type": "conversation.item.create",
                      "item": {"type": "message", "role": "user",
                               "content": [{"type": "input_image", "image_url": url}]}}
            ws.send(json.dumps(ev))

    def _send_request(self, ws, t: float) -> None:
        req = self.item.request
        if self.request_sent or t + 1e-9 < float(req.time or 0.0):
            return
        self.request_sent = True
        ws.send(json.dumps({"type": "conversation.item.create",
                            "item": {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": req.text}]}}))

    # -- events back -------------------------------------------------------------------------
    def _bad(self, what: str, raw) -> None:
        self.r.n_malformed += 1
        if len(self.r.malformed) < 5:
            self.r.malformed.append(f"{what}: {str(raw)[:120]}")

    def _response(self, ev: dict) -> ResponseRecord:
        rid = ev.get("response_id") or (ev.get("response") or {}).get("id")
        rid = str(rid) if rid else (self.current.id if self.current is not None else f"r{len(self.r.responses) + 1}")
        rec = self.by_id.get(rid)
        if rec is None:
            rec = ResponseRecord(rid, created_t=round(self.arrival_t(), 3))
            self.by_id[rid] = rec
            self.r.responses.append(rec)
        self.current = rec
        return rec

    def _handle(self, msg) -> None:
        self.r.n_events += 1
        try:
            ev = json.loads(msg)
        except (TypeError, ValueError):
            self._bad("not JSON", msg)
            return
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            self._bad("no event type", msg)
            return
        kind = ev["type"]
        if self.mini and self._handle_minicpmo(kind, ev, msg):
            return
        if kind == "error":
            self.r.n_server_errors += 1
            err = ev.get("error")
            self.r.server_errors.append(str(err.get("message") if isinstance(err, dict) else err)[:200])
        elif kind == "response.created":
            self._response(ev)
            self.response_active = True
        elif kind in AUDIO_DELTAS:
            self._audio(ev)
        elif kind in TRANSCRIPT_DELTAS or kind in TEXT_DELTAS:
            delta = ev.get("delta")
            if not isinstance(delta, str):
                self._bad(f"{kind} without a text delta", msg)
                return
            rec = self._response(ev)
            if rec.id in self.interrupted:
                return
            rec.text_only = rec.text_only or (kind in TEXT_DELTAS and not rec.samples)
            rec.deltas.append({"text": delta, "t": round(self.arrival_t(), 3), "pos": rec.samples})
        elif kind == "response.done":
            rec = self._response(ev)
            rec.done = True
            resp = ev.get("response") if isinstance(ev.get("response"), dict) else {}
            rec.status = resp.get("status")
            if rec.status == "failed":
                self.r.n_server_errors += 1
                self.r.server_errors.append(f"response {rec.id} failed: {str(resp.get('status_details'))[:150]}")
            self.response_active = False
            self.current = None
            self._report(rec)
        elif kind == TOOL_CALL_DONE:
            self._tool_call(ev, msg)
        elif kind == "input_audio_buffer.speech_started":
            self._truncate_playing(self.arrival_t())
        elif kind == "conversation.item.input_audio_transcription.completed":
            self.r.user_transcripts.append({"t": round(self.arrival_t(), 3), "text": str(ev.get("transcript") or "")})

    def _await(self, ws, kind: str) -> None:
        """MiniCPM-o set-up: read events until `kind` (queue updates pass; errors are counted)."""
        from websockets.exceptions import ConnectionClosed

        deadline = time.monotonic() + self.o.queue_timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Dropped(f"no {kind} within {self.o.queue_timeout:g} s")
            try:
                msg = ws.recv(timeout=min(left, 1.0))
            except TimeoutError:
                if self.cancel.is_set():
                    raise _Dropped("cancelled while queued") from None
                continue
            except ConnectionClosed as exc:
                raise _Dropped(f"connection closed while waiting for {kind} ({exc})") from None
            try:
                ev = json.loads(msg)
            except (TypeError, ValueError):
                ev = None
            if isinstance(ev, dict) and ev.get("type") == kind:
                return
            if isinstance(ev, dict) and ev.get("type") in ("session.queued", "session.queue_update"):
                continue
            if isinstance(ev, dict) and ev.get("type") == "session.closed":
                raise _Dropped(f"the server closed the session ({ev.get('reason')})")
            self.r.n_events += 1  # before streaming there is no media time: errors are counted, nothing placed
            if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
                self._bad("not a JSON event" if ev is None else "no event type", msg)
            elif ev["type"] == "error":
                err = ev.get("error")
                self.r.n_server_errors += 1
                self.r.server_errors.append(str(err.get("message") if isinstance(err, dict) else err)[:200])

    def _handle_minicpmo(self, kind: str, ev: dict, msg) -> bool:
        """MiniCPM-o gateway events (docs/realtime-protocol-overview.md of MiniCPM-o-Demo): speech comes as
        `response.output_audio.delta` {text, audio: float32 24 kHz, end_of_turn}; `response.listen` means the
        model listens (a turn still open is cut there); `session.closed` ends the session."""
        if kind == "response.output_audio.delta":
            text, audio = ev.get("text", ""), ev.get("audio", "")
            try:
                raw = base64.b64decode(audio, validate=True) if isinstance(audio, str) else None
            except (binascii.Error, ValueError):
                raw = None
            if raw is None or len(raw) % 4 or not isinstance(text, str):
                self._bad(f"{kind} with undecodable float32 audio or no text", str(msg)[:80])
                return True
            if self.current is None:
                self.n_turns += 1
                self._response({"response_id": f"turn{self.n_turns}"})
            rec = self.current
            if text:
                rec.deltas.append({"text": text, "t": round(self.arrival_t(), 3), "pos": rec.samples})
            pcm = (np.clip(np.frombuffer(raw, dtype="<f4"), -1, 1) * 32767).astype(np.int16)
            self._place(rec, pcm)
            if ev.get("end_of_turn"):
                rec.done, rec.status = True, "completed"
                self.current = None
                self._report(rec)
            return True
        if kind == "response.listen":
            if self.current is not None:  # listening with a turn still open: its queued audio is never heard
                rec, self.current = self.current, None
                self._truncate_playing(self.arrival_t())
                self._report(rec)
            return True
        if kind == "session.closed":
            self.server_closed = str(ev.get("reason") or "closed")
            return True
        return False  # the rest (errors; set-up and queue events, only counted) is the OpenAI dialect's

    def _quiet_send(self, ws, ev: dict) -> None:
        try:
            ws.send(json.dumps(ev))
        except Exception:  # noqa: BLE001 - the session is ending either way
            pass

    def _tool_call(self, ev: dict, msg) -> None:
        """A function call: kept at its arrival time; the call gets an acknowledgement so the session goes on
        (the benchmarks score the call itself; nothing is executed)."""
        name, raw = ev.get("name"), ev.get("arguments")
        try:
            if isinstance(raw, str):
                args = json.loads(raw) if raw.strip() else {}
            else:  # an object as is; no arguments at all is a call without arguments; anything else is malformed
                args = raw if isinstance(raw, dict) else ({} if raw is None else None)
        except ValueError:
            args = None
        if not isinstance(name, str) or not name or not isinstance(args, dict):
            self._bad(f"{TOOL_CALL_DONE} without a name and JSON object arguments", msg)
            return
        call_id = ev.get("call_id")
        self.r.tool_calls.append({"t": round(self.arrival_t(), 3), "name": name, "args": args, "call_id": call_id})
        if call_id and self.ws is not None:
            try:
                self.ws.send(json.dumps({"type": "conversation.item.create", "item": {
                    "type": "function_call_output", "call_id": call_id, "output": json.dumps({"status": "ok"})}}))
            except Exception:  # noqa: BLE001 - a closed connection shows up in the receive loop
                pass

    def _audio(self, ev: dict) -> None:
        delta = ev.get("delta")
        try:
            raw = base64.b64decode(delta, validate=True) if isinstance(delta, str) else None
        except (binascii.Error, ValueError):
            raw = None
        if raw is None or len(raw) % 2:
            self._bad(f"{ev['type']} with undecodable audio", str(delta)[:60])
            return
        rec = self._response(ev)
        if rec.id in self.interrupted or not raw:
            return
        self._place(rec, np.frombuffer(raw, dtype="<i2"))

    def _place(self, rec: ResponseRecord, pcm: np.ndarray) -> None:
        """Put a response's audio on the timeline at the media time it arrived."""
        t = self.arrival_t()
        start, end = self.r.timeline.place(t, pcm)
        rec.samples += len(pcm)
        if end > start:
            s, e = start / self.r.timeline.rate, end / self.r.timeline.rate
            if rec.spans and abs(rec.spans[-1][1] - s) < 1e-6:
                rec.spans[-1][1] = e
            else:
                rec.spans.append([s, e])
            if self.on_speech is not None:
                self.on_speech(rec.id, s, pcm[: end - start])

    def _truncate_playing(self, t: float) -> None:
        """Barge-in: audio queued past t is never heard; the response stops there."""
        if self.r.timeline.truncate(t) <= 0:
            return
        for rec in self.r.responses:
            if rec.spans and rec.spans[-1][1] > t:
                rec.interrupted_t = round(t, 3)
                rec.spans = [[s, min(e, t)] for s, e in rec.spans if s < t]
                if not rec.done:
                    self.interrupted.add(rec.id)
                    self._report(rec)

    def _report(self, rec: ResponseRecord) -> None:
        """Hand a finished response to `on_response` once (live: committed as the model's response)."""
        if self.on_response is not None and rec.id not in self.reported:
            self.reported.add(rec.id)
            self.on_response(rec)

    def finish_open_responses(self) -> None:
        for rec in self.r.responses:
            self._report(rec)
