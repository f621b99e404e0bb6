"""Parity: every ProactiveBench golden case through the scorer, plus 'a default change breaks a case'."""
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.proactivebench import scorer as pb

GOLDEN = Path(os.environ.get("IBENCH_GOLDEN_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "golden")
DATA = json.loads((GOLDEN / "proactivebench" / "cases.json").read_text())
CASES = DATA["cases"]
TOL = DATA["abs_tol"]
MACRO_SUFFIX = "_if_macro_per_item"


def mismatches(expected, actual, tol=TOL, path="") -> list[str]:
    """Every difference: exact for str/bool/int/None, within tol for floats, recursive for lists/dicts."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected object, got {actual!r}"]
        out = []
        for k, v in expected.items():
            if k not in actual:
                out.append(f"{path}.{k}: missing")
            else:
                out += mismatches(v, actual[k], tol, f"{path}.{k}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return [m for i, (e, a) in enumerate(zip(expected, actual)) for m in mismatches(e, a, tol, f"{path}[{i}]")]
    if isinstance(expected, float) and not isinstance(expected, bool):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)) or abs(actual - expected) > tol:
            return [f"{path}: expected {expected!r} +- {tol}, got {actual!r}"]
        return []
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def actual_for(case, config) -> dict:
    """What the scorer reports for the case, in the shape of its `expected` block."""
    if case["level"] == "item":
        item = {"item_id": "x", "subtask": case["subtask"], **case["annotation"]}
        report = pb.score([item], [{"item_id": "x", **case["prediction"]}], config)
        return report["per_item"]["x"]
    if case["level"] == "subtask":
        items = [{"item_id": f"x{i}", "subtask": case["subtask"], **p["annotation"]} for i, p in enumerate(case["items"])]
        preds = [{"item_id": f"x{i}", **p["prediction"]} for i, p in enumerate(case["items"])]
        return pb.score(items, preds, config)["aggregate"]["subtasks"][case["subtask"]]
    if case["level"] == "benchmark":
        return {"AVG": pb.benchmark_avg(case["subtask_scores"], config)}
    raise AssertionError(f"unknown level {case['level']!r}")


def case_mismatches(case, config=pb.PBConfig()) -> list[str]:
    checked = {k: v for k, v in case["expected"].items() if not k.endswith(MACRO_SUFFIX)}
    return mismatches(checked, actual_for(case, config))


def test_golden_cases_present():
    assert len(CASES) >= 19


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_golden_case(case):
    problems = case_mismatches(case)
    assert not problems, f"{case['id']}: " + "; ".join(problems) + f"\nwhy: {case['why']}"
    macro = {k[: -len(MACRO_SUFFIX)]: v for k, v in case["expected"].items() if k.endswith(MACRO_SUFFIX)}
    if macro:
        got = actual_for(case, pb.PBConfig(es_pooling="macro"))
        assert not mismatches(macro, got), mismatches(macro, got)


# A5 ss_rule, A9 es_alert_tol and A10 es_segment_closed are not pinned by any golden case;
# tests/scoring/test_proactivebench.py shows their effect directly.
ALTERNATIVES = {
    "A2 eval_start=1": {"eval_start": 1},
    "A4 or_window=(1,3)": {"or_window": (1, 3)},
    "A6 window_closed=False": {"window_closed": False},
    "A6 window_rule=any_in_window": {"window_rule": "any_in_window"},
    "A6 late_outcome=late": {"late_outcome": "late"},
    "A7 dc_count_source=text": {"dc_count_source": "text"},
    "A8 dc_prefer_predicted_count=False": {"dc_prefer_predicted_count": False},
    "A11 es_pooling=macro": {"es_pooling": "macro"},
}


@pytest.mark.parametrize("change", list(ALTERNATIVES), ids=list(ALTERNATIVES))
def test_default_change_breaks_a_golden_case(change):
    config = replace(pb.PBConfig(), **ALTERNATIVES[change])
    broken = [c["id"] for c in CASES if case_mismatches(c, config)]
    assert broken, f"changing {change} breaks no golden case: the golden files do not pin it"
