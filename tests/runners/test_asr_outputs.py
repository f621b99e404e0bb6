"""Model speech -> OmniInteract transcripts: output.wav files transcribed with faster-whisper word times."""
import json
import shutil

import pytest

from annotation.loaders import demo_dir, load
from annotation.omniinteract.writer import write_predictions
from app import main
from runners import asr

pytestmark = pytest.mark.model


def test_transcribe_outputs_writes_chunks_with_word_times(tiny_whisper, clip, tmp_path):
    sample = tmp_path / "m" / "1q1a" / "videos__0001"
    sample.mkdir(parents=True)
    shutil.copy(clip.path.with_suffix(".wav"), sample / "output.wav")
    written = asr.transcribe_outputs(tmp_path / "m", model=str(tiny_whisper))
    assert written == [sample / "wav_transcript.json"]
    doc = json.loads(written[0].read_text())
    assert set(doc) == {"text", "chunks"}
    for ch in doc["chunks"]:
        s, e = ch["timestamp"]
        assert 0.0 <= s <= e <= clip.duration + 1e-6
        assert ch["aligned_words"] and all(s <= w["start"] <= w["end"] <= e for w in ch["aligned_words"])
    assert asr.transcribe_outputs(tmp_path / "m", model=str(tiny_whisper)) == []  # existing transcripts are kept


def test_score_command_transcribes_missing_transcripts(tiny_whisper, clip, tmp_path):
    ds = load("omniinteract", probe_media=False)
    sid = ds.items[0].id
    write_predictions(tmp_path / "outputs", "speaker", {sid: {"text": "", "chunks": []}}, ds)
    sample_dir = next((tmp_path / "outputs" / "speaker").rglob("wav_transcript.json")).parent
    (sample_dir / "wav_transcript.json").unlink()
    shutil.copy(clip.path.with_suffix(".wav"), sample_dir / "output.wav")
    out = tmp_path / "score.json"
    assert main(["score", "omniinteract", "--data", str(demo_dir("omniinteract")), "--outputs",
                 str(tmp_path / "outputs" / "speaker"), "--asr-model", str(tiny_whisper), "--dry-run",
                 "--out", str(out)]) == 0
    assert (sample_dir / "wav_transcript.json").is_file()
    summary = json.loads(out.read_text())["summary"]
    assert summary["success"] == 1 and summary["num_slots"] > 0
