"""OmniInteract's duplex protocol: an audio-visual stream given one audio chunk and frame per second in a
growing conversation, the model's replies kept in it."""
from __future__ import annotations

from annotation.model import Item
from runners.protocols import prompts
from runners.protocols.base import (AudioChunk, Decision, Emission, ItemState, Media, Reply, audio_in,
                                    drop_old_images, frames_in, image_parts, spoken_emissions)
from runners.protocols.streaming import PerSecond
from runners.sampling import sample_stamps


DUPLEX_SYSTEM = ("You are a voice assistant in a live, full-duplex conversation while watching a video "
                 "stream. Each second you receive the newest second of audio and video. Answer the user's "
                 "spoken questions and requests at the right moment; otherwise wait. "
                 + prompts.NO_REPEAT)


class Duplex(PerSecond):
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
