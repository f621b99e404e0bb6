"""ProactiveBench's studio hooks (annotation.registry): the participant-facing wording of an item's result."""
from __future__ import annotations


def plain_result(headline: dict, said: list) -> list[str]:
    """Sentences for one item's result from the scorer's headline (`said`: the responses that carry words)."""
    h = headline
    out = []
    if h.get("correct") is not None:
        out.append("That was right." if h["correct"] else "That was not quite it this time.")
    if isinstance(h.get("ref_count"), int) and h.get("hits") is not None:
        out.append(f"You caught {h['hits']} of {h['ref_count']} moment(s).")
    return out
