"""Omni-InteractScope's protocol: ProactiveBench's per-second decisions from t=1, where a reply may be a call
of one of the item's tools."""
from __future__ import annotations

from annotation.model import Item
from runners.parsing import parse_tool_call
from runners.protocols import prompts
from runners.protocols.base import (Decision, Emission, ItemState, Reply, round_t, single_turn,
                                    spoken_emissions)
from runners.protocols.streaming import PerSecond, native_of


class InteractScope(PerSecond):
    """1 s decisions from t=1 with at most 30 s of frames; a reply may be a tool call."""
    name = "interactscope"
    benchmark = "interactscope"

    def tools(self, item: Item) -> list[dict]:
        return list(native_of(item).get("tools") or (item.meta or {}).get("tools") or [])

    def decide(self, state: ItemState, t: float) -> Decision:
        item = state.item
        frames = self.context_frames(state, t)
        tools = self.tools(item)
        lines = [f"Stream time: {t:.0f} s."]
        req = self.request_text(item, t)
        if req:
            lines.append(req)
        said = prompts.history_text(state.history)
        if said:
            lines.append(said)
        if tools:
            lines.append(prompts.tools_text(tools))
        lines.append(prompts.REPLY_FORMAT)
        text = "\n".join(lines)
        messages = single_turn(prompts.BASE_SYSTEM, frames, text)
        return Decision(item_id=item.id, protocol=self.name, t=t, messages=messages, frames=frames, prompt=text,
                        history=list(state.history), tools=tools, max_new_tokens=self.config.max_new_tokens,
                        expects="tool_or_decision")

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        call = parse_tool_call(reply.text) if decision.tools or "tool" in (reply.text or "") else None
        if call is not None:
            state.history.append({"t": decision.t, "reply": call.to_json(), "spoke": True})
            return [Emission(t=round_t(decision.t), content=call.to_json(), latency_s=reply.latency_s,
                             kind="tool_call", tool={"name": call.name, "args": call.args},
                             frame_t=decision.latest_frame_t, raw=reply.text or "")]
        return spoken_emissions(state, decision, reply)
