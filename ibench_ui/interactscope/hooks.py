"""Omni-InteractScope's studio hooks (annotation.registry): the plain-words wording of an item's result."""
from __future__ import annotations

from ibench_ui.plain_words import counted


def plain_result(headline: dict, said: list, who: str) -> list[str]:
    """Sentences for one item's result from the scorer's headline (`said`: the responses that carry words;
    `who`: "You" or "The model")."""
    h = headline
    out = []
    tg, timely = h.get("targets"), h.get("timely_targets")
    if isinstance(tg, int) and tg:
        out.append(f"{who} responded in time to {timely or 0} of {counted(tg, 'moment')}.")
    if h.get("content_judged"):
        out.append(f"{h.get('correct_targets') or 0} of {counted(tg or 0, 'answer')} judged correct.")
    else:
        out.append("Whether the answers were right is checked afterwards.")
    return out
