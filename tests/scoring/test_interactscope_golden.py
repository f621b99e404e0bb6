"""Parity: every Omni-InteractScope golden case through the scorer, plus 'a default change breaks a case'."""
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from scoring.interactscope import scorer as isc

GOLDEN = Path(os.environ.get("IBENCH_GOLDEN_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "golden")
DATA = json.loads((GOLDEN / "interactscope" / "cases.json").read_text())
CASES = DATA["cases"]
TOL = DATA["abs_tol"]


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


def split(interactions):
    """Golden interactions embed their responses; the native format keeps them in a prediction."""
    items, preds = [], []
    for n, inter in enumerate(interactions):
        iid = f"x{n}"
        items.append({"interaction_id": iid, **{k: v for k, v in inter.items() if k != "responses"}})
        preds.append({"interaction_id": iid, "responses": inter.get("responses", [])})
    return items, preds


def actual_for(case, config) -> dict:
    """What the scorer reports for the case, in the shape of its `expected` block."""
    if case["level"] == "benchmark":
        return {"Avg": isc.benchmark_avg(case["task_scores"], config)}
    interactions = [case["interaction"]] if case["level"] == "target" else case["interactions"]
    items, preds = split(interactions)
    report = isc.score(items, preds, config)
    targets = {t["target_id"]: t for d in report["per_item"].values() for t in d["targets"]}
    flags = {tid: t["correct"] for tid, t in targets.items()}
    if case["level"] == "t8":
        t8 = report["aggregate"]["T8"]
        return {"recalled": flags, "recall": t8["recall"], "recall_by_subtype": t8["recall_by_subtype"],
                "complete_T8C": t8["complete_T8C"], "T8C_interactions": t8["T8C_interactions"]}
    out = {"per_target": flags, "accuracy": report["aggregate"]["tasks"][case["task"]]["accuracy"]}
    if len(targets) == 1:
        out["absolute_window"] = next(iter(targets.values()))["window"]
    return out


def case_mismatches(case, config=isc.ISConfig()) -> list[str]:
    return mismatches(case["expected"], actual_for(case, config))


def test_golden_cases_present():
    assert len(CASES) >= 16


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_golden_case(case):
    problems = case_mismatches(case)
    assert not problems, f"{case['id']}: " + "; ".join(problems) + f"\nwhy: {case['why']}"


ALTERNATIVES = {
    "B1 unit=interaction": {"unit": "interaction"},
    "B2 window_closed=False": {"window_closed": False},
    "B3 time_anchor=end": {"time_anchor": "end"},
    "B4 t17_rule=any_in_window": {"t17_rule": "any_in_window"},
    "B7 t5_tolerance=7": {"t5_tolerance": 7.0},
    "B8 avg_tasks with T5": {"avg_tasks": ("T1", "T2", "T3", "T4", "T5", "T6", "T7")},
    "B9 t8_rule=first_in_window": {"t8_rule": "first_in_window"},
    "B10 complete_subtype=A": {"complete_subtype": "A"},
}


@pytest.mark.parametrize("change", list(ALTERNATIVES), ids=list(ALTERNATIVES))
def test_default_change_breaks_a_golden_case(change):
    config = replace(isc.ISConfig(), **ALTERNATIVES[change])
    broken = [c["id"] for c in CASES if case_mismatches(c, config)]
    assert broken, f"changing {change} breaks no golden case: the golden files do not pin it"
