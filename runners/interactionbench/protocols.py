"""InteractionBench protocols: sliding, cumulative, interleaved, blind (polling) and offline."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from annotation.model import Item
from runners.parsing import parse_offline
from runners.interactionbench import prompts as ib_prompts
from runners.protocols import prompts
from runners.protocols.base import (Decision, Emission, ItemState, Media, Protocol, Reply, drop_old_images,
                                    even_subsample, frames_in, image_parts, round_t, single_turn, spoken_emissions,
                                    tick_range)


@dataclass(frozen=True)
class IBView:
    """The fields of an InteractionBench item the protocols need."""
    time_type: str
    capability: str
    question: str
    q: float


def ib_view(item: Item) -> IBView:
    """Read time_type, capability, question and question time from the native row (else the Item)."""
    n = item.native if isinstance(item.native, dict) else {}
    meta = item.meta or {}
    time_type = n.get("time_type") or meta.get("time_type")
    if time_type not in ("A", "B", "C"):
        time_type = "B" if (item.request.modality == "standing" or not item.request.time) else "A"
    q = n.get("question_time_s", meta.get("question_time_s", item.request.time))
    return IBView(time_type=time_type,
                  capability=n.get("capability") or meta.get("capability") or "UNKNOWN",
                  question=n.get("question") if n.get("question") is not None else (item.request.text or ""),
                  q=0.0 if q is None else float(q))


class _Polling(Protocol):
    benchmark = "interactionbench"

    def ticks(self, item: Item, media: Optional[Media] = None) -> list[float]:
        v = ib_view(item)
        dur = self.duration(item, media)
        c = self.config
        if v.time_type == "A":
            return tick_range(v.q, min(dur, v.q + c.a_window), c.interval)
        return tick_range(c.interval, dur, c.interval)

    def select(self, stamps: list[float]) -> list[float]:
        return stamps[-self.config.max_frames:]

    def decide(self, state: ItemState, t: float) -> Decision:
        v = ib_view(state.item)
        frames = self.frames_for(state, self.select(self.visible_stamps(state, t)), t)
        text = ib_prompts.user_text(t, v.question, v.time_type, v.q, v.capability, self.config.hint_set)
        messages = single_turn(prompts.BASE_SYSTEM, frames, text)
        return Decision(item_id=state.item.id, protocol=self.name, t=t, messages=messages, frames=frames,
                        prompt=text, history=list(state.history), max_new_tokens=self.config.max_new_tokens)

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        return spoken_emissions(state, decision, reply)


class Sliding(_Polling):
    """A fresh conversation at every tick: system prompt + the last max_frames frames + the text."""
    name = "sliding"


class Blind(Sliding):
    """Sliding with no images at all (a text-only control)."""
    name = "blind"
    default_options = {"blind": True}


class Cumulative(_Polling):
    """Like sliding, but the whole history is evenly subsampled to max_frames (last frame kept)."""
    name = "cumulative"

    def select(self, stamps: list[float]) -> list[float]:
        return [stamps[i] for i in even_subsample(len(stamps), self.config.max_frames)]


class Interleaved(_Polling):
    """One growing conversation per item: new frames since the previous tick, the model's replies kept,
    images beyond max_frames dropped oldest first."""
    name = "interleaved"

    def start(self, item: Item, media: Media) -> ItemState:
        state = ItemState(item=item, media=media)
        v = ib_view(item)
        q = v.q if v.time_type == "A" else 0.0
        system = "\n\n".join([prompts.BASE_SYSTEM,
                              ib_prompts.user_text(q, v.question, v.time_type, v.q, v.capability,
                                                   self.config.hint_set),
                              prompts.NO_REPEAT])
        state.conversation = [{"role": "system", "content": [{"type": "text", "text": system}]}]
        return state

    def decide(self, state: ItemState, t: float) -> Decision:
        c = self.config
        stamps = self.visible_stamps(state, t, since=state.prev_t if state.prev_t >= 0 else None)
        if not stamps:  # nothing new: show the latest frame again
            stamps = self.visible_stamps(state, t)[-1:]
        frames = self.frames_for(state, stamps[-c.max_new_per_turn:], t)
        text = ib_prompts.turn_text(t)
        state.conversation.append({"role": "user", "content": image_parts(frames) + [{"type": "text", "text": text}]})
        drop_old_images(state.conversation, c.max_frames)
        state.prev_t = t
        messages = [{"role": m["role"], "content": list(m["content"])} for m in state.conversation]
        return Decision(item_id=state.item.id, protocol=self.name, t=t, messages=messages,
                        frames=frames_in(messages), prompt=text, history=list(state.history),
                        max_new_tokens=c.max_new_tokens)

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        state.conversation.append({"role": "assistant", "content": [{"type": "text", "text": (reply.text or "").strip()}]})
        return super().absorb(state, decision, reply)


class Offline(_Polling):
    """One call per item with the whole video subsampled to max_frames; the model lists timed lines.
    A hindsight reference track, not a real-time result."""
    name = "offline"

    def ticks(self, item: Item, media: Optional[Media] = None) -> list[float]:
        return [round(self.duration(item, media), 6)]

    def decide(self, state: ItemState, t: float) -> Decision:
        v = ib_view(state.item)
        stamps = self.visible_stamps(state, t)
        frames = self.frames_for(state, [stamps[i] for i in even_subsample(len(stamps), self.config.max_frames)], t)
        text = ib_prompts.offline_text(v.question, v.time_type, v.q, t)
        messages = single_turn(prompts.BASE_SYSTEM, frames, text)
        return Decision(item_id=state.item.id, protocol=self.name, t=t, messages=messages, frames=frames,
                        prompt=text, max_new_tokens=max(self.config.max_new_tokens, 256), expects="offline")

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        v = ib_view(state.item)
        lines = parse_offline(reply.text)
        if v.time_type == "A":
            lines = [(v.q, lines[0][1])] if lines else []
        return [Emission(t=round_t(t), content=text, latency_s=reply.latency_s, frame_t=decision.latest_frame_t,
                         raw=reply.text or "", meta={"hindsight": True}) for t, text in lines]
