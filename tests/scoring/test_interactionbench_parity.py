"""Golden parity of the InteractionBench scorer: every golden case, through `score` on golden rows and
through `evaluate` on the native on-disk layout, must reproduce the reference report exactly."""
import pytest

from scoring.interactionbench.scorer import IBConfig, evaluate, format_table, score
from scoring.judges.stored import build_stored_judge
from tests.golden_cases import case_id, check_ib_report, ib_rows, load_cases, write_ib_case

CASES = load_cases("interactionbench")
IDS = [case_id(stem, c) for stem, c in CASES]


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
    check_ib_report(report, case, tmp_path)
    assert format_table(report).splitlines()[2].startswith("Overall")


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=IDS)
def test_evaluate_on_disk_matches_reference(case, tmp_path):
    paths = write_ib_case(case, tmp_path)
    report = evaluate(paths["data"], paths["preds"], mcq_key_path=paths["mcq_key"], judge_spec=paths["judge_spec"],
                      config=IBConfig.from_dict(case["config"]), items_path=paths["items"],
                      judge_cache_dir=paths["judge_args"].get("cache_dir"))
    check_ib_report(report, case, tmp_path)


def test_a_missing_golden_folder_is_an_error_not_a_skip(tmp_path, monkeypatch):
    monkeypatch.setenv("IBENCH_GOLDEN_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="golden folder"):
        load_cases("interactionbench")
    (tmp_path / "interactionbench").mkdir()
    with pytest.raises(FileNotFoundError, match="no \\*cases.json"):
        load_cases("interactionbench")
