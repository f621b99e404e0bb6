"""InteractionBench's studio hooks (annotation.registry): the participant-facing wording of an item's result."""
from __future__ import annotations

from ibench_ui.study_flow import share


def plain_result(headline: dict, said: list) -> list[str]:
    """Sentences for one item's result from the scorer's headline (`said`: the responses that carry words)."""
    h = headline
    out = []
    if share(h.get("timing_accuracy")):
        out.append(f"Timing: {share(h['timing_accuracy'])} (how close you came to the right moment).")
    if h.get("silence_compliance") is not None:
        ok = bool(h["silence_compliance"]) if not isinstance(h["silence_compliance"], float) \
            else h["silence_compliance"] >= 0.5
        out.append("You stayed quiet when nothing was asked." if ok else "You responded when nothing was asked yet.")
    if said and share(h.get("accuracy")):
        out.append(f"Answer: {share(h['accuracy'])}.")
    elif not said:
        out.append("A press carries no answer, so the answer itself is not checked here.")
    return out
