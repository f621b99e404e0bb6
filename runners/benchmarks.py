"""The runners' side of the benchmark registry (annotation.registry): a benchmark's runners-layer hook, with a
default where the hook is optional, and tables over every registered benchmark computed on each read, so a
benchmark registered later (a test's toy) is in them. Each benchmark's hooks are in runners/<name>/hooks.py."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Callable, Iterator

from annotation import registry

LAYER = "runners"


_REQUIRED = object()


def hook(benchmark: str, name: str, default=_REQUIRED):
    """The runners hook `name` of `benchmark` (a function or a constant); `default` when one is given and the
    benchmark has no such hook, else AttributeError naming the hook module."""
    spec = registry.get(benchmark)
    if default is not _REQUIRED and not spec.has_hook(LAYER, name):
        return default
    return spec.hook(LAYER, name)


class RegistryTable(Mapping):
    """A read-only table built from the registry on each read (`build()` returns it as a dict)."""

    def __init__(self, build: Callable[[], dict]):
        self._build = build

    def __getitem__(self, key):
        return self._build()[key]

    def __iter__(self) -> Iterator:
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._build())

    def __repr__(self) -> str:
        return f"RegistryTable({self._build()!r})"


def by_benchmark(key: str) -> RegistryTable:
    """benchmark -> the spec's plain-data entry `key` (default protocol, headline column, ...)."""
    return RegistryTable(lambda: {name: registry.get(name).get(key) for name in registry.names()})


def owners(table: str, dest: str) -> tuple[str, ...]:
    """The benchmarks whose runners hook `table` (e.g. SCORE_FLAGS) lists the argument `dest`."""
    return tuple(b for b in registry.names() if dest in hook(b, table, ()))


def for_whom(table: str, dest: str) -> str:
    """`owners` as the start of a help text: "a", or "a, b"."""
    return ", ".join(owners(table, dest))
