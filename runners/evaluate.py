"""The glue between a driven item and the scorers: a run item's stored result, scoring a finished run,
and writing its report and native prediction files. Shared by the batch runner, the CLI and the UI.
Each benchmark's part is a runners hook (runners/<name>/hooks.py), reached through `runners.benchmarks`."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Optional

from annotation.dataset import Dataset
from annotation.jsonio import write_json
from annotation.predictions import write_native
from runners.benchmarks import hook


def native_prediction(benchmark: str, item, trace, model: str = "") -> object:
    """The benchmark's native prediction record for one driven item."""
    return hook(benchmark, "native_prediction")(item, trace, model)


def item_result(benchmark: str, item, protocol, backend, cancel: Optional[threading.Event] = None, *,
                timing: str = "decision", on_call=None, reuse: Optional[dict] = None) -> dict:
    """Drive one item and return what the store keeps for it (JSON-ready): the native prediction, the
    emissions, and the call counts the run's health block is built from."""
    from runners.protocols import drive
    if getattr(backend, "streams_media", False):  # realtime: the stream clock drives it, not protocol ticks
        from runners.realtime_run import realtime_item_result
        return realtime_item_result(benchmark, item, backend, cancel)

    trace = drive(item, protocol, backend, cancel=cancel, timing=timing, on_call=on_call, reuse=reuse)
    return trace_result(benchmark, item, trace, getattr(backend, "name", ""))


def trace_result(benchmark: str, item, trace, model: str = "") -> dict:
    """A driven item's stored result: native prediction, emissions and the call counts."""
    from runners.run_health import call_counts

    counts = call_counts(trace)
    return {"item_id": item.id, "prediction": native_prediction(benchmark, item, trace, model),
            "emissions": [{"t": e.t, "content": e.content, "kind": e.kind, "tool": e.tool, "frame_t": e.frame_t,
                           "latency_s": round(e.latency_s, 4), **({"decision_t": e.meta["decision_t"]}
                                                                   if "decision_t" in e.meta else {})}
                          for e in trace.emissions],
            **counts,
            "poll_latency_mean": round(sum(trace.poll_latencies) / len(trace.poll_latencies), 5)
            if trace.poll_latencies else None,
            "failed": trace.failed, "cancelled": trace.cancelled, "hindsight": trace.hindsight}


def build_content_judge(spec: Optional[str], store=None):
    """A (question, gt, pred) -> [0, 1] judge from a spec (None: the reference's lexical default); model judges
    keep their verdicts in the store."""
    from scoring.interactionbench.scorer import build_judge
    return build_judge(spec, verdict_cache=store)


def score_predictions(benchmark: str, ds: Dataset, item_ids: list[str], preds: dict, judge: Optional[str] = None,
                      store=None, model: str = "model") -> dict:
    """Score native predictions (item id -> record) of the given items with the benchmark's scorer."""
    return hook(benchmark, "score_predictions")(ds, item_ids, preds, judge=judge, store=store, model=model)


def score_run(benchmark: str, ds: Dataset, item_ids: list[str], results: dict, judge: Optional[str] = None,
              store=None) -> dict:
    """Score a finished run from its stored per-item results."""
    preds = {iid: results[iid]["prediction"] for iid in item_ids if iid in results}
    return score_predictions(benchmark, ds, item_ids, preds, judge=judge, store=store)


def folder_name(model: str) -> str:
    """A model spec as a file-system-safe folder name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in model) or "model"


def write_outputs(benchmark: str, ds: Dataset, results: dict, report: dict, out_dir: Path, model: str) -> list[Path]:
    """report.json plus the benchmark's native prediction files under out_dir (its `write_outputs` hook, else
    its native layout right there)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "report.json", report)

    def native_files(ds: Dataset, results: dict, out_dir: Path, model: str) -> list[Path]:
        preds = {iid: r["prediction"] for iid, r in results.items()}
        return [write_native(benchmark, ds, preds, out_dir, model=folder_name(model))]

    return [out_dir / "report.json", *hook(benchmark, "write_outputs", native_files)(ds, results, out_dir, model)]
