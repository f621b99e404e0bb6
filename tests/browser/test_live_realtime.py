"""Live page with a realtime (duplex) model in Chromium: the registry names a `realtime:` model served by the
scripted OpenAI-Realtime server (a real process on 127.0.0.1); the page's media clock drives the stream to it,
its speech comes back as audio pieces drawn as growing spans in its lane (and scheduled on Web Audio), and each
utterance is stored as a `model:<spec>@<session>` response at the scripted media time."""
from __future__ import annotations

import json
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
import time

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, AppServer, new_context
from session_helpers import VIDEO, open_ready, rows, start, study_url

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 1000)]
SERVER = Path(__file__).resolve().parents[1] / "runners" / "realtime_server.py"
ITEM = "moving_square#0"
SCRIPT = [(2.0, "The ball just appeared."), (6.0, "It changed four times.")]
TOL = 0.5  # media seconds: the page reports its clock at 1 Hz and on media events; the server extrapolates


@pytest.fixture(scope="module")
def rt_app(tmp_path_factory):
    """The scripted server, then the app with a registry naming it (`--models`): (app, spec)."""
    exe = shutil.which("espeak-ng")
    assert exe, "espeak-ng is required (apt-get install espeak-ng)"
    d = tmp_path_factory.mktemp("rt")
    speech = []
    for i, (t, text) in enumerate(SCRIPT):
        subprocess.run([exe, "-w", str(d / f"{i}.wav"), text], check=True)
        speech.append({"t": t, "text": text, "wav": str(d / f"{i}.wav")})
    (d / "server.json").write_text(json.dumps({"speech": speech, "log": str(d / "events.jsonl")}))
    proc = subprocess.Popen([sys.executable, str(SERVER), str(d / "server.json")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    app = None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else ""
        assert line.startswith("LISTENING"), f"scripted server did not start: {line!r}"
        url = f"ws://127.0.0.1:{int(line.split()[1])}/v1/realtime"
        (d / "models.toml").write_text(f'allowed_base_urls = ["{url}"]\n[models]\nrt-scripted = "realtime:{url}"\n')
        app = AppServer(d / "ibench.sqlite", ["--models", str(d / "models.toml")]).start()
        yield app, f"realtime:{url}", d / "events.jsonl"
    finally:
        if app is not None:
            app.stop()
        proc.terminate()
        proc.wait(timeout=30)


def test_realtime_model_speech_spans_appear_in_its_lane_at_the_scripted_times(rt_app, page):
    app, spec, _ = rt_app
    sid = open_ready(page, study_url(app.url, "P-rt", [ITEM], model="rt-scripted", who="both"))
    lane = f'#session-timeline .ib-tl-lane[data-lane="model:{spec}"]'
    assert page.locator(lane).count() == 1
    start(page)
    # each utterance: a span in the model lane (grown piece by piece), then its row once the utterance is over
    page.wait_for_function(
        f"""() => document.querySelectorAll('{lane} .ib-tl-speech').length === {len(SCRIPT)}
              && document.querySelectorAll('#session-timeline li.ib-tl-model').length === {len(SCRIPT)}""",
        timeout=60000)
    spans = page.evaluate(f"""() => [...document.querySelectorAll('{lane} .ib-tl-speech')].map(el => (
        {{start: Number(el.dataset.start), end: Number(el.dataset.end), pieces: Number(el.dataset.pieces),
          width: el.getBoundingClientRect().width}}))""")
    spans.sort(key=lambda s: s["start"])
    for s, (t, _) in zip(spans, SCRIPT):
        assert abs(s["start"] - t) <= TOL, (s, t)
        assert s["end"] > s["start"] + 0.5 and s["pieces"] > 1 and s["width"] > 0, s  # spoken audio, drawn
    played = page.evaluate("() => [...window.ibenchSession.state.speech.values()].map(s => s.played || 0)")
    assert len(played) == len(SCRIPT) and all(n > 0 for n in played), played  # scheduled on Web Audio
    got = sorted(rows(app.db, sid, len(SCRIPT)), key=lambda r: r.t)
    assert [(r.responder, r.text, r.kind) for r in got] == [(f"model:{spec}@{sid}", text, "speech") for _, text in SCRIPT]
    for r, s in zip(got, spans):
        assert r.t == pytest.approx(s["start"], abs=2e-3) and r.meta["end"] == pytest.approx(s["end"], abs=2e-3)
    caption = page.inner_text("#model-caption") if page.locator("#model-caption").count() else ""
    assert caption in ("", SCRIPT[-1][1])  # presenter mode shows the words; elsewhere the caption is hidden


@pytest.fixture
def mic_page(browser, tmp_path):
    """Chromium with a fake microphone playing a loud steady tone (sox): the person talking throughout."""
    assert shutil.which("sox"), "sox is required (scripts/test.sh installs it)"
    wav = tmp_path / "voice.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", str(wav), "synth", "4", "sine", "440", "vol", "0.5"],
                   check=True)
    b = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS + [
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}"])
    ctx = new_context(b, viewport={"width": 1280, "height": 1000}, permissions=["microphone"])
    yield ctx.new_page()
    b.close()


def stream_energy(item_id: str, seconds: int) -> list[float]:
    """Per-second mean square of the item's own audio at 24 kHz, as the backend decodes and sends it."""
    import numpy as np

    from annotation.loaders import load
    from runners.protocols.base import Media

    it = load("interactionbench").get(item_id)
    m = Media(it.stream.video_path, it.stream.audio_path, audio_rate=24000, duration=it.stream.duration)
    try:
        x = m.audio.samples.astype(np.float64) if m.audio is not None else np.zeros(24000 * seconds)
    finally:
        m.close()
    x = np.pad(x, (0, max(0, 24000 * seconds - len(x))))
    return [float(np.mean(x[i * 24000:(i + 1) * 24000] ** 2)) for i in range(seconds)]


def test_duplex_the_person_is_heard_by_the_realtime_model(rt_app, mic_page):
    """The page streams its (fake) microphone to the server while the realtime model runs; the scripted
    server logs the energy of what it received per second: more than the item's own audio carries."""
    app, spec, log = rt_app
    page = mic_page
    seen_conns = {r["conn"] for r in map(json.loads, log.read_text().splitlines())} if log.exists() else set()
    sid = open_ready(page, study_url(app.url, "P-duplex", [ITEM], model="rt-scripted", who="both"))
    start(page)
    page.wait_for_function("() => (window.ibenchSession.state.heard || 0) >= 10", timeout=60000)  # 2 s heard
    page.evaluate(f"() => {{ document.querySelector('{VIDEO}').playbackRate = 4; }}")
    page.wait_for_function(f"() => document.querySelector('{VIDEO}').ended", timeout=60000)
    deadline = time.monotonic() + 60
    while True:  # the session's connection is the one whose requests carried this session's audio to its end
        closed = [r for r in map(json.loads, log.read_text().splitlines()) if r["type"] == "closed"
                  and r["audio_s"] == 24.0]
        mine = [r for r in closed if r["conn"] not in seen_conns]
        if mine or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert mine, "the scripted server never saw this session's stream end"
    heard = [v * v for v in mine[-1]["rms"]]
    own = stream_energy(ITEM, len(heard))
    excess = sum(h - o for h, o in zip(heard, own))
    assert excess > 1e-3, (heard, own)  # the person's voice reached the model (a 0.5 tone, after the browser's AEC)
    assert all(h >= o - 1e-4 for h, o in zip(heard, own)), (heard, own)  # the stream itself was never lost
    assert {r.responder for r in rows(app.db, sid, len(SCRIPT))} == {f"model:{spec}@{sid}"}  # it still spoke
