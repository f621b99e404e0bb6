"""InteractionBench predictions: preds.jsonl, one line per item with its timed emissions."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from annotation.errors import Problem
from annotation.jsonio import read_jsonl, write_jsonl


def pred_row(item_id: str, emissions: Iterable[dict], **extra) -> dict:
    """One preds.jsonl row; `item_id` is `<video_id>#<index>`, emissions are {t, content, latency_s?}."""
    vid, _, idx = item_id.rpartition("#")
    row = {"video_id": vid, "item_index": int(idx),
           "emissions": [{k: v for k, v in e.items() if v is not None} for e in emissions]}
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


def write_preds(path: str | Path, rows: list[dict]) -> Path:
    path = Path(path)
    write_jsonl(path, rows)
    return path


def read_preds(path: str | Path) -> tuple[list[dict], list[Problem]]:
    """Rows in file order (the scorer applies the reference's keep-last rule for duplicates)."""
    return read_jsonl(Path(path))


PRESS_TEXT = "(pressed)"


def emission_content(response) -> str:
    """What a logged response says as an emission: its text, or "(pressed)" for a bare press (the reference drops
    empty emissions, so a press written this way counts for timing and scores 0 for content)."""
    return response.text or PRESS_TEXT


def preds_from_responses(item, responses, **extra) -> dict:
    """One preds.jsonl row from logged responses, at their media times (3 decimals)."""
    emissions = [{"t": round(r.t, 3), "content": emission_content(r)} for r in sorted(responses, key=lambda r: r.t)]
    return pred_row(item.id, emissions, **extra)
