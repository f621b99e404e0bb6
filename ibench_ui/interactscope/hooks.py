"""Omni-InteractScope's studio hooks (annotation.registry): the participant-facing wording of an item's result."""
from __future__ import annotations


def plain_result(headline: dict, said: list) -> list[str]:
    """Sentences for one item's result from the scorer's headline (`said`: the responses that carry words)."""
    h = headline
    out = []
    tg, timely = h.get("targets"), h.get("timely_targets")
    if isinstance(tg, int) and tg:
        out.append(f"You responded in time to {timely or 0} of {tg} moment{'s' if tg != 1 else ''}.")
    if h.get("content_judged"):
        out.append(f"{h.get('correct_targets') or 0} of {tg} answer(s) judged correct.")
    else:
        out.append("Whether your answers were right is checked afterwards.")
    return out
