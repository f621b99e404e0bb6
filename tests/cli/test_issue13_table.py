"""Issue 13's table, one named regression test per row: each bad input gives one `error:` line (exit 2 usage,
1 data), no traceback, and leaves no output file, folder or run row behind."""
import json
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from annotation.loaders import demo_dir, load
from annotation.model import Response
from annotation.store import Store

# ---------------------------------------------------------------- validate / the app's --interactionbench


@pytest.mark.parametrize("answers", [["x"], [None]], ids=["string", "null"])
def test_row_validate_answer_that_is_not_an_object(tmp_path, cli, h, answers):
    data = h.ib_dataset(tmp_path / "ds", [{"capability": "PTR", "time_type": "B", "answers": answers}])
    r = cli("validate", "interactionbench", data, "--no-media")
    assert r.code == 1 and "Traceback" not in r.err
    assert "annotations/d/v1.json item v1#0 field 'answers[0]': expected an object" in r.out
    # the app loads the same folder through its context without raising (it starts and shows the problem)
    from ibench_ui.context import AppContext
    ctx = AppContext(store=Store(tmp_path / "app.sqlite"), data_dirs={"interactionbench": data})
    ds = ctx.dataset("interactionbench")
    assert [p.field for p in ds.errors] == ["answers[0]"]


def test_row_validate_deeply_nested_json(tmp_path, cli, h):
    data = h.ib_dataset(tmp_path / "ds", [h.GOOD_ITEM])
    (data / "annotations" / "d" / "deep.json").write_text('{"items": ' + "[" * 200000 + "]" * 200000 + "}")
    r = cli("validate", "interactionbench", data, "--no-media")
    assert r.code == 1 and "Traceback" not in r.err
    assert "annotations/d/deep.json: expected JSON nested at most" in r.out


# ---------------------------------------------------------------- score: silent wrong answers


def test_row_score_nan_emission_time(tmp_path, cli, h, ib_demo):
    preds = h.write_ib_preds(tmp_path / "p.jsonl", emissions=[{"t": float("nan"), "content": "four"}])
    before = h.tree(tmp_path)
    r = cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--out", tmp_path / "o.json")
    r.refused(1, f"{preds}:1 ", "ball_counter#0", "emissions[0].t", "finite", "NaN")
    assert h.tree(tmp_path) == before


def test_row_score_negative_emission_time(tmp_path, cli, h, ib_demo):
    preds = h.write_ib_preds(tmp_path / "p.jsonl", emissions=[{"t": -5, "content": "four"}])
    # issue 22: the reference scores it (a warning); --strict refuses it
    r = cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--out", tmp_path / "o.json",
            "--strict")
    r.refused(1, f"{preds}:1 ", "emissions[0].t", "inside the stream [0, 32] s", "found -5")
    assert not (tmp_path / "o.json").exists()


def test_negative_time_skipped_explicitly_is_left_out_and_recorded(tmp_path, cli, h, ib_demo):
    good = h.write_ib_preds(tmp_path / "good.jsonl")
    lines = good.read_text().splitlines()
    first = json.loads(lines[0])
    first["emissions"] = [{"t": -5, "content": "four"}]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    assert cli("score", "interactionbench", "--data", ib_demo, "--preds", bad, "--skip-invalid",
               "--out", tmp_path / "o.json").code == 0
    got = json.loads((tmp_path / "o.json").read_text())
    assert got["skipped"]["n_items_left_out"] == 1 and got["skipped"]["items_left_out"] == ["ball_counter#0"]
    assert "ball_counter#0" not in got["per_item"] and len(got["per_item"]) == 14


# ---------------------------------------------------------------- score: exit 0 with a partial answer


def test_row_score_data_folder_that_does_not_exist(tmp_path, cli, ib_preds):
    r = cli("score", "interactionbench", "--data", tmp_path / "nope", "--preds", ib_preds, "--out", tmp_path / "o.json")
    r.refused(1, str(tmp_path / "nope"), "--data", "expected an existing folder, found nothing")
    assert not (tmp_path / "o.json").exists()


def test_score_without_data_is_a_usage_error(tmp_path, cli, ib_preds):
    cli("score", "interactionbench", "--preds", ib_preds).refused(2, "--data")


def test_row_score_one_broken_annotation_file(tmp_path, cli, h, ib_preds):
    data = tmp_path / "ds"
    shutil.copytree(demo_dir("interactionbench") / "annotations", data / "annotations")
    broken = sorted((data / "annotations").rglob("*.json"))[0]
    broken.write_text('{"video_id": "x", "items": [')
    r = cli("score", "interactionbench", "--data", data, "--preds", ib_preds, "--out", tmp_path / "o.json")
    r.refused(1, broken.relative_to(data).as_posix(), "invalid JSON", "--skip-invalid")
    assert not (tmp_path / "o.json").exists()


def test_row_score_unknown_id_in_items(tmp_path, cli, ib_demo, ib_preds):
    split = tmp_path / "split.txt"
    split.write_text("ball_counter#0\nno_such_video#3\n")
    r = cli("score", "interactionbench", "--data", ib_demo, "--preds", ib_preds, "--items", split,
            "--out", tmp_path / "o.json", "--strict")  # issue 22: by default ignored as the reference does
    r.refused(1, str(split), "--items", "no_such_video#3", "--strict")
    assert not (tmp_path / "o.json").exists()
    assert cli("score", "interactionbench", "--data", ib_demo, "--preds", ib_preds, "--items", split,
               "--skip-unknown", "--out", tmp_path / "o.json").code == 0
    assert list(json.loads((tmp_path / "o.json").read_text())["per_item"]) == ["ball_counter#0"]


def test_row_score_empty_predictions_file(tmp_path, cli, ib_demo):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    cli("score", "interactionbench", "--data", ib_demo, "--preds", empty, "--out", tmp_path / "o.json",
        "--strict").refused(1, str(empty), "empty file")  # issue 22: by default all silent, as the reference
    assert not (tmp_path / "o.json").exists()


def test_predictions_for_an_item_not_in_the_data(tmp_path, cli, h, ib_demo):
    preds = h.write_ib_preds(tmp_path / "p.jsonl", extra_lines=[json.dumps(
        {"video_id": "ghost", "item_index": 0, "emissions": []})])
    cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--strict").refused(
        1, f"{preds}:16", "ghost#0", "--strict")  # issue 22: by default ignored as the reference does
    assert cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--skip-unknown").code == 0


# ---------------------------------------------------------------- score: tracebacks


@pytest.mark.parametrize("emissions,needle", [("oops", "expected a list"), ([None], "expected an object")],
                         ids=["string", "null"])
def test_row_score_emissions_not_a_list_of_objects(tmp_path, cli, h, ib_demo, emissions, needle):
    preds = h.write_ib_preds(tmp_path / "p.jsonl", emissions=emissions)
    cli("score", "interactionbench", "--data", ib_demo, "--preds", preds).refused(1, f"{preds}:1 ", "emissions",
                                                                                    needle)


def test_row_score_predictions_path_is_a_folder(tmp_path, cli, ib_demo):
    cli("score", "interactionbench", "--data", ib_demo, "--preds", tmp_path).refused(
        1, str(tmp_path), "--preds", "found a folder")


def test_row_score_out_is_a_folder(tmp_path, cli, ib_demo, ib_preds):
    (tmp_path / "outdir").mkdir()
    cli("score", "interactionbench", "--data", ib_demo, "--preds", ib_preds, "--out", tmp_path / "outdir").refused(
        2, "outdir", "--out", "found an existing folder")


def test_row_score_judge_cache_glob_over_system_files(tmp_path, cli, ib_demo, ib_preds):
    r = cli("score", "interactionbench", "--data", ib_demo, "--preds", ib_preds, "--judge", "cache:/etc/*",
            "--out", tmp_path / "o.json")
    line = r.refused(1, "/etc/", "--judge")
    assert "expected a verdict" in line or "JSON" in line or "UTF-8" in line
    assert not (tmp_path / "o.json").exists()


def test_row_score_non_utf8_predictions_names_file_and_encoding(tmp_path, cli, ib_demo):
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes('{"video_id": "ball_counter", "emissions": [{"t": 1, "content": "caf\u00e9"}]}\n'.encode("latin-1"))
    cli("score", "interactionbench", "--data", ib_demo, "--preds", bad).refused(1, str(bad), "UTF-8", "line 1")


def test_row_score_item_index_not_a_number_names_file_and_line(tmp_path, cli, h, ib_demo):
    preds = h.write_ib_preds(tmp_path / "p.jsonl", extra_lines=[json.dumps(
        {"video_id": "ball_counter", "item_index": "zero", "emissions": []})])
    cli("score", "interactionbench", "--data", ib_demo, "--preds", preds, "--strict").refused(
        1, f"{preds}:16 ", "item_index", '"zero"')  # issue 22: by default the reference's key (matches no item)


# ---------------------------------------------------------------- run


def _run(cli, tmp_path, *extra, db="db.sqlite"):
    return cli("run", "--benchmark", "interactionbench", "--model", "baseline:silent", "--db", tmp_path / db, *extra)


def _runs(path):
    if not path.exists():
        return None
    store = Store(path)
    try:
        return [(r["status"], r["error"]) for r in store.db["runs"].rows]
    finally:
        store.close()


@pytest.mark.parametrize("flag,value", [("--limit", "-1"), ("--limit", "0"), ("--concurrency", "0"),
                                        ("--concurrency", "-3")])
def test_row_run_counts_must_be_positive(tmp_path, cli, h, flag, value):
    before = h.tree(tmp_path)
    _run(cli, tmp_path, flag, value).refused(2, flag, "positive integer", value)
    assert h.tree(tmp_path) == before


def test_row_run_option_interval_nan(tmp_path, cli, h):
    before = h.tree(tmp_path)
    _run(cli, tmp_path, "--option", "interval=NaN").refused(2, "--option interval", "finite", "nan")
    assert h.tree(tmp_path) == before  # no store, no run row


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_row_run_missing_or_corrupt_video(tmp_path, cli, h, damage):
    data = tmp_path / "ib"
    shutil.copytree(demo_dir("interactionbench"), data)
    video = data / "videos" / "ball_counter.mp4"
    if damage == "missing":
        video.unlink()
    else:
        video.write_bytes(b"not a video at all")
    before = h.tree(tmp_path)
    line = _run(cli, tmp_path, "--data", data).refused(1, "ball_counter.json", "ball_counter#0", "video",
                                                       "--skip-invalid")
    assert ("not found" in line) if damage == "missing" else ("decoded" in line)
    assert h.tree(tmp_path) == before


def test_run_skip_invalid_runs_the_rest_and_stores_what_was_left_out(tmp_path, cli):
    data = tmp_path / "ib"
    shutil.copytree(demo_dir("interactionbench"), data)
    (data / "videos" / "ball_counter.mp4").unlink()
    assert _run(cli, tmp_path, "--data", data, "--skip-invalid", "--out", tmp_path / "out").code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    n_ball = sum(it.meta["video_id"] == "ball_counter" for it in load("interactionbench", data, False).items)
    assert report["skipped"]["n_items_left_out"] == n_ball > 0
    assert _runs(tmp_path / "db.sqlite") == [("done", None)]


@pytest.mark.parametrize("kind", ["folder", "not sqlite"])
def test_row_run_db_that_is_not_a_store(tmp_path, cli, h, kind):
    db = tmp_path / "db.sqlite"
    if kind == "folder":
        db.mkdir()
    else:
        db.write_text("hello, I am a text file\n")
    before = h.tree(tmp_path)
    _run(cli, tmp_path).refused(1, str(db), "--db", "folder" if kind == "folder" else "not SQLite")
    assert h.tree(tmp_path) == before


def test_row_run_out_is_an_existing_file_found_before_any_work(tmp_path, cli, h):
    (tmp_path / "out.txt").write_text("keep me")
    before = h.tree(tmp_path)
    _run(cli, tmp_path, "--out", tmp_path / "out.txt").refused(2, "out.txt", "--out", "found a file")
    assert h.tree(tmp_path) == before and (tmp_path / "out.txt").read_text() == "keep me"


@pytest.mark.parametrize("args,needle", [(["--judge", "nope"], "--judge"), (["--protocol", "nope"], "--protocol"),
                                         (["--option", "nonsense=3"], "nonsense")],
                         ids=["judge", "protocol", "option"])
def test_row_run_bad_judge_protocol_or_option_leaves_no_row(tmp_path, cli, args, needle):
    Store(tmp_path / "db.sqlite").close()  # an existing, empty store
    _run(cli, tmp_path, *args).refused(2, needle)
    assert _runs(tmp_path / "db.sqlite") == []


def test_row_run_out_deep_new_path_is_not_created(tmp_path, cli, h):
    before = h.tree(tmp_path)
    _run(cli, tmp_path, "--out", tmp_path / "some" / "new" / "deep" / "path").refused(2, "--out", "parent folder")
    assert h.tree(tmp_path) == before


def test_interrupted_run_is_stored_cancelled_never_running(tmp_path, cli):
    plugin = f"plugin:{tmp_path / 'interrupting.py'}:Interrupting"
    (tmp_path / "interrupting.py").write_text(
        "class Interrupting:\n"
        "    name = 'plugin:interrupting'\n"
        "    def respond(self, decision):\n"
        "        raise KeyboardInterrupt\n")
    r = cli("run", "--benchmark", "interactionbench", "--model", plugin, "--db", tmp_path / "db.sqlite",
            "--limit", "1")
    r.refused(130, "interrupted")
    assert _runs(tmp_path / "db.sqlite") == [("cancelled", "interrupted")]


# ---------------------------------------------------------------- export responses


def _sitting(db):
    store = Store(db)
    s = store.create_session("P01", "interactionbench", ["ball_counter#0", "ball_counter#1"],
                             data_dir=str(demo_dir("interactionbench")))
    store.add_response(Response(id="", item_id="ball_counter#0", benchmark="interactionbench", responder="human:P01",
                                session_id=s.id, t=8.3, frame_t=8.26, kind="text", text="the ball",
                                wall_time=time.time()))
    store.close()
    return s.id


def test_row_export_mistyped_db_creates_nothing(tmp_path, cli, h):
    _sitting(tmp_path / "db.sqlite")
    before = h.tree(tmp_path)
    cli("export", "responses", "--db", tmp_path / "db.sqltie", "--out", tmp_path / "rows.jsonl").refused(
        1, "db.sqltie", "--db", "expected an existing store")
    assert h.tree(tmp_path) == before


def test_row_export_garbage_db(tmp_path, cli):
    (tmp_path / "g.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    cli("export", "responses", "--db", tmp_path / "g.sqlite").refused(1, "g.sqlite", "--db")


def test_row_export_schema_version_99(tmp_path, cli):
    conn = sqlite3.connect(tmp_path / "new.sqlite")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '99')")
    conn.commit()
    conn.close()
    cli("export", "responses", "--db", tmp_path / "new.sqlite").refused(1, "new.sqlite", "schema version", "99")


def test_row_export_out_is_a_folder(tmp_path, cli):
    _sitting(tmp_path / "db.sqlite")
    (tmp_path / "dir").mkdir()
    cli("export", "responses", "--db", tmp_path / "db.sqlite", "--out", tmp_path / "dir").refused(
        2, "dir", "--out", "folder")


def test_row_export_native_with_data_missing_the_sessions_items(tmp_path, cli, h):
    sid = _sitting(tmp_path / "db.sqlite")
    other = h.ib_dataset(tmp_path / "other", [h.GOOD_ITEM])
    before = h.tree(tmp_path)
    cli("export", "responses", "--db", tmp_path / "db.sqlite", "--format", "native", "--data", other,
        "--out", tmp_path / "native").refused(1, sid, "2 missing", "ball_counter#0")
    assert h.tree(tmp_path) == before


def test_export_jsonl_is_written_whole(tmp_path, cli):
    _sitting(tmp_path / "db.sqlite")
    out = tmp_path / "rows.jsonl"
    out.write_text("previous\n")
    assert cli("export", "responses", "--db", tmp_path / "db.sqlite", "--out", out).code == 0
    assert [json.loads(x)["text"] for x in out.read_text().splitlines()] == ["the ball"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------- users


def test_row_users_add_without_standard_input(tmp_path, h):
    before = h.tree(tmp_path)
    for extra in ([], ["--password-stdin"]):
        proc = subprocess.run([sys.executable, str(h.REPO / "app.py"), "users", "add", "boss", "--role", "admin",
                               "--db", str(tmp_path / "db.sqlite"), *extra], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and "EOFError" not in proc.stderr
        assert [x for x in proc.stderr.splitlines() if x.startswith("error:")] == [proc.stderr.strip()]
        assert "password" in proc.stderr
    assert h.tree(tmp_path) == before


# ---------------------------------------------------------------- the error format, --debug, real processes


def test_debug_shows_the_traceback_otherwise_never(tmp_path, h):
    args = [sys.executable, str(h.REPO / "app.py"), "score", "interactionbench", "--data", str(tmp_path / "nope"),
            "--preds", str(tmp_path / "p.jsonl")]
    plain = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert plain.returncode == 1 and plain.stderr.count("\n") == 1 and plain.stderr.startswith("error: ")
    debug = subprocess.run(args + ["--debug"], capture_output=True, text=True, cwd=tmp_path)
    assert debug.returncode == 1 and "Traceback" in debug.stderr and debug.stderr.splitlines()[-1] == \
        plain.stderr.strip()


def test_usage_errors_from_argparse_are_one_line_exit_2(tmp_path, h):
    proc = subprocess.run([sys.executable, str(h.REPO / "app.py"), "run", "--benchmark", "interactionbench",
                           "--model", "baseline:silent", "--limit", "many"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ") and "--limit" in proc.stderr


def test_proactivebench_response_second_past_the_stream_end(tmp_path, cli):
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"item_id": "pb-or-ball", "response_seconds": [999]}\n')
    data = demo_dir("proactivebench")
    # issue 22: scored with a warning by default, refused by --strict (the demo's own SS-window warning first)
    cli("score", "proactivebench", "--data", data, "--preds", preds, "--out", tmp_path / "o.json",
        "--strict").refused(1, "--strict")
    assert not (tmp_path / "o.json").exists()
    assert cli("score", "proactivebench", "--data", data, "--preds", preds, "--out", tmp_path / "o.json").code == 0
    warned = json.loads((tmp_path / "o.json").read_text())["warnings"]
    assert f"response second past the stream end: 1 time(s), first {preds} pb-or-ball response_seconds: expected " \
           "seconds 1..32 (inside the 32 s stream), found 999" in warned


def test_serving_refuses_a_bad_store_or_data_folder_in_one_line(tmp_path, h):
    (tmp_path / "g.sqlite").write_text("not a database")
    for args, needle in ((["--db", str(tmp_path / "g.sqlite")], "not SQLite"),
                         (["--db", str(tmp_path / "new.sqlite"), "--interactionbench", str(tmp_path / "nope")],
                          "--interactionbench")):
        proc = subprocess.run([sys.executable, str(h.REPO / "app.py"), *args], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and needle in proc.stderr
    assert not (tmp_path / "new.sqlite").exists()


def test_a_terminated_run_is_stored_cancelled_with_its_reason(tmp_path, h):
    import signal
    plugin = f"plugin:{h.REPO / 'tests' / 'runners' / 'slow_plugin.py'}:SlowMotionlessTalker"
    db = tmp_path / "db.sqlite"
    proc = subprocess.Popen([sys.executable, str(h.REPO / "app.py"), "run", "--benchmark", "interactionbench",
                             "--model", plugin, "--backend-option", "delay=0.2", "--db", str(db)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline:  # wait for the state we interrupt: a run row marked running (read-only peek)
        if _peek_status(db) == "running":
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    [(status, reason)] = _runs(db)
    assert status == "cancelled" and "interrupted" in reason


def _peek_status(db):
    """The first run's status, read without opening a Store (which would race the child's schema setup)."""
    if not db.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute("SELECT status FROM runs").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None
