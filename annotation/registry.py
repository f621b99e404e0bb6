"""The benchmark registry: one spec per benchmark, reached through one lookup (`get`, `names`).

A spec holds the benchmark's plain data (title, defaults, labels) and, per layer, the dotted name of the
module that carries that layer's hooks for it ("scoring.interactionbench.hooks"). Hook modules are imported
only when a hook is first asked for, so listing the benchmarks or scoring one never imports another's code,
and a lower layer can name a higher one without importing it. Adding a benchmark is one folder per layer
plus one `register(...)` call; this module and each benchmark's own folders are the only places that spell
a benchmark's name."""
from __future__ import annotations

import importlib
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, Callable, Mapping

LAYERS = ("annotation", "scoring", "runners", "ibench_ui")
DEMO_ROOT = Path(__file__).resolve().parents[1] / "assets" / "demo"


class BenchmarkSpec:
    """What the code needs to know of one benchmark: its name and title, its plain data and, per layer, the
    module whose functions are that layer's hooks for it (each layer's code asks only its own layer or a
    lower one). A plain class, not a dataclass: `dataclasses` would add `inspect` to `score`'s start-up."""
    __slots__ = ("name", "title", "hooks", "demo", "anchor_shift", "data")

    def __init__(self, name: str, title: str, hooks: Mapping[str, str], demo: Path | None = None,
                 anchor_shift: float = 0.0, data: Mapping[str, Any] | None = None):
        self.name, self.title, self.hooks = name, title, MappingProxyType(dict(hooks))
        self.demo = demo  # the embedded demo dataset (assets/demo/<name> when None)
        # media seconds = the benchmark's anchor/window start + this (ProactiveBench counts 1-based seconds)
        self.anchor_shift = anchor_shift
        self.data = MappingProxyType(dict(data or {}))  # defaults and labels read by several layers

    def __repr__(self) -> str:
        return f"BenchmarkSpec({self.name!r})"

    def hook(self, layer: str, name: str) -> Callable:
        """The hook `name` of `layer`, imported on first use; AttributeError names the module if it lacks it."""
        mod = self.module(layer)
        try:
            return getattr(mod, name)
        except AttributeError:
            raise AttributeError(f"{self.name}: {mod.__name__} has no hook {name!r}") from None

    def has_hook(self, layer: str, name: str) -> bool:
        return layer in self.hooks and hasattr(self.module(layer), name)

    def module(self, layer: str) -> ModuleType:
        if layer not in self.hooks:
            raise KeyError(f"{self.name}: no {layer} hooks registered")
        return importlib.import_module(self.hooks[layer])

    def get(self, key: str, default: Any = None) -> Any:
        """A plain-data entry (default protocol, headline column, verdict labels, …)."""
        return self.data.get(key, default)

    @property
    def demo_dir(self) -> Path:
        return self.demo if self.demo is not None else DEMO_ROOT / self.name

    def media_time(self, t) -> float:
        """A benchmark time (anchor, window start) as media seconds on the stream."""
        return float(t) + self.anchor_shift


_SPECS: dict[str, BenchmarkSpec] = {}


def register(spec: BenchmarkSpec) -> BenchmarkSpec:
    """Add (or replace) a benchmark; returns the spec."""
    unknown = set(spec.hooks) - set(LAYERS)
    if unknown:
        raise ValueError(f"{spec.name}: unknown layers {sorted(unknown)}; expected some of {LAYERS}")
    _SPECS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a benchmark (a test's toy benchmark when the test ends)."""
    _SPECS.pop(name, None)


def names() -> tuple[str, ...]:
    """Every registered benchmark's name, in registration order (the order every table uses)."""
    return tuple(_SPECS)


def get(name: str) -> BenchmarkSpec:
    """The spec of `name`; ValueError naming the valid ones otherwise."""
    try:
        return _SPECS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown benchmark {name!r}; expected one of: {', '.join(_SPECS)}") from None


def specs() -> Mapping[str, BenchmarkSpec]:
    return MappingProxyType(_SPECS)


def _hooks(name: str) -> dict[str, str]:
    return {layer: f"{layer}.{name}.hooks" for layer in LAYERS}


register(BenchmarkSpec(
    name="interactionbench", title="InteractionBench", hooks=_hooks("interactionbench"),
    data={"default_protocol": "sliding", "headline_column": "total", "fixed_option": True}))
register(BenchmarkSpec(
    name="omniinteract", title="OmniInteract", hooks=_hooks("omniinteract"),
    data={"default_protocol": "duplex", "headline_column": "All", "fixed_option": True}))
register(BenchmarkSpec(
    name="proactivebench", title="ProactiveBench", hooks=_hooks("proactivebench"), anchor_shift=-1.0,
    data={"default_protocol": "proactive", "headline_column": "AVG", "fixed_option": False}))
register(BenchmarkSpec(
    name="interactscope", title="Omni-InteractScope", hooks=_hooks("interactscope"),
    data={"default_protocol": "interactscope", "headline_column": "Avg", "fixed_option": False}))
