"""`python app.py validate` and `list`: counts per kind, every problem named precisely, exit codes."""
import json
import subprocess
import sys
from pathlib import Path

from app import main

REPO = Path(__file__).resolve().parents[2]


def test_validate_demo_datasets_pass(capsys):
    for bench in ("interactionbench", "omniinteract", "proactivebench", "interactscope"):
        assert main(["validate", bench]) == 0
        out = capsys.readouterr().out
        assert f"{bench}:" in out and "0 error(s)" in out


def test_validate_reports_every_malformed_item_and_exits_1(tmp_path, capsys):
    ann = tmp_path / "annotations" / "demo"
    ann.mkdir(parents=True)
    (ann / "v1.json").write_text(json.dumps({"video_id": "v1", "domain": "demo", "duration_s": 30, "items": [
        {"capability": "PTR", "time_type": "B", "answers": [{"time_s": 5, "content": "ok"}]},
        {"capability": "NOPE", "time_type": "B", "answers": [{"time_s": 5, "content": "x"}]},
        {"capability": "PTR", "time_type": "B", "answers": [{"time_s": "soon", "content": "x"}]}]}))
    (ann / "v2.json").write_text('{"video_id": "v2", "items": [')
    assert main(["validate", "interactionbench", str(tmp_path), "--no-media"]) == 1
    out = capsys.readouterr().out
    assert "B_trigger: 1" in out
    assert "annotations/demo/v1.json item v1#1 field 'capability'" in out
    assert "annotations/demo/v1.json item v1#2 field 'answers[0].time_s'" in out
    assert "annotations/demo/v2.json" in out and "invalid JSON at line 1" in out
    assert "3 error(s)" in out


def test_validate_strict_fails_on_warnings(capsys):
    assert main(["validate", "proactivebench"]) == 0
    assert main(["validate", "proactivebench", "--strict"]) == 1


def test_list_prints_ids_one_per_line_through_the_real_entry_point():
    out = subprocess.run([sys.executable, "app.py", "list", "interactionbench"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[0] == "ball_counter#0" and len(out) == 15 and all("#" in line for line in out)


def test_unknown_benchmark_is_refused():
    proc = subprocess.run([sys.executable, "app.py", "list", "nosuchbench"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
