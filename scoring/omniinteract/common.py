"""Shared primitives for OmniInteract scoring: time parsing, booleans, decay, transcript chunks.

Every helper mirrors the reference scorer's behaviour (spec §1.5, §2.5, §5.1) so that the
numbers agree to the last float bit where the reference's operation order allows it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotation.values import reference_time as parse_time
from annotation.values import to_bool

__all__ = ["HARD", "SOFT", "Chunk", "Word", "clamp", "contains_cjk", "decay", "f1_from_pr", "join_words",
           "normalize_chunks", "parse_time", "safe_div", "to_bool"]

HARD = "Hard"
SOFT = "Soft"


def clamp(value: float, lo: float = 0.0, hi: float = 1.0) -> float:
    """Clamp to [lo, hi] with the reference's max(lo, min(hi, x)) order (NaN maps to hi)."""
    return max(lo, min(hi, float(value)))


def safe_div(numer: float, denom: float) -> float:
    """numer/denom, or 0.0 when the denominator is not positive."""
    return float(numer) / float(denom) if denom > 0 else 0.0


def f1_from_pr(precision: float, recall: float) -> float:
    """Harmonic mean computed from P and R (0 when both are 0), the reference's order of operations."""
    if precision + recall <= 0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


def decay(t: float, peak: float, end: float, alpha: float = 1.0, gamma: float = 1.0) -> float:
    """Timeliness in [0, 1]: 1 up to ``peak``, 0 from ``end``, ``1 - alpha*ratio**gamma`` between."""
    t, peak, end = float(t), float(peak), float(end)
    if end <= peak:
        return 1.0 if t <= peak else 0.0
    if t <= peak:
        return 1.0
    if t >= end:
        return 0.0
    ratio = (t - peak) / (end - peak)
    return clamp(1.0 - float(alpha) * (ratio ** float(gamma)))


def contains_cjk(text: str) -> bool:
    """True if any character lies in the CJK Unified Ideographs block U+4E00..U+9FFF."""
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def join_words(texts: list[str]) -> str:
    """Re-join word texts: no separator if any CJK character is present, else single spaces; trimmed."""
    tokens = [t for t in texts if t]
    if not tokens:
        return ""
    joined = "".join(tokens)
    return (joined if contains_cjk(joined) else " ".join(tokens)).strip()


@dataclass(frozen=True)
class Word:
    """One forced-aligned word (absolute seconds)."""

    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Chunk:
    """One transcript chunk after normalisation; ``chunk_id`` is its index in the source list."""

    chunk_id: int
    start: float
    end: float
    text: str
    words: tuple[Word, ...] = field(default_factory=tuple)


def normalize_chunks(model_root: Any) -> list[Chunk]:
    """Chunks of a transcript JSON, validated, reversed spans swapped, sorted by (start, end, id)."""
    if not isinstance(model_root, dict) or not isinstance(model_root.get("chunks"), list):
        return []
    chunks: list[Chunk] = []
    for idx, raw in enumerate(model_root["chunks"]):
        if not isinstance(raw, dict):
            continue
        ts = raw.get("timestamp")
        if not (isinstance(ts, list) and len(ts) == 2):
            continue
        start, end = parse_time(ts[0]), parse_time(ts[1])
        if start is None or end is None:
            continue
        if end < start:
            start, end = end, start
        words: list[Word] = []
        raw_words = raw.get("aligned_words")
        if isinstance(raw_words, list):
            for w in raw_words:
                if not isinstance(w, dict):
                    continue
                ws, we = parse_time(w.get("start")), parse_time(w.get("end"))
                if ws is None or we is None:
                    continue
                if we < ws:
                    ws, we = we, ws
                words.append(Word(str(w.get("text", "") or ""), float(ws), float(we)))
        words.sort(key=lambda w: (w.start, w.end))
        chunks.append(Chunk(idx, float(start), float(end), str(raw.get("text", "") or ""), tuple(words)))
    chunks.sort(key=lambda c: (c.start, c.end, c.chunk_id))
    return chunks
