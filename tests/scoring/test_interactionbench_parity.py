"""Golden parity of the InteractionBench scorer: every golden case, through `score` on golden rows and
through `evaluate` on the native on-disk layout, must reproduce the reference report exactly."""
import json
import math
import os
from pathlib import Path

import pytest

from scoring.interactionbench import IBConfig, evaluate, format_table, score
from scoring.judges.stored import build_stored_judge

GOLDEN = Path(os.environ.get("IBENCH_GOLDEN_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "golden")
CASES = json.loads((GOLDEN / "interactionbench" / "cases.json").read_text(encoding="utf-8"))["cases"]
IDS = [c["name"] for c in CASES]


def _norm(obj, casedir: str):
    """Scratch paths -> '<casedir>', infinities -> 'inf' (how the golden file shows them)."""
    if isinstance(obj, dict):
        return {k: _norm(v, casedir) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_norm(v, casedir) for v in obj]
    if isinstance(obj, str):
        return obj.replace(casedir, "<casedir>")
    if isinstance(obj, float) and math.isinf(obj):
        return "inf"
    return obj


def _same(ours, exp, path="") -> list:
    """Differences (values, types and key sets); floats equal within 1e-9 (they are in fact identical)."""
    if isinstance(exp, dict):
        if not isinstance(ours, dict):
            return [f"{path}: expected a dict, got {ours!r}"]
        out = [f"{path}.{k}: missing" for k in exp if k not in ours] + [f"{path}.{k}: extra" for k in ours if k not in exp]
        for k in exp:
            if k in ours:
                out += _same(ours[k], exp[k], f"{path}.{k}")
        return out
    if isinstance(exp, list):
        if not isinstance(ours, list) or len(ours) != len(exp):
            return [f"{path}: expected {len(exp)} entries, got {ours!r}"]
        return [d for i, (a, b) in enumerate(zip(ours, exp)) for d in _same(a, b, f"{path}[{i}]")]
    if isinstance(exp, float) and isinstance(ours, (int, float)) and not isinstance(ours, bool):
        return [] if abs(ours - exp) <= 1e-9 else [f"{path}: ours {ours!r}, expected {exp!r}"]
    return [] if (ours == exp and type(ours) is type(exp)) else [f"{path}: ours {ours!r}, expected {exp!r}"]


def _judge(case, casedir: Path):
    spec = case.get("judge")
    if not spec:
        return None
    for name, rows in spec["files"].items():
        (casedir / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = {k: v.replace("<casedir>", str(casedir)) if isinstance(v, str) else v
            for k, v in (spec.get("judge_args") or {}).items()}
    return build_stored_judge(spec["spec"].replace("<casedir>", str(casedir)), **args)


def _write_key(case, casedir: Path):
    if case.get("mcq_key") is None:
        return None
    path = casedir / "mcq_key.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in case["mcq_key"]), encoding="utf-8")
    return path


def _check(report, case, casedir: Path):
    exp = case["expected"]
    rep = _norm(report, str(casedir))
    assert set(rep) >= {"per_item", "records", "aggregate", "table"}
    assert _same(rep["per_item"], exp["per_item"], "per_item") == []
    assert _same(rep["aggregate"]["overall"], exp["aggregate"]["overall"], "overall") == []
    assert _same(rep["records"], exp["records"], "records") == []
    assert _same(rep["aggregate"], exp["aggregate"], "aggregate") == []
    assert _same(rep["table"], exp["table"], "table") == []


def test_golden_has_all_cases():
    assert len(CASES) == 32 and len(set(IDS)) == 32


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_score_matches_reference(case, tmp_path):
    judge = _judge(case, tmp_path)
    key_path = _write_key(case, tmp_path)
    report = score(case["items"], case["preds"], IBConfig.from_dict(case["config"]), judge, case["mcq_key"],
                   mcq_key_source=str(key_path) if key_path else None)
    _check(report, case, tmp_path)
    assert format_table(report).splitlines()[2].startswith("Overall")


def _write_native(case, root: Path) -> None:
    """Golden items -> annotations/<domain>/<video_id>.json (video fields from the video's first entry)."""
    videos: dict = {}
    for it in case["items"]:
        v = videos.setdefault(it["video_id"], {"video_id": it["video_id"], "domain": it.get("domain"),
                                                "duration_s": it.get("duration_s"), "items": []})
        v["items"].append(it)
    for v in videos.values():
        v["items"] = [{k: x for k, x in it.items() if k not in ("video_id", "item_index", "domain", "duration_s")}
                      for it in sorted(v["items"], key=lambda it: it["item_index"])]
        path = root / "annotations" / v["domain"] / f"{v['video_id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(v, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_evaluate_on_disk_matches_reference(case, tmp_path):
    judge = case.get("judge")
    _judge(case, tmp_path)
    key_path = _write_key(case, tmp_path)
    data = tmp_path / "data"
    _write_native(case, data)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in case["preds"]), encoding="utf-8")
    args = (judge or {}).get("judge_args") or {}
    report = evaluate(data, preds, mcq_key_path=key_path,
                      judge_spec=judge["spec"].replace("<casedir>", str(tmp_path)) if judge else None,
                      config=IBConfig.from_dict(case["config"]),
                      judge_cache_dir=args["cache_dir"].replace("<casedir>", str(tmp_path)) if "cache_dir" in args else None)
    _check(report, case, tmp_path)
