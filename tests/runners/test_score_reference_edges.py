"""Issue 22's own golden cases (tests/golden_i22/, made with the reference scorers on the edge distributions the
issue lists; README there): each one the code before the issue refused or scored differently. The Python API and
`python app.py score` with the case's settings only give the reference's report, field by field and type by type."""
import json
from pathlib import Path

import pytest

from app import main
from runners.score_api import score_files
from tests.golden_cases import (assert_close, check_ib_report, ib_api_options, ib_cli_args, oi_verdicts_file,
                                write_ib_case, write_oi_case)

HERE = Path(__file__).resolve().parents[1] / "golden_i22"


def _cases(name):
    return json.loads((HERE / f"{name}_cases.json").read_text(encoding="utf-8"))["cases"]


IB = _cases("interactionbench")
OI = _cases("omniinteract")


def test_the_case_files_hold_what_the_readme_says():
    assert len(IB) == 96 and len(OI) == 43
    assert all(c.get("before_issue_22") for c in IB + OI)


@pytest.mark.parametrize("case", IB, ids=[c["name"] for c in IB])
def test_interactionbench_api_and_cli(case, tmp_path):
    paths = write_ib_case(case, tmp_path)
    check_ib_report(score_files("interactionbench", paths["data"], paths["preds"], **ib_api_options(case, paths)),
                    case, tmp_path)
    out = tmp_path / "report.json"
    assert main(ib_cli_args(case, paths, out)) == 0
    check_ib_report(json.loads(out.read_text(encoding="utf-8")), case, tmp_path)


@pytest.mark.parametrize("case", OI, ids=[c["case_id"] for c in OI])
def test_omniinteract_api_and_cli(case, tmp_path):
    outputs = write_oi_case(case, tmp_path)
    verdicts = oi_verdicts_file(case, tmp_path / "judge")
    extra = ["--reference-args=" + " ".join(case["cli_extra_args"])] if case["cli_extra_args"] else []
    report = score_files("omniinteract", tmp_path, outputs=outputs, judge=f"replay:{verdicts}",
                         **({"reference_args": " ".join(case["cli_extra_args"])} if extra else {}))
    check_oi_summary(report, case)
    out = tmp_path / "score.json"
    assert main(["score", "omniinteract", "--data", str(tmp_path), "--outputs", str(outputs), "--judge",
                 f"replay:{verdicts}", "--out", str(out), *extra]) == 0
    check_oi_summary(json.loads(out.read_text(encoding="utf-8")), case)


def check_oi_summary(result, case):
    """The reference's canonical summary (these cases carry it alone, not the per-sample listing)."""
    assert_close(result["summary"], case["expected"]["summary"], "summary")
