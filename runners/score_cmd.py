"""`python app.py score <benchmark> …`: load a dataset and a prediction file, score, write JSON, print the table."""
from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

from annotation.loaders import load
from annotation.jsonio import write_json


def _finite(v):
    """JSON has no infinity: write it as the string "inf", as the golden files do."""
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_finite(x) for x in v]
    return v


def _load_native_rows(benchmark: str, data: Optional[str]) -> list:
    ds = load(benchmark, data, probe_media=False)
    if ds.errors:
        raise ValueError("the dataset has errors; fix them first (python app.py validate "
                         f"{benchmark} {ds.root}):\n" + "\n".join(str(p) for p in ds.errors[:20]))
    return ds


def score_proactivebench(data: Optional[str], preds: str, config=None) -> dict:
    from annotation.writers.proactivebench import read_predictions
    from scoring import proactivebench as pb
    ds = _load_native_rows("proactivebench", data)
    return pb.score([it.native for it in ds.items], read_predictions(preds, ds), config or pb.PBConfig())


def score_interactscope(data: Optional[str], preds: str, judge=None, config=None) -> dict:
    from annotation.writers.interactscope import read_predictions
    from scoring import interactscope as isc
    ds = _load_native_rows("interactscope", data)
    by_id = read_predictions(preds, ds)
    native = {it.id: it.native for it in ds.items}
    predictions = {}
    for iid, responses in by_id.items():
        pred = isc.fill_tool_verdicts(native[iid], {"interaction_id": iid, "responses": responses}) if iid in native \
            else {"interaction_id": iid, "responses": responses}
        if judge is not None and iid in native:
            pred = isc.fill_judge_verdicts(native[iid], pred, judge)
        predictions[iid] = pred
    return isc.score([it.native for it in ds.items], predictions, config or isc.ISConfig())


def write_report(report: dict, out: Optional[str]) -> None:
    if out:
        write_json(Path(out), _finite(report))
        print(f"wrote {out}", file=sys.stderr)
