"""A live page with a realtime (duplex) model, without a browser: the page's media clock drives the session
with the scripted OpenAI-Realtime server (a real process on 127.0.0.1); the model's audio pieces are pushed to
the page at the media time they arrived, and its utterance is stored as the live model's response.

The page's clock is held paused at the scripted time until the speech has arrived, so the expected media
times are the script's exactly (no wall-clock pacing in the test)."""
from __future__ import annotations

import base64
import json
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from annotation.loaders import load
from annotation.store import Store
from ibench_ui.live_model import LiveModelHub, LiveTarget
from runners.clock import MediaClock

SERVER = Path(__file__).resolve().parents[1] / "runners" / "realtime_server.py"
PHRASE = "The ball just appeared."
ITEM = "moving_square#0"


@pytest.fixture(scope="module")
def wav(tmp_path_factory) -> str:
    exe = shutil.which("espeak-ng")
    assert exe, "espeak-ng is required (apt-get install espeak-ng)"
    out = tmp_path_factory.mktemp("speech") / "a.wav"
    subprocess.run([exe, "-w", str(out), PHRASE], check=True)
    return str(out)


@pytest.fixture
def rt_url(tmp_path, wav):
    cfg = tmp_path / "server.json"
    cfg.write_text(json.dumps({"speech": [{"t": 3.0, "text": PHRASE, "wav": wav}], "log": str(tmp_path / "ev.jsonl")}))
    proc = subprocess.Popen([sys.executable, str(SERVER), str(cfg)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        assert line.startswith("LISTENING"), f"scripted server did not start: {line!r}"
        yield f"ws://127.0.0.1:{int(line.split()[1])}/v1/realtime", tmp_path / "ev.jsonl"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def wait_events(hub, page_id, cond, timeout=60.0):
    deadline = time.monotonic() + timeout
    cursor = 0
    while True:
        evs = hub.events(page_id)["events"]
        if cond(evs):
            return evs
        assert time.monotonic() < deadline, f"state not reached; events: {[e['type'] for e in evs]}"
        hub.wait_sync(page_id, cursor, timeout=1.0)
        cursor = hub.events(page_id)["cursor"]


def test_realtime_model_speech_is_pushed_at_media_time_and_stored(tmp_path, rt_url):
    item = load("interactionbench").get(ITEM)
    spec = f"realtime:{rt_url[0]}"
    store = Store(tmp_path / "live.sqlite")
    hub = LiveModelHub(store, clock_factory=lambda: MediaClock(stale_after=600))
    tg = LiveTarget(session_id="s_rt", item_index=0, item=item, spec=spec, protocol="blind", benchmark="interactionbench",
                    span=float(item.stream.duration))
    try:
        assert hub.report("pg", tg, 0.0, paused=True)["started"]
        hub.report("pg", tg, 3.0, paused=True)  # the page holds at 3.0 s: the model hears up to there
        evs = wait_events(hub, "pg", lambda evs: any(e["type"] == "response" for e in evs))
        speech = [e for e in evs if e["type"] == "speech"]
        (resp,) = [e for e in evs if e["type"] == "response"]
        assert speech and speech[0]["t"] == 3.0 and {e["lane"] for e in speech} == {f"model:{spec}"}
        assert all(a["end"] == pytest.approx(b["t"], abs=1e-3) for a, b in zip(speech, speech[1:]))  # one span
        samples = sum(len(base64.b64decode(e["pcm16"])) // 2 for e in speech)
        assert samples > 0 and speech[-1]["end"] == pytest.approx(3.0 + samples / 24000, abs=1e-3)
        assert resp["t"] == 3.0 and resp["text"] == PHRASE and resp["lane"] == f"model:{spec}"
        assert resp["responder"] == f"model:{spec}@s_rt"
        hub.report("pg", tg, float(item.stream.duration) + 0.5, paused=True)  # the item plays out
        evs = wait_events(hub, "pg", lambda evs: any(e["type"] == "status" and e["state"] != "running" for e in evs))
        (final,) = [e for e in evs if e["type"] == "status" and e["state"] != "running"]
        assert final["state"] == "done" and final["emitted"] == 1 and final["calls"] == 1, final
        (row,) = store.responses(session_id="s_rt")
        assert (row.responder, row.t, row.text, row.kind) == (f"model:{spec}@s_rt", 3.0, PHRASE, "speech")
        assert row.meta["protocol"] == "realtime" and row.meta["end"] == pytest.approx(speech[-1]["end"], abs=1e-3)
        assert [w["text"] for w in row.meta["aligned_words"]] == PHRASE.split()
    finally:
        for w in hub.workers():
            w.stop("test over")


def test_the_persons_microphone_is_mixed_into_what_the_model_hears(tmp_path, rt_url):
    """Duplex: microphone pieces the page sends for the open item reach the model at their media time."""
    url, log = rt_url
    item = load("interactionbench").get(ITEM)
    hub = LiveModelHub(Store(tmp_path / "live.sqlite"), clock_factory=lambda: MediaClock(stale_after=600))
    voice = np.full(16000, 0.5, np.float32)  # the person "speaks" (a 0.5 constant) during [5, 6) at 16 kHz
    end = float(item.stream.duration) + 0.5

    def play(page: str, session: str, mic: bool) -> None:
        tg = LiveTarget(session_id=session, item_index=0, item=item, spec=f"realtime:{url}", protocol="blind",
                        benchmark="interactionbench", span=float(item.stream.duration))
        assert not hub.hear(page, tg.key, 5.0, 16000, voice)  # no worker yet: nothing to mix into
        hub.report(page, tg, 0.0, paused=True)
        wait_events(hub, page, lambda evs: any(e["type"] == "status" for e in evs))
        assert not hub.hear(page, (session, 1), 5.0, 16000, voice)  # another item's audio is not this one's
        if mic:
            assert hub.hear(page, tg.key, 5.0, 16000, voice)
        hub.report(page, tg, end, paused=True)
        wait_events(hub, page, lambda evs: any(e["type"] == "status" and e["state"] != "running" for e in evs))

    try:
        play("pg0", "s_plain", mic=False)
        play("pg1", "s_mic", mic=True)
        deadline = time.monotonic() + 60
        while not (log.exists() and log.read_text().count('"closed"') == 2):
            assert time.monotonic() < deadline, "the server never logged the end of both sessions"
            time.sleep(0.05)
        without, with_person = [json.loads(x)["rms"] for x in log.read_text().splitlines() if '"closed"' in x]
        assert len(without) == len(with_person) == 24
        # a constant 0.5 over a zero-mean stream: rms^2 grows by 0.25 in second 5, and nowhere else
        assert abs(with_person[5] - (without[5] ** 2 + 0.25) ** 0.5) < 0.01, (with_person[5], without[5])
        assert [v for i, v in enumerate(with_person) if i != 5] == [v for i, v in enumerate(without) if i != 5]
    finally:
        for w in hub.workers():
            w.stop("test over")


def test_hear_checks_what_the_page_sends_and_reaches_only_a_realtime_worker(tmp_path, rt_url):
    """The `hear` server function: the session's own open item, a checked rate and size, base64 pcm16 only;
    heard only by the page's realtime worker (a ticking model or another page hears nothing)."""
    import math

    from ibench_ui.context import AppContext
    from ibench_ui.models import ModelRegistry
    from ibench_ui.session import SessionService

    url, _ = rt_url
    reg = ModelRegistry.from_dict({"allowed_base_urls": [url], "models": {"rt": f"realtime:{url}",
                                                                          "tick": "baseline:always"}})
    svc = SessionService(AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "none"),
                                    models=reg), clock_slack=math.inf)
    pcm = base64.b64encode((np.full(3200, 0.25) * 32767).astype("<i2").tobytes()).decode()  # 0.2 s at 16 kHz
    try:
        for name, heard in (("tick", False), ("rt", True)):
            res = svc.open_session({"participant": f"P-{name}", "benchmark": "interactionbench", "items": ITEM,
                                    "model": name, "who": "both"})
            assert res["ok"], res
            base = {"session_id": res["session"]["id"], "item_index": 0, "item_id": ITEM, "page_id": f"pg-{name}"}
            assert svc.clock({**base, "media_t": 0.0, "paused": True, "event": "pause"})["ok"]
            piece = {**base, "media_t": 0.0, "sample_rate": 16000, "pcm_b64": pcm}
            if heard:  # the realtime worker is up once it has said so
                wait_events(svc.hub, f"pg-{name}", lambda evs: any(e["type"] == "status" for e in evs))
            assert svc.hear(piece) == {"ok": True, "heard": heard}
            assert svc.hear({**piece, "page_id": "another-page"}) == {"ok": True, "heard": False}
            for bad, why in (({"sample_rate": 4000}, "sample_rate"), ({"sample_rate": True}, "sample_rate"),
                             ({"pcm_b64": "!!"}, "base64"), ({"pcm_b64": "A" * 200000}, "at most"),
                             ({"pcm_b64": None}, "at most"), ({"media_t": -1}, "media_t"),
                             ({"media_t": 99.0}, "past the end"), ({"item_index": 1}, "not open"),
                             ({"session_id": "nope"}, "No session")):
                out = svc.hear({**piece, **bad})
                assert out["ok"] is False and why in out["error"], (bad, out)
    finally:
        for w in svc.hub.workers():
            w.stop("test over")
