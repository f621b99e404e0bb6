"""`python app.py score ...` and its Python API (`runners.score_api.score_files`) reproduce the reference report on
every golden case (every *cases.json), field by field and type by type, each case written to disk in the
benchmark's native layout (InteractionBench `annotation_files` as given), with the case's own settings only."""
import json
import re

import pytest

from app import main
from runners.score_api import score_files
from tests.golden_cases import (case_id, check_ib_report, check_oi_result, ib_api_options, ib_cli_args, load_cases,
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
                 "--judge", f"replay:{verdicts}", "--out", str(out), *extra]) == 0
    check_oi_result(json.loads(out.read_text(encoding="utf-8")), case, tmp_path)


# ---------------------------------------------------------------- the Python API: the same path, no extra options

@pytest.mark.parametrize("case", [c for _, c in IB_CASES], ids=[case_id(s, c) for s, c in IB_CASES])
def test_score_files_interactionbench_matches_reference(case, tmp_path):
    paths = write_ib_case(case, tmp_path)
    report = score_files("interactionbench", paths["data"], paths["preds"], **ib_api_options(case, paths))
    check_ib_report(report, case, tmp_path)


@pytest.mark.parametrize("case", [c for _, c in OI_CASES], ids=[case_id(s, c) for s, c in OI_CASES])
def test_score_files_omniinteract_matches_reference(case, tmp_path):
    outputs = write_oi_case(case, tmp_path)
    verdicts = oi_verdicts_file(case, tmp_path / "judge")
    extra = {"reference_args": " ".join(case["cli_extra_args"])} if case["cli_extra_args"] else {}
    report = score_files("omniinteract", tmp_path, outputs=outputs, judge=f"replay:{verdicts}", **extra)
    check_oi_result(report, case, tmp_path)
