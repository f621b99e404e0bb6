"""Protocols: what a model sees at decision time t, for every benchmark, and the loop that drives it.

`get_protocol(name, **options)` builds one by name; `drive(item, protocol, backend)` runs an item. Each
benchmark's protocols live in its folder and are listed by its `protocols` hook (runners/<name>/hooks.py)."""
from __future__ import annotations

from annotation import registry
from runners.benchmarks import RegistryTable, by_benchmark, hook
from runners.protocols.base import (AudioChunk, BackendFailure, Decision, Emission, ItemState, Media, Protocol,
                                    ProtocolConfig, Reply, Trace, drive, even_subsample, tick_range)


def _all_protocols() -> dict[str, type[Protocol]]:
    return {name: cls for bench in registry.names() for name, cls in hook(bench, "protocols")().items()}


PROTOCOLS: RegistryTable = RegistryTable(_all_protocols)  # protocol name -> class, over every benchmark
DEFAULT_FOR_BENCHMARK: RegistryTable = by_benchmark("default_protocol")


def get_protocol(name: str, config: ProtocolConfig | None = None, **options) -> Protocol:
    """A protocol by name (any in PROTOCOLS) with option overrides (interval, sample_fps, max_frames,
    max_new_per_turn, a_window, ...)."""
    protocols = _all_protocols()
    try:
        cls = protocols[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; choose one of {sorted(protocols)}") from None
    return cls(config, **options)


__all__ = ["AudioChunk", "BackendFailure", "DEFAULT_FOR_BENCHMARK", "Decision", "Emission", "ItemState", "Media",
           "PROTOCOLS", "Protocol", "ProtocolConfig", "Reply", "Trace", "drive", "even_subsample", "get_protocol",
           "tick_range"]
