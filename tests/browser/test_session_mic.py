"""Voice responses through Chromium's fake microphone: a WAV with speech at a known offset is played
into getUserMedia; the logged response time is the media time of the speech onset, with a transcript
from a tiny random faster-whisper model built locally (structure only, not text)."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # helpers beside this file (importlib mode)
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, AppServer, new_context
from session_helpers import center, open_ready, rows, start, study_url, wait_media

pytestmark = pytest.mark.browser
SPEECH_AT = 1.5   # seconds of silence before the speech in the fake microphone file
FILE_S = 6.0      # the fake device loops the file
ITEM = "whiteboard#0"  # a 40 s clip: the hands-free part must not meet the item end on a loaded machine

GUM_PROBE = """
window.__gum = [];
const md = navigator.mediaDevices;
const orig = md.getUserMedia.bind(md);
md.getUserMedia = async (c) => {
  const s = await orig(c);
  const v = document.querySelector('#session-player #stream-video');
  window.__gum.push({ct: v ? v.currentTime : null, paused: v ? v.paused : null});
  return s;
};
"""


def _sh(*cmd):
    subprocess.run(cmd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory) -> Path:
    """16 kHz mono: SPEECH_AT s of silence, a spoken sentence, silence up to FILE_S s (espeak-ng + sox)."""
    for tool in ("espeak-ng", "sox"):
        if not shutil.which(tool):
            pytest.fail(f"{tool} is not installed (scripts/test.sh installs it)")
    d = tmp_path_factory.mktemp("wav")
    _sh("espeak-ng", "-v", "en-us", "-s", "160", "-w", str(d / "raw.wav"), "The red ball is on the table.")
    _sh("sox", str(d / "raw.wav"), "-r", "16000", "-c", "1", "-b", "16", str(d / "mono.wav"))
    _sh("sox", str(d / "mono.wav"), str(d / "speech.wav"), "pad", str(SPEECH_AT), str(FILE_S), "trim", "0", str(FILE_S))
    return d / "speech.wav"


@pytest.fixture(scope="module")
def tiny_whisper_dir(tmp_path_factory) -> Path:
    spec = importlib.util.spec_from_file_location(
        "tiny_models_for_session", Path(__file__).resolve().parents[1] / "runners" / "tiny_models.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build_tiny_whisper(tmp_path_factory.mktemp("whisper"))


@pytest.fixture(scope="module")
def mic_server(tmp_path_factory, tiny_whisper_dir):
    srv = AppServer(tmp_path_factory.mktemp("micapp") / "ibench.sqlite",
                    extra_args=["--asr-model", str(tiny_whisper_dir)]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def mic_page(browser, speech_wav):
    """A second Chromium (same Playwright driver as the shared `browser`) with the fake microphone."""
    b = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS + [
        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={speech_wav}"])
    ctx = new_context(b, viewport={"width": 1280, "height": 1000}, permissions=["microphone"])
    ctx.add_init_script(GUM_PROBE)
    yield ctx.new_page()
    b.close()


def test_push_to_talk_logs_speech_at_its_onset_with_a_transcript(mic_server, mic_page):
    page = mic_page
    sid = open_ready(page, study_url(mic_server.url, "P-mic", [ITEM]))
    start(page)
    page.wait_for_function("() => !document.querySelector('#mic-btn').disabled", timeout=90000)  # model loaded
    wait_media(page, 1.0)
    x, y = center(page, "#mic-btn")
    page.mouse.move(x, y)
    page.mouse.down()
    page.wait_for_timeout(4500)
    page.mouse.up()
    [r] = rows(mic_server.db, sid, 1, timeout=120)
    gum = page.evaluate("() => window.__gum")
    assert len(gum) == 1 and gum[0]["paused"] is False
    expected = gum[0]["ct"] + SPEECH_AT     # the fake device starts its file when it opens
    print(f"\nptt onset error {r.t - expected:+.3f} s, text {r.text!r:.40}")
    assert r.kind == "speech" and abs(r.t - expected) < 0.3, (r.t, expected, r.meta)
    assert isinstance(r.text, str) and r.meta["asr_error"] is None
    assert isinstance(r.meta["words"], list) and r.meta["clip_s"] > 3.0
    assert Path(r.audio_path).is_file() and r.meta["source"] == "ptt"
    page.wait_for_function("() => document.querySelector('#session-timeline .ib-k-speech')", timeout=90000)

    # the transcript can be corrected afterwards; its time does not change
    page.click("#session-timeline .ib-fix")
    page.fill("#session-timeline .ib-fix-input", "the red ball")
    page.click("#session-timeline .ib-fix-save")
    page.wait_for_function("() => /the red ball/.test(document.querySelector('#session-timeline').textContent)")
    [fixed] = rows(mic_server.db, sid)
    assert fixed.text == "the red ball" and fixed.t == r.t and fixed.id == r.id

    # hands-free: the looping file speaks again FILE_S later; voice activity detection logs it unprompted
    page.check("#mic-handsfree")
    got = rows(mic_server.db, sid, 2, timeout=120)
    assert len(got) == 2 and got[1].meta["source"] == "vad"
    loops = round((got[1].t - expected) / FILE_S)
    print(f"vad onset error {got[1].t - (expected + loops * FILE_S):+.3f} s")
    assert loops >= 1 and abs(got[1].t - (expected + loops * FILE_S)) < 0.3, (got[1].t, expected)
