"""`python app.py score ...` reproduces the reference report on every golden case (every *cases.json), each
case written to disk in the benchmark's native layout (InteractionBench `annotation_files` included)."""
import json
import re

import pytest

from app import main
from tests.golden_cases import (case_id, check_ib_report, check_oi_result, ib_cli_args, load_cases,
                                oi_verdicts_file, write_ib_case, write_oi_case)

IB_CASES = load_cases("interactionbench")
OI_CASES = load_cases("omniinteract")


@pytest.mark.parametrize("case", [c for _, c in IB_CASES], ids=[case_id(s, c) for s, c in IB_CASES])
def test_score_interactionbench_cli_matches_reference(case, tmp_path):
    paths = write_ib_case(case, tmp_path)
    out = tmp_path / "report.json"
    assert main(ib_cli_args(case, paths, out)) == 0
    text = out.read_text(encoding="utf-8")
    check_ib_report(json.loads(text), case, tmp_path)
    if case["config"].get("pre_tol") == "inf":  # as the reference's json.dumps writes it (separators aside)
        assert re.search(r'"pre_tol_s":\s*Infinity\b', text)


@pytest.mark.parametrize("case", [c for _, c in OI_CASES], ids=[case_id(s, c) for s, c in OI_CASES])
def test_score_omniinteract_cli_matches_reference(case, tmp_path):
    outputs = write_oi_case(case, tmp_path)
    verdicts = oi_verdicts_file(case, tmp_path / "judge")
    out = tmp_path / "score.json"
    extra = ["--reference-args", " ".join(case["cli_extra_args"])] if case["cli_extra_args"] else []
    assert main(["score", "omniinteract", "--data", str(tmp_path), "--outputs", str(outputs),
                 "--judge", f"replay:{verdicts}", "--out", str(out), "--as-reference", *extra]) == 0
    check_oi_result(json.loads(out.read_text(encoding="utf-8")), case, tmp_path)
