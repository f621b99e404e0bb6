"""Rules of the realtime backend (runners.backends.realtime) without a server: its options and URL checks, the
session it asks for, the audio, frames and requests it sends (to a recording socket, paced by a hand-moved
clock) and what each server event does to the session's record. Media times and sample positions are worked
out in the comments; rates are small (10 or 100 Hz) so every sample can be counted by hand."""
from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import numpy as np
import pytest

from annotation.model import Item, Request, Stream
from runners.backends.base import BackendFailure
from runners.backends.realtime import (DEFAULT_INSTRUCTIONS, RealtimeBackend, RealtimeOptions, ResponseRecord,
                                       StreamResult, Timeline, _Dropped, _Run, item_tools, paced_clock,
                                       realtime_url, request_in_stream)
from runners.clock import ClockStale

URL = "ws://127.0.0.1:9/v1/realtime"


def item(text="Say when.", time=0.0, modality="text", duration=1.0, video=None, native=None, meta=None,
         benchmark="proactivebench") -> Item:
    return Item(id="it1", benchmark=benchmark, kind="k", stream=Stream(id="s", video_path=video, duration=duration),
                request=Request(text, time, modality), targets=(), native=native if native is not None else {},
                meta=meta or {})


class Clock:
    """A media clock moved by hand: `wait_until(t)` jumps to t (and records it)."""

    def __init__(self, t=0.0):
        self.t, self.waits = t, []

    def now(self):
        return self.t

    def wait_until(self, t, timeout=None):
        self.waits.append(t)
        self.t = max(self.t, t)
        return self.t


class Socket:
    """Records what is sent (decoded JSON); `recv` hands out scripted messages, then times out."""

    def __init__(self, incoming=(), fail_send=False):
        self.sent, self.incoming, self.fail_send, self.timeouts = [], list(incoming), fail_send, []

    def send(self, text):
        if self.fail_send:
            raise OSError("closed")
        self.sent.append(json.loads(text))

    def recv(self, timeout=None):
        self.timeouts.append(timeout)
        if not self.incoming:
            raise TimeoutError
        x = self.incoming.pop(0)
        if isinstance(x, BaseException):
            raise x
        return x


def run_of(duration=2.0, it=None, samples=None, on_speech=None, on_response=None, media=None, clock=None,
           benchmark="proactivebench", **options) -> _Run:
    options.setdefault("output_rate", 10)
    b = RealtimeBackend(URL, **options)
    res = StreamResult("it1", duration, Timeline(duration, b.options.output_rate))
    run = _Run(b, it or item(duration=duration), benchmark, media, samples, res, clock or Clock(), None, on_speech,
               on_response)
    run.sent_until = 100.0  # events arrive at the clock's time (the sender is not behind)
    return run


def ev(kind, **fields) -> str:
    return json.dumps({"type": kind, **fields})


def pcm_b64(values) -> str:
    return base64.b64encode(np.asarray(values, "<i2").tobytes()).decode()


def f32_b64(values) -> str:
    return base64.b64encode(np.asarray(values, "<f4").tobytes()).decode()


# -- options -------------------------------------------------------------------------------------------------

def test_dialect_defaults():
    o = RealtimeOptions()
    assert (o.chunk_s, o.input_rate, o.output_rate, o.turn, o.reconnects) == (0.05, 24000, 24000, "server_vad", 2)
    m = RealtimeOptions(dialect="minicpmo")
    assert (m.chunk_s, m.input_rate) == (1.0, 16000)
    given = RealtimeOptions(dialect="minicpmo", chunk_s=0.25, input_rate=8000)
    assert (given.chunk_s, given.input_rate) == (0.25, 8000)


@pytest.mark.parametrize("options,message", [
    ({"dialect": "vendor"}, "dialect must be one of"),
    ({"dialect": "minicpmo", "turn": "manual"}, "minicpmo dialect has no manual turns"),
    ({"dialect": "minicpmo", "chunk_s": 0.2499}, "chunk_s >= 0.25"),
    ({"turn": "sometimes"}, "turn must be one of"),
    ({"image_mode": "video"}, "image_mode must be one of"),
    ({"request_text": "maybe"}, "request_text must be one of"),
    ({"probe_s": 0}, "probe_s, chunk_s, speed must be > 0"),
    ({"chunk_s": 0}, "probe_s, chunk_s, speed must be > 0"),
    ({"speed": 0}, "probe_s, chunk_s, speed must be > 0"),
    ({"fps": -0.5}, "fps must be >= 0"),
    ({"input_rate": 0}, "input_rate and output_rate must be > 0"),
    ({"output_rate": 0}, "input_rate and output_rate must be > 0"),
    ({"reconnects": -1}, "reconnects must be >= 0"),
    ({"tail_s": -0.1}, "tail_s must be >= 0"),
    ({"modalities": ("text", "video")}, "modalities: text and/or audio"),
    ({"modalities": ()}, "modalities: text and/or audio"),
    ({"session": ["x"]}, "session must be an object"),
    ({"api_key_env": "sk-live key"}, "NAME"),
    ({"api_key_env": 12}, "NAME"), ({"api_key_env": "__"}, "NAME"),
])
def test_each_bad_option_is_refused_with_its_name(options, message):
    with pytest.raises(ValueError, match=message) as exc:
        RealtimeOptions(**options)
    assert str(exc.value).startswith("realtime backend option")


def test_whole_messages_of_two_refusals():
    with pytest.raises(ValueError) as a:
        RealtimeOptions(dialect="minicpmo", chunk_s=0.2)
    assert str(a.value) == ("realtime backend option: the minicpmo dialect has no manual turns and needs chunk_s >= "
                            "0.25 (the gateway's minimum append)")
    with pytest.raises(ValueError) as b:
        RealtimeOptions(speed=0)
    assert str(b.value) == "realtime backend option: probe_s, chunk_s, speed must be > 0"
    for options, message in (({"output_rate": 0}, "input_rate and output_rate must be > 0"),
                             ({"reconnects": -1}, "reconnects must be >= 0"), ({"tail_s": -1}, "tail_s must be >= 0"),
                             ({"modalities": ()}, "modalities: text and/or audio"),
                             ({"session": None}, "session must be an object")):
        with pytest.raises(ValueError) as c:
            RealtimeOptions(**options)
        assert str(c.value) == f"realtime backend option: {message}"


def test_edge_values_that_are_allowed():
    RealtimeOptions(dialect="minicpmo", chunk_s=0.25)
    RealtimeOptions(fps=0, reconnects=0, tail_s=0, probe_s=0.001, chunk_s=0.001, speed=0.001, input_rate=1,
                    output_rate=1, modalities=("text",), image_mode="buffer", request_text="never", turn="manual")
    RealtimeOptions(modalities=("audio",), api_key_env="MY_KEY_2", request_text="always")


# -- URLs, tools, requests --------------------------------------------------------------------------------------

@pytest.mark.parametrize("url,model,mode,out", [
    ("http://h:1/v1/realtime", "m", None, "ws://h:1/v1/realtime?model=m"),
    ("https://h/v1/realtime", None, None, "wss://h/v1/realtime"),
    ("ws://h/x?a=1", "m", "video", "ws://h/x?a=1&model=m&mode=video"),
    ("wss://h/x?model=a&mode=audio", "b", "video", "wss://h/x?model=a&mode=audio"),
    ("ws://h/x#frag", "", "", "ws://h/x"),
])
def test_realtime_url(url, model, mode, out):
    assert realtime_url(url, model, mode) == out


@pytest.mark.parametrize("url", ["ftp://h/x", "h:1/x", "ws:///x", "https:///x"])
def test_realtime_url_refuses_other_schemes_and_no_host(url):
    with pytest.raises(ValueError, match="needs a ws://, wss://, http:// or https:// URL"):
        realtime_url(url, None)


def test_item_tools_native_then_meta():
    t = [{"name": "a"}]
    assert item_tools(item(native={"tools": t}, meta={"tools": [{"name": "b"}]})) == t
    assert item_tools(item(native={"tools": []}, meta={"tools": [{"name": "b"}]})) == [{"name": "b"}]
    assert item_tools(item(native=["not", "a", "dict"], meta={"tools": [{"name": "b"}]})) == [{"name": "b"}]
    assert item_tools(item()) == []


def test_request_in_stream_asks_the_benchmark():
    assert request_in_stream(item(modality="audio"), "omniinteract") is True
    assert request_in_stream(item(modality="text"), "omniinteract") is False
    assert request_in_stream(item(modality="audio"), "proactivebench") is False  # no such hook: no
    assert request_in_stream(item(modality="audio"), "not-a-benchmark") is False


def test_wants_request_text():
    auto = RealtimeBackend(URL)
    assert auto.wants_request_text(item(), "proactivebench") is True
    assert auto.wants_request_text(item(text=""), "proactivebench") is False
    assert auto.wants_request_text(item(modality="audio"), "omniinteract") is False  # spoken in the stream
    assert auto.wants_request_text(item(), "omniinteract") is True
    assert RealtimeBackend(URL, request_text="always").wants_request_text(item(text="", modality="audio"),
                                                                         "omniinteract") is True
    assert RealtimeBackend(URL, request_text="never").wants_request_text(item(), "proactivebench") is False


# -- the backend ---------------------------------------------------------------------------------------------------

def test_backend_name_urls_pool_and_modalities():
    b = RealtimeBackend("http://a:1/x,ws://b:2/y", model="m", modalities=" text , audio", concurrency=3,
                        endpoint_cooldown=7.5)
    assert b.urls == ["ws://a:1/x?model=m", "ws://b:2/y?model=m"] and b.url == b.urls[0]
    assert b.options.modalities == ("text", "audio") and b.name == "realtime:m"
    assert (b.pool.urls, b.pool.limit, b.pool.cooldown) == (b.urls, 3, 7.5)
    plain = RealtimeBackend("ws://h:5/x")
    assert plain.name == "realtime:h:5" and plain.pool.limit == 4 and plain.options.modalities == ("text", "audio")
    assert RealtimeBackend("ws://h/x", modalities=["audio"]).options.modalities == ("audio",)
    assert RealtimeBackend("ws://h/v1/realtime", dialect="minicpmo").url == "ws://h/v1/realtime?mode=video"
    assert RealtimeBackend("ws://h/v1/realtime", dialect="minicpmo", fps=0).url == "ws://h/v1/realtime?mode=audio"
    with pytest.raises(BackendFailure, match=r"^realtime backends stream the whole item \(runners.realtime_run\); "
                                             r"they answer no polls$"):
        plain.respond(None)


def test_without_websockets_the_backend_says_what_to_install(monkeypatch):
    import sys

    from runners.backends.base import BackendUnavailable

    monkeypatch.setitem(sys.modules, "websockets", None)
    with pytest.raises(BackendUnavailable, match=r"^the realtime backend needs packages that are not installed "
                                                 r"\(import of websockets halted; None in sys\.modules\); "
                                                 r"run: pip install websockets==17\.4$"):
        RealtimeBackend(URL)


def test_a_spec_without_any_url_is_refused():
    with pytest.raises(ValueError, match="needs a ws://, wss://, http:// or https:// URL, got ''"):
        RealtimeBackend("")
    with pytest.raises(ValueError, match="needs a ws://, wss://, http:// or https:// URL, got ''"):
        RealtimeBackend("ws://h/x,")  # an empty part of a pool


def test_headers_name_the_key_variable_never_the_key(monkeypatch):
    assert RealtimeBackend(URL)._headers() == {"OpenAI-Beta": "realtime=v1"}
    monkeypatch.setenv("RT_RULES_KEY", "sk-1")
    assert RealtimeBackend(URL, api_key_env="RT_RULES_KEY")._headers() == {
        "OpenAI-Beta": "realtime=v1", "Authorization": "Bearer sk-1"}
    monkeypatch.setenv("RT_RULES_KEY", "")
    with pytest.raises(BackendFailure, match=r"environment variable RT_RULES_KEY \(api_key_env\) is not set"):
        RealtimeBackend(URL, api_key_env="RT_RULES_KEY")._headers()


def test_session_update_openai():
    tools = [{"name": "set_timer", "description": "start",
              "parameters": {"type": "object", "properties": {"seconds": {"type": "integer"}}}},
             {"name": "stop"}, {"name": "x", "parameters": {"seconds": "int"}}]
    b = RealtimeBackend(URL, model="m", voice="alloy", turn="manual", modalities="audio",
                        session={"temperature": 0.6, "voice": "echo"})
    empty = {"type": "object", "properties": {}}
    assert b.session_update(item(native={"tools": tools}), "interactscope") == {"type": "session.update", "session": {
        "modalities": ["audio"], "instructions": DEFAULT_INSTRUCTIONS, "input_audio_format": "pcm16",
        "output_audio_format": "pcm16", "turn_detection": None, "voice": "echo", "model": "m",
        "tools": [{"type": "function", "name": "set_timer", "description": "start",
                   "parameters": tools[0]["parameters"]},
                  {"type": "function", "name": "stop", "description": "", "parameters": empty},
                  {"type": "function", "name": "x", "description": "", "parameters": empty}],
        "temperature": 0.6}}
    voiced = RealtimeBackend(URL, voice="alloy").session_update(item(), "proactivebench")["session"]
    assert voiced["voice"] == "alloy" and "model" not in voiced
    plain = RealtimeBackend(URL, instructions="Be brief.").session_update(item(), "proactivebench")
    assert plain == {"type": "session.update", "session": {
        "modalities": ["text", "audio"], "instructions": "Be brief.", "input_audio_format": "pcm16",
        "output_audio_format": "pcm16", "turn_detection": {"type": "server_vad"}}}


def test_session_update_minicpmo_carries_the_standing_request():
    b = RealtimeBackend(URL, dialect="minicpmo", max_slice_nums=2, session={"lang": "en"})
    assert b.session_update(item(), "proactivebench") == {"type": "session.update", "session": {
        "instructions": DEFAULT_INSTRUCTIONS + "\n\nThe user's request: Say when.", "max_slice_nums": 2, "lang": "en"}}
    spoken = RealtimeBackend(URL, dialect="minicpmo", instructions="Hi.")
    assert spoken.session_update(item(modality="audio"), "omniinteract") == {
        "type": "session.update", "session": {"instructions": "Hi.", "max_slice_nums": 1}}


def test_minicpmo_refuses_a_late_text_request_before_connecting():
    b = RealtimeBackend(URL, dialect="minicpmo")
    res = b.stream_item(item(time=2.0), "proactivebench")
    assert res.failed == ("the minicpmo dialect cannot send a text request at its time (2 s); use "
                          "request_text=never to stream without it")
    assert (res.duration, res.timeline.rate, len(res.timeline.audio)) == (1.0, 24000, 24000)


def test_minicpmo_refuses_a_text_request_asked_half_a_second_in_but_not_one_spoken_in_the_stream():
    b = RealtimeBackend(URL, dialect="minicpmo", reconnects=0)
    res = b.stream_item(item(time=0.5), "proactivebench")
    assert res.failed.startswith("the minicpmo dialect cannot send a text request at its time (0.5 s)")
    assert res.item_id == "it1"
    spoken = b.stream_item(item(time=2.0, modality="audio"), "omniinteract")  # heard in the stream: no text
    assert spoken.failed.startswith("connection lost before streaming")


def test_minicpmo_takes_a_request_asked_at_the_start():
    res = RealtimeBackend(URL, dialect="minicpmo", reconnects=0).stream_item(item(time=0.0), "proactivebench")
    assert res.failed.startswith("connection lost before streaming")  # it tried to connect: the request is fine


def test_unreachable_server_fails_the_item_after_its_reconnects():
    res = RealtimeBackend(URL, reconnects=0).stream_item(item(), "proactivebench")
    assert res.failed.startswith("connection lost before streaming; 0 reconnect(s) failed: cannot connect to "
                                 f"{URL}: ")
    assert res.n_reconnects == 0 and res.responses == [] and res.endpoints == []


def test_paced_clock_starts_at_zero_and_runs_at_speed(monkeypatch):
    import runners.clock

    made = []

    class Recorder:
        def __init__(self, **kw):
            self.kw, self.reports = kw, []
            made.append(self)

        def report(self, *args, **kw):
            self.reports.append((args, kw))

    monkeypatch.setattr(runners.clock, "MediaClock", Recorder)
    clock = paced_clock(4.0)
    assert made == [clock] and clock.kw == {"stale_after": float("inf")}  # a batch clock never goes stale
    assert clock.reports == [((0.0,), {"paused": False, "rate": 4.0})]
    assert paced_clock().reports == [((0.0,), {"paused": False, "rate": 1.0})]  # real time unless told


# -- the timeline and the session's record ---------------------------------------------------------------------

def test_timeline_places_queues_cuts_and_truncates():
    tl = Timeline(1.0, 10)
    assert len(tl.audio) == 10 and tl.rate == 10
    assert tl.place(-0.5, np.array([7], np.int16)) == (0, 1)  # before the start: at 0
    assert tl.place(0.0, np.array([8, 8], np.int16)) == (1, 3)  # queued behind
    assert tl.truncate(0.5) == 0  # nothing queued past 0.5
    assert tl.place(0.8, np.array([1, 2, 3], np.int16)) == (8, 10)  # sample 8 on: one past the end is cut
    assert tl.cut_samples == 1 and tl.cursor == 11 and tl.audio.tolist() == [7, 8, 8, 0, 0, 0, 0, 0, 1, 2]
    assert tl.truncate(0.9) == 2 and tl.cursor == 9  # cursor 11 -> 9: samples 9 and 10 (10 was cut anyway)
    assert tl.audio.tolist() == [7, 8, 8, 0, 0, 0, 0, 0, 1, 0]
    assert tl.place(1.0, np.array([5, 5], np.int16)) == (10, 10) and tl.cut_samples == 3  # 1 + 2: it adds up
    tl.truncate(0.9)
    assert tl.truncate(-1.0) == 9 and tl.cursor == 0 and tl.audio.tolist() == [0] * 10


def test_stream_result_counts_and_errors():
    res = StreamResult("x", 1.0, Timeline(1.0, 8), n_events=20, n_malformed=3, n_server_errors=2, n_reconnects=1,
                       malformed=[f"m{i}" for i in range(7)], server_errors=[f"e{i}" for i in range(6)],
                       gaps=[[1.0, 2.0]], n_frames=4, n_audio_chunks=9)
    res.timeline.cut_samples = 3  # 3 / 8 = 0.375 s
    assert res.n_errors == 5
    assert res.counts() == {"n_events": 20, "n_malformed": 3, "malformed": ["m0", "m1", "m2", "m3", "m4"],
                            "n_server_errors": 2, "server_errors": ["e0", "e1", "e2", "e3", "e4"],
                            "n_reconnects": 1, "gaps": [[1.0, 2.0]], "n_frames": 4, "n_audio_chunks": 9,
                            "cut_s": 0.375}
    res.timeline.cut_samples = 1  # 1 / 8 = 0.125 -> 0.125 (3 decimals)
    assert res.counts()["cut_s"] == 0.125
    at7 = StreamResult("x", 1.0, Timeline(1.0, 7))
    at7.timeline.cut_samples = 3  # 3 / 7 = 0.428571... -> 0.429
    assert at7.counts()["cut_s"] == 0.429


def test_response_record_json():
    r = ResponseRecord("r1", created_t=1.5, spans=[[1.5, 2.0]], samples=5,
                       deltas=[{"text": "a ", "t": 1.5, "pos": 0}, {"text": "b", "t": 1.6, "pos": 3}],
                       text_only=False, done=True, status="completed", interrupted_t=1.9)
    assert r.to_json() == {"id": "r1", "created_t": 1.5, "spans": [[1.5, 2.0]], "samples": 5,
                           "deltas": r.deltas, "text": "a b", "text_only": False, "done": True,
                           "status": "completed", "interrupted_t": 1.9}


# -- media time of an event ---------------------------------------------------------------------------------------

def test_event_time_is_capped_one_chunk_past_the_sent_audio():
    run = run_of(clock=Clock(3.0))
    run.sent_until = 1.0
    assert run.arrival_t() == 1.05  # the model heard only up to 1.0: at most one 0.05 s chunk later
    run.sent_until = 3.0
    assert run.arrival_t() == 3.0


def test_a_stale_clock_raises_and_no_clock_is_zero():
    run = run_of(clock=Clock(None))
    with pytest.raises(ClockStale, match="stale"):
        run.now()
    run.clock = None
    assert run.now() == 0.0


# -- events back: audio and text --------------------------------------------------------------------------------

def test_audio_lands_where_it_arrived_and_queues_behind_playing_audio():
    """rate 10: [1, 2, 3] at 0.5 s -> samples 5-7 (0.5-0.8); [4, 5] at 0.6 s is queued behind, 8-9 (0.8-1.0, one
    span with the first); [6] at 1.5 s -> sample 15 (a new span 1.5-1.6)."""
    heard = []
    run = run_of(on_speech=lambda rid, t, pcm: heard.append((rid, t, pcm.tolist())))
    for t, values in ((0.5, [1, 2, 3]), (0.6, [4, 5]), (1.5, [6])):
        run.clock.t = t
        run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64(values)))
    (rec,) = run.r.responses
    assert (rec.id, rec.created_t, rec.spans, rec.samples) == ("r1", 0.5, [[0.5, 1.0], [1.5, 1.6]], 6)
    assert run.r.timeline.audio[5:11].tolist() == [1, 2, 3, 4, 5, 0] and run.r.timeline.audio[15] == 6
    assert heard == [("r1", 0.5, [1, 2, 3]), ("r1", 0.8, [4, 5]), ("r1", 1.5, [6])]
    assert run.r.n_events == 3 and run.r.n_errors == 0


def test_audio_past_the_stream_end_is_cut_and_not_heard():
    heard = []
    run = run_of(duration=1.0, on_speech=lambda rid, t, pcm: heard.append((t, pcm.tolist())))
    run.clock.t = 0.8
    run._handle(ev("response.output_audio.delta", response_id="r1", delta=pcm_b64([1, 2, 3, 4])))
    rec = run.r.responses[0]
    assert rec.spans == [[0.8, 1.0]] and rec.samples == 4 and heard == [(0.8, [1, 2])]
    assert run.r.timeline.cut_samples == 2
    run.clock.t = 1.2
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([9])))
    assert rec.spans == [[0.8, 1.0]] and rec.samples == 5 and len(heard) == 1  # nothing placed: no span


@pytest.mark.parametrize("delta,why", [
    ("AQA", "not base64"), (base64.b64encode(b"\x01\x00\x02").decode(), "odd byte count"), (None, "no delta"),
    (5, "not a string"), ("AQAC*AAMA", "a character outside base64 (not skipped)"), ("!" * 70, "long: 60 kept")])
def test_undecodable_audio_is_a_malformed_event(delta, why):
    run = run_of()
    run._handle(ev("response.audio.delta", response_id="r1", delta=delta))
    assert run.r.n_malformed == 1 and run.r.responses == []
    assert run.r.malformed == [f"response.audio.delta with undecodable audio: {str(delta)[:60]}"]


def test_empty_audio_delta_opens_the_response_and_places_nothing():
    run = run_of()
    run._handle(ev("response.audio.delta", response_id="r1", delta=""))
    assert [r.spans for r in run.r.responses] == [[]] and run.r.n_malformed == 0


def test_transcript_deltas_keep_their_time_and_audio_position():
    run = run_of()
    run.clock.t = 1.0
    run._handle(ev("response.audio_transcript.delta", response_id="r1", delta="Blue "))
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([1, 1, 1])))
    run.clock.t = 1.2345
    run._handle(ev("response.output_audio_transcript.delta", response_id="r1", delta="now."))
    rec = run.r.responses[0]
    assert rec.deltas == [{"text": "Blue ", "t": 1.0, "pos": 0}, {"text": "now.", "t": 1.234, "pos": 3}]
    assert rec.text == "Blue now." and rec.text_only is False


def test_text_deltas_before_audio_mark_a_text_only_reply():
    run = run_of()
    run._handle(ev("response.text.delta", response_id="t1", delta="Hi"))
    run._handle(ev("response.output_text.delta", response_id="t1", delta=" there"))
    assert run.r.responses[0].text_only is True and run.r.responses[0].text == "Hi there"
    run._handle(ev("response.audio.delta", response_id="a1", delta=pcm_b64([1])))
    run._handle(ev("response.text.delta", response_id="a1", delta="late text"))
    assert run.r.responses[1].text_only is False  # it had audio first
    run._handle(ev("response.audio_transcript.delta", response_id="s1", delta="spoken"))
    assert run.r.responses[2].text_only is False  # a transcript is of speech


@pytest.mark.parametrize("delta", [None, 3, ["a"]])
def test_text_delta_without_text_is_malformed(delta):
    run = run_of()
    run._handle(ev("response.audio_transcript.delta", response_id="r1", delta=delta))
    assert run.r.n_malformed == 1 and run.r.responses == []
    assert run.r.malformed[0].startswith("response.audio_transcript.delta without a text delta: {")


def test_response_id_from_the_event_its_response_or_the_open_one():
    run = run_of()
    run._handle(ev("response.audio_transcript.delta", delta="a"))  # no id, nothing open: r1
    run._handle(ev("response.audio_transcript.delta", delta="b"))  # no id: the open one
    run._handle(ev("response.created", response={"id": "x7"}))
    run._handle(ev("response.text.delta", delta="c"))
    run._handle(ev("response.text.delta", response_id=12, delta="d"))
    assert [(r.id, r.text) for r in run.r.responses] == [("r1", "ab"), ("x7", "c"), ("12", "d")]


def test_created_and_done_open_and_close_a_response_once():
    done = []
    run = run_of(on_response=done.append, clock=Clock(2.34567))
    run._handle(ev("response.created", response={"id": "r1"}))
    assert run.response_active is True and run.r.responses[0].created_t == 2.346
    run._handle(ev("response.done", response={"id": "r1", "status": "completed"}))
    rec = run.r.responses[0]
    assert (rec.done, rec.status, run.response_active, run.current) == (True, "completed", False, None)
    run._handle(ev("response.done", response={"id": "r1", "status": "completed"}))
    run.finish_open_responses()
    assert done == [rec] and run.r.n_server_errors == 0


def test_failed_response_counts_as_a_server_error():
    run = run_of()
    run._handle(ev("response.done", response={"id": "r9", "status": "failed", "status_details": {"reason": "x"}}))
    assert run.r.n_server_errors == 1 and run.r.n_errors == 1
    assert run.r.server_errors == ["response r9 failed: {'reason': 'x'}"]
    run._handle(ev("response.done", response={"id": "r7", "status": "failed", "status_details": "y" * 300}))
    assert run.r.n_server_errors == 2 and run.r.server_errors[1] == "response r7 failed: " + "y" * 150
    run._handle(ev("response.done", response_id="r8", response="not an object"))
    assert run.r.responses[2].status is None and run.r.n_server_errors == 2


def test_server_error_events_are_counted_with_their_message():
    run = run_of()
    run._handle(ev("error", error={"message": "rate limited", "code": 429}))
    run._handle(ev("error", error="x" * 300))
    run._handle(ev("error"))
    assert run.r.n_server_errors == 3 and run.r.n_errors == 3
    assert run.r.server_errors == ["rate limited", "x" * 200, "None"]


@pytest.mark.parametrize("msg,what", [
    ("{not json", "not JSON"), (b"\xff\xfe", "not JSON"), ("[1, 2]", "no event type"), ('{"type": 5}', "no event type"),
    ('{"delta": "x"}', "no event type"), ("7", "no event type")])
def test_malformed_messages_are_counted_never_dropped(msg, what):
    run = run_of()
    run._handle(msg)
    assert (run.r.n_events, run.r.n_malformed, run.r.n_errors) == (1, 1, 1)
    assert run.r.malformed == [f"{what}: {str(msg)[:120]}"]


def test_only_five_malformed_messages_are_kept_but_all_are_counted():
    run = run_of()
    long = "{" + "x" * 200
    for _ in range(7):
        run._handle(long)
    assert run.r.n_malformed == 7 and len(run.r.malformed) == 5
    assert run.r.malformed[0] == "not JSON: " + long[:120]


def test_other_events_are_counted_only():
    run = run_of(clock=Clock(1.23456))
    run._handle(ev("session.created"))
    run._handle(ev("conversation.item.input_audio_transcription.completed", transcript="hello"))
    run._handle(ev("conversation.item.input_audio_transcription.completed"))
    assert run.r.n_events == 3 and run.r.n_errors == 0 and run.r.responses == []
    assert run.r.user_transcripts == [{"t": 1.235, "text": "hello"}, {"t": 1.235, "text": ""}]


# -- barge-in -------------------------------------------------------------------------------------------------------

def test_barge_in_cuts_queued_audio_and_ignores_the_rest_of_that_reply():
    """rate 10: r0 (done) at 0.1-0.3; r1 at 0.5-1.0 (5 samples). The user speaks at 0.7: samples 7-9 are
    dropped, r1 ends at 0.7, is reported once, and its later audio and text are ignored."""
    done = []
    run = run_of(on_response=done.append)
    run.clock.t = 0.1
    run._handle(ev("response.audio.delta", response_id="r0", delta=pcm_b64([1, 1])))
    run._handle(ev("response.done", response={"id": "r0", "status": "completed"}))
    run.clock.t = 0.5
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([2, 2, 2, 2, 2])))
    run.clock.t = 0.7
    run._handle(ev("input_audio_buffer.speech_started"))
    r0, r1 = run.r.responses
    assert (r0.spans, r0.interrupted_t) == ([[0.1, 0.3]], None)
    assert (r1.spans, r1.interrupted_t) == ([[0.5, 0.7]], 0.7)
    assert run.r.timeline.audio[:10].tolist() == [0, 1, 1, 0, 0, 2, 2, 0, 0, 0]
    assert done == [r0, r1]
    run.clock.t = 0.8
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([3])))
    run._handle(ev("response.audio_transcript.delta", response_id="r1", delta="never heard"))
    assert (r1.spans, r1.samples, r1.deltas) == ([[0.5, 0.7]], 5, [])
    run._handle(ev("input_audio_buffer.speech_started"))  # nothing queued now: nothing changes
    assert done == [r0, r1] and r1.interrupted_t == 0.7


def test_barge_in_drops_a_whole_later_span_and_keeps_a_done_reply_done():
    """r1 placed at 0.2-0.4 and 0.6-0.9 (two arrivals), then done; speech at 0.5: the second span is never
    heard, the first stays; a done reply is cut but not reported again nor blocked."""
    done = []
    run = run_of(on_response=done.append)
    for t, n in ((0.2, 2), (0.6, 3)):
        run.clock.t = t
        run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([4] * n)))
    run._handle(ev("response.done", response={"id": "r1", "status": "completed"}))
    run.clock.t = 0.5
    run._handle(ev("input_audio_buffer.speech_started"))
    rec = run.r.responses[0]
    assert rec.spans == [[0.2, 0.4]] and rec.interrupted_t == 0.5 and done == [rec]
    assert "r1" not in run.interrupted


def test_barge_in_between_samples_cuts_only_what_was_queued_past_it():
    """rate 10: 5 samples at 0.2 (0.2-0.7). Speech at 0.66: sample 6.6 rounds to 7, the queue's end: nothing
    was queued past it, so nothing is cut (the reply is not marked interrupted)."""
    run = run_of()
    run.clock.t = 0.2
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([1] * 5)))
    run.clock.t = 0.66
    run._handle(ev("input_audio_buffer.speech_started"))
    assert run.r.responses[0].interrupted_t is None and run.r.responses[0].spans == [[0.2, 0.7]]


def test_barge_in_that_drops_one_sample():
    """5 samples at 0.5 (0.5-1.0); speech at 0.9: one sample (0.9-1.0) dropped; the reply stops at 0.9."""
    done = []
    run = run_of(on_response=done.append)
    run.clock.t = 0.5
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([1] * 5)))
    run.clock.t = 0.9
    run._handle(ev("input_audio_buffer.speech_started"))
    rec = run.r.responses[0]
    assert (rec.spans, rec.interrupted_t, done) == ([[0.5, 0.9]], 0.9, [rec])


def test_barge_in_keeps_a_reply_that_ended_at_that_moment_and_rounds_its_time():
    """r0 at 0.2-0.5, r1 queued behind it at 0.5-0.8. Speech at 0.5: r1 never heard, r0 heard in full (not
    interrupted). Then r2 at 1.0-1.5 and speech at 1.2346: cut there, interrupted_t to 3 decimals."""
    run = run_of()
    run.clock.t = 0.2
    run._handle(ev("response.audio.delta", response_id="r0", delta=pcm_b64([1] * 3)))
    run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([2] * 3)))
    run.clock.t = 0.5
    run._handle(ev("input_audio_buffer.speech_started"))
    r0, r1 = run.r.responses
    assert (r0.spans, r0.interrupted_t, "r0" in run.interrupted) == ([[0.2, 0.5]], None, False)
    assert (r1.spans, r1.interrupted_t, "r1" in run.interrupted) == ([], 0.5, True)
    run.clock.t = 1.0
    run._handle(ev("response.audio.delta", response_id="r2", delta=pcm_b64([3] * 5)))
    run.clock.t = 1.2346
    run._handle(ev("input_audio_buffer.speech_started"))
    assert run.r.responses[2].interrupted_t == 1.235 and run.r.responses[2].spans == [[1.0, 1.2346]]


def test_barge_in_at_the_start_of_a_later_span_drops_that_span():
    run = run_of()
    for t, n in ((0.2, 2), (0.6, 3)):
        run.clock.t = t
        run._handle(ev("response.audio.delta", response_id="r1", delta=pcm_b64([4] * n)))
    run.clock.t = 0.6
    run._handle(ev("input_audio_buffer.speech_started"))
    assert run.r.responses[0].spans == [[0.2, 0.4]]  # no empty [0.6, 0.6] left behind


# -- tool calls ------------------------------------------------------------------------------------------------------

def test_tool_call_is_kept_at_its_arrival_and_acknowledged():
    run = run_of(clock=Clock(4.2504))
    run.ws = Socket()
    run._handle(ev("response.function_call_arguments.done", name="set_timer", arguments='{"seconds": 30}',
                   call_id="c1"))
    assert run.r.tool_calls == [{"t": 4.25, "name": "set_timer", "args": {"seconds": 30}, "call_id": "c1"}]
    assert run.ws.sent == [{"type": "conversation.item.create", "item": {
        "type": "function_call_output", "call_id": "c1", "output": '{"status": "ok"}'}}]


def test_tool_call_arguments_forms():
    run = run_of()
    run.ws = Socket()
    run._handle(ev("response.function_call_arguments.done", name="a", arguments=""))
    run._handle(ev("response.function_call_arguments.done", name="b", arguments={"k": 1}))
    run._handle(ev("response.function_call_arguments.done", name="c"))
    run._handle(ev("response.function_call_arguments.done", name="d", arguments="  ", call_id="c4"))
    assert [(c["name"], c["args"], c["call_id"]) for c in run.r.tool_calls] == [
        ("a", {}, None), ("b", {"k": 1}, None), ("c", {}, None), ("d", {}, "c4")]
    assert [s["item"]["call_id"] for s in run.ws.sent] == ["c4"]  # only a call with an id is acknowledged
    run.ws = Socket(fail_send=True)  # a closed socket: the call is still kept
    run._handle(ev("response.function_call_arguments.done", name="e", arguments="{}", call_id="c5"))
    run.ws = None
    run._handle(ev("response.function_call_arguments.done", name="f", arguments="{}", call_id="c6"))
    assert [c["name"] for c in run.r.tool_calls][-2:] == ["e", "f"] and run.r.n_malformed == 0


@pytest.mark.parametrize("fields", [
    {"name": "a", "arguments": "{not json"}, {"name": "a", "arguments": "[1]"}, {"name": "", "arguments": "{}"},
    {"arguments": "{}"}, {"name": 3, "arguments": "{}"}, {"name": "a", "arguments": 7},
    {"name": "a", "arguments": [1]}])
def test_tool_call_without_name_or_object_arguments_is_malformed(fields):
    run = run_of()
    run.ws = Socket()
    msg = ev("response.function_call_arguments.done", **fields)
    run._handle(msg)
    assert run.r.tool_calls == [] and run.ws.sent == [] and run.r.n_malformed == 1
    what = "response.function_call_arguments.done without a name and JSON object arguments"
    assert run.r.malformed == [f"{what}: {msg[:120]}"]


# -- MiniCPM-o gateway events ----------------------------------------------------------------------------------------

def test_minicpmo_turns_carry_text_and_float_audio():
    """float32 [0.5, -0.5, 2.0] -> clipped to [0.5, -0.5, 1.0] * 32767 -> int16 [16383, -16383, 32767] (truncated
    toward zero), placed at 0.3 s (samples 3-5 at rate 10). end_of_turn closes the turn; the next is turn2."""
    done = []
    heard = []
    run = run_of(dialect="minicpmo", on_response=done.append, clock=Clock(0.3),
                 on_speech=lambda rid, t, pcm: heard.append((rid, t, pcm.dtype, pcm.tolist())))
    run._handle(ev("response.output_audio.delta", text="Hi", audio=f32_b64([0.5, -0.5, 2.0])))
    run._handle(ev("response.output_audio.delta", text="", audio=f32_b64([0.0]), end_of_turn=True))
    t1 = run.r.responses[0]
    assert (t1.id, t1.spans, t1.samples, t1.deltas) == ("turn1", [[0.3, 0.7]], 4, [{"text": "Hi", "t": 0.3, "pos": 0}])
    assert run.r.timeline.audio[3:7].tolist() == [16383, -16383, 32767, 0]
    assert (t1.done, t1.status, run.current, done) == (True, "completed", None, [t1])
    run.clock.t = 1.0
    run._handle(ev("response.output_audio.delta", text="Again", audio=f32_b64([0.25])))
    assert [r.id for r in run.r.responses] == ["turn1", "turn2"] and run.current.id == "turn2"
    assert run.r.timeline.audio[10] == 8191 and run.r.n_errors == 0
    assert heard[0] == ("turn1", 0.3, np.int16, [16383, -16383, 32767])  # pcm16 for live playback
    run.clock.t = 1.23456
    run._handle(ev("response.output_audio.delta", text="!", audio=f32_b64([-2.0])))  # clipped to -1
    assert run.current.deltas[-1]["t"] == 1.235 and heard[-1][3] == [-32767]


def test_minicpmo_delta_without_text_or_without_audio_is_not_malformed():
    """The gateway may leave either out: no text is no transcript piece, no audio is no samples."""
    run = run_of(dialect="minicpmo", clock=Clock(0.5))
    run._handle(ev("response.output_audio.delta", audio=f32_b64([0.5])))
    run._handle(ev("response.output_audio.delta", text="Hi"))
    (turn,) = run.r.responses
    assert (turn.samples, turn.deltas, run.r.n_errors) == (1, [{"text": "Hi", "t": 0.5, "pos": 1}], 0)


@pytest.mark.parametrize("fields", [
    {"text": "x", "audio": "!!"}, {"text": "x", "audio": base64.b64encode(b"\x00" * 6).decode()},
    {"text": 5, "audio": f32_b64([0.1])}, {"text": "x", "audio": 3}, {"text": "x", "audio": "!" * 100}])
def test_minicpmo_bad_audio_or_text_is_malformed(fields):
    run = run_of(dialect="minicpmo")
    msg = ev("response.output_audio.delta", **fields)
    run._handle(msg)
    assert run.r.responses == [] and run.r.n_malformed == 1
    assert run.r.malformed == [f"response.output_audio.delta with undecodable float32 audio or no text: {msg[:80]}"]


def test_minicpmo_listen_cuts_an_open_turn_and_closed_ends_the_session():
    done = []
    run = run_of(dialect="minicpmo", on_response=done.append, clock=Clock(0.2))
    run._handle(ev("response.output_audio.delta", text="Long", audio=f32_b64([0.1] * 5)))  # 0.2-0.7
    run.clock.t = 0.4
    run._handle(ev("response.listen"))
    t1 = run.r.responses[0]
    assert t1.spans == [[0.2, 0.4]] and t1.interrupted_t == 0.4 and done == [t1] and run.current is None
    run._handle(ev("response.listen"))  # nothing open: nothing happens
    assert done == [t1]
    for kind in ("session.created", "session.queued", "session.queue_update", "session.queue_done"):
        run._handle(ev(kind))
    assert run.server_closed is None and run.r.n_errors == 0
    run._handle(ev("session.closed", reason="timeout"))
    assert run.server_closed == "timeout"
    run._handle(ev("session.closed"))
    assert run.server_closed == "closed"
    run._handle(ev("error", error={"message": "gateway"}))  # the OpenAI events still count
    assert run.r.server_errors == ["gateway"]


# -- MiniCPM-o set-up: waiting for the queue ---------------------------------------------------------------

def test_await_passes_queue_updates_and_counts_errors():
    run = run_of(dialect="minicpmo")
    ws = Socket([ev("session.queued"), ev("session.queue_update", position=2), "garbage", "[1]",
                 ev("error", error={"message": "busy"}), ev("error", error="p" * 300), ev("other"),
                 ev("session.queue_done"), ev("after")])
    run._await(ws, "session.queue_done")
    assert ws.incoming == [ev("after")] and ws.timeouts == [1.0] * 8  # waits a second at a time (600 s in all)
    assert (run.r.n_events, run.r.n_malformed, run.r.n_server_errors) == (5, 2, 2)
    assert run.r.malformed == ["not a JSON event: garbage", "no event type: [1]"]
    assert run.r.server_errors == ["busy", "p" * 200]


def test_await_waits_on_after_a_quiet_second_and_never_past_its_deadline():
    run = run_of(dialect="minicpmo", queue_timeout=0.5)
    ws = Socket([TimeoutError(), ev("session.queue_update"), ev("session.queue_done")])
    run._await(ws, "session.queue_done")
    assert ws.incoming == [] and len(ws.timeouts) == 3 and all(0 < t <= 0.5 for t in ws.timeouts)


def test_await_gives_up_when_closed_cancelled_or_too_late():
    from websockets.exceptions import ConnectionClosed

    run = run_of(dialect="minicpmo")
    with pytest.raises(_Dropped, match=r"^the server closed the session \(full\)$"):
        run._await(Socket([ev("session.closed", reason="full")]), "session.created")
    run.cancel.set()
    with pytest.raises(_Dropped, match="^cancelled while queued$"):
        run._await(Socket([]), "session.created")
    with pytest.raises(_Dropped, match=r"^connection closed while waiting for session.created \("):
        run._await(Socket([ConnectionClosed(None, None)]), "session.created")
    late = run_of(dialect="minicpmo", queue_timeout=0.0)
    with pytest.raises(_Dropped, match=r"^no session.queue_done within 0 s$"):
        late._await(Socket([ev("session.queue_done")]), "session.queue_done")


# -- sending the stream ---------------------------------------------------------------------------------------

def sender(duration, samples, **options) -> tuple[_Run, Socket]:
    it = options.pop("it", None) or item(duration=duration)
    media = options.pop("media", None)
    run = run_of(duration=duration, it=it, samples=np.asarray(samples, np.float32), media=media, **options)
    run.sent_until = 0.0
    return run, Socket()


def appended(sent) -> list[list[int]]:
    return [np.frombuffer(base64.b64decode(e["audio"]), "<i2").tolist() for e in sent
            if e["type"] == "input_audio_buffer.append"]


def test_audio_is_sent_in_chunks_up_to_the_stream_end():
    """100 Hz, 0.05 s chunks: 5 samples each over 0.2 s (4 chunks). x * 32767 truncated: 0.5 -> 16383, clipped
    1.5 -> 32767, -2 -> -32767. Only 12 samples exist: the rest is sent as silence."""
    import threading

    x = [0.0, 0.5, -0.5, 1.5, -2.0, 0.25, 0, 0, 0, 0, 1.0, 1.0]
    run, ws = sender(0.2, x, input_rate=100)
    run._send_stream(ws, threading.Event())
    assert appended(ws.sent) == [[0, 16383, -16383, 32767, -32767], [8191, 0, 0, 0, 0], [32767, 32767, 0, 0, 0],
                                 [0, 0, 0, 0, 0]]
    assert run.clock.waits == [0.05, 0.1, 0.15, 0.2] and run.sent_until == 0.2 and run.r.n_audio_chunks == 4
    # server turns: no commits; the request (asked at 0 s) goes as text after the first chunk
    assert [e["type"] for e in ws.sent] == ["input_audio_buffer.append", "conversation.item.create"] + [
        "input_audio_buffer.append"] * 3


def test_last_chunk_stops_at_the_stream_end_and_a_resumed_stream_starts_at_its_resume_point():
    import threading

    run, ws = sender(0.12, list(range(12)), input_rate=100)  # chunks 0-.05, .05-.1, .1-.12 (2 samples)
    run.request_sent = True
    run._send_stream(ws, threading.Event())
    assert [len(a) for a in appended(ws.sent)] == [5, 5, 2] and run.sent_until == 0.12
    resumed, ws2 = sender(0.2, [0.0] * 20, input_rate=100)
    resumed.request_sent = True
    resumed.sent_until = 0.1  # after a gap: from chunk 2
    resumed._send_stream(ws2, threading.Event())
    assert resumed.clock.waits == [0.15, 0.2] and resumed.r.n_audio_chunks == 2


def test_request_text_goes_at_its_time_and_manual_turns_probe():
    """Request at 0.1 s, manual turns every 0.1 s: after the chunk ending at 0.1 the request, a commit and a
    response.create; after the one ending at 0.2 another commit and, with a response playing, no create."""
    import threading

    it = item(text="Say when.", time=0.1, duration=0.2)
    run, ws = sender(0.2, [0.0] * 20, input_rate=100, turn="manual", probe_s=0.1, it=it)
    real_send = ws.send

    def send(text):  # a response starts playing once the first create is out
        real_send(text)
        if json.loads(text)["type"] == "response.create":
            run.response_active = True

    ws.send = send
    run._send_stream(ws, threading.Event())
    assert [e["type"] for e in ws.sent] == [
        "input_audio_buffer.append", "input_audio_buffer.append", "conversation.item.create",
        "input_audio_buffer.commit", "response.create", "input_audio_buffer.append", "input_audio_buffer.append",
        "input_audio_buffer.commit"]
    assert ws.sent[2]["item"] == {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": "Say when."}]}
    assert run.next_probe == pytest.approx(0.3)


def test_request_is_not_sent_when_spoken_in_the_stream_or_before_its_time():
    import threading

    spoken = item(text="Say when.", modality="audio", duration=0.1)
    run, ws = sender(0.1, [0.0] * 10, input_rate=100, it=spoken, benchmark="omniinteract")
    run._send_stream(ws, threading.Event())
    assert [e["type"] for e in ws.sent] == ["input_audio_buffer.append"] * 2
    late = item(text="Later.", time=0.15, duration=0.1)
    run2, ws2 = sender(0.1, [0.0] * 10, input_rate=100, it=late)
    run2._send_stream(ws2, threading.Event())
    assert [e["type"] for e in ws2.sent] == ["input_audio_buffer.append"] * 2 and run2.request_sent is False
    at_once = item(text="Now.", time=0.0, duration=0.1)
    run3, ws3 = sender(0.1, [0.0] * 10, input_rate=100, it=at_once)
    run3._send_stream(ws3, threading.Event())
    assert [e["type"] for e in ws3.sent] == ["input_audio_buffer.append", "conversation.item.create",
                                             "input_audio_buffer.append"]


def test_the_persons_audio_is_mixed_into_its_chunk():
    import threading

    calls = []

    def person(t0, t1, rate):
        calls.append((t0, t1, rate))
        return np.full(7, 0.25, np.float32) if t0 == 0.05 else (np.zeros(0, np.float32) if t0 == 0.1 else None)

    run, ws = sender(0.15, [0.5] * 15, input_rate=100)
    run.request_sent = True
    run.mix = person
    run._send_stream(ws, threading.Event())
    assert calls == [(0.0, 0.05, 100), (0.05, 0.1, 100), (0.1, 0.15, 100)]
    # 0.5 -> 16383; 0.5 + 0.25 = 0.75 -> 24575 (7 extra samples: only 5 fit)
    assert appended(ws.sent) == [[16383] * 5, [24575] * 5, [16383] * 5]


class FakeFrames:
    def __init__(self):
        self.stamps = []

    def frame(self, stamp):
        self.stamps.append(stamp)
        return SimpleNamespace(image=np.zeros((2, 2, 3), np.uint8))


def test_frames_go_at_their_stamps_as_image_items_or_buffer_appends():
    """fps 10: stamps 0.05, 0.15, ...; after the chunk ending at 0.05 frame 0, after 0.15 frame 1 (0.2 s)."""
    import threading

    for mode in ("item", "buffer"):
        frames = FakeFrames()
        run, ws = sender(0.2, [0.0] * 20, input_rate=100, fps=10, image_mode=mode,
                         it=item(duration=0.2, video="v.mp4"), media=SimpleNamespace(frames=frames))
        run.request_sent = True
        run._send_stream(ws, threading.Event())
        assert frames.stamps == [0.05, 0.15] and run.r.n_frames == 2 and run.frame_i == 2
        kinds = [e["type"] for e in ws.sent]
        image = "conversation.item.create" if mode == "item" else "input_image_buffer.append"
        assert kinds == ["input_audio_buffer.append", image, "input_audio_buffer.append", "input_audio_buffer.append",
                         image, "input_audio_buffer.append"]
        if mode == "item":
            content = ws.sent[1]["item"]
            assert content["type"] == "message" and content["role"] == "user"
            assert content["content"][0]["type"] == "input_image"
            assert content["content"][0]["image_url"].startswith("data:image/jpeg;base64,")
        else:
            raw = base64.b64decode(ws.sent[1]["image"])
            assert raw[:2] == b"\xff\xd8"  # the JPEG itself, without the data: prefix


def test_one_frame_a_second_by_default():
    """fps 1 (the default): over 1.2 s, the one frame stamped 0.5 s, after the chunk ending at 0.5 s."""
    import threading

    frames = FakeFrames()
    run, ws = sender(1.2, [0.0] * 120, input_rate=100, it=item(duration=1.2, video="v.mp4"),
                     media=SimpleNamespace(frames=frames))
    run.request_sent = True
    run._send_stream(ws, threading.Event())
    assert run.o.fps == 1.0 and frames.stamps == [0.5]
    assert [e["type"] for e in ws.sent].index("conversation.item.create") == 10  # after the 10th chunk (0.5 s)


def test_frames_use_the_jpeg_quality_asked_for():
    import threading

    from runners.backends.base import jpeg_data_url

    run, ws = sender(0.1, [0.0] * 10, input_rate=100, fps=10, jpeg_quality=10, it=item(duration=0.1, video="v.mp4"),
                     media=SimpleNamespace(frames=FakeFrames()))
    run.request_sent = True
    run._send_stream(ws, threading.Event())
    (image,) = [e for e in ws.sent if e["type"] == "conversation.item.create"]
    black = np.zeros((2, 2, 3), np.uint8)  # the fake frame
    assert image["item"]["content"][0]["image_url"] == jpeg_data_url(black, quality=10)
    assert jpeg_data_url(black, quality=10) != jpeg_data_url(black, quality=85)


def test_no_frames_without_video_or_at_fps_zero():
    import threading

    frames = FakeFrames()
    run, ws = sender(0.1, [0.0] * 10, input_rate=100, fps=0, it=item(duration=0.1, video="v.mp4"),
                     media=SimpleNamespace(frames=frames))
    run.request_sent = True
    run._send_stream(ws, threading.Event())
    no_video, ws2 = sender(0.1, [0.0] * 10, input_rate=100, fps=10, media=SimpleNamespace(frames=frames))
    no_video.request_sent = True
    no_video._send_stream(ws2, threading.Event())
    assert frames.stamps == [] and run.r.n_frames == no_video.r.n_frames == 0


def test_minicpmo_sends_float_units_with_their_frames():
    """0.25 s units at 8 Hz: 2 samples each over 0.5 s (clipped to [-1, 1]); fps 4 stamps 0.125 and 0.375, one in
    each unit."""
    import threading

    frames = FakeFrames()
    run, ws = sender(0.5, [0.5, -2.0, 0.25, 2.0], input_rate=8, dialect="minicpmo", chunk_s=0.25, fps=4,
                     max_slice_nums=3, it=item(duration=0.5, video="v.mp4"), media=SimpleNamespace(frames=frames))
    run._send_stream(ws, threading.Event())
    assert [e["type"] for e in ws.sent] == ["input_audio_buffer.append"] * 2  # no text request, no image events
    assert [np.frombuffer(base64.b64decode(e["audio"]), "<f4").tolist() for e in ws.sent] == [[0.5, -1.0], [0.25, 1.0]]
    assert [len(e["video_frames"]) for e in ws.sent] == [1, 1] and [e["max_slice_nums"] for e in ws.sent] == [3, 3]
    assert base64.b64decode(ws.sent[0]["video_frames"][0])[:2] == b"\xff\xd8" and frames.stamps == [0.125, 0.375]
    audio_only, ws2 = sender(0.5, [0.0] * 4, input_rate=8, dialect="minicpmo", chunk_s=0.25, fps=0)
    audio_only._send_stream(ws2, threading.Event())
    assert ["video_frames" in e for e in ws2.sent] == [False, False]


def test_tail_listens_past_the_end_and_stop_or_cancel_send_nothing():
    import threading

    run, ws = sender(0.1, [0.0] * 10, input_rate=100, tail_s=0.3)
    run.request_sent = True
    run._send_stream(ws, threading.Event())
    assert run.clock.waits == [0.05, 0.1, 0.4]
    stopped, ws2 = sender(0.1, [0.0] * 10, input_rate=100)
    stop = threading.Event()
    stop.set()
    stopped._send_stream(ws2, stop)
    cancelled, ws3 = sender(0.1, [0.0] * 10, input_rate=100)
    cancelled.cancel.set()
    cancelled._send_stream(ws3, threading.Event())
    assert ws2.sent == ws3.sent == [] and stopped.sent_until == cancelled.sent_until == 0.0


def test_a_clock_that_times_out_is_waited_on_again():
    import threading

    class Slow(Clock):
        def wait_until(self, t, timeout=None):
            self.waits.append(t)
            if len(self.waits) < 3:
                raise TimeoutError
            self.t = t
            return t

    run, ws = sender(0.05, [0.0] * 5, input_rate=100, clock=Slow())
    run.request_sent = True
    run._send_stream(ws, threading.Event())
    assert run.clock.waits == [0.05, 0.05, 0.05] and len(ws.sent) == 1


def test_waiting_for_the_clock_checks_stop_every_fifth_of_a_second():
    """A paused page clock never reaches t: the sender waits 0.2 s at a time so that a stop is seen; once stopped
    it returns without waiting."""
    import threading

    stop = threading.Event()

    class Paused(Clock):
        def wait_until(self, t, timeout=None):
            self.waits.append(timeout)
            if len(self.waits) == 2:
                stop.set()
            raise TimeoutError

    run = run_of(clock=Paused())
    run._wait(5.0, stop)
    assert run.clock.waits == [0.2, 0.2]
    run._wait(5.0, stop)  # already stopped: no wait at all
    assert run.clock.waits == [0.2, 0.2]


def test_a_send_error_is_handed_to_the_receiver():
    import threading

    run, ws = sender(0.1, [0.0] * 10, input_rate=100)
    ws.fail_send = True
    errors = []
    run._send_loop(ws, threading.Event(), errors)
    assert len(errors) == 1 and isinstance(errors[0], OSError)
