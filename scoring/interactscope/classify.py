"""Omni-InteractScope: each response's verdict as the scorer recorded it in the interaction's per-target records
(in-window responses, the judged candidate, responses without a verdict, responses before the window); no
matching of its own. Pure."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from scoring.classify import ResponseVerdict

_PRIORITY = ("correct", "wrong", "unjudged", "ignored", "early", "outside")


def _roles(targets: list[Mapping]) -> dict[str, list[tuple[str, str]]]:
    """Response id -> (target id, role) pairs, read off each target's record."""
    roles: dict[str, list[tuple[str, str]]] = {}
    for td in targets:
        tid, missing = td["target_id"], set(td["unjudged_ids"])
        for rid in td["in_window"]:
            if rid in missing and (rid == td["candidate"] or td["rule"] == "any_in_window"):
                role = "unjudged"
            elif rid == td["candidate"]:
                role = "correct" if td["correct"] else "wrong"
            elif td["rule"] == "any_in_window" and not td["correct"]:
                role = "wrong"
            else:
                role = "ignored"
            roles.setdefault(rid, []).append((tid, role))
        for rid in missing - set(td["in_window"]):  # excluded for want of a verdict (missing_verdict="exclude")
            roles.setdefault(rid, []).append((tid, "unjudged"))
        for rid in td["before"]:
            roles.setdefault(rid, []).append((tid, "early"))
    return roles


def classify_interactscope(interaction: Mapping, prediction: Optional[Mapping],
                           report: Mapping) -> Optional[list[ResponseVerdict]]:
    """Per response (spec B.3-B.5): the judged candidate of a target is correct or wrong, or unjudged when its
    verdict is missing (a failed judge call: missing data, counted as the config says); other in-window
    responses are ignored (first-in-window rule); responses before a window are early, the rest outside.
    None when the report holds no record of the interaction, or an older one."""
    rec: Any = (report.get("per_item") or {}).get(str(interaction.get("interaction_id")))
    if rec is None or any("before" not in td for td in rec["targets"]):
        return None
    by_id = {td["target_id"]: td for td in rec["targets"]}
    roles = _roles(rec["targets"])
    exclude = (report.get("config") or {}).get("missing_verdict") == "exclude"
    out = []
    for i, r in enumerate((prediction or {}).get("responses") or ()):
        mine = [(tid, role) for tid, role in roles.get(str(r.get("id")), []) if role != "early"] or \
            roles.get(str(r.get("id")), [])
        label = next((p for p in _PRIORITY if any(role == p for _, role in mine)), "outside")
        tid = next((tid for tid, role in mine if role == label), None)
        delay = None if tid is None else float(r["t"]) - by_id[tid]["window"][0]
        text = r.get("text") or ("" if not r.get("tool") else f"tool call {r['tool']}")
        counted = label in ("correct", "wrong") or (label == "unjudged" and not exclude)
        out.append(ResponseVerdict(i, float(r["t"]), label, end=r.get("end"), text=str(text), target=tid,
                                   delay=delay, credit=1.0 if label == "correct" else 0.0, counted=counted,
                                   roles=tuple(mine),
                                   detail=", ".join(f"{a}: {b}" for a, b in mine) or "no target window"))
    return out
