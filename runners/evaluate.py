"""The glue between a driven item and the scorers: a run item's stored result, scoring a finished run,
and writing its report and native prediction files. Shared by the batch runner, the CLI and the UI."""
from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Optional

from annotation.dataset import Dataset
from annotation.jsonio import write_json
from annotation.predictions import write_native


def native_prediction(benchmark: str, item, trace, model: str = "") -> object:
    """The benchmark's native prediction record for one driven item."""
    from runners.protocols import emissions_to_oi_transcript

    if benchmark == "interactionbench":
        return trace.to_interactionbench(item.native["video_id"], item.native["item_index"], model=model or None)
    if benchmark == "proactivebench":
        return {"item_id": item.id, **trace.to_proactivebench()}
    if benchmark == "interactscope":
        return {"interaction_id": item.id, "responses": trace.to_interactscope()}
    if benchmark == "omniinteract":
        return emissions_to_oi_transcript(trace.emissions)
    raise ValueError(f"unknown benchmark {benchmark!r}")


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
    prediction = native_prediction(benchmark, item, trace, model)
    if counts["error_ticks"] and isinstance(prediction, dict) and benchmark == "interactionbench":
        prediction["error_ticks"] = counts["error_ticks"]  # the failed ticks stay visible in the prediction file
    return {"item_id": item.id, "prediction": prediction,
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


def oi_transport(spec: Optional[str], store=None):
    """The OmniInteract judge transport for a spec; no spec gives the reference's dry run (neutral / 0)."""
    from scoring.omniinteract.judge import dry_run_transport
    if not spec:
        return dry_run_transport
    if spec.startswith("replay:"):
        from scoring.omniinteract.replay import ReplayTransport
        return ReplayTransport.from_file(spec[len("replay:"):])
    from scoring.judges import ChatTransport, make_raw_transport, parse_judge_spec
    js = parse_judge_spec(spec)
    if js.kind != "openai":
        raise ValueError(f"OmniInteract needs an LLM judge (openai:<model>@<base_url>) or stored replies "
                         f"(replay:<file.json>); got {spec!r}")
    return make_raw_transport(ChatTransport(js.model, base_url=js.base_url, api_key_env=js.key_env), cache=store)


def score_predictions(benchmark: str, ds: Dataset, item_ids: list[str], preds: dict, judge: Optional[str] = None,
                      store=None, model: str = "model") -> dict:
    """Score native predictions (item id -> record) of the given items with the benchmark's scorer."""
    if benchmark == "interactionbench":
        from scoring.interactionbench import scorer as ib
        rows = [ds.get(i).native for i in item_ids]
        return ib.score(rows, list(preds.values()), ib.IBConfig(), judge=build_content_judge(judge, store))
    if benchmark == "proactivebench":
        from scoring.proactivebench import scorer as pb
        return pb.score([ds.get(i).native for i in item_ids], preds)
    if benchmark == "interactscope":
        from scoring.interactscope import scorer as isc
        content_judge = build_content_judge(judge, store)
        filled = {}
        for iid, pred in preds.items():
            native = ds.get(iid).native
            pred = isc.fill_tool_verdicts(native, pred)
            if content_judge is not None:
                pred = isc.fill_judge_verdicts(native, pred, content_judge)
            filled[iid] = pred
        return isc.score([ds.get(i).native for i in item_ids], filled)
    if benchmark == "omniinteract":
        from scoring.omniinteract import evaluate as oi_evaluate
        with tempfile.TemporaryDirectory() as tmp:
            summary = write_native("omniinteract", ds, {i: preds[i] for i in item_ids}, Path(tmp) / "outputs",
                                   model=_folder_name(model))
            return oi_evaluate(ds.root, summary.parent, oi_transport(judge, store))
    raise ValueError(f"unknown benchmark {benchmark!r}")


def score_run(benchmark: str, ds: Dataset, item_ids: list[str], results: dict, judge: Optional[str] = None,
              store=None) -> dict:
    """Score a finished run from its stored per-item results."""
    preds = {iid: results[iid]["prediction"] for iid in item_ids if iid in results}
    return score_predictions(benchmark, ds, item_ids, preds, judge=judge, store=store)


def _folder_name(model: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in model) or "model"


def write_outputs(benchmark: str, ds: Dataset, results: dict, report: dict, out_dir: Path, model: str) -> list[Path]:
    """report.json plus the benchmark's native prediction files under out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "report.json", report)
    preds = {iid: r["prediction"] for iid, r in results.items()}
    target = out_dir / "outputs" if benchmark == "omniinteract" else out_dir
    paths = [out_dir / "report.json", write_native(benchmark, ds, preds, target, model=_folder_name(model))]
    if benchmark == "omniinteract":  # a realtime run's speech as the reference's output.wav beside each transcript
        from runners.realtime_run import write_speech
        paths += write_speech(paths[1].parent, ds, results)
    return paths
