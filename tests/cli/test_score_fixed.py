"""`score --fixed` reaches the scorers' opt-in reference corrections (docs/scoring.md). The expected change is
worked out by hand from the documented rule on a golden case; without the flag the golden numbers stand."""
import copy
import json

from tests.golden_cases import (check_ib_report, check_oi_result, ib_cli_args, load_cases, oi_verdicts_file,
                                write_ib_case, write_oi_case)


def _case(benchmark, name):
    return next(c for _, c in load_cases(benchmark) if c.get("name") == name)


def test_fixed_mcq_letters_change_only_the_article_a_item(tmp_path, cli):
    """golden mcq_option_matching: options (red cup, blue cup, green cup), correct B. Fixed rule: a letter must
    be uppercase and stand alone. Only vMC#4 "It is a blue cup" changes: the reference reads the article "a" as
    option A (accuracy 0); fixed finds no letter, so option F1 decides: blue cup F1 = 2*(2/5)*1/(2/5+1) = 0.571
    >= 0.5 and above red/green cup (0.286) -> B, accuracy 100, total (100+100)/2 = 100. "AB" (vMC#5) has no
    standalone letter either way (F1 0, nothing contained) and stays 0. Table: accuracy 4/10 -> 5/10 = 50.0,
    total (4*100 + 6*50)/10 = 70.0 -> (5*100 + 5*50)/10 = 75.0; timing and silence stay 100."""
    case = _case("interactionbench", "mcq_option_matching")
    paths = write_ib_case(case, tmp_path)
    plain, fixed = tmp_path / "plain.json", tmp_path / "fixed.json"
    assert cli(*ib_cli_args(case, paths, plain)).code == 0
    check_ib_report(json.loads(plain.read_text()), case, tmp_path)  # the default is still the reference's
    r = cli(*ib_cli_args(case, paths, fixed), "--fixed")
    assert r.code == 0, r.err
    got = json.loads(fixed.read_text())
    want = copy.deepcopy(case["expected"]["per_item"])
    want["vMC#4"].update(accuracy=100.0, total_score=100.0)
    assert {k: {f: v[f] for f in want[k]} for k, v in got["per_item"].items()} == want
    assert got["table"] == {**case["expected"]["table"], "accuracy": 50.0, "total": 75.0}
    assert got["aggregate"]["config"]["fixed"] is True
    assert "fixed" not in json.loads(plain.read_text())["aggregate"]["config"]


def test_fixed_omniinteract_adds_the_exclusive_rows(tmp_path, cli):
    """Fixed rule: the exclusive realtime/proactive rows come from multi_turn slots by their own label, in an
    extra summary block `exclusive_by_question_type`; without --fixed the summary is the reference's."""
    _, case = load_cases("omniinteract")[0]
    outputs = write_oi_case(case, tmp_path)
    verdicts = oi_verdicts_file(case, tmp_path / "judge")
    extra = ["--reference-args", " ".join(case["cli_extra_args"])] if case["cli_extra_args"] else []
    args = ["score", "omniinteract", "--data", tmp_path, "--outputs", outputs, "--judge", f"replay:{verdicts}",
            "--as-reference", *extra]
    assert cli(*args, "--out", tmp_path / "plain.json").code == 0
    plain = json.loads((tmp_path / "plain.json").read_text())
    check_oi_result(plain, case, tmp_path)
    assert "exclusive_by_question_type" not in plain["summary"]
    r = cli(*args, "--out", tmp_path / "fixed.json", "--fixed")
    assert r.code == 0, r.err
    assert "exclusive_by_question_type" in json.loads((tmp_path / "fixed.json").read_text())["summary"]


def test_fixed_is_refused_where_the_scorer_has_no_corrections(tmp_path, cli):
    (tmp_path / "p.jsonl").write_text("")
    r = cli("score", "proactivebench", "--data", tmp_path, "--preds", tmp_path / "p.jsonl", "--fixed")
    r.refused(2, "--fixed", "interactionbench and omniinteract only")
