"""Chunk-to-slot matching with the early/core split at t_a (spec §4)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

from .common import Chunk, Word, join_words
from .slots import Slot


@dataclass(frozen=True)
class Piece:
    """A whole chunk or one side of a chunk split at t_a (ids ``"<id>:early"`` / ``"<id>:core"``)."""

    chunk_id: Union[int, str]
    source_chunk_id: int
    start: float
    end: float
    text: str
    words: tuple[Word, ...]
    full_text: str
    effective_start_hint: Optional[float] = None

    @property
    def is_split(self) -> bool:
        return isinstance(self.chunk_id, str)

    def context_text(self) -> str:
        """The original chunk text used as judge context (falls back to the piece text)."""
        return (self.full_text or self.text or "").strip()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"chunk_id": self.chunk_id, "start": self.start, "end": self.end, "text": self.text}
        if self.is_split:
            out["source_chunk_id"] = self.source_chunk_id
        return out


@dataclass
class SlotMatch:
    """The pieces assigned to one slot, each list sorted by (start, end)."""

    slot: Slot
    all_chunks: list[Piece] = field(default_factory=list)
    early: list[Piece] = field(default_factory=list)
    core: list[Piece] = field(default_factory=list)


def whole_piece(chunk: Chunk) -> Piece:
    """An unsplit chunk as a piece."""
    return Piece(chunk.chunk_id, chunk.chunk_id, chunk.start, chunk.end, chunk.text, chunk.words, chunk.text)


def split_at(chunk: Chunk, boundary: float) -> tuple[Optional[Piece], Optional[Piece]]:
    """Split a chunk crossing ``boundary`` by aligned word starts; parts with no text are omitted."""
    early_words = tuple(w for w in chunk.words if w.start < boundary)
    core_words = tuple(w for w in chunk.words if w.start >= boundary)
    early = core = None
    early_text = join_words([w.text for w in early_words])
    core_text = join_words([w.text for w in core_words])
    if early_text:
        early = Piece(f"{chunk.chunk_id}:early", chunk.chunk_id, early_words[0].start, early_words[-1].end,
                      early_text, early_words, chunk.text)
    if core_text:
        core = Piece(f"{chunk.chunk_id}:core", chunk.chunk_id, core_words[0].start, core_words[-1].end,
                     core_text, core_words, chunk.text, effective_start_hint=float(boundary))
    return early, core


def _owner(slots: list[Slot], start: float) -> Optional[int]:
    """Index of the slot owning a chunk start: latest slot start, then largest slot id."""
    best: Optional[int] = None
    for i, s in enumerate(slots):
        if s.start <= start < s.end:
            if best is None or (s.start, s.slot_id) > (slots[best].start, slots[best].slot_id):
                best = i
    return best


def _by_time(pieces: list[Piece]) -> list[Piece]:
    return sorted(pieces, key=lambda p: (p.start, p.end))


def match_chunks(slots: list[Slot], chunks: list[Chunk]) -> tuple[list[SlotMatch], list[Chunk]]:
    """Assign each chunk to a slot (or leave it unmatched) and split cross-t_a chunks with words."""
    matches = [SlotMatch(s) for s in slots]
    unmatched: list[Chunk] = []
    for chunk in chunks:
        idx = _owner(slots, chunk.start)
        if idx is None:
            unmatched.append(chunk)
            continue
        m = matches[idx]
        boundary = m.slot.t_a
        whole = whole_piece(chunk)
        m.all_chunks.append(whole)
        phase_list = m.early if chunk.start < boundary else m.core
        if chunk.start < boundary < chunk.end and chunk.words:
            early, core = split_at(chunk, boundary)
            if early is not None:
                m.early.append(early)
            if core is not None:
                m.core.append(core)
            if early is None and core is None:
                phase_list.append(whole)
            continue
        phase_list.append(whole)
    for m in matches:
        m.all_chunks = _by_time(m.all_chunks)
        m.early = _by_time(m.early)
        m.core = _by_time(m.core)
    return matches, unmatched
