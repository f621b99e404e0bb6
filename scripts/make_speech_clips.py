"""Build the committed espeak-ng speech fixtures (tests/assets/speech/): a model's spoken answers placed at
known stream times in one 16 kHz mono FLAC, plus answers.json with each answer's text and true start/end.

The truth comes from each phrase rendered alone (first and last sample above 1 % of full scale, on silence),
shifted by where it was placed, so it does not depend on any detector under test.
Run: python scripts/make_speech_clips.py  (needs espeak-ng and sox)"""
from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import soundfile as sf

RATE = 16000
OUT = Path(__file__).resolve().parents[1] / "tests" / "assets" / "speech"
ANSWERS = [(1.0, "The red ball is on the table."), (5.5, "The person waves twice."),
           (10.0, "Now the light turns green."), (14.5, "Three cups are stacked on the shelf."),
           (19.0, "The door is open."), (23.5, "She picks up the phone."), (28.0, "The video has ended.")]
DURATION = 32.0


def speak(text: str, tmp: Path) -> np.ndarray:
    raw, wav = tmp / "raw.wav", tmp / "out.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(raw), text], check=True)
    subprocess.run(["sox", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(wav)], check=True)
    x, sr = sf.read(wav, dtype="float32")
    assert sr == RATE
    return x


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    track = np.zeros(int(DURATION * RATE), np.float32)
    truth = []
    with tempfile.TemporaryDirectory() as d:
        for at, text in ANSWERS:
            x = speak(text, Path(d))
            loud = np.flatnonzero(np.abs(x) > 0.01)
            i0 = int(at * RATE)
            track[i0:i0 + len(x)] += x
            truth.append({"text": text, "start": round(at + loud[0] / RATE, 3),
                          "end": round(at + (loud[-1] + 1) / RATE, 3)})
    sf.write(OUT / "answers.flac", track, RATE, subtype="PCM_16")  # lossless, a third of the WAV
    (OUT / "answers.json").write_text(json.dumps({"rate": RATE, "duration": DURATION, "answers": truth},
                                                 indent=1) + "\n")


if __name__ == "__main__":
    main()
