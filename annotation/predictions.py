"""Logged responses -> each benchmark's native prediction files, so a human sitting or a model run is
scored by the same code (ours or the benchmark's own). The format is the benchmark's hook (annotation.registry)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from annotation import registry
from annotation.dataset import Dataset
from annotation.model import Response


def item_prediction(benchmark: str, item, responses: Iterable[Response]):
    """The native prediction record of one item."""
    return registry.get(benchmark).hook("annotation", "item_prediction")(item, list(responses))


def native_predictions(benchmark: str, dataset: Dataset, by_item: Mapping[str, list[Response]]) -> dict:
    """item id -> native prediction, for every item that has an entry in `by_item` (possibly empty)."""
    return {iid: item_prediction(benchmark, dataset.get(iid), rs) for iid, rs in by_item.items()}


def write_native(benchmark: str, dataset: Dataset, preds: Mapping[str, object], out: str | Path,
                 model: str = "human") -> Path:
    """Write predictions in the benchmark's native layout under `out`; returns the main file written."""
    return registry.get(benchmark).hook("annotation", "write_native")(dataset, preds, Path(out), model)
