"""InteractionBench: each emission's verdict as the scorer counted it, read off its report's `emission_verdicts`
(`score(..., verdicts=True)`); no matching of its own. Pure."""
from __future__ import annotations

from typing import Optional

from scoring.classify import ResponseVerdict
from scoring.interactionbench.scorer import filtered_emissions

_WHY = {"premature": "before the first event minus the tolerance", "redundant": "event already answered",
        "spurious": "rejected by the content gate"}


def classify_interactionbench(item_id: str, line: Optional[dict], report: dict) -> Optional[list[ResponseVerdict]]:
    """matched / premature / redundant / spurious per filtered emission of `line` (spec §3), as the report's
    record counts them; unscored when the report holds no record of the item; None when the report was made
    without emission verdicts or on other emissions."""
    fates = report.get("emission_verdicts")
    if fates is None:
        return None
    ems = filtered_emissions(line, item_id)
    mine = fates.get(item_id)
    if mine is None:
        return [ResponseVerdict(i, t, "unscored", text=x, counted=False, detail="the scorer has no record of this item")
                for i, (t, x) in enumerate(ems)]
    if len(mine) > len(ems):
        return None
    family = (report.get("per_item") or {}).get(item_id, {}).get("family")
    note = " (timing diagnostic; the total is segment accuracy)" if family == "C_segments" else ""
    out = []
    for i, (t, text) in enumerate(ems):
        if i >= len(mine):  # an item without events: its emissions enter no count
            out.append(ResponseVerdict(i, t, "unscored", text=text, counted=False, detail="the item has no event"))
            continue
        v = mine[i]
        k, at = v["event"], v["event_time"]
        if v["label"] == "matched":
            detail, delay = f"answers event {k} at {at:g}s", v["delay"]
        elif family == "negative":
            detail, delay = "the item requires silence", None
        else:
            detail = _WHY[v["label"]] + ("" if k is None else f" (event {k} at {at:g}s)")
            delay = None if at is None else t - at
        out.append(ResponseVerdict(i, t, v["label"], text=text, target=None if k is None else str(k), delay=delay,
                                   credit=v["credit"], detail=detail + note))
    return out
