"""OmniInteract's annotation-layer hooks (annotation.registry): its loader and review edits, and logged
responses as its native prediction records and files. Each imports its module on first use."""
from __future__ import annotations


def loader():
    """The module that reads (and exports) the native layout."""
    from annotation.omniinteract import loader
    return loader


def edits():
    """The module that applies a review edit to a native record (patch) and rebuilds the item (rebuild)."""
    from annotation.omniinteract import edits
    return edits


def item_prediction(item, responses: list):
    """One item's native prediction record from its logged responses."""
    from annotation.omniinteract import writer
    return writer.transcript_from_responses(responses)


def write_native(dataset, preds, out, model: str):
    """Write predictions in the native layout under `out` (a Path); returns the main file written."""
    from annotation.omniinteract import writer
    return writer.write_predictions(out, model, preds, dataset)
