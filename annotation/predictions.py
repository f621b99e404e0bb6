"""Logged responses -> each benchmark's native prediction files, so a human sitting or a model run is
scored by the same code (ours or the benchmark's own)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from annotation.dataset import Dataset
from annotation.model import Response
from annotation.writers import interactionbench as ib_w
from annotation.writers import interactscope as is_w
from annotation.writers import omniinteract as oi_w
from annotation.writers import proactivebench as pb_w


def item_prediction(benchmark: str, item, responses: Iterable[Response], human_reference: bool = False):
    """The native prediction record of one item."""
    responses = list(responses)
    if benchmark == "interactionbench":
        return ib_w.preds_from_responses(item, responses, human_reference=human_reference)
    if benchmark == "proactivebench":
        return pb_w.prediction_from_responses(item.id, responses)
    if benchmark == "interactscope":
        return {"interaction_id": item.id, "responses": is_w.responses_to_native(responses)}
    if benchmark == "omniinteract":
        return oi_w.transcript_from_responses(responses)
    raise ValueError(f"unknown benchmark {benchmark!r}")


def native_predictions(benchmark: str, dataset: Dataset, by_item: Mapping[str, list[Response]],
                       human_reference: bool = False) -> dict:
    """item id -> native prediction, for every item that has an entry in `by_item` (possibly empty)."""
    return {iid: item_prediction(benchmark, dataset.get(iid), rs, human_reference) for iid, rs in by_item.items()}


def write_native(benchmark: str, dataset: Dataset, preds: Mapping[str, object], out: str | Path,
                 model: str = "human") -> Path:
    """Write predictions in the benchmark's native layout under `out`; returns the main file written."""
    out = Path(out)
    if benchmark == "interactionbench":
        return ib_w.write_preds(out / "preds.jsonl" if out.suffix != ".jsonl" else out, list(preds.values()))
    if benchmark == "proactivebench":
        return pb_w.write_predictions(out, preds)
    if benchmark == "interactscope":
        return is_w.write_predictions(out, {k: v["responses"] for k, v in preds.items()})
    if benchmark == "omniinteract":
        return oi_w.write_predictions(out, model, preds, dataset)
    raise ValueError(f"unknown benchmark {benchmark!r}")
