"""The pooled humans as one responder: every participant's items relabelled `<item>@<participant key>`, one
observation each. Used by each benchmark's `pooled_report` hook (runners/<name>/report.py)."""
from __future__ import annotations

from typing import Callable, Optional, Sequence


def pooled_id(item_id, responder) -> str:
    """An item's id within the pool: the item and whose answer it is."""
    return f"{item_id}@{responder.key}"


def relabelled(ds, parts: Sequence[tuple], predictions_of: Callable, id_key: str,
               prepare: Optional[Callable[[dict, dict], dict]] = None) -> tuple[list[dict], dict]:
    """(native records, predictions) of every participant's items under pooled ids (in field `id_key`);
    `prepare(native, prediction)` may fill a prediction first (a judge's verdicts). `parts` are
    (responder, report) pairs; `predictions_of(responder)` gives item id -> native prediction."""
    natives, preds = [], {}
    for r, _ in parts:
        for iid, pred in predictions_of(r).items():
            native = ds.get(iid).native
            if prepare is not None:
                pred = prepare(native, pred)
            new = pooled_id(iid, r)
            natives.append({**native, id_key: new})
            preds[new] = {**pred, id_key: new}
    return natives, preds
