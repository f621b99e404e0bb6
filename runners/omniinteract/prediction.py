"""OmniInteract's native prediction: the model's speech as a wav_transcript (chunks with timestamps)."""
from __future__ import annotations

from runners.protocols.base import Emission


def transcript_of(emissions: list[Emission], words_per_second: float = 2.5) -> dict:
    """Text emissions as OmniInteract's wav_transcript chunks: one chunk per emission, starting at its
    time and lasting (words / words_per_second) seconds, cut at the next emission."""
    ems = sorted(emissions, key=lambda e: e.t)
    chunks = []
    for i, e in enumerate(ems):
        n_words = max(1, len(e.content.split()))
        end = e.t + n_words / words_per_second
        if i + 1 < len(ems):
            end = min(end, ems[i + 1].t)
        chunks.append({"text": e.content, "timestamp": [round(e.t, 3), round(max(end, e.t), 3)]})
    return {"text": " ".join(c["text"] for c in chunks), "chunks": chunks}
