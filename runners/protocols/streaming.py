"""The per-second streaming protocols' common base: a decision every whole second, each seeing at most
`context_s` seconds of preceding frames, and the user's request shown as text from its time on. Each
benchmark's own per-second protocol lives in its folder (runners/<name>/protocol.py)."""
from __future__ import annotations

import math
from typing import Optional

from annotation.model import Item
from runners.protocols.base import ItemState, Media, Protocol, even_subsample, tick_range
from runners.sampling import sample_stamps


def native_of(item: Item) -> dict:
    """The item's native record, or {} when it has none."""
    return item.native if isinstance(item.native, dict) else {}


class PerSecond(Protocol):
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
