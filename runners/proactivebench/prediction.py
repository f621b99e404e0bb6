"""ProactiveBench's native prediction: the compact trace of the seconds at which the model spoke."""
from __future__ import annotations

from runners.protocols.base import Trace


def compact_trace(trace: Trace) -> dict:
    """ProactiveBench's compact trace: the seconds at which the model spoke (each once) and the first thing it
    said in each."""
    secs, texts = [], {}
    for e in trace.emissions:
        k = int(e.meta.get("second", round(e.t)))
        if str(k) not in texts:  # texts is keyed by the second's string, as the native file writes it
            secs.append(k)
            texts[str(k)] = e.content
    return {"response_seconds": sorted(secs), "texts": texts}


def native_prediction(item, trace: Trace) -> dict:
    """The item's prediction line: its id and compact trace."""
    return {"item_id": item.id, **compact_trace(trace)}
