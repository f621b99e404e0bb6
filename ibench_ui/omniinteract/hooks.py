"""OmniInteract's studio hooks (annotation.registry): the plain-words wording of an item's result."""
from __future__ import annotations


def plain_result(headline: dict, said: list, who: str) -> list[str]:
    """Sentences for one item's result from the scorer's headline (`said`: the responses that carry words;
    `who`: "You" or "The model")."""
    h = headline
    out = []
    if isinstance(h.get("TP"), (int, float)):
        out.append(f"Responses at the right moment: {int(h['TP'])}.")
    if not h.get("content_judged"):
        out.append("Whether the answers were right is checked afterwards.")
    return out
