"""A realtime (duplex) session's outputs in each benchmark's native form.

`realtime_item_result` plays one item to a `realtime:` backend and returns what the run store keeps: the
transcript (chunks with `aligned_words`) as emissions at chunk onsets and the benchmark's native prediction
(its `realtime_prediction` hook, else `native_prediction`), plus the speech itself (`speech` segments) so a
benchmark can write it out (OmniInteract's `output.wav`, through its `write_outputs` hook).

Word times come from the server's transcript deltas: each delta is pinned to the response audio that had
arrived with it, and its characters share the time up to the next delta. When the server gives no transcript
(or the deltas all came before any audio) the words are spread over the response's audio by character count;
when there is speech but no text at all, faster-whisper with VAD transcribes the speech (runners.asr)."""
from __future__ import annotations

import base64
import re
import threading
from typing import Optional

import numpy as np

from runners.backends.realtime import ResponseRecord, StreamResult
from runners.benchmarks import hook
from runners.protocols.base import Emission, Trace

WORDS_PER_SECOND = 2.5  # text-only responses: how long a chunk lasts (as the duplex transcript of emissions)


def _pos_to_t(spans: list[list[float]], pos: float, rate: int, end: bool = False) -> float:
    """Media time of sample `pos` of a response whose audio was placed in `spans` (a position on a span
    boundary is the next span's start, or with `end` the previous span's end); past the placed audio, the
    time it would have had after the last span."""
    left = pos / rate
    for s, e in spans:  # spans are sample counts over the rate: a boundary is compared within 1e-9 s either way
        if left < e - s - 1e-9 or (end and left <= e - s + 1e-9):
            return s + left
        left -= e - s
    return spans[-1][1] + left


def response_words(rec: ResponseRecord, rate: int) -> list[tuple[str, float, float]]:
    """(word, start, end) in media seconds for a response with placed audio; words past the audio that was
    heard (barge-in, stream end) are dropped. Characters are spread over the audio samples between deltas
    (each delta starts at the audio that had arrived with it), then samples are mapped to media time."""
    text = rec.text
    if not rec.spans or not text.strip():
        return []
    heard_end = rec.spans[-1][1]
    if len({d["pos"] for d in rec.deltas}) < 2:  # no timing in the deltas: spread the text over the audio
        marks = [(0, 0), (len(text), rec.samples)]
    else:
        marks, off = [], 0
        for d in rec.deltas:
            marks.append((off, max(d["pos"], marks[-1][1] if marks else 0)))
            off += len(d["text"])
        marks.append((len(text), max(rec.samples, marks[-1][1])))
    offs, poss = [m[0] for m in marks], [m[1] for m in marks]
    words = []
    for m in re.finditer(r"\S+", text):
        ws = _pos_to_t(rec.spans, float(np.interp(m.start(), offs, poss)), rate)
        we = _pos_to_t(rec.spans, float(np.interp(m.end(), offs, poss)), rate, end=True)
        if ws >= heard_end - 1e-9:
            break  # never heard
        words.append((m.group(), round(ws, 3), round(min(we, heard_end), 3)))
    return words


def _chunk(words: list[tuple[str, float, float]], text: str) -> dict:
    return {"text": text, "timestamp": [words[0][1], words[-1][2]],
            "aligned_words": [{"text": w, "start": s, "end": e} for w, s, e in words]}


def chunk_of_response(rec: ResponseRecord, rate: int, duration: float) -> Optional[dict]:
    """One response as a transcript chunk ({"text", "timestamp", "aligned_words"}), or None when nothing of
    it was heard or written (live: each finished response is committed as the model's response)."""
    if rec.spans:
        words = response_words(rec, rate)
        if not words:
            return None
        return _chunk(words, rec.text.strip() if rec.interrupted_t is None else " ".join(w for w, _, _ in words))
    if not rec.text.strip() or not rec.deltas:
        return None
    s = rec.deltas[0]["t"]  # text-only response: at its first text, lasting by word count
    if s >= duration:
        return None
    n = len(rec.text.split())
    e = min(duration, max(rec.deltas[-1]["t"], s + n / WORDS_PER_SECOND))
    step = (e - s) / max(n, 1)
    words = [(w, round(s + i * step, 3), round(s + (i + 1) * step, 3)) for i, w in enumerate(rec.text.split())]
    return _chunk(words, rec.text.strip())


def transcript_from_stream(result: StreamResult, asr_model: Optional[str] = None) -> dict:
    """OmniInteract's transcript ({"text", "chunks": [{"text", "timestamp", "aligned_words"}]}) for a session:
    one chunk per response, from its transcript deltas; faster-whisper (VAD) when speech came with no text."""
    rate = result.timeline.rate
    spoken = [r for r in result.responses if r.spans]
    if any(not r.text.strip() for r in spoken):
        return transcribe_speech(result, asr_model)
    chunks = [c for c in (chunk_of_response(rec, rate, result.duration) for rec in result.responses) if c]
    chunks.sort(key=lambda c: c["timestamp"][0])
    return {"text": " ".join(c["text"] for c in chunks), "chunks": chunks}


def transcribe_speech(result: StreamResult, asr_model: Optional[str] = None) -> dict:
    """The session's speech (the whole timeline) through faster-whisper with VAD, as transcript chunks."""
    from runners.asr import to_oi_transcript, transcribe

    audio = result.timeline.audio.astype(np.float32) / 32768.0
    if result.timeline.rate != 16000:  # faster-whisper takes 16 kHz arrays; linear resampling is enough for ASR
        n = int(round(len(audio) * 16000 / result.timeline.rate))
        audio = np.interp(np.arange(n) * (result.timeline.rate / 16000), np.arange(len(audio)), audio)
        audio = audio.astype(np.float32)
    tr = transcribe(audio, model=asr_model, vad_filter=True)
    return to_oi_transcript(tr.words)


def emissions_from_transcript(transcript: dict, tool_calls: tuple = ()) -> list[Emission]:
    """Each chunk is an emission at its onset (stream time, 3 decimals); meta keeps its end and second.
    Tool calls are `tool_call` emissions at their arrival, in time order with the speech."""
    from annotation.proactivebench.writer import second_of
    from runners.parsing import ToolCall

    out = []
    for c in transcript.get("chunks", []):
        s, e = c["timestamp"]
        out.append(Emission(t=round(float(s), 3), content=c["text"], meta={"end": e, "second": second_of(s)}))
    for call in tool_calls:
        t = round(float(call["t"]), 3)
        out.append(Emission(t=t, content=ToolCall(call["name"], call["args"]).to_json(), kind="tool_call",
                            tool={"name": call["name"], "args": call["args"]}, meta={"end": t, "second": second_of(t)}))
    return sorted(out, key=lambda e: e.t)


def speech_segments(result: StreamResult) -> list[dict]:
    """The placed speech as [{"t", "rate", "pcm16": base64}] (silence is not stored)."""
    tl = result.timeline
    out = []
    for rec in result.responses:
        for s, e in rec.spans:
            a, b = int(round(s * tl.rate)), int(round(e * tl.rate))
            if b > a:
                out.append({"t": round(a / tl.rate, 6), "rate": tl.rate,
                            "pcm16": base64.b64encode(tl.audio[a:b].astype("<i2").tobytes()).decode()})
    return out


def speech_audio(segments: list[dict], duration: float, rate: int = 24000) -> np.ndarray:
    """int16 audio as long as the stream with the stored segments put back at their times."""
    audio = np.zeros(int(round(duration * rate)), dtype=np.int16)
    for seg in segments:
        if int(seg["rate"]) != rate:
            raise ValueError(f"speech segment at {seg['t']}s has rate {seg['rate']}, expected {rate}")
        pcm = np.frombuffer(base64.b64decode(seg["pcm16"]), dtype="<i2")
        a = int(round(float(seg["t"]) * rate))
        n = max(0, min(len(pcm), len(audio) - a))
        audio[a:a + n] = pcm[:n]
    return audio


def _counts(result: StreamResult, n_polls: int) -> dict:
    """The run-health counts every stored item carries: a realtime "call" is a model turn or an error event;
    malformed events and server errors are the failed ones (by kind); reconnects are reported, with their gaps."""
    kinds = {k: n for k, n in (("malformed", result.n_malformed), ("server_error", result.n_server_errors)) if n}
    return {"timing": "realtime", "n_polls": n_polls + result.n_errors, "n_ok": n_polls,
            "n_errors": result.n_errors, "errors_by_kind": kinds, "error_ticks": [], "n_retries": result.n_reconnects,
            "n_reused": 0, "skipped_ticks": 0, "n_compliant": n_polls, "latencies": [], "poll_latency_mean": None}


def realtime_item_result(benchmark: str, item, backend, cancel: Optional[threading.Event] = None,
                         clock=None) -> dict:
    """Play one item to a realtime backend; the run store's record (as runners.evaluate.item_result's).

    A failed item (connection lost for good, stale clock, speech that cannot be transcribed) says so in
    `failed`; a benchmark whose prediction is the transcript itself gets None (OmniInteract: batch_summary
    lists it `incomplete`, as the reference does), never an empty transcript; the others keep what arrived
    before the failure, marked failed."""
    try:
        result = backend.stream_item(item, benchmark, clock=clock, cancel=cancel)
    except Exception as exc:  # noqa: BLE001 - a failed item is missing data, reported with its cause
        return {"item_id": item.id, "prediction": None, "failed": f"{type(exc).__name__}: {exc}",
                "cancelled": False, "n_polls": 0, "n_ok": 0, "n_errors": 1, "errors_by_kind": {"backend": 1}}
    failed = result.failed
    transcript = None
    if not failed and not result.cancelled:
        try:
            transcript = transcript_from_stream(result, backend.options.asr_model)
        except Exception as exc:  # noqa: BLE001 - speech we cannot read is missing data, not silence
            failed = f"speech without a transcript could not be transcribed: {type(exc).__name__}: {exc}"
    if transcript is None:  # what arrived before the failure, for the record (never scored as complete)
        rate = result.timeline.rate
        partial = {"chunks": [c for c in (chunk_of_response(r, rate, result.duration) for r in result.responses) if c]}
    emissions = emissions_from_transcript(transcript or partial, tuple(result.tool_calls))
    realtime = {"duration": result.duration, "rate": result.timeline.rate, **result.counts(),
                "responses": [r.to_json() for r in result.responses], "user_transcripts": result.user_transcripts,
                "tool_calls": result.tool_calls}
    trace = Trace(item_id=item.id, protocol="realtime", backend=backend.name, emissions=emissions,
                  n_polls=len(result.responses), n_errors=result.n_errors, failed=failed,
                  cancelled=result.cancelled)
    native = hook(benchmark, "native_prediction")
    realtime_prediction = hook(benchmark, "realtime_prediction",
                               lambda item, trace, transcript, model: native(item, trace, model))
    prediction = realtime_prediction(item, trace, transcript, backend.name)
    if failed and isinstance(prediction, dict):
        prediction["failed"] = failed
    out = {"item_id": item.id, "prediction": prediction,
           "emissions": [{"t": e.t, "content": e.content, "kind": e.kind, "tool": e.tool, "frame_t": None,
                          "latency_s": 0.0, "end": e.meta["end"]} for e in emissions],
           **_counts(result, len(result.responses)), "failed": failed, "cancelled": result.cancelled,
           "hindsight": False, "realtime": realtime}
    if result.endpoints:  # a pool of servers: sessions per endpoint, for run_health
        from runners.run_health import endpoint_counts
        out["endpoints"] = endpoint_counts(result.endpoints)
    if not failed and not result.cancelled:
        out["speech"] = speech_segments(result)
    return out


def drive_realtime(item, protocol, backend, *, clock=None, cancel: Optional[threading.Event] = None,
                   on_emission=None, on_speech=None, benchmark: Optional[str] = None, mix=None, **_ignored) -> Trace:
    """`runners.protocols.drive` for a realtime backend (same call shape, so a live worker can pick either):
    the page's `clock` drives the session; each response becomes one emission when it is over (its onset,
    with `meta["end"]` and `meta["aligned_words"]`), tool calls as they arrive. `on_speech(rid, t, pcm16)`
    gets the audio as it lands, for playback; `mix` is stream_item's (the person's microphone, duplex)."""
    bench = benchmark or getattr(protocol, "benchmark", "") or item.benchmark
    trace = Trace(item_id=item.id, protocol="realtime", backend=backend.name)
    rate = backend.options.output_rate
    duration = float(item.stream.duration or 0.0)

    def emit(e: Emission) -> None:
        trace.emissions.append(e)
        if on_emission is not None:
            on_emission(e)

    def finished(rec: ResponseRecord) -> None:
        from annotation.proactivebench.writer import second_of
        chunk = chunk_of_response(rec, rate, duration or float("inf"))
        if chunk is None:
            return
        s, e = chunk["timestamp"]
        emit(Emission(t=round(s, 3), content=chunk["text"],
                      meta={"end": e, "second": second_of(s), "aligned_words": chunk["aligned_words"],
                            "response_id": rec.id}))

    result = backend.stream_item(item, bench, clock=clock, cancel=cancel, on_speech=on_speech, on_response=finished,
                                mix=mix)
    for e in emissions_from_transcript({}, tuple(result.tool_calls)):
        emit(e)
    trace.n_polls, trace.n_errors = len(result.responses), result.n_errors
    trace.failed, trace.cancelled = result.failed, result.cancelled
    return trace
