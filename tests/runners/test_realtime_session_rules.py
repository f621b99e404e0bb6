"""The realtime backend's session rules against a real WebSocket server on 127.0.0.1 (a scripted server in a
thread of this process, so each test takes a fraction of a second): what goes over the wire, reconnects and
gaps, failures and cancel. The server's clock is the audio it has received (samples / input rate), so its
replies come at media times the test names; a reply can only land at or after the time that triggered it."""
from __future__ import annotations

import base64
import json
import threading
import time

import numpy as np
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import serve

from annotation.model import Item, Request, Stream
from runners.backends.realtime import RealtimeBackend

RATE = 100  # input and output samples per second: a 0.05 s chunk is 5 samples


def item(duration=0.5, text="", time_=0.0, audio=None, modality="text", video=None) -> Item:
    return Item(id="it1", benchmark="proactivebench", kind="k", stream=Stream(id="s", video_path=video,
                                                                             audio_path=audio, duration=duration),
                request=Request(text, time_, modality), targets=(), native={})


def ev(kind, **fields) -> str:
    return json.dumps({"type": kind, **fields})


def pcm_b64(values) -> str:
    return base64.b64encode(np.asarray(values, "<i2").tobytes()).decode()


class Server:
    """Scripted per connection: `script(conn, media_t, log)` returns the messages to send after each received
    append (media_t = audio received so far, in seconds) or "close"; every received event is logged."""

    def __init__(self, script=None, on_connect=None, input_bytes=2):
        self.script, self.on_connect, self.input_bytes = script, on_connect, input_bytes
        self.log: list[dict] = []
        self.n_conn = 0
        self.server = serve(self.handler, "127.0.0.1", 0)
        self.port = self.server.socket.getsockname()[1]
        self.url = f"ws://127.0.0.1:{self.port}/v1/realtime"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def handler(self, ws) -> None:
        self.n_conn += 1
        conn, received, done = self.n_conn, 0, set()
        self.log.append({"conn": conn, "type": "connect", "auth": ws.request.headers.get("Authorization"),
                         "extensions": ws.request.headers.get("Sec-WebSocket-Extensions")})
        if self.on_connect:
            for m in self.on_connect(conn):
                ws.send(m)
        try:
            for raw in ws:
                e = json.loads(raw)
                row = {"conn": conn, "type": e["type"]}
                if e["type"] == "input_audio_buffer.append":
                    pcm = np.frombuffer(base64.b64decode(e["audio"]), "<i2" if self.input_bytes == 2 else "<f4")
                    received += len(pcm)
                    row.update(t=round(received / RATE, 6), pcm=pcm.tolist())
                else:
                    row["event"] = e
                self.log.append(row)
                out = self.script(conn, round(received / RATE, 6), done, e) if self.script else []
                if out == "close":
                    return
                for m in out:
                    ws.send(m)
        except ConnectionClosed:
            pass
        finally:
            self.log.append({"conn": conn, "type": "closed", "audio_s": round(received / RATE, 6)})

    def of(self, conn: int, kind: str) -> list[dict]:
        return [r for r in self.log if r["conn"] == conn and r["type"] == kind]

    def wait_closed(self, n: int) -> None:
        """The server logs a connection's end after the client has returned: wait for that (generously)."""
        deadline = time.monotonic() + 60
        while sum(r["type"] == "closed" for r in self.log) < n and time.monotonic() < deadline:
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


@pytest.fixture()
def server():
    made = []

    def start(script=None, on_connect=None, input_bytes=2) -> Server:
        s = Server(script, on_connect, input_bytes)
        made.append(s)
        return s

    yield start
    for s in made:
        s.stop()


def once(done: set, key) -> bool:
    if key in done:
        return False
    done.add(key)
    return True


def reply_at(t0: float, rid: str = "r1", text: str = "Hi", n: int = 10, finish: bool = True):
    """A reply (created, transcript, n samples of audio of value 7, done) once the audio received reaches t0."""
    def script(conn, t, done, e):
        if e["type"] != "input_audio_buffer.append" or t + 1e-9 < t0 or not once(done, rid):
            return []
        out = [ev("response.created", response={"id": rid}),
               ev("response.audio_transcript.delta", response_id=rid, delta=text),
               ev("response.audio.delta", response_id=rid, delta=pcm_b64([7] * n))]
        return out + ([ev("response.done", response={"id": rid, "status": "completed"})] if finish else [])
    return script


def backend(url, **options) -> RealtimeBackend:
    base = {"input_rate": RATE, "output_rate": RATE, "fps": 0, "speed": 2.0, "request_text": "never",
            "queue_timeout": 30.0}  # a MiniCPM-o set-up that never comes ends the test in 30 s, not 10 minutes
    return RealtimeBackend(url, **{**base, **options})


def test_a_session_sends_the_stream_and_places_the_reply_where_it_arrived(server):
    """2 s at 0.05 s chunks: 40 appends of 5 samples. The reply comes once 0.2 s was received: it lands at or
    after 0.2 s, 10 samples (0.1 s) long, with its transcript; nothing failed, nothing malformed."""
    srv = server(reply_at(0.2))
    finished, heard = [], []
    res = backend(srv.url, model="m").stream_item(item(duration=2.0), "proactivebench", on_response=finished.append,
                                                  on_speech=lambda rid, t, pcm: heard.append((rid, pcm.tolist())))
    assert (res.failed, res.cancelled, res.n_reconnects, res.gaps, res.n_errors) == (None, False, 0, [], 0)
    assert res.n_audio_chunks == 40 and res.n_events == 4 and res.endpoints == []  # one server: no pool report
    (rec,) = res.responses
    assert (rec.id, rec.text, rec.samples, rec.done, rec.status) == ("r1", "Hi", 10, True, "completed")
    (s, e), = rec.spans
    assert 0.2 <= s <= 2.05 - 0.1 and e == pytest.approx(s + 0.1)  # at most one chunk past the audio sent
    assert finished == [rec] and heard == [("r1", [7] * 10)]  # live playback gets the placed audio
    srv.wait_closed(1)
    assert [r["t"] for r in srv.of(1, "input_audio_buffer.append")] == [round(0.05 * k, 6) for k in range(1, 41)]
    (update,) = srv.of(1, "session.update")
    assert update["event"]["session"]["model"] == "m" and srv.log[1]["type"] == "session.update"  # first, once
    assert srv.of(1, "closed")[0]["audio_s"] == 2.0 and srv.n_conn == 1
    assert srv.log[0]["extensions"] is None  # no per-message compression offered (audio does not compress)


def test_a_reply_larger_than_a_mebibyte_is_received(server):
    """700,000 samples in one delta (1.4 MB of pcm16, 1.9 MB as base64 JSON): no message size limit."""
    srv = server(reply_at(0.1, n=700_000))
    res = backend(srv.url).stream_item(item(duration=5.0), "proactivebench")  # time to carry 1.9 MB
    assert res.failed is None and res.n_reconnects == 0
    assert res.responses[0].samples == 700_000


def test_the_streams_own_audio_is_what_the_model_hears(server, tmp_path):
    """A 100 Hz WAV (no resampling at input_rate 100): 0.5 for 0.25 s, then -0.5. Each 0.05 s append is 5
    samples of 0.5 * 32767 = 16383 (truncated), then of -16383."""
    import soundfile as sf

    wav = tmp_path / "a.wav"
    sf.write(wav, np.r_[np.full(25, 0.5), np.full(25, -0.5)].astype(np.float32), RATE, subtype="FLOAT")
    srv = server()
    res = backend(srv.url).stream_item(item(audio=str(wav)), "proactivebench")
    assert res.failed is None
    srv.wait_closed(1)
    assert [r["pcm"] for r in srv.of(1, "input_audio_buffer.append")] == [[16383] * 5] * 5 + [[-16383] * 5] * 5


def test_the_request_text_goes_at_its_time_and_the_key_in_the_header(server, monkeypatch):
    srv = server()
    monkeypatch.setenv("RT_SESSION_KEY", "sk-9")
    res = backend(srv.url, request_text="auto", api_key_env="RT_SESSION_KEY").stream_item(
        item(text="Say when.", time_=0.2), "proactivebench")
    assert res.failed is None
    srv.wait_closed(1)
    assert srv.log[0]["auth"] == "Bearer sk-9"
    kinds = [(r["type"], r.get("t")) for r in srv.log if r["type"] != "closed"]
    i = kinds.index(("conversation.item.create", None))
    assert kinds[i - 1] == ("input_audio_buffer.append", 0.2)  # right after the audio reached 0.2 s
    assert srv.log[i]["event"]["item"]["content"] == [{"type": "input_text", "text": "Say when."}]


def test_a_request_spoken_in_the_stream_is_not_also_sent_as_text(server):
    srv = server()
    res = backend(srv.url, request_text="auto").stream_item(item(text="Say when.", modality="audio"),
                                                           "omniinteract")
    assert res.failed is None
    srv.wait_closed(1)
    assert srv.of(1, "conversation.item.create") == [] and len(srv.of(1, "input_audio_buffer.append")) == 10


def test_frames_of_the_video_go_at_their_stamps_at_the_asked_size(server, clip):
    """The 12 s clip (320x180) at fps 2 over its first 1.5 s: frames stamped 0.25, 0.75 and 1.25 s, as JPEGs
    whose long side is max_long_side (64: 64x36)."""
    import cv2

    srv = server()
    res = backend(srv.url, fps=2.0, max_long_side=64, speed=4.0).stream_item(
        item(duration=1.5, video=str(clip.path)), "proactivebench")
    assert res.failed is None and res.n_frames == 3
    srv.wait_closed(1)
    images = [r["event"]["item"]["content"][0]["image_url"] for r in srv.of(1, "conversation.item.create")]
    sizes = []
    for url in images:
        jpeg = np.frombuffer(base64.b64decode(url.split(",", 1)[1]), np.uint8)
        sizes.append(cv2.imdecode(jpeg, cv2.IMREAD_COLOR).shape[:2])
    assert sizes == [(36, 64)] * 3
    kinds = [(r["type"], r.get("t")) for r in srv.log if r["type"] in ("input_audio_buffer.append",
                                                                         "conversation.item.create")]
    # each frame goes right after the audio chunk that reaches its stamp: 0.25 -> after the 0.25 chunk, etc.
    assert [kinds[i - 1][1] for i, k in enumerate(kinds) if k[0] == "conversation.item.create"] == [0.25, 0.75, 1.25]


def test_server_errors_and_malformed_events_are_counted(server):
    def script(conn, t, done, e):
        if e["type"] == "input_audio_buffer.append" and t >= 0.1 and once(done, "bad"):
            return ["{not json", ev("error", error={"message": "overloaded"}),
                    ev("response.audio.delta", response_id="r1", delta="AQA")]
        return []

    res = backend(server(script).url).stream_item(item(), "proactivebench")
    assert res.failed is None and (res.n_malformed, res.n_server_errors, res.n_errors) == (2, 1, 3)
    assert res.server_errors == ["overloaded"]
    assert [m.split(":")[0] for m in res.malformed] == ["not JSON", "response.audio.delta with undecodable audio"]


def test_a_tool_call_is_kept_and_acknowledged_on_the_connection(server):
    def script(conn, t, done, e):
        if e["type"] == "input_audio_buffer.append" and t >= 0.1 and once(done, "call"):
            return [ev("response.function_call_arguments.done", name="set_timer", arguments='{"seconds": 30}',
                       call_id="c1")]
        return []

    srv = server(script)
    res = backend(srv.url, speed=1.0).stream_item(item(duration=1.0), "proactivebench")
    assert res.failed is None and [(c["name"], c["args"], c["call_id"]) for c in res.tool_calls] == [
        ("set_timer", {"seconds": 30}, "c1")]
    assert 0.1 <= res.tool_calls[0]["t"] <= 1.05  # at most one chunk past the audio sent
    srv.wait_closed(1)
    acks = [r["event"]["item"] for r in srv.of(1, "conversation.item.create")]
    assert acks == [{"type": "function_call_output", "call_id": "c1", "output": '{"status": "ok"}'}]


def test_a_dropped_connection_resumes_with_a_gap_and_reports_the_open_reply(server):
    """Connection 1 gets a reply's start at 0.1 s and is closed by the server at 0.2 s; the client reconnects
    (one reconnect), records the gap from the audio sent (>= 0.2) to the resume point and sends only the rest."""
    def script(conn, t, done, e):
        if conn == 1 and e["type"] == "input_audio_buffer.append":
            if t >= 0.2:
                return "close"
            return reply_at(0.1, finish=False)(conn, t, done, e)
        return []

    srv = server(script)
    finished = []
    res = backend(srv.url, speed=0.5).stream_item(item(duration=1.0), "proactivebench", on_response=finished.append)
    assert res.failed is None and res.n_reconnects == 1 and len(res.gaps) == 1
    g0, g1 = res.gaps[0]
    assert 0.2 <= g0 <= g1 <= 1.0
    assert [r.id for r in finished] == ["r1"] and res.responses[0].done is False
    srv.wait_closed(2)
    assert srv.n_conn == 2 and len(srv.of(2, "session.update")) == 1
    resumed = srv.of(2, "input_audio_buffer.append")
    assert len(resumed) == round((1.0 - g1) / 0.05)  # from the resume point to the end, nothing of the gap
    assert res.n_audio_chunks >= 4 + len(resumed)


def test_a_connection_that_keeps_dropping_fails_the_item(server):
    """Every connection is closed by the server 0.1 s into its audio; two reconnects, then the item fails. The
    client waits 0.2 s, then 0.4 s (wall) before reconnecting while the clock runs on (speed 2): the gaps are at
    least 0.4 and 0.8 media s."""
    srv = server(lambda conn, t, done, e: "close" if e["type"] == "input_audio_buffer.append" and t >= 0.1 else [])
    res = backend(srv.url, reconnects=2, speed=2.0).stream_item(item(duration=60.0), "proactivebench")
    assert res.failed.startswith("connection lost at media time ") and res.n_reconnects == 2
    assert "; 2 reconnect(s) failed: connection closed (" in res.failed
    drop = float(res.failed.split("media time ")[1].split("s;")[0])
    assert len(res.gaps) == 2 and res.gaps[1][1] + 0.1 <= drop + 1e-9  # the third connection's drop, after both gaps
    (a0, a1), (b0, b1) = res.gaps
    assert a1 - a0 >= 0.4 and b1 - b0 >= 0.8 and a1 <= b0
    assert round(a1 / 0.05, 6) == round(a1 / 0.05) and round(b1 / 0.05, 6) == round(b1 / 0.05)  # chunk-aligned


def test_a_server_that_never_answers_the_handshake_times_out():
    """A TCP listener that accepts and says nothing: the WebSocket opening gives up after connect_timeout."""
    import socket

    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(4)
    try:
        url = f"ws://127.0.0.1:{lsock.getsockname()[1]}/v1/realtime"
        res = backend(url, reconnects=0, connect_timeout=0.3).stream_item(item(), "proactivebench")
        assert res.failed.startswith(f"connection lost before streaming; 0 reconnect(s) failed: cannot connect to "
                                     f"{url}: TimeoutError")
    finally:
        lsock.close()


def test_an_unreachable_server_fails_before_streaming_after_its_reconnect():
    res = backend("ws://127.0.0.1:9/v1/realtime", reconnects=1).stream_item(item(), "proactivebench")
    assert res.failed.startswith("connection lost before streaming; 1 reconnect(s) failed: cannot connect to ")
    assert res.n_reconnects == 1 and res.gaps == [] and res.n_audio_chunks == 0


def test_a_pool_tries_the_next_server_and_reports_each_connection(server):
    srv = server()
    bad = "ws://127.0.0.1:9/v1/realtime"
    b = backend(f"{bad},{srv.url}", endpoint_cooldown=600)
    t0 = time.perf_counter()
    res = b.stream_item(item(), "proactivebench")
    took = time.perf_counter() - t0
    assert res.failed is None and res.n_reconnects == 1
    assert [(u, ok, kind) for u, ok, _, kind in res.endpoints] == [(bad, False, "connection"), (srv.url, True, None)]
    assert all(0 <= seconds <= took for _, _, seconds, _ in res.endpoints)  # each attempt's own time
    assert b.pool.healthy() == [srv.url]  # the one that failed is out; the one that worked is not


def test_a_missing_key_is_the_sessions_failure_not_the_servers(server, monkeypatch):
    srv = server()
    monkeypatch.delenv("RT_SESSION_ABSENT", raising=False)
    b = backend(f"ws://127.0.0.1:9/v1/realtime,{srv.url}", api_key_env="RT_SESSION_ABSENT")
    res = b.stream_item(item(), "proactivebench")
    assert res.failed == "environment variable RT_SESSION_ABSENT (api_key_env) is not set"
    assert res.n_reconnects == 0 and [ok for _, ok, _, _ in res.endpoints] == [True]  # the server is not blamed


def test_cancel_stops_the_session(server):
    cancel = threading.Event()

    def script(conn, t, done, e):
        if e["type"] == "input_audio_buffer.append" and t >= 0.1:
            cancel.set()
        return []

    srv = server(script)
    res = backend(srv.url, speed=0.5).stream_item(item(duration=60.0), "proactivebench", cancel=cancel)
    assert res.cancelled is True and res.failed is None and res.n_audio_chunks < 1200
    srv.wait_closed(1)
    assert srv.n_conn == 1


def test_a_stale_page_clock_fails_the_session(server):
    class Stale:
        def now(self):
            return None

        def wait_until(self, t, timeout=None):
            time.sleep(0.01)
            raise TimeoutError

    srv = server()
    res = backend(f"{srv.url},ws://127.0.0.1:9/v1/realtime").stream_item(item(), "proactivebench", clock=Stale())
    assert res.failed == "media clock went stale (the page stopped reporting)" and res.n_reconnects == 0
    assert [(u, ok, kind) for u, ok, _, kind in res.endpoints] == [(srv.url, True, None)]  # not the server's fault


def test_a_sender_stuck_past_the_stream_end_is_a_lost_connection(server):
    """A live clock at 1000x: the stream (0.5 s) is over in half a wall millisecond, but the sender is stuck in
    its first chunk (the microphone mix blocks): 10 media s past the end the session is given up. (The stuck
    chunk still goes out while the sender is stopped, so the gap starts after it, at 0.05 s.)"""
    from runners.clock import MediaClock

    clock = MediaClock(stale_after=600)
    clock.report(0.0, paused=False, rate=1000.0)

    def stuck(t0, t1, rate):
        while clock.now() < 3000:  # 3 wall seconds, long after the session gave up
            time.sleep(0.01)
        return None

    srv = server()
    res = backend(srv.url, reconnects=0).stream_item(item(), "proactivebench", clock=clock, mix=stuck)
    assert res.failed == ("connection lost at media time 0.05s; 0 reconnect(s) failed: sending stalled: the stream "
                          "ended 10 media s ago and audio is sent only up to 0.00s")


def test_an_error_in_the_sender_ends_the_session_with_it(server):
    def mix(t0, t1, rate):
        if t0 >= 0.1:
            raise ValueError("microphone gone")
        return None

    srv = server()
    with pytest.raises(ValueError, match="microphone gone"):
        backend(srv.url).stream_item(item(), "proactivebench", mix=mix)


def test_minicpmo_queues_then_streams_float_units_and_closes(server):
    """Queue first (queued, queue_done), then session.update, session.created; 0.25 s float32 units at 100 Hz
    (25 samples of 4 bytes) over 1 s; a turn at 0.25 s; at the end the client closes the session itself."""
    def on_connect(conn):
        return [ev("session.queued", position=1), ev("session.queue_done")]

    def script(conn, t, done, e):
        if e["type"] == "session.update":
            return [ev("session.created")]
        if e["type"] == "input_audio_buffer.append" and t >= 0.25 and once(done, "turn"):
            audio = base64.b64encode(np.full(10, 0.5, "<f4").tobytes()).decode()
            return [ev("response.output_audio.delta", text="Hey", audio=audio, end_of_turn=True)]
        return []

    srv = server(script, on_connect, input_bytes=4)
    res = backend(srv.url, dialect="minicpmo", chunk_s=0.25).stream_item(item(duration=1.0), "proactivebench")
    assert res.failed is None and res.n_errors == 0
    (turn,) = res.responses
    assert (turn.id, turn.text, turn.samples, turn.status) == ("turn1", "Hey", 10, "completed")
    assert 0.25 <= turn.spans[0][0] <= 1.25  # at most one unit past the audio sent
    srv.wait_closed(1)
    assert [r["type"] for r in srv.log if r["type"] not in ("connect", "closed")] == [
        "session.update"] + ["input_audio_buffer.append"] * 4 + ["session.close"]
    assert srv.of(1, "session.close")[0]["event"]["reason"] == "user_stop"


def test_minicpmo_instructions_carry_a_typed_request_but_not_a_spoken_one(server):
    from runners.backends.realtime import DEFAULT_INSTRUCTIONS

    def on_connect(conn):
        return [ev("session.queue_done")]

    def script(conn, t, done, e):
        return [ev("session.created")] if e["type"] == "session.update" else []

    srv = server(script, on_connect, input_bytes=4)
    b = backend(srv.url, dialect="minicpmo", chunk_s=0.25, request_text="auto")
    assert b.stream_item(item(text="Watch.", duration=0.25), "proactivebench").failed is None
    assert b.stream_item(item(text="Watch.", modality="audio", duration=0.25), "omniinteract").failed is None
    srv.wait_closed(2)
    assert [srv.of(c, "session.update")[0]["event"]["session"]["instructions"] for c in (1, 2)] == [
        DEFAULT_INSTRUCTIONS + "\n\nThe user's request: Watch.", DEFAULT_INSTRUCTIONS]


def test_minicpmo_session_closed_by_the_server_is_a_lost_connection(server):
    def on_connect(conn):
        return [ev("session.queue_done")]

    def script(conn, t, done, e):
        if e["type"] == "session.update":
            return [ev("session.created")]
        if e["type"] == "input_audio_buffer.append":
            return [ev("session.closed", reason="gpu lost")]
        return []

    srv = server(script, on_connect, input_bytes=4)
    res = backend(srv.url, dialect="minicpmo", chunk_s=0.25, reconnects=0).stream_item(item(), "proactivebench")
    assert res.failed.startswith("connection lost at media time 0.25s; 0 reconnect(s) failed: "
                                 "the server closed the session (gpu lost)")


def test_minicpmo_reconnects_after_the_server_closed_a_session(server):
    def on_connect(conn):
        return [ev("session.queue_done")]

    def script(conn, t, done, e):
        if e["type"] == "session.update":
            return [ev("session.created")]
        if conn == 1 and e["type"] == "input_audio_buffer.append":
            return [ev("session.closed", reason="gpu lost")]
        return []

    srv = server(script, on_connect, input_bytes=4)
    res = backend(srv.url, dialect="minicpmo", chunk_s=0.25, reconnects=1, speed=0.5).stream_item(
        item(duration=2.0), "proactivebench")
    assert res.failed is None and res.n_reconnects == 1  # the new session starts clean
    srv.wait_closed(2)
    assert srv.of(2, "session.close")[0]["event"]["reason"] == "user_stop"


def test_manual_turns_ask_again_after_a_reconnect(server):
    """Manual turns: a response.create goes with a commit only when no response is playing. Connection 1 starts
    a response and is dropped before it is done: on connection 2 the client asks for responses again."""
    def script(conn, t, done, e):
        if conn == 1 and e["type"] == "response.create" and once(done, "created"):
            return [ev("response.created", response={"id": "r1"})]
        if conn == 1 and e["type"] == "input_audio_buffer.append" and t >= 0.3:
            return "close"
        return []

    srv = server(script)
    res = backend(srv.url, turn="manual", probe_s=0.1, speed=0.5).stream_item(item(duration=1.5), "proactivebench")
    assert res.failed is None and res.n_reconnects == 1
    srv.wait_closed(2)
    assert len(srv.of(1, "response.create")) >= 1  # then r1 was playing (once its created event was read)
    assert len(srv.of(2, "response.create")) == len(srv.of(2, "input_audio_buffer.commit")) >= 1
