"""Per-second streaming protocols: ProactiveBench (1 s decisions, first interval excluded, at most
30 s of preceding frames), Omni-InteractScope (the same with tool calls) and OmniInteract's duplex
audio-visual stream (one audio chunk + frame per second, a growing conversation)."""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Optional

from annotation.model import Item
from runners.parsing import parse_tool_call
from runners.protocols import prompts
from runners.protocols.base import (AudioChunk, Decision, Emission, ItemState, Media, Protocol, Reply,
                                    audio_in, drop_old_images, even_subsample, frames_in, image_parts, round_t,
                                    single_turn, spoken_emissions, tick_range)
from runners.sampling import sample_stamps


def _native(item: Item) -> dict:
    return item.native if isinstance(item.native, dict) else {}


class _PerSecond(Protocol):
    """Decisions at whole seconds k; frames stamped in [k - context_s, k), strictly before k."""
    default_options = {"interval": 1.0, "sample_fps": 1.0, "max_frames": 30, "context_s": 30.0}

    def first_tick(self, item: Item) -> float:
        return self.config.interval

    def ticks(self, item: Item, media: Optional[Media] = None) -> list[float]:
        n = math.ceil(self.duration(item, media) - 1e-9)
        return tick_range(self.first_tick(item), n, self.config.interval)

    def context_frames(self, state: ItemState, t: float):
        c = self.config
        dur = self.duration(state.item, state.media)
        lo = max(0.0, t - (c.context_s or t)) - 1e-9
        stamps = sample_stamps(lo, min(t - 1e-6, dur), c.sample_fps)
        stamps = [stamps[i] for i in even_subsample(len(stamps), c.max_frames)]
        return self.frames_for(state, stamps, t) if stamps or c.blind else []

    def request_text(self, item: Item, t: float) -> Optional[str]:
        """The user's request as text: standing from t=0, else shown from its time on (a spoken request
        is given as its transcript, so models without audio input can follow it too)."""
        r = item.request
        if not r.text:
            return None
        if r.modality == "standing" or not r.time:
            return f'The user\'s request: "{r.text}"'
        if r.time > t:
            return None
        verb = "said" if r.modality == "audio" else "asked"
        return f'The user {verb} (at {r.time:.1f} s): "{r.text}"'


class ProactiveBench(_PerSecond):
    """A decision every second k = eval_start..ceil(D) (default 2), each seeing at most 30 s of frames."""
    name = "proactive"
    benchmark = "proactivebench"

    def first_tick(self, item: Item) -> float:
        n = _native(item)
        return float(n.get("eval_start") or (item.meta or {}).get("eval_start") or 2)

    def decide(self, state: ItemState, t: float) -> Decision:
        item = state.item
        frames = self.context_frames(state, t)
        lines = [f"Stream time: {t:.0f} s."]
        req = self.request_text(item, t)
        if req:
            lines.append(req)
        h = prompts.PB_HINTS.get(str(_native(item).get("subtask", "")).upper())
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


class InteractScope(_PerSecond):
    """1 s decisions from t=1 with at most 30 s of frames; a reply may be a tool call."""
    name = "interactscope"
    benchmark = "interactscope"

    def tools(self, item: Item) -> list[dict]:
        return list(_native(item).get("tools") or (item.meta or {}).get("tools") or [])

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


DUPLEX_SYSTEM = ("You are a voice assistant in a live, full-duplex conversation while watching a video "
                 "stream. Each second you receive the newest second of audio and video. Answer the user's "
                 "spoken questions and requests at the right moment; otherwise wait. "
                 + prompts.NO_REPEAT)


class Duplex(_PerSecond):
    """OmniInteract: each second k adds a user turn with the audio of [k-1, k) and the frame(s) stamped
    in (k-1, k]; the model's replies stay in the conversation; each reply is timed at k."""
    name = "duplex"
    benchmark = "omniinteract"
    default_options = {"interval": 1.0, "sample_fps": 1.0, "max_frames": 8, "context_s": None}

    def start(self, item: Item, media: Media) -> ItemState:
        state = ItemState(item=item, media=media)
        system = DUPLEX_SYSTEM
        if item.request.text and (item.request.modality == "standing" or not item.request.time):
            system += f'\nThe user\'s request: "{item.request.text}"'
            state.extra["asked"] = True
        state.conversation = [{"role": "system", "content": [{"type": "text", "text": system}]}]
        return state

    def decide(self, state: ItemState, t: float) -> Decision:
        c = self.config
        t0 = max(0.0, t - c.interval)
        dur = self.duration(state.item, state.media)
        stamps = sample_stamps(t0, min(t, dur), c.sample_fps)
        frames = self.frames_for(state, stamps[-c.max_new_per_turn:], t) if stamps else []
        parts = image_parts(frames)
        audio = state.media.audio
        if audio is not None:
            chunk = AudioChunk(t0, t, audio.chunk(t0, t), audio.rate)
            parts.append({"type": "audio", "chunk": chunk})
        text = f"Stream time: {t:.0f} s."
        req = None if state.extra.get("asked") else self.request_text(state.item, t)
        if req:  # the spoken request's transcript, once, from its time on
            text += "\n" + req
            state.extra["asked"] = True
        text += "\n" + prompts.REPLY_FORMAT
        parts.append({"type": "text", "text": text})
        state.conversation.append({"role": "user", "content": parts})
        drop_old_images(state.conversation, c.max_frames, "image")
        drop_old_images(state.conversation, c.max_audio_chunks, "audio")
        messages = [{"role": m["role"], "content": list(m["content"])} for m in state.conversation]
        return Decision(item_id=state.item.id, protocol=self.name, t=t, messages=messages,
                        frames=frames_in(messages), prompt=text, history=list(state.history),
                        audio=audio_in(messages), max_new_tokens=c.max_new_tokens)

    def absorb(self, state: ItemState, decision: Decision, reply: Reply) -> list[Emission]:
        state.conversation.append({"role": "assistant", "content": [{"type": "text", "text": (reply.text or "").strip()}]})
        return spoken_emissions(state, decision, reply)


def emissions_to_oi_transcript(emissions: list[Emission], words_per_second: float = 2.5) -> dict:
    """Text emissions as OmniInteract's wav_transcript chunks: one chunk per emission, starting at its
    time and lasting (words / words_per_second) seconds, cut at the next emission."""
    ems = sorted(emissions, key=lambda e: e.t)
    chunks = []
    for i, e in enumerate(ems):
        n_words = max(1, len(e.content.split()))
        end = e.t + n_words / words_per_second
        if i + 1 < len(ems):
            end = min(end, ems[i + 1].t)
        chunks.append({"text": e.content, "timestamp": [round(e.t, 3), round(max(end, e.t), 3)]})
    return {"text": " ".join(c["text"] for c in chunks), "chunks": chunks}
