"""Parity of the OmniInteract scorer with the reference, case by case from the golden vectors."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from scoring.omniinteract import JudgeTransportError, OIConfig, build_precise_chunks, evaluate
from tests.golden_cases import case_files, case_id, load_cases, rel_to, write_oi_case


CASES = load_cases("omniinteract")
VECTORS = load_cases("omniinteract", "vectors")
TOL = 1e-9  # float_tolerance_abs of every case file


def test_golden_has_every_case_file():
    """cases.json (22) and fuzz_cases.json (60) at least, plus the truncation vectors; later files are read too."""
    stems = [stem for stem, _ in CASES]
    assert stems.count("cases") == 22 and stems.count("fuzz_cases") == 60 and len(VECTORS) >= 10
    for path in case_files("omniinteract"):
        assert json.loads(path.read_text(encoding="utf-8")).get("float_tolerance_abs", TOL) <= TOL


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


SLOT_KEYS = ("slot_id", "scene_type", "question_type", "step_index", "turn_index", "label", "nested_group_id",
             "nested_role", "boundary_type", "effective_boundary_type", "is_interrupted", "start", "t_a", "end",
             "num_chunks", "num_early", "num_core", "TP_ack", "TP_core", "TP_n", "FP_delta", "FN_delta", "spill",
             "spill_seconds", "max_chunk_end", "all_chunk_ids", "early_chunks", "core_chunks", "stage_early",
             "stage_core", "interruption_diagnostic")


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[case_id(s, c) for s, c in CASES])
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    write_oi_case(case, tmp_path)
    config = OIConfig.from_cli_args(case.get("cli_extra_args") or [])
    transport = StubTransport(case["judge_verdicts"])
    result = evaluate(tmp_path, tmp_path / "outputs" / "synth", transport, config)
    assert not transport.unknown, f"unknown judge keys requested: {transport.unknown}"

    expected = case["expected"]
    assert_close(result["summary"], expected["summary"], "summary")

    listing = [(s["sample_id"], s["item_kind"]) for s in result["samples"]]
    assert listing == [(s["sample_id"], s["item_kind"]) for s in expected["samples"]], "sample listing or order differs"
    for act, exp in zip(result["samples"], expected["samples"]):
        where = f"sample {exp['sample_id']}/{exp['item_kind']}"
        for key in ("status", "scene_type", "video", "eval_status", "eval_error", "num_slots_built", "error"):
            if key in exp:
                assert_close(act.get(key), exp[key], f"{where}.{key}")
        assert rel_to(act["gt_json"], tmp_path) == exp["gt_json"], where
        assert rel_to(act["model_json"], tmp_path) == exp["model_json"], where
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


@pytest.mark.parametrize("vector", [v for _, v in VECTORS], ids=[case_id(s, v) for s, v in VECTORS])
def test_truncation_vector(vector: dict[str, Any]) -> None:
    got = build_precise_chunks(vector["wav_transcript"], vector["asr_output"], vector["tolerance_sec"])
    assert got == vector["expected_precise_chunks"]
