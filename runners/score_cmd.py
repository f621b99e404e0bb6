"""`python app.py score <benchmark> …`: load a dataset and a prediction file, score, write JSON, print the table."""
from __future__ import annotations

import math
import sys
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


def print_table(benchmark: str, report: dict, model: str = "model") -> None:
    """The paper-style table of a report, on stdout."""
    if benchmark == "interactionbench":
        from scoring.interactionbench import format_table
        print(format_table(report))
    elif benchmark == "omniinteract":
        from scoring.omniinteract import format_table
        print(format_table(report["summary"]))
    elif benchmark == "proactivebench":
        from scoring.proactivebench import format_table
        print(format_table(report, model))
    else:
        from scoring.interactscope import format_table
        print(format_table(report, model))
    for w in report.get("warnings", []) or []:
        print(f"warning: {w}", file=sys.stderr)


def verdict_store(a):
    """The SQLite store that caches model-judge verdicts; lexical and stored-verdict judges need none."""
    spec = (a.judge or "").strip().lower()
    if not spec or spec == "lexical" or spec.startswith(("cache:", "ensemble:", "replay:")):
        return None
    from annotation.store import Store
    return Store(a.db)


def score_command(a) -> int:
    """Dispatch `python app.py score <benchmark>` to the benchmark's scorer, write --out, print the table."""
    b = a.benchmark
    store = verdict_store(a)
    ib_only = [f for f in ("mcq_key", "delta", "pre_tol", "gate_thresh", "items", "judge_cache_dir")
               if getattr(a, f, None) is not None]
    if b != "omniinteract" and (getattr(a, "reference_args", None) or getattr(a, "asr_model", None)):
        raise ValueError("--reference-args and --asr-model apply to omniinteract only")
    if b != "interactionbench" and (ib_only or a.gate or a.skip_missing):
        raise ValueError(f"options {', '.join(ib_only) or '--gate/--skip-missing'} apply to interactionbench only")
    if b == "omniinteract":
        if not a.outputs:
            raise ValueError("score omniinteract needs --outputs DIR (the folder holding batch_summary.json)")
        import shlex

        from scoring.omniinteract import OIConfig, evaluate
        from runners.evaluate import oi_transport
        data = a.data or str(_demo(b))
        if getattr(a, "asr_model", None):
            from runners.asr import transcribe_outputs
            for path in transcribe_outputs(a.outputs, model=a.asr_model):
                print(f"transcribed {path}", file=sys.stderr)
        config = OIConfig.from_cli_args(shlex.split(a.reference_args)) if getattr(a, "reference_args", None) \
            else OIConfig()
        report = evaluate(data, a.outputs, oi_transport(a.judge, store), config)
    else:
        if not a.preds:
            raise ValueError(f"score {b} needs --preds FILE")
        if b == "interactionbench":
            from scoring import interactionbench as ib
            given = {"delta": a.delta, "pre_tol": _tol(a.pre_tol) if a.pre_tol is not None else None,
                     "gate_thresh": a.gate_thresh, "use_gate": a.gate or None, "skip_missing": a.skip_missing or None}
            cfg = ib.IBConfig.from_dict({k: v for k, v in given.items() if v is not None})  # unset: paper defaults
            report = ib.evaluate(a.data or str(_demo(b)), a.preds, mcq_key_path=a.mcq_key, judge_spec=a.judge,
                                 config=cfg, judge_cache_dir=a.judge_cache_dir, items_path=a.items,
                                 verdict_cache=store)
        elif b == "proactivebench":
            report = score_proactivebench(a.data, a.preds)
        else:
            from runners.evaluate import build_content_judge
            report = score_interactscope(a.data, a.preds, judge=build_content_judge(a.judge, store))
    write_report(report, a.out)
    print_table(b, report, a.model_name or Path(a.preds or a.outputs).stem)
    return 0


def _tol(v: str) -> float:
    if str(v).lower() in ("inf", "infinity"):
        return float("inf")
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"--pre-tol {v!r}: expected seconds or 'inf'") from None


def _demo(benchmark: str) -> Path:
    from annotation.loaders import demo_dir
    return demo_dir(benchmark)
