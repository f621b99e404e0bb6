"""`score proactivebench`: the dataset and preds.jsonl checked (by the writer's own reader; response seconds
inside each stream), then a Plan that scores them."""
from __future__ import annotations

import math

from runners.checks import CliError
from runners.score_checks import Checked, Plan, dataset, jsonl_predictions, prediction_file


def plan(a, chk: Checked) -> Plan:
    from annotation.loaders import load
    from annotation.proactivebench.writer import check_predictions
    prediction_file(a)
    ds = load(a.benchmark, a.data, probe_media=False)
    dataset(ds, a.skip_invalid, False, chk)  # (our own scorer: its dataset errors stay errors)
    preds = jsonl_predictions(a, ds, check_predictions, chk)
    _seconds_inside_stream(a, ds, preds, chk)
    for iid in list(preds):
        if iid in chk.left_out:
            preds.pop(iid)
    keep = [it for it in ds.items if it.id not in chk.left_out]

    def run() -> dict:
        from scoring.proactivebench import scorer as pb
        return pb.score([it.native for it in keep], preds, pb.PBConfig())
    return Plan(chk, run)


def _seconds_inside_stream(a, ds, preds: dict, chk: Checked) -> None:
    """ProactiveBench response seconds are 1-based whole seconds of the stream: one past its end is scored with a
    warning (--strict refuses it), or its item left out with --skip-invalid."""
    for iid, row in preds.items():
        if iid not in ds:
            continue
        duration = ds.get(iid).native.get("duration")
        if not (isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration > 0):
            continue
        last = math.ceil(duration)
        late = [s for s in row.get("response_seconds") or [] if s > last]
        if late:
            err = CliError(f"expected seconds 1..{last} (inside the {duration:g} s stream), found {late[0]}",
                           file=a.preds, item=iid, field="response_seconds")
            if a.skip_invalid:
                chk.skip(err, iid)
            else:
                chk.warn("response second past the stream end", err)
