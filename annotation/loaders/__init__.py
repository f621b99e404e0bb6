"""Loader registry: benchmark name -> native-layout loader, and where the embedded demo lives."""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the data model is imported by a loader's load(), not by score's scan of the rows)
    from annotation.dataset import Dataset

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_ROOT = REPO_ROOT / "assets" / "demo"


def check_benchmark(name: str) -> str:
    """Return the benchmark name, or raise naming the valid ones."""
    from annotation.model import BENCHMARKS
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; expected one of: {', '.join(BENCHMARKS)}")
    return name


def demo_dir(benchmark: str) -> Path:
    """The embedded demo dataset of a benchmark."""
    return DEMO_ROOT / check_benchmark(benchmark)


def loader(benchmark: str):
    """The module that reads (and exports) a benchmark's native layout."""
    return importlib.import_module(f"annotation.loaders.{check_benchmark(benchmark)}")


def load(benchmark: str, root: str | Path | None = None, probe_media: bool = True) -> Dataset:
    """Load a benchmark dataset from `root` (the embedded demo when None), collecting every problem."""
    return loader(benchmark).load(root if root is not None else demo_dir(benchmark), probe_media=probe_media)
