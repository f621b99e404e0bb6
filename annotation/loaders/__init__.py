"""Loading a benchmark by name: its loader module comes from the registry (annotation.registry)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from annotation import registry

if TYPE_CHECKING:  # (the data model is imported by a loader's load(), not by score's scan of the rows)
    from annotation.dataset import Dataset


def check_benchmark(name: str) -> str:
    """Return the benchmark name, or raise naming the valid ones."""
    return registry.get(name).name


def demo_dir(benchmark: str) -> Path:
    """The embedded demo dataset of a benchmark."""
    return registry.get(benchmark).demo_dir


def loader(benchmark: str):
    """The module that reads (and exports) a benchmark's native layout."""
    return registry.get(benchmark).module("annotation").loader()


def load(benchmark: str, root: str | Path | None = None, probe_media: bool = True) -> Dataset:
    """Load a benchmark dataset from `root` (the embedded demo when None), collecting every problem."""
    return loader(benchmark).load(root if root is not None else demo_dir(benchmark), probe_media=probe_media)
