"""InteractionBench's native prediction: one preds.jsonl line per driven item, its failed ticks kept visible."""
from __future__ import annotations

from typing import Optional

from runners.protocols.base import Trace
from runners.run_health import error_ticks


def prediction_line(trace: Trace, video_id: str, item_index: int, model: Optional[str] = None,
                    run: Optional[str] = None) -> dict:
    """One preds.jsonl line in InteractionBench's prediction format."""
    line = {"video_id": video_id, "item_index": int(item_index),
            "emissions": [{"t": e.t, "content": e.content, "latency_s": round(e.latency_s, 4)}
                          for e in trace.emissions],
            "n_polls": trace.n_polls, "poll_latencies": [round(x, 4) for x in trace.poll_latencies]}
    if model:
        line["model"] = model
    if run:
        line["run"] = run
    if trace.failed:
        line["failed"] = trace.failed
    return line


def native_prediction(item, trace: Trace, model: str = "") -> dict:
    """The item's preds.jsonl line; the ticks whose call failed stay visible in it (`error_ticks`)."""
    line = prediction_line(trace, item.native["video_id"], item.native["item_index"], model=model or None)
    ticks = error_ticks(trace)
    if ticks:
        line["error_ticks"] = ticks
    return line
