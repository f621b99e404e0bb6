"""The opt-in corrections of the reference quirks (`--fixed`), on hand-made inputs with hand-worked expectations;
without the flag each script keeps the reference's behaviour (pinned by the golden cases)."""
from __future__ import annotations

import json
from pathlib import Path

from runners.cli import main


def put(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_convert_fixed_keeps_the_typed_answer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    put(tmp_path / "export.json", json.dumps({"results": {"v#0": {"updates": [
        {"video_time_s": 4, "answer": "  two cups "}, {"video_time_s": 2, "answer": " \t"}]}}}))
    assert main(["analysis", "human_reference", "convert", "export.json", "--fixed", "--runs-root", "r",
                 "--out", "o"]) == 0
    line = json.loads((tmp_path / "r/human_reference/preds.jsonl").read_text(encoding="utf-8"))
    assert line["emissions"] == [{"t": 4.0, "content": "  two cups "}]  # blank still dropped, text as typed


def _compare_tree(tmp: Path, answer: str) -> None:
    h = tmp / "runs/human_reference"
    put(h / "items.txt", "v#0\n")
    put(h / "preds.jsonl", json.dumps({"video_id": "v", "item_index": 0,
                                       "emissions": [{"t": 5.0, "content": answer}]}) + "\n")
    rec = {"item_id": "v#0", "capability": "IVQA", "family": "A_retro_qa", "total_score": 50.0}
    put(h / "eval_nojudge/records.jsonl", json.dumps(rec) + "\n")
    put(h / "eval_nojudge/summary.json", json.dumps({"overall": {"n_items": 1}}))
    put(tmp / "key.jsonl", json.dumps({"item_id": "v#0", "correct_index": 1, "correct_letter": "B",
                                       "answer_text": "cat", "distractors": ["dog", "cup"]}) + "\n")


def _diag(tmp: Path, *flags: str) -> dict:
    assert main(["analysis", "human_reference", "compare", "--runs-root", "runs", "--mcq-key", "key.jsonl",
                 "--out", "o", *flags]) == 0
    return json.loads((tmp / "o/human_first300.json").read_text(encoding="utf-8"))["human"]["mcq_diag"]


def test_compare_reads_a_cat_as_a_letter_unless_fixed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _compare_tree(tmp_path, "A cat")
    assert _diag(tmp_path)["answered_by_bare_letter"] == 1
    fixed = _diag(tmp_path, "--fixed")
    assert fixed["answered_by_bare_letter"] == 0
    assert fixed["free_text_where_letter_regex_fires_on_a_stray_letter"] == 1
    assert fixed["examples_stray_letter"] == [{"item_id": "v#0", "answer": "A cat", "regex_letter": "A",
                                               "correct": "B", "answer_text": "cat"}]


def test_export_fixed_writes_lf_and_the_anomaly_instead_of_failing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    put(tmp_path / "runs/scripted_never_fire/eval_nojudge/summary.json",
        json.dumps({"overall": {"n_items": 2, "total_score": 7.0}}))
    assert main(["analysis", "export_tables", "--runs-root", "runs", "--out", "o"]) == 1  # the reference fails
    assert not (tmp_path / "o/ANOMALY.txt").exists()
    assert (tmp_path / "o/progress_overview.csv").read_bytes() == b"run,items_done\r\n"
    assert main(["analysis", "export_tables", "--runs-root", "runs", "--out", "o", "--fixed"]) == 0
    assert (tmp_path / "o/ANOMALY.txt").read_text(encoding="utf-8") == "never_fire total 7.0 != 6.509\n"
    assert (tmp_path / "o/scores_provisional.csv").read_bytes() == (
        b"run,judge,n,total,acc,TA,SC\nscripted_never_fire,nojudge(provisional),2,7.0,,,\n")


def test_bootstrap_fixed_writes_a_run_without_scores_as_missing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    put(tmp_path / "runs/a/eval_judge/records.jsonl", '{"total_score": 4}\n\n{"total_score": 4.0}\n')
    put(tmp_path / "runs/n/eval_judge/records.jsonl", '{"total_score": null}\n')
    assert main(["analysis", "bootstrap_ci", "--runs", "n", "--runs-root", "runs", "--out", "o"]) == 1
    assert main(["analysis", "bootstrap_ci", "--runs", "n", "a", "--runs-root", "runs", "--out", "o", "--fixed"]) == 0
    # every resample of (4, 4) has mean 4
    assert (tmp_path / "o/ci_overall.csv").read_text(encoding="utf-8") == (
        "run,n,overall,ci_lo,ci_hi,dir\nn,,,,,runs/n/eval_judge MISSING\na,2,4.00,4.00,4.00,runs/a/eval_judge\n")


def test_rank_fixed_writes_empty_tables_without_a_complete_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["analysis", "rank_stability", "--out", "o"]) == 1
    assert main(["analysis", "rank_stability", "--out", "o", "--fixed"]) == 0
    assert (tmp_path / "o/kendall.csv").read_text(encoding="utf-8") == (
        "delta,n_runs,tau_overall,tau_timing,max_rank_shift,top3_same,mean_overall\n")
    assert (tmp_path / "o/per_run.csv").read_text(encoding="utf-8") == (
        "run,overall_d2,overall_d3,overall_d5,overall_d8,overall_d10,ta_d2,ta_d3,ta_d5,ta_d8,ta_d10\n")


def test_unknown_script_and_bad_flag_are_one_line_usage_errors(capsys):
    assert main(["analysis", "nope"]) == 2
    assert main(["analysis", "bootstrap_ci", "--runs", "a", "--bogus"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("error: ") for line in err)
