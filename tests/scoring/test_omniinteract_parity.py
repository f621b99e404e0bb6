"""Parity of the OmniInteract scorer with the reference, case by case from the golden vectors."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring.omniinteract import JudgeTransportError, OIConfig, build_precise_chunks, evaluate
from tests.golden_cases import OI_TOL as TOL, case_files, case_id, check_oi_result, load_cases, write_oi_case


CASES = load_cases("omniinteract")
VECTORS = load_cases("omniinteract", "vectors")


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


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[case_id(s, c) for s, c in CASES])
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    write_oi_case(case, tmp_path)
    config = OIConfig.from_cli_args(case.get("cli_extra_args") or [])
    transport = StubTransport(case["judge_verdicts"])
    result = evaluate(tmp_path, tmp_path / "outputs" / "synth", transport, config)
    assert not transport.unknown, f"unknown judge keys requested: {transport.unknown}"

    check_oi_result(result, case, tmp_path)
    # every stored verdict was asked for exactly once
    stored = {(sid, slot, stage) for sid, slots in case["judge_verdicts"].items()
              for slot, stages in slots.items() for stage in stages}
    assert sorted(transport.calls) == sorted(stored)


@pytest.mark.parametrize("vector", [v for _, v in VECTORS], ids=[case_id(s, v) for s, v in VECTORS])
def test_truncation_vector(vector: dict[str, Any]) -> None:
    got = build_precise_chunks(vector["wav_transcript"], vector["asr_output"], vector["tolerance_sec"])
    assert got == vector["expected_precise_chunks"]
