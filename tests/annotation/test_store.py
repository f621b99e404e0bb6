"""The store's own rules: ids are unique and rows are never overwritten, corrections are new rows, the
log order is the commit order across writer processes, an acknowledged write survives a SIGKILL, and
an older file is upgraded in place."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import sqlite_utils

from annotation.model import Response
from annotation.store import SCHEMA_VERSION, Store

REPO = Path(__file__).resolve().parents[2]


def _resp(rid: str, t: float, text: str = "", session: str = "s_1", item: str = "it") -> Response:
    return Response(id=rid, item_id=item, benchmark="interactionbench", responder="human:P1", session_id=session,
                    t=t, kind="text" if text else "press", text=text, wall_time=1000.0 + t)


def _raw_rows(path: Path) -> list[dict]:
    db = sqlite_utils.Database(str(path))
    try:
        return list(db["responses"].rows_where(order_by="rowid"))
    finally:
        db.conn.close()


def test_duplicate_id_raises_and_leaves_the_first_row_untouched(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.add_response(_resp("r_000000000001", 1.25, "first"))
    with pytest.raises(sqlite3.IntegrityError):
        store.add_response(_resp("r_000000000001", 9.5, "second"))
    rows = _raw_rows(tmp_path / "s.sqlite")
    assert len(rows) == 1
    assert (rows[0]["t"], rows[0]["text"]) == (1.25, "first")


def test_add_response_assigns_an_id_when_none_is_given(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    a = store.add_response(_resp("", 1.0))
    b = store.add_response(_resp("", 2.0))
    assert a.id and b.id and a.id != b.id
    assert [r.id for r in store.responses()] == [a.id, b.id]


def test_a_correction_is_a_new_row_and_keeps_the_original_time(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.add_response(_resp("r_000000000001", 3.5, "helo"))
    store.add_response(_resp("r_000000000002", 4.0, "other"))
    fixed = store.correct_response("r_000000000001", "hello", user="rev1")
    assert fixed.supersedes == "r_000000000001" and fixed.t == 3.5

    rows = _raw_rows(tmp_path / "s.sqlite")
    assert [r["text"] for r in rows] == ["helo", "other", "hello"]  # the original row is not rewritten
    resolved = store.responses()
    assert [(r.id, r.t, r.text) for r in resolved] == [("r_000000000001", 3.5, "hello"),
                                                        ("r_000000000002", 4.0, "other")]
    raw = store.responses(resolve_corrections=False)
    assert [r.text for r in raw] == ["helo", "other", "hello"]
    # a second correction supersedes the first
    store.correct_response("r_000000000001", "hello!", user="rev2")
    assert [r.text for r in store.responses()] == ["hello!", "other"]
    with pytest.raises(KeyError):
        store.correct_response("r_missing", "x", user="rev1")


def test_responses_filter_by_each_column(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.add_response(_resp("r_a", 1.0, session="s_1", item="i1"))
    store.add_response(_resp("r_b", 2.0, session="s_2", item="i1"))
    store.add_response(_resp("r_c", 3.0, session="s_1", item="i2"))
    assert [r.id for r in store.responses(session_id="s_1")] == ["r_a", "r_c"]
    assert [r.id for r in store.responses(item_id="i1")] == ["r_a", "r_b"]
    assert [r.id for r in store.responses(session_id="s_1", item_id="i2")] == ["r_c"]
    assert store.responses(responder="model:x") == []


def test_run_items_are_written_once_per_item(tmp_path):
    from annotation.model import Run
    store = Store(tmp_path / "s.sqlite")
    store.create_run(Run(id="run_1", benchmark="interactionbench", model_spec="baseline:silent", protocol="p",
                         data_dir="", config={}, status="running", n_total=2, n_done=0, created=1.0))
    assert store.add_run_item("run_1", "i1", {"score": 1}) is True
    assert store.add_run_item("run_1", "i1", {"score": 2}) is False  # resume: the first result stands
    assert store.add_run_item("run_1", "i2", {"score": 3}) is True
    assert store.run_items("run_1") == {"i1": {"score": 1}, "i2": {"score": 3}}
    assert store.get_run("run_1").n_done == 2


_WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {repo!r})
    from annotation.model import Response
    from annotation.store import Store
    store = Store({db!r})
    name, n = sys.argv[1], int(sys.argv[2])
    go = {go!r}
    while not __import__("os").path.exists(go):
        time.sleep(0.005)
    for i in range(n):
        store.add_response(Response(id=f"r_{{name}}_{{i:04d}}", item_id="it", benchmark="interactionbench",
                                    responder="human:" + name, session_id="s_" + name, t=float(i), kind="press",
                                    meta={{"i": i}}))
        print(f"r_{{name}}_{{i:04d}}", flush=True)
""")


def _writer_script(tmp_path: Path, db: Path) -> tuple[Path, Path]:
    go = tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(_WRITER.format(repo=str(REPO), db=str(db), go=str(go)))
    return script, go


def test_two_writer_processes_lose_nothing_and_each_keeps_its_own_order(tmp_path):
    db = tmp_path / "s.sqlite"
    Store(db).close()
    script, go = _writer_script(tmp_path, db)
    procs = [subprocess.Popen([sys.executable, str(script), name, "150"], stdout=subprocess.PIPE, text=True)
             for name in ("A", "B")]
    go.write_text("go")  # a barrier: both start writing together
    outs = [p.communicate(timeout=300)[0].split() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]

    got = Store(db).responses()
    assert len(got) == 300 and len({r.id for r in got}) == 300
    for name, acked in zip(("A", "B"), outs):
        mine = [r for r in got if r.responder == "human:" + name]
        # each writer's rows appear in the order it committed them, all of them
        assert [r.id for r in mine] == acked == [f"r_{name}_{i:04d}" for i in range(150)]
    # the log order is the commit order: the rowid increases along the list
    rowids = [r["rowid"] for r in sqlite_utils.Database(str(db)).execute_returning_dicts(
        "select rowid from responses order by rowid")]
    assert rowids == sorted(rowids)


def test_every_acknowledged_response_survives_a_sigkill(tmp_path):
    db = tmp_path / "s.sqlite"
    Store(db).close()
    script, go = _writer_script(tmp_path, db)
    go.write_text("go")
    proc = subprocess.Popen([sys.executable, str(script), "K", "100000"], stdout=subprocess.PIPE, text=True)
    acked = []
    for line in proc.stdout:  # wait for the state: some writes acknowledged, then kill mid-stream
        acked.append(line.strip())
        if len(acked) >= 40:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    stored = {r.id for r in Store(db).responses()}
    assert set(acked) <= stored
    assert len(stored) < 100000


def test_an_unversioned_file_is_upgraded_in_place(tmp_path):
    """A store from before the schema version (no meta table, fewer response columns) opens, keeps its rows
    and gains the current columns and tables."""
    path = tmp_path / "old.sqlite"
    db = sqlite_utils.Database(str(path))
    db["responses"].create({"id": str, "item_id": str, "benchmark": str, "responder": str, "session_id": str,
                            "t": float, "kind": str, "text": str}, pk="id")
    db["responses"].insert({"id": "r_old", "item_id": "it", "benchmark": "interactionbench",
                            "responder": "human:P0", "session_id": "s_0", "t": 2.5, "kind": "press", "text": ""})
    db.conn.close()

    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION
    cols = set(store.db["responses"].columns_dict)
    assert {"frame_t", "audio_path", "wall_time", "page_id", "supersedes", "meta"} <= cols
    for table in ("sessions", "runs", "run_items", "verdicts", "users", "reviews", "verifications"):
        assert store.db[table].exists(), table
    (r,) = store.responses()
    assert (r.id, r.t, r.responder) == ("r_old", 2.5, "human:P0")
    store.add_response(_resp("r_new", 3.0))
    assert [x.id for x in store.responses()] == ["r_old", "r_new"]


def test_a_file_from_a_newer_program_is_refused(tmp_path):
    path = tmp_path / "new.sqlite"
    Store(path).close()
    db = sqlite_utils.Database(str(path))
    db["meta"].upsert({"key": "schema_version", "value": "99"}, pk="key")
    db.conn.close()
    with pytest.raises(Exception) as e:
        Store(path)
    assert "99" in str(e.value)
