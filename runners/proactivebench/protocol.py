"""ProactiveBench's protocol: a decision every second from the item's eval_start (the first interval is
excluded), each seeing at most 30 s of preceding frames, with a hint per subtask."""
from __future__ import annotations

from dataclasses import replace

from annotation.model import Item
from runners.protocols import prompts
from runners.protocols.base import Decision, Emission, ItemState, Reply, single_turn, spoken_emissions
from runners.protocols.streaming import PerSecond, native_of

HINTS = {  # by subtask
    "OR": "Respond as soon as the described situation begins.",
    "WR": "Respond while the described situation is happening.",
    "AA": "Warn the user the moment something unusual or dangerous happens.",
    "SS": "Stay silent unless the described situation really happens.",
    "DC": "Each time the event happens, say so with the running count.",
    "ES": "Respond at each moment that needs an alert; stay quiet in between.",
}


class ProactiveBench(PerSecond):
    """A decision every second k = eval_start..ceil(D) (default 2), each seeing at most 30 s of frames."""
    name = "proactive"
    benchmark = "proactivebench"

    def first_tick(self, item: Item) -> float:
        n = native_of(item)
        return float(n.get("eval_start") or (item.meta or {}).get("eval_start") or 2)

    def decide(self, state: ItemState, t: float) -> Decision:
        item = state.item
        frames = self.context_frames(state, t)
        lines = [f"Stream time: {t:.0f} s."]
        req = self.request_text(item, t)
        if req:
            lines.append(req)
        h = HINTS.get(str(native_of(item).get("subtask", "")).upper())
        if h:
            lines.append(f"Hint: {h}")
        said = prompts.history_text(state.history)
        if said:
            lines.append(said)
        lines.append(prompts.REPLY_FORMAT)
        text = "\n".join(lines)
        messages = single_turn(prompts.BASE_SYSTEM, frames, text)
        return Decision(item_id=item.id, protocol=self.name, t=t, messages=messages, frames=frames, prompt=text,
                        history=list(state.history), max_new_tokens=self.config.max_new_tokens,
                        meta={"second": int(round(t))})

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        emissions = spoken_emissions(state, decision, reply)
        return [replace(e, meta={"second": decision.meta["second"]}) for e in emissions]
