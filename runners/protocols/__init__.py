"""Protocols: what a model sees at decision time t, for every benchmark, and the loop that drives it.

`get_protocol(name, **options)` builds one by name; `drive(item, protocol, backend)` runs an item."""
from __future__ import annotations

from runners.protocols.base import (AudioChunk, BackendFailure, Decision, Emission, ItemState, Media, Protocol,
                                    ProtocolConfig, Reply, Trace, drive, even_subsample, tick_range)
from runners.interactionbench.protocols import (Blind, Cumulative, IBView, Interleaved, Offline, Sliding,
                                                ib_view)
from runners.protocols.streaming import Duplex, InteractScope, ProactiveBench, emissions_to_oi_transcript

PROTOCOLS: dict[str, type[Protocol]] = {p.name: p for p in (
    Sliding, Cumulative, Interleaved, Offline, Blind, ProactiveBench, InteractScope, Duplex)}

DEFAULT_FOR_BENCHMARK = {"interactionbench": "sliding", "proactivebench": "proactive",
                         "interactscope": "interactscope", "omniinteract": "duplex"}


def get_protocol(name: str, config: ProtocolConfig | None = None, **options) -> Protocol:
    """A protocol by name (sliding, cumulative, interleaved, offline, blind, proactive, interactscope,
    duplex) with option overrides (interval, sample_fps, max_frames, max_new_per_turn, a_window, ...)."""
    try:
        cls = PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; choose one of {sorted(PROTOCOLS)}") from None
    return cls(config, **options)


__all__ = ["AudioChunk", "BackendFailure", "Blind", "Cumulative", "DEFAULT_FOR_BENCHMARK", "Decision", "Duplex",
           "Emission", "IBView", "InteractScope", "Interleaved", "ItemState", "Media", "Offline", "PROTOCOLS",
           "ProactiveBench", "Protocol", "ProtocolConfig", "Reply", "Sliding", "Trace", "drive",
           "emissions_to_oi_transcript", "even_subsample", "get_protocol", "ib_view", "tick_range"]
