"""ProactiveBench's studio hooks (annotation.registry): the plain-words wording of an item's result."""
from __future__ import annotations

from ibench_ui.plain_words import counted


def plain_result(headline: dict, said: list, who: str) -> list[str]:
    """Sentences for one item's result from the scorer's headline (`said`: the responses that carry words;
    `who`: "You" or "The model")."""
    h = headline
    out = []
    if h.get("correct") is not None:
        out.append("That was right." if h["correct"] else "That was not quite it this time.")
    if isinstance(h.get("ref_count"), int) and h.get("hits") is not None:
        out.append(f"{who} caught {h['hits']} of {counted(h['ref_count'], 'moment')}.")
    return out
