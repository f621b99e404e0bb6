"""Omni-InteractScope's annotation-layer hooks (annotation.registry): its loader and review edits, and logged
responses as its native prediction records and files. Each imports its module on first use."""
from __future__ import annotations


def loader():
    """The module that reads (and exports) the native layout."""
    from annotation.interactscope import loader
    return loader


def edits():
    """The module that applies a review edit to a native record (patch) and rebuilds the item (rebuild)."""
    from annotation.interactscope import edits
    return edits


def item_prediction(item, responses: list):
    """One item's native prediction record from its logged responses."""
    from annotation.interactscope import writer
    return {"interaction_id": item.id, "responses": writer.responses_to_native(responses)}


def write_native(dataset, preds, out, model: str):
    """Write predictions in the native layout under `out` (a Path); returns the main file written."""
    from annotation.interactscope import writer
    return writer.write_predictions(out, {k: v["responses"] for k, v in preds.items()})
