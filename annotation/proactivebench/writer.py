"""ProactiveBench predictions: `preds.jsonl`, one line per item
{"item_id", "response_seconds": [k, ...], "texts"?: {"k": text}, "predicted_count"?}."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from annotation.dataset import Dataset
from annotation.errors import Problem
from annotation.loaders._common import Problems, raise_if_errors
from annotation.model import Response
from annotation.values import is_int
from annotation.writers import _jsonl_predictions as jp

PREDICTIONS_FILE = "preds.jsonl"


def second_of(t: float) -> int:
    """The 1-based decision interval holding media time t (interval k covers [k-1, k))."""
    return int(math.floor(t)) + 1


def prediction_from_responses(item_id: str, responses: Iterable[Response],
                              predicted_count: Optional[int] = None) -> dict:
    """Turn logged responses into one prediction line; the first text in a second is kept."""
    seconds: list[int] = []
    texts: dict[str, str] = {}
    for r in sorted(responses, key=lambda r: r.t):
        k = second_of(r.t)
        if k not in seconds:
            seconds.append(k)
        if r.text and str(k) not in texts:
            texts[str(k)] = r.text
    pred: dict[str, Any] = {"item_id": item_id, "response_seconds": seconds}
    if texts:
        pred["texts"] = texts
    if predicted_count is not None:
        pred["predicted_count"] = predicted_count
    return pred


def write_predictions(path: str | Path, predictions: Iterable[Mapping] | Mapping[str, Mapping]) -> Path:
    """Write preds.jsonl (a folder gets preds.jsonl inside); a mapping item_id -> prediction is accepted."""
    if isinstance(predictions, Mapping):
        rows = [{"item_id": k, **{f: v for f, v in p.items() if f != "item_id"}} for k, p in predictions.items()]
    else:
        rows = [dict(p) for p in predictions]
    return jp.write_rows(path, rows, PREDICTIONS_FILE, _check_row)


def check_predictions(path: str | Path, dataset: Optional[Dataset] = None) -> tuple[dict[str, dict], list[Problem]]:
    """Read preds.jsonl into {item_id: prediction} and list every problem (unknown/missing items too)."""
    name, preds, problems = jp.read_rows(path, PREDICTIONS_FILE, "item_id", _check_row,
                                         "duplicate prediction for this item")
    if dataset is not None:
        jp.check_coverage(name, preds, dataset, "item_id", "item", "no prediction for this item (scored as silent)",
                          problems)
    return preds, list(problems)


def read_predictions(path: str | Path, dataset: Optional[Dataset] = None) -> dict[str, dict]:
    """Read preds.jsonl; raise DatasetError listing every error."""
    preds, problems = check_predictions(path, dataset)
    raise_if_errors(problems)
    return preds


def _check_row(row: Any, name: str, lineno: int, problems: Problems) -> bool:
    """Validate one prediction line; True when it is usable."""
    label = jp.row_label(row, "item_id", lineno)
    if not isinstance(row, dict):
        problems.error(name, label, None, f"expected an object, got {type(row).__name__}")
        return False
    n = problems.error_count()
    if not isinstance(row.get("item_id"), str) or not row["item_id"]:
        problems.error(name, label, "item_id", f"missing or not a string: {json.dumps(row.get('item_id'))}")
    secs = row.get("response_seconds")
    if "response_seconds" not in row:
        problems.error(name, label, "response_seconds", "missing field (list of non-silent seconds, may be empty)")
    elif not isinstance(secs, list):
        problems.error(name, label, "response_seconds", f"expected a list, got {type(secs).__name__}")
    else:
        for k, s in enumerate(secs):
            if not is_int(s) or s < 1:
                problems.error(name, label, f"response_seconds[{k}]",
                               f"expected a 1-based integer second, got {json.dumps(s)}")
    texts = row.get("texts")
    if texts is not None:
        if not isinstance(texts, dict):
            problems.error(name, label, "texts", f"expected an object {{second: text}}, got {type(texts).__name__}")
        else:
            for k, v in texts.items():
                if not k.isdigit():
                    problems.error(name, label, f"texts.{k}", "key must be a second number written as a string")
                if not isinstance(v, str):
                    problems.error(name, label, f"texts.{k}", f"expected a string, got {type(v).__name__}")
    pc = row.get("predicted_count")
    if pc is not None and (not is_int(pc) or pc < 0):
        problems.error(name, label, "predicted_count", f"expected a non-negative integer, got {json.dumps(pc)}")
    return problems.error_count() == n


__all__ = ["PREDICTIONS_FILE", "check_predictions", "prediction_from_responses", "read_predictions",
           "second_of", "write_predictions"]
