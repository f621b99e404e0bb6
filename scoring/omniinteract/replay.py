"""Replay stored judge replies: `replay:<file.json>` rescores OmniInteract outputs offline with verdicts an
LLM judge gave before (or the golden vectors' stubbed replies). The file maps
sample_id -> slot_id -> stage -> {"raw": reply text} or {"api_error": message}."""
from __future__ import annotations

import json
from pathlib import Path

from .judge import JudgeTransportError


class ReplayTransport:
    """A judge transport answering from a stored table; a request it has no reply for is an error, so a
    replay never silently invents a verdict."""

    def __init__(self, table: dict, source: str = "<memory>"):
        self.table = table
        self.source = source
        self.calls: list[tuple[str, str, str]] = []

    @classmethod
    def from_file(cls, path: str | Path) -> "ReplayTransport":
        path = Path(path)
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"replay judge file {path}: {exc}") from None
        if not isinstance(table, dict):
            raise ValueError(f"replay judge file {path}: expected an object sample_id -> slot_id -> stage")
        return cls(table, str(path))

    def __call__(self, stage: str, sample_id: str, slot_id, system_prompt: str, user_prompt: str) -> str:
        self.calls.append((str(sample_id), str(slot_id), stage))
        entry = self.table.get(str(sample_id), {}).get(str(slot_id), {}).get(stage)
        if entry is None:
            raise KeyError(f"{self.source}: no stored {stage} reply for sample {sample_id} slot {slot_id}")
        if "api_error" in entry:
            raise JudgeTransportError(str(entry["api_error"]))
        return str(entry["raw"])
