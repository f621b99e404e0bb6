"""InteractionBench's studio hooks (annotation.registry): the plain-words wording of an item's result."""
from __future__ import annotations

from ibench_ui.plain_words import out_of_100


def plain_result(headline: dict, said: list, who: str) -> list[str]:
    """Sentences for one item's result from the scorer's headline, whose figures are on its 0–100 scale
    (`said`: the responses that carry words; `who`: "You" or "The model")."""
    h, w = headline, who.lower()
    out = []
    if out_of_100(h.get("timing_accuracy")):
        out.append(f"Timing: {out_of_100(h['timing_accuracy'])} (how close {w} came to the right moment).")
    sc = h.get("silence_compliance")
    if out_of_100(sc):  # 100: no response at a moment that did not call for one
        out.append(f"{who} never responded at a wrong moment." if sc >= 100 else
                   f"Staying quiet when nothing was asked: {out_of_100(sc)} ({w} responded at a wrong moment).")
    if said and out_of_100(h.get("accuracy")):
        out.append(f"Answer: {out_of_100(h['accuracy'])}.")
    elif not said:
        out.append("A press carries no answer, so the answer itself is not checked here.")
    return out
