"""InteractionBench: each response's verdict under the scorer's own rules, read off its timing machinery
(scoring.classify dispatches here through the registry). Pure."""
from __future__ import annotations

import math
from bisect import bisect_right
from typing import Callable, Optional

from annotation.interactionbench import rules as ib_rules
from scoring.classify import ResponseVerdict
from scoring.interactionbench.lexical import content_score, extract_number
from scoring.interactionbench.scorer import IBConfig, filtered_emissions
from scoring.interactionbench.timing import decision_timing, merge_events


def _ib_gate(row: dict, fam: str, events, cfg: IBConfig, content: Optional[Callable[[str, str], Optional[float]]]):
    """The content gate exactly as the scorer builds it (ablation only); lexical content by default."""
    if not cfg.use_gate or fam not in ("B_trigger", "C_counting"):
        return None
    if fam == "C_counting":
        def gate(k: int, text: str) -> bool:
            g = extract_number(events[k].ref)
            p = extract_number(text)
            return g is None or (p is not None and abs(p - g) < 1e-9)
        return gate
    plain = content or (lambda gt, pred: content_score(gt, pred, cfg.fixed))

    def gate(k: int, text: str) -> bool:
        s = plain(events[k].ref, text)
        return s is None or s >= cfg.gate_thresh
    return gate


def classify_interactionbench(row: dict, line: Optional[dict], cfg: IBConfig = IBConfig(),
                              content: Optional[Callable[[str, str], Optional[float]]] = None) -> list[ResponseVerdict]:
    """matched / premature / redundant / spurious per filtered emission (spec §3), from `decision_timing`.

    row: the native item row (video fields added); line: its preds.jsonl line (or None = silent)."""
    iid = ib_rules.item_id(row)
    ems = filtered_emissions(line, iid)
    if not ib_rules.is_valid(row):
        return [ResponseVerdict(i, t, "unscored", text=x, counted=False, detail="item is not scoreable")
                for i, (t, x) in enumerate(ems)]
    fam = ib_rules.family(row)
    if fam == "negative":
        return [ResponseVerdict(i, t, "spurious", text=x, credit=0.0, detail="the item requires silence")
                for i, (t, x) in enumerate(ems)]
    if fam == "A_retro_qa":
        events = [merge_events([{"time_s": ib_rules.question_time(row), "content": ""}])[0]]
    else:
        events = merge_events(ib_rules.timed_answers(row))
    times = [e.time for e in events]
    tm = decision_timing(times, ems, cfg.pre_tol, _ib_gate(row, fam, events, cfg, content))
    owner = {m: k for k, m in enumerate(tm.match) if m is not None}
    infinite = math.isinf(cfg.pre_tol)
    note = " (timing diagnostic; the total is segment accuracy)" if fam == "C_segments" else ""
    out = []
    for i, (t, text) in enumerate(ems):
        if i in owner:
            k = owner[i]
            d = tm.delay[k]
            out.append(ResponseVerdict(i, t, "matched", text=text, target=str(k), delay=d,
                                       credit=max(0.0, 1.0 - d / cfg.delta),
                                       detail=f"answers event {k} at {times[k]:g}s{note}"))
        elif not infinite and t + cfg.pre_tol < times[0]:
            out.append(ResponseVerdict(i, t, "premature", text=text, delay=t - times[0], credit=0.0,
                                       detail=f"before the first event ({times[0]:g}s) minus tolerance{note}"))
        else:
            k = bisect_right(times, t if infinite else t + cfg.pre_tol) - 1
            k = max(k, 0)
            taken = tm.match[k] is not None and tm.match[k] < i
            label = "redundant" if (taken or infinite) else "spurious"
            why = "event already answered" if label == "redundant" else "rejected by the content gate"
            out.append(ResponseVerdict(i, t, label, text=text, target=str(k), delay=t - times[k], credit=0.0,
                                       detail=f"{why} (event {k} at {times[k]:g}s){note}"))
    return out
