"""Omni-InteractScope's native prediction: the model's timed responses, speech and tool calls."""
from __future__ import annotations

from runners.protocols.base import Trace


def timed_responses(trace: Trace) -> list[dict]:
    """InteractScope timed responses (speech and tool calls), ids r1, r2, ..."""
    out = []
    for i, e in enumerate(sorted(trace.emissions, key=lambda e: e.t), 1):
        row = {"id": f"r{i}", "t": e.t, "kind": e.kind, "text": e.content}
        if e.tool is not None:
            row["tool"] = e.tool
        out.append(row)
    return out


def native_prediction(item, trace: Trace) -> dict:
    """The item's prediction record: its interaction id and timed responses."""
    return {"interaction_id": item.id, "responses": timed_responses(trace)}
