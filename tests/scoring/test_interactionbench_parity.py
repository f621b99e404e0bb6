"""Golden parity of the InteractionBench scorer: every golden case, through `score` on golden rows and
through `evaluate` on the native on-disk layout, must reproduce the reference report exactly."""
import math
from pathlib import Path

import pytest

from scoring.interactionbench import IBConfig, evaluate, format_table, score
from scoring.judges.stored import build_stored_judge
from tests.golden_cases import case_id, ib_rows, load_cases, write_ib_case

CASES = load_cases("interactionbench")
IDS = [case_id(stem, c) for stem, c in CASES]


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


def _check(report, case, casedir: Path):
    exp = case["expected"]
    rep = _norm(report, str(casedir))
    assert set(rep) >= {"per_item", "records", "aggregate", "table"}
    assert _same(rep["per_item"], exp["per_item"], "per_item") == []
    assert _same(rep["aggregate"]["overall"], exp["aggregate"]["overall"], "overall") == []
    assert _same(rep["records"], exp["records"], "records") == []
    assert _same(rep["aggregate"], exp["aggregate"], "aggregate") == []
    assert _same(rep["table"], exp["table"], "table") == []


def test_golden_has_every_case_file():
    """cases.json (32) and fuzz_cases.json (120) at least; any file added later is read too."""
    stems = [stem for stem, _ in CASES]
    assert stems.count("cases") == 32 and stems.count("fuzz_cases") == 120
    assert len(set(IDS)) == len(IDS)


def _judge(paths):
    return build_stored_judge(paths["judge_spec"], **paths["judge_args"]) if paths["judge_spec"] else None


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=IDS)
def test_score_matches_reference(case, tmp_path):
    paths = write_ib_case(case, tmp_path)
    report = score(ib_rows(case), case["preds"], IBConfig.from_dict(case["config"]), _judge(paths), case["mcq_key"],
                   mcq_key_source=str(paths["mcq_key"]) if paths["mcq_key"] else None,
                   items_source=str(paths["items"]) if paths["items"] else None)
    _check(report, case, tmp_path)
    assert format_table(report).splitlines()[2].startswith("Overall")


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=IDS)
def test_evaluate_on_disk_matches_reference(case, tmp_path):
    paths = write_ib_case(case, tmp_path)
    report = evaluate(paths["data"], paths["preds"], mcq_key_path=paths["mcq_key"], judge_spec=paths["judge_spec"],
                      config=IBConfig.from_dict(case["config"]), items_path=paths["items"],
                      judge_cache_dir=paths["judge_args"].get("cache_dir"))
    _check(report, case, tmp_path)
