"""Omni-InteractScope: each response's verdict under the scorer's own rules, read off its timing machinery
(scoring.classify dispatches here through the registry). Pure."""
from __future__ import annotations

from typing import Mapping, Optional

from scoring.classify import ResponseVerdict
from scoring.interactscope import scorer as isc


_IS_PRIORITY = ("correct", "wrong", "ignored", "early", "outside")


def classify_interactscope(interaction: Mapping, prediction: Optional[Mapping],
                           cfg: isc.ISConfig = isc.ISConfig()) -> list[ResponseVerdict]:
    """Per response (spec B.3-B.5): the judged candidate of a target is correct or wrong, other in-window
    responses are ignored (first-in-window rule), responses before a window are early, the rest outside.
    Verdicts must already be filled in (tool calls: `fill_tool_verdicts`; text: a judge)."""
    diag = isc.score_interaction(interaction, prediction, cfg)
    responses = list((prediction or {}).get("responses") or ())
    roles: dict[str, list[tuple[str, str]]] = {str(r.get("id")): [] for r in responses}
    for td in diag.targets:
        for rid in td.in_window:
            if rid == td.candidate:
                roles[rid].append((td.target_id, "correct" if td.correct else "wrong"))
            elif td.rule == "any_in_window" and not td.correct:
                roles[rid].append((td.target_id, "wrong"))
            else:
                roles[rid].append((td.target_id, "ignored"))
    out = []
    for i, r in enumerate(responses):
        rid = str(r.get("id"))
        t = isc.response_time(r, cfg)
        mine = list(roles.get(rid, []))
        if not mine:
            for td in diag.targets:
                if t < td.window[0]:
                    mine.append((td.target_id, "early"))
        label = next((p for p in _IS_PRIORITY if any(role == p for _, role in mine)), "outside")
        tid = next((tid for tid, role in mine if role == label), None)
        td = next((x for x in diag.targets if x.target_id == tid), None)
        delay = None if td is None else t - td.window[0]
        text = r.get("text") or ("" if not r.get("tool") else f"tool call {r['tool']}")
        out.append(ResponseVerdict(i, float(r["t"]), label, end=r.get("end"), text=str(text), target=tid,
                                   delay=delay, credit=1.0 if label == "correct" else 0.0,
                                   counted=label in ("correct", "wrong"), roles=tuple(mine),
                                   detail=", ".join(f"{a}: {b}" for a, b in mine) or "no target window"))
    return out
