"""Parity of the OmniInteract scorer with the reference, case by case from the golden vectors."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from scoring.omniinteract import JudgeTransportError, OIConfig, build_precise_chunks, evaluate


def _golden_root() -> Path:
    env = os.environ.get("IBENCH_GOLDEN_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared" / "golden"


GOLDEN = _golden_root() / "omniinteract"


def _load(name: str) -> dict[str, Any]:
    path = GOLDEN / name
    if not path.exists():
        raise FileNotFoundError(f"golden file {path} is missing; set IBENCH_GOLDEN_DIR")
    return json.loads(path.read_text(encoding="utf-8"))


CASES = _load("cases.json")["cases"]
TOL = float(_load("cases.json").get("float_tolerance_abs", 1e-9))
VECTORS = _load("data_prep_truncation_cases.json")["vectors"]


def materialise(case: dict[str, Any], root: Path) -> None:
    """Write every annotation and model-output file of a case under ``root``."""
    for rel, content in {**case["annotations"], **case["model_outputs"]}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".jsonl"):
            path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in content), encoding="utf-8")
        elif isinstance(content, str) and not rel.endswith(".json"):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")


class StubTransport:
    """Replays stored raw judge replies keyed (sample_id, slot_id, stage); unknown keys fail the test."""

    def __init__(self, verdicts: dict[str, Any]):
        self.verdicts = verdicts
        self.unknown: list[tuple[str, str, str]] = []
        self.calls: list[tuple[str, str, str]] = []

    def __call__(self, stage: str, sample_id: str, slot_id: int, system_prompt: str, user_prompt: str) -> str:
        key = (sample_id, str(slot_id), stage)
        self.calls.append(key)
        entry = self.verdicts.get(sample_id, {}).get(str(slot_id), {}).get(stage)
        if entry is None:
            self.unknown.append(key)
            raise AssertionError(f"judge asked for unknown key {key}")
        if "api_error" in entry:
            raise JudgeTransportError(entry["api_error"])
        assert system_prompt and user_prompt
        return entry["raw"]


def assert_close(actual: Any, expected: Any, where: str) -> None:
    """Recursive comparison: every expected key present; floats to TOL; everything else exactly."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected object, got {actual!r}"
        for key, value in expected.items():
            if key == "definition":
                continue
            assert key in actual, f"{where}: missing key {key!r}"
            assert_close(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, f"{where}[{i}]")
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        assert actual == expected and type(actual) is type(expected), f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, int):
        assert isinstance(actual, int) and not isinstance(actual, bool) and actual == expected, \
            f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, float):
        assert isinstance(actual, (int, float)) and not isinstance(actual, bool), f"{where}: {actual!r} not a number"
        assert math.isclose(actual, expected, rel_tol=0.0, abs_tol=TOL), f"{where}: {actual!r} != {expected!r}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def _rel(path: Any, root: Path) -> Any:
    if not path:
        return path
    p = Path(str(path))
    try:
        return p.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


SLOT_KEYS = ("slot_id", "scene_type", "question_type", "step_index", "turn_index", "label", "nested_group_id",
             "nested_role", "boundary_type", "effective_boundary_type", "is_interrupted", "start", "t_a", "end",
             "num_chunks", "num_early", "num_core", "TP_ack", "TP_core", "TP_n", "FP_delta", "FN_delta", "spill",
             "spill_seconds", "max_chunk_end", "all_chunk_ids", "early_chunks", "core_chunks", "stage_early",
             "stage_core", "interruption_diagnostic")


@pytest.mark.parametrize("case", CASES, ids=[c["case_id"] for c in CASES])
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    materialise(case, tmp_path)
    config = OIConfig.from_cli_args(case.get("cli_extra_args") or [])
    transport = StubTransport(case["judge_verdicts"])
    result = evaluate(tmp_path, tmp_path / "outputs" / "synth", transport, config)
    assert not transport.unknown, f"unknown judge keys requested: {transport.unknown}"

    expected = case["expected"]
    assert_close(result["summary"], expected["summary"], "summary")

    got = {(s["sample_id"], s["item_kind"]): s for s in result["samples"]}
    want_keys = [(s["sample_id"], s["item_kind"]) for s in expected["samples"]]
    assert sorted(map(str, got)) == sorted(map(str, want_keys)), "sample listing differs"
    for exp in expected["samples"]:
        act = got[(exp["sample_id"], exp["item_kind"])]
        where = f"sample {exp['sample_id']}/{exp['item_kind']}"
        assert act["status"] == exp["status"], f"{where}: status {act['status']!r} != {exp['status']!r}"
        assert act["scene_type"] == exp["scene_type"], where
        assert _rel(act["gt_json"], tmp_path) == exp["gt_json"], where
        assert _rel(act["model_json"], tmp_path) == exp["model_json"], where
        if exp["item_kind"] != "summarized":
            continue
        assert_close(act["unmatched_chunks"], exp["unmatched_chunks"], f"{where}.unmatched_chunks")
        assert len(act["slots"]) == len(exp["slots"]), f"{where}: slot count"
        for a_slot, e_slot in zip(act["slots"], exp["slots"]):
            for key in SLOT_KEYS:
                if key in e_slot:
                    assert_close(a_slot.get(key), e_slot[key], f"{where}.slot{e_slot['slot_id']}.{key}")
        assert_close(act["judge_calls"], exp["judge_calls"], f"{where}.judge_calls")
        assert_close(act["sample_summary"], exp["sample_summary"], f"{where}.sample_summary")
    # every stored verdict was asked for exactly once
    stored = {(sid, slot, stage) for sid, slots in case["judge_verdicts"].items()
              for slot, stages in slots.items() for stage in stages}
    assert sorted(transport.calls) == sorted(stored)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["vector_id"] for v in VECTORS])
def test_truncation_vector(vector: dict[str, Any]) -> None:
    got = build_precise_chunks(vector["wav_transcript"], vector["asr_output"], vector["tolerance_sec"])
    assert got == vector["expected_precise_chunks"]
