"""Issue 22: options and positionals in any order for every verb (the shared Parser parses intermixed), e.g. the
reference user's `score interactionbench --data D preds.jsonl --use-gate`."""
import contextlib
import io
import json

from annotation.loaders import demo_dir
from annotation.store import Store
from app import main


def _run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def test_score_takes_the_prediction_file_after_options(tmp_path):
    data = demo_dir("interactionbench")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"video_id": "ball_counter", "item_index": 0,
                                 "emissions": [{"t": 9.0, "content": "now"}]}) + "\n")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert _run("score", "interactionbench", "--data", data, preds, "--use-gate", "--out", a)[0] == 0
    assert _run("score", "--out", b, "--use-gate", "interactionbench", "--data", data, preds)[0] == 0
    first, second = json.loads(a.read_text()), json.loads(b.read_text())
    assert first["table"] == second["table"] and first["aggregate"]["config"]["use_gate"] is True


def test_validate_and_list_take_options_first():
    data = demo_dir("interactionbench")
    code, out, _ = _run("validate", "--no-media", "interactionbench", data)
    assert code == 0 and out.startswith("interactionbench: 15 items")
    assert _run("list", "--data", data, "interactionbench")[1] == _run("list", "interactionbench", "--data", data)[1]


def test_users_and_export_take_options_first(tmp_path):
    db = tmp_path / "db.sqlite"
    Store(db).close()
    code, out, err = _run("users", "--db", db, "list")
    assert code == 0, err
    code, _, err = _run("export", "--db", db, "--out", tmp_path / "rows.jsonl", "responses")
    assert code == 0, err
    assert (tmp_path / "rows.jsonl").exists()


def test_an_unknown_flag_is_still_one_usage_line():
    code, _, err = _run("score", "interactionbench", "--nope", "x")
    assert code == 2 and err.count("\n") == 1 and "unrecognized arguments: --nope" in err
