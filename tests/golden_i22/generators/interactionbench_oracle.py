"""Run the transcribed InteractionBench reference on a golden-format case written by tests/golden_cases.py;
returns expected = {per_item, records, aggregate, table} as the golden files hold it, or the error it stops with."""
import json, math, sys, tempfile
from pathlib import Path
sys.path[:0] = ["/tmp/ref-ib", "/work/wt-i22s"]
from interactionbench.evaluate import EvalConfig, evaluate
from tests.golden_cases import write_ib_case

PER = ("family", "accuracy", "timing_accuracy", "silence_compliance", "timing_score", "total_score")


def norm(o, casedir):
    if isinstance(o, dict):
        return {k: norm(v, casedir) for k, v in o.items()}
    if isinstance(o, list):
        return [norm(v, casedir) for v in o]
    if isinstance(o, str):
        return o.replace(casedir, "<casedir>")
    if isinstance(o, float) and math.isinf(o):
        return "inf"
    return o


def expected(case):
    d = Path(tempfile.mkdtemp(prefix="ibref-"))
    paths = write_ib_case(case, d)
    cfg = case.get("config") or {}
    ec = EvalConfig(predictions=str(paths["preds"]), data=str(paths["data"]),
                    mcq_key=str(paths["mcq_key"]) if paths["mcq_key"] else None,
                    items=str(paths["items"]) if paths["items"] else None, skip_missing=bool(cfg.get("skip_missing")),
                    delta=float(cfg["delta"]) if "delta" in cfg else None,
                    pre_tol=float(cfg["pre_tol"]) if "pre_tol" in cfg else None,
                    gate_thresh=float(cfg["gate_thresh"]) if "gate_thresh" in cfg else None,
                    use_gate=True if cfg.get("use_gate") else None)
    judge = None
    if paths["judge_spec"]:
        from interactionbench.judges.cached import CacheOnlyJudge, EnsembleJudge
        kind, _, arg = paths["judge_spec"].partition(":")
        kw = dict(paths["judge_args"])
        judge = (CacheOnlyJudge(arg.split(","), **kw) if kind == "cache" else
                 EnsembleJudge(arg.split(","), prompt_version="v2", **kw))
        ec.judge = paths["judge_spec"]
    agg, records = evaluate(ec, judge)
    per = {r["item_id"]: {k: r.get(k) for k in PER} for r in records}
    ov = agg["overall"]
    table = {"n_items": ov.get("n_items", 0)}
    for name, f in (("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
                    ("silence_compliance", "silence_compliance")):
        table[name] = None if ov.get(f) is None else round(ov[f], 1)
    return json.loads(json.dumps(norm({"per_item": per, "records": records, "aggregate": agg, "table": table},
                                      str(d)), allow_nan=True))
