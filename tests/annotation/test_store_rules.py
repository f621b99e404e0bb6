"""Every read and write of the store pinned by hand-written expectations (issue 17: mutation testing).

Each test writes through the Store and reads back either through the Store or straight from the SQLite
file with a separate sqlite-utils connection, so a value is checked where it is kept, not only as the
Store reports it. Expected values are written out literally."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest
import sqlite_utils

from annotation.model import Response, Review, Run, Verification
from annotation.store import (SCHEMA_VERSION, Store, _dumps, human_responder, model_responder, model_spec_of,
                              new_id, responder_of)


def _raw(path: Path, table: str, order: str = "rowid") -> list[dict]:
    """The table's rows as another process would read them."""
    db = sqlite_utils.Database(str(path))
    try:
        return list(db[table].rows_where(order_by=order))
    finally:
        db.conn.close()


def _resp(rid: str, **kw) -> Response:
    base = dict(id=rid, item_id="it", benchmark="interactionbench", responder="human:P1", session_id="s_1",
                t=1.0, kind="press")
    return Response(**{**base, **kw})


def _run(rid: str, **kw) -> Run:
    base = dict(id=rid, benchmark="interactionbench", model_spec="baseline:silent", protocol="p", data_dir="/d",
                config={"k": 1}, status="running", n_total=3, n_done=0, created=10.0)
    return Run(**{**base, **kw})


@pytest.fixture
def store(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    yield st
    st.close()


# ---------------------------------------------------------------- module helpers

def test_responder_keys():
    assert human_responder("P1") == "human:P1"
    assert model_responder("echo:x", "run_7") == "model:echo:x@run_7"


@pytest.mark.parametrize("responder, session, key, spec", [
    ("human:P1", "s_1", "human:P1", ""),
    ("model:m1", "s_1", "model:m1@s_1", "m1"),          # an old live row: the session is appended
    ("model:m1@s_1", "s_1", "model:m1@s_1", "m1"),      # already keyed by its session
    ("model:m1@run_2", "", "model:m1@run_2", "m1@run_2"),  # a batch row (no session): kept whole
    ("model:m1", "", "model:m1", "m1"),
    ("model:m1@", "", "model:m1@", "m1@"),              # no session: nothing is stripped, not even a bare '@'
    ("model:a@s_9", "s_1", "model:a@s_9@s_1", "a@s_9"),  # another session's suffix is part of the spec
    ("", "s_1", "", ""),
    (None, "s_1", "", ""),
    ("humanmodel:x", "s_1", "humanmodel:x", ""),
])
def test_responder_of_and_model_spec_of(responder, session, key, spec):
    r = _resp("r_1", responder=responder, session_id=session)
    assert responder_of(r) == key
    assert model_spec_of(r) == spec


def test_new_id_is_prefix_and_twelve_hex_digits():
    a, b = new_id("r"), new_id("r")
    assert a.startswith("r_") and len(a) == 14 and int(a[2:], 16) >= 0 and a[2:] == a[2:].lower()
    assert a != b
    assert new_id("rv").startswith("rv_") and len(new_id("rv")) == 15


def test_dumps_sorts_keys_and_keeps_unicode():
    assert _dumps({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'
    assert _dumps([1, None]) == "[1, null]"


# ---------------------------------------------------------------- opening and schema

def test_opening_creates_the_folder_wal_and_the_connection_settings(tmp_path):
    st = Store(tmp_path / "a" / "b" / "s.sqlite")
    try:
        assert (tmp_path / "a" / "b" / "s.sqlite").is_file()
        assert st.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert st.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert st.db.execute("PRAGMA busy_timeout").fetchone()[0] == 30000
        assert st._reader().execute("PRAGMA busy_timeout").fetchone()[0] == 30000
        assert st.schema_version() == SCHEMA_VERSION == 1
        assert _raw(tmp_path / "a" / "b" / "s.sqlite", "meta") == [{"key": "schema_version", "value": "1"}]
    finally:
        st.close()


def test_every_table_has_its_columns_types_and_keys(store):
    cols = store.db["responses"].columns_dict
    assert cols == {"id": str, "item_id": str, "benchmark": str, "responder": str, "session_id": str, "t": float,
                    "frame_t": float, "kind": str, "text": str, "audio_path": str, "wall_time": float,
                    "page_id": str, "supersedes": str, "meta": str}
    assert store.db["sessions"].columns_dict == {
        "id": str, "participant": str, "benchmark": str, "item_ids": str, "created": float, "settings": str,
        "current_index": int, "status": str, "data_dir": str, "item_opened": float, "item_opened_index": int}
    keys = {t: store.db[t].pks for t in ("sessions", "responses", "runs", "run_items", "run_calls", "verdicts",
                                          "users", "reviews", "verifications", "auth_tokens", "studies",
                                          "study_links", "meta")}
    assert keys == {"sessions": ["id"], "responses": ["id"], "runs": ["id"], "run_items": ["run_id", "item_id"],
                    "run_calls": ["run_id", "item_id", "t"], "verdicts": ["key"], "users": ["name"],
                    "reviews": ["id"], "verifications": ["id"], "auth_tokens": ["token_hash"], "studies": ["id"],
                    "study_links": ["token_hash"], "meta": ["key"]}
    assert store.db["run_calls"].columns_dict["attempts"] is int
    assert store.db["verdicts"].columns_dict["score"] is float


def test_the_lookup_indexes_exist(store):
    idx = {(t, tuple(i.columns)) for t in store.db.table_names() for i in store.db[t].indexes
           if not i.name.startswith("sqlite_autoindex")}
    assert idx == {("responses", ("session_id", "item_id")), ("responses", ("benchmark", "item_id")),
                   ("reviews", ("benchmark", "item_id")), ("verifications", ("benchmark", "item_id", "user")),
                   ("run_items", ("run_id",)), ("study_links", ("study_id",)), ("study_links", ("session_id",)),
                   ("run_calls", ("run_id", "item_id")), ("auth_tokens", ("user",))}


def test_reopening_keeps_rows_and_version(tmp_path):
    Store(tmp_path / "s.sqlite").create_session("P1", "interactionbench", ["a"], session_id="s_keep")
    st = Store(tmp_path / "s.sqlite")
    assert st.get_session("s_keep").item_ids == ("a",)
    assert st.schema_version() == 1
    st.close()


def test_a_store_at_the_current_version_opens(tmp_path):
    path = tmp_path / "s.sqlite"
    db = sqlite_utils.Database(str(path))
    db["meta"].insert({"key": "schema_version", "value": str(SCHEMA_VERSION)}, pk="key")
    db.conn.close()
    st = Store(path)
    assert st.schema_version() == 1 and st.db["responses"].exists()
    st.close()


@pytest.mark.parametrize("version", ["2", "99"])
def test_a_newer_schema_is_refused_naming_file_and_versions(tmp_path, version):
    path = tmp_path / "new.sqlite"
    db = sqlite_utils.Database(str(path))
    db["meta"].insert({"key": "schema_version", "value": version}, pk="key")
    db.conn.close()
    with pytest.raises(RuntimeError) as e:
        Store(path)
    assert str(e.value) == (f"{path}: schema version {version} is newer than this program (1); upgrade ibench-ui")
    assert _raw(path, "meta") == [{"key": "schema_version", "value": version}]  # left as it was


def test_a_meta_table_without_a_version_is_upgraded_to_version_1(tmp_path):
    path = tmp_path / "s.sqlite"
    db = sqlite_utils.Database(str(path))
    db["meta"].create({"key": str, "value": str}, pk="key")
    db["sessions"].create({"id": str, "participant": str, "benchmark": str, "item_ids": str, "created": float},
                          pk="id")
    db["sessions"].insert({"id": "s_0", "participant": "P0", "benchmark": "interactionbench",
                           "item_ids": '["x"]', "created": 5.0})
    db.conn.close()
    st = Store(path)
    assert st.schema_version() == 1
    assert st.db["sessions"].columns_dict["item_opened_index"] is int
    assert st.db["sessions"].columns_dict["item_opened"] is float
    assert st.db["sessions"].columns_dict["settings"] is str
    s = st.get_session("s_0")  # the added columns are NULL: read as the defaults
    assert (s.item_ids, s.created, s.settings, s.current_index, s.status) == (("x",), 5.0, {}, 0, "open")
    st.close()


# ---------------------------------------------------------------- connections

def test_close_closes_the_writer_and_every_reader(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    st.get_session("none")  # opens this thread's reader
    reader = st._reader()
    st.close()
    with pytest.raises(sqlite3.ProgrammingError):
        st.db.execute("select 1")
    with pytest.raises(sqlite3.ProgrammingError):
        reader.execute("select 1")


def test_each_thread_reads_on_its_own_connection_and_writes_from_any_thread(store):
    mine = store._reader()
    assert store._reader() is mine
    other: list = []
    errors: list = []

    def work():
        try:
            other.append(store._reader())
            store.create_session("P2", "interactionbench", ["a"], session_id="s_thread")
            other.append(store.get_session("s_thread"))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    th = threading.Thread(target=work)
    th.start()
    th.join()
    assert errors == []
    assert other[0] is not mine and other[1].participant == "P2"
    assert store.get_session("s_thread").id == "s_thread"
    assert len(store._reader_conns) == 2


# ---------------------------------------------------------------- sessions

def test_create_session_stores_every_field(tmp_path, store):
    t0 = time.time()
    s = store.create_session("P1", "omniinteract", iter(["i1", "i2"]), {"b": 2, "a": "ü"}, data_dir="/data",
                             session_id="s_x")
    t1 = time.time()
    assert (s.id, s.participant, s.benchmark, s.item_ids, s.settings) == ("s_x", "P1", "omniinteract",
                                                                          ("i1", "i2"), {"b": 2, "a": "ü"})
    assert t0 <= s.created <= t1
    (row,) = _raw(tmp_path / "s.sqlite", "sessions")
    assert row == {"id": "s_x", "participant": "P1", "benchmark": "omniinteract", "item_ids": '["i1", "i2"]',
                   "created": s.created, "settings": '{"a": "ü", "b": 2}', "current_index": 0, "status": "open",
                   "data_dir": "/data", "item_opened": None, "item_opened_index": None}
    assert store.get_session("s_x") == s
    assert store.session_data_dir("s_x") == "/data"


def test_create_session_defaults(tmp_path, store):
    s = store.create_session("P1", "interactionbench", [])
    assert s.id.startswith("s_") and len(s.id) == 14 and s.settings == {} and s.item_ids == ()
    (row,) = _raw(tmp_path / "s.sqlite", "sessions")
    assert (row["settings"], row["data_dir"], row["item_ids"]) == ("{}", "", "[]")
    assert store.session_data_dir(s.id) == ""
    with pytest.raises(sqlite3.IntegrityError):
        store.create_session("P9", "interactionbench", [], session_id=s.id)
    assert store.get_session(s.id).participant == "P1"


def test_missing_sessions(store):
    assert store.get_session("s_none") is None
    assert store.session_data_dir("s_none") == ""
    with pytest.raises(KeyError, match="s_none"):
        store.update_session_settings("s_none", a=1)
    with pytest.raises(KeyError, match="s_none"):
        store.item_opened("s_none", 0)


def test_a_session_row_with_nulls_reads_as_defaults(tmp_path, store):
    store.db["sessions"].insert({"id": "s_n", "participant": "P", "benchmark": "b", "item_ids": "[]",
                                 "created": 1.0, "settings": None, "current_index": None, "status": None})
    s = store.get_session("s_n")
    assert (s.settings, s.current_index, s.status) == ({}, 0, "open")


def test_sessions_filter_by_participant_and_benchmark_in_created_order(tmp_path, store):
    for sid, who, bench in (("s_1", "P1", "b1"), ("s_2", "P2", "b1"), ("s_3", "P1", "b2")):
        store.create_session(who, bench, [], session_id=sid)
    # created decides the order, not the insertion order
    for sid, created in (("s_1", 30.0), ("s_2", 20.0), ("s_3", 10.0)):
        store.db["sessions"].update(sid, {"created": created})
    assert [s.id for s in store.sessions()] == ["s_3", "s_2", "s_1"]
    assert [s.id for s in store.sessions(participant="P1")] == ["s_3", "s_1"]
    assert [s.id for s in store.sessions(benchmark="b1")] == ["s_2", "s_1"]
    assert [s.id for s in store.sessions(participant="P1", benchmark="b1")] == ["s_1"]
    assert [s.id for s in store.sessions(participant="", benchmark="")] == ["s_3", "s_2", "s_1"]
    assert store.sessions(participant="P3") == []


def test_session_progress_and_settings(tmp_path, store):
    store.create_session("P1", "b", ["a", "b"], {"x": 1, "y": 2}, session_id="s_1")
    store.create_session("P2", "b", ["a"], session_id="s_2")
    store.set_session_progress("s_1", 1, "done")
    assert (store.get_session("s_1").current_index, store.get_session("s_1").status) == (1, "done")
    store.set_session_progress("s_1", 2)
    assert (store.get_session("s_1").current_index, store.get_session("s_1").status) == (2, "open")
    assert store.update_session_settings("s_1", y=3, z={"k": "v"}) == {"x": 1, "y": 3, "z": {"k": "v"}}
    assert store.get_session("s_1").settings == {"x": 1, "y": 3, "z": {"k": "v"}}
    assert [r["settings"] for r in _raw(tmp_path / "s.sqlite", "sessions")] == [
        '{"x": 1, "y": 3, "z": {"k": "v"}}', "{}"]
    assert (store.get_session("s_2").current_index, store.get_session("s_2").status) == (0, "open")


def test_update_settings_of_a_session_stored_with_null_settings(store):
    store.db["sessions"].insert({"id": "s_n", "participant": "P", "benchmark": "b", "item_ids": "[]",
                                 "created": 1.0, "settings": None})
    assert store.update_session_settings("s_n", a=1) == {"a": 1}


def test_item_opened_is_set_once_per_index_and_visible_to_other_processes(tmp_path, store):
    store.create_session("P1", "b", ["a", "b"], session_id="s_1")
    store.create_session("P2", "b", ["a"], session_id="s_2")
    t0 = time.time()
    first = store.item_opened("s_1", 0)
    assert t0 <= first <= time.time()
    assert store.item_opened("s_1", 0) == first  # a second call keeps the first time
    rows = {r["id"]: r for r in _raw(tmp_path / "s.sqlite", "sessions")}
    assert (rows["s_1"]["item_opened"], rows["s_1"]["item_opened_index"]) == (first, 0)
    assert (rows["s_2"]["item_opened"], rows["s_2"]["item_opened_index"]) == (None, None)
    second = store.item_opened("s_1", 1)
    assert second >= first
    assert store.item_opened("s_1", 1) == second
    rows = {r["id"]: r for r in _raw(tmp_path / "s.sqlite", "sessions")}
    assert (rows["s_1"]["item_opened"], rows["s_1"]["item_opened_index"]) == (second, 1)
    assert isinstance(store.item_opened("s_1", 1), float)


def test_item_opened_on_the_writer_path_keeps_a_time_set_by_another_connection(tmp_path, store):
    """The reader's fast path is skipped when it has not seen the row yet: the locked path re-checks."""
    store.create_session("P1", "b", ["a"], session_id="s_1")
    store.db.execute("update sessions set item_opened = 123.5, item_opened_index = 0 where id = 's_1'")
    assert store.item_opened("s_1", 0) == 123.5
    store.db.execute("update sessions set item_opened = 7.0, item_opened_index = 3 where id = 's_1'")
    got = store.item_opened("s_1", 2)
    assert got != 7.0
    (row,) = _raw(tmp_path / "s.sqlite", "sessions")
    assert (row["item_opened"], row["item_opened_index"]) == (got, 2)
    store.db.execute("update sessions set item_opened = NULL, item_opened_index = 2 where id = 's_1'")
    fresh = store.item_opened("s_1", 2)
    (row,) = _raw(tmp_path / "s.sqlite", "sessions")
    assert row["item_opened"] == fresh and fresh is not None


# ---------------------------------------------------------------- responses

def test_a_response_round_trips_every_field(tmp_path, store):
    r = Response(id="r_full", item_id="i9", benchmark="omniinteract", responder="model:m@s_1", session_id="s_1",
                 t=2.5, kind="speech", text="héllo", frame_t=2.25, audio_path="/a.wav", wall_time=100.5,
                 page_id="pg1", supersedes=None, meta={"z": 1, "a": "ü"})
    assert store.add_response(r) == r
    assert store.responses() == [r]
    (row,) = _raw(tmp_path / "s.sqlite", "responses")
    assert row == {"id": "r_full", "item_id": "i9", "benchmark": "omniinteract", "responder": "model:m@s_1",
                   "session_id": "s_1", "t": 2.5, "frame_t": 2.25, "kind": "speech", "text": "héllo",
                   "audio_path": "/a.wav", "wall_time": 100.5, "page_id": "pg1", "supersedes": None,
                   "meta": '{"a": "ü", "z": 1}'}


def test_a_new_response_gets_an_r_id(store):
    got = store.add_response(_resp(""))
    assert got.id.startswith("r_") and len(got.id) == 14
    assert [r.id for r in store.responses()] == [got.id]


def test_a_response_row_with_nulls_reads_as_defaults(store):
    store.db["responses"].insert({"id": "r_n", "item_id": "i", "benchmark": "b", "responder": "human:P",
                                  "session_id": "s", "t": 1.0, "kind": "press", "text": None, "page_id": None,
                                  "meta": None})
    (r,) = store.responses()
    assert (r.text, r.page_id, r.meta, r.frame_t, r.supersedes) == ("", "", {}, None, None)


def test_a_duplicate_id_raises_integrity_error_and_adds_nothing(tmp_path, store):
    store.add_response(_resp("r_1", t=1.0, text="a"))
    with pytest.raises(sqlite3.IntegrityError, match="r_1"):
        store.add_response(_resp("r_1", t=2.0, text="b"))
    store.add_response(_resp("r_2", t=3.0))  # the store still takes new rows
    assert [(r["id"], r["t"], r["text"]) for r in _raw(tmp_path / "s.sqlite", "responses")] == [
        ("r_1", 1.0, "a"), ("r_2", 3.0, "")]


def test_responses_filter_by_benchmark_responder_and_all_columns(store):
    store.add_response(_resp("r_a", benchmark="b1", responder="human:P1", session_id="s1", item_id="i1"))
    store.add_response(_resp("r_b", benchmark="b2", responder="human:P1", session_id="s1", item_id="i1"))
    store.add_response(_resp("r_c", benchmark="b1", responder="human:P2", session_id="s2", item_id="i2"))
    store.add_response(_resp("r_d", benchmark="b1", responder="human:P1", session_id="s1", item_id="i2"))
    assert [r.id for r in store.responses(benchmark="b1")] == ["r_a", "r_c", "r_d"]
    assert [r.id for r in store.responses(responder="human:P1")] == ["r_a", "r_b", "r_d"]
    assert [r.id for r in store.responses(session_id="s1", item_id="i1", benchmark="b1",
                                          responder="human:P1")] == ["r_a"]
    assert [r.id for r in store.responses(item_id="i2", responder="human:P2")] == ["r_c"]
    assert [r.id for r in store.responses(session_id="")] == []  # "" is a value, not "any"
    assert [r.id for r in store.responses()] == ["r_a", "r_b", "r_c", "r_d"]


def test_log_order_is_the_insert_order_not_the_media_time_or_id(store):
    store.add_response(_resp("r_z", t=5.0))
    store.add_response(_resp("r_a", t=1.0))
    store.add_response(_resp("r_m", t=3.0))
    assert [r.id for r in store.responses()] == ["r_z", "r_a", "r_m"]
    assert [r.id for r in store.responses(resolve_corrections=False)] == ["r_z", "r_a", "r_m"]


def test_a_correction_copies_the_original_and_records_who(tmp_path, store):
    orig = store.add_response(_resp("r_o", item_id="i3", benchmark="omniinteract", responder="human:P4",
                                    session_id="s_4", t=7.25, kind="speech", text="helo", frame_t=7.0,
                                    audio_path="/x.wav", wall_time=50.0, page_id="pg", meta={"m": 1}))
    t0 = time.time()
    fix = store.correct_response("r_o", "hello", user="rev1")
    assert fix.id.startswith("r_") and fix.id != "r_o" and len(fix.id) == 14
    assert (fix.item_id, fix.benchmark, fix.responder, fix.session_id, fix.t, fix.kind, fix.frame_t,
            fix.page_id, fix.supersedes, fix.meta, fix.text) == (
        "i3", "omniinteract", "human:P4", "s_4", 7.25, "speech", 7.0, "pg", "r_o", {"corrected_by": "rev1"},
        "hello")
    assert fix.audio_path is None and t0 <= fix.wall_time <= time.time()
    rows = _raw(tmp_path / "s.sqlite", "responses")
    assert [(r["id"], r["text"], r["supersedes"]) for r in rows] == [("r_o", "helo", None),
                                                                     (fix.id, "hello", "r_o")]
    (resolved,) = store.responses()
    assert resolved == Response(**{**orig.__dict__, "text": "hello"})
    assert [r.id for r in store.responses(resolve_corrections=False)] == ["r_o", fix.id]


def test_corrections_apply_in_log_order_and_only_to_their_target(store):
    store.add_response(_resp("r_1", text="one"))
    store.add_response(_resp("r_2", text="two"))
    store.add_response(_resp("r_c1", text="ONE", supersedes="r_1"))
    store.add_response(_resp("r_c2", text="Two", supersedes="r_2"))
    store.add_response(_resp("r_c3", text="One!", supersedes="r_1"))
    assert [(r.id, r.text) for r in store.responses()] == [("r_1", "One!"), ("r_2", "Two")]
    assert [r.id for r in store.responses(resolve_corrections=False)] == ["r_1", "r_2", "r_c1", "r_c2", "r_c3"]


# ---------------------------------------------------------------- runs

def test_a_run_round_trips_and_its_empty_fields_are_null(tmp_path, store):
    run = _run("run_1")
    assert store.create_run(run) is run
    assert store.get_run("run_1") == run
    (row,) = _raw(tmp_path / "s.sqlite", "runs")
    assert (row["config"], row["report"], row["error"], row["finished"]) == ('{"k": 1}', None, None, None)
    full = _run("run_2", report={"b": 1, "a": [1]}, error="boom", finished=12.5, n_done=2)
    store.create_run(full)
    assert store.get_run("run_2") == full
    rows = _raw(tmp_path / "s.sqlite", "runs")
    assert (rows[1]["report"], rows[1]["error"]) == ('{"a": [1], "b": 1}', "boom")
    assert store.get_run("run_none") is None


def test_a_run_row_with_nulls_reads_as_defaults(store):
    store.db["runs"].insert({"id": "run_n", "benchmark": "b", "model_spec": "m", "protocol": "p", "data_dir": "",
                             "config": None, "status": "queued", "n_total": None, "n_done": None, "created": None,
                             "report": "", "error": None})
    run = store.get_run("run_n")
    assert (run.config, run.n_total, run.n_done, run.created, run.report, run.error) == ({}, 0, 0, 0.0, None, "")


def test_runs_filter_by_benchmark_in_created_order(store):
    store.create_run(_run("run_a", benchmark="b1", created=30.0))
    store.create_run(_run("run_b", benchmark="b2", created=10.0))
    store.create_run(_run("run_c", benchmark="b1", created=20.0))
    assert [r.id for r in store.runs()] == ["run_b", "run_c", "run_a"]
    assert [r.id for r in store.runs("b1")] == ["run_c", "run_a"]
    assert [r.id for r in store.runs(benchmark="b3")] == []
    assert [r.id for r in store.runs("")] == ["run_b", "run_c", "run_a"]


def test_update_run_serialises_report_and_config(tmp_path, store):
    store.create_run(_run("run_1"))
    store.create_run(_run("run_2"))
    store.update_run("run_1", status="done", finished=99.5, report={"z": 1, "a": 2}, config={"y": 0, "c": "ü"})
    run = store.get_run("run_1")
    assert (run.status, run.finished, run.report, run.config) == ("done", 99.5, {"z": 1, "a": 2}, {"y": 0, "c": "ü"})
    rows = _raw(tmp_path / "s.sqlite", "runs")
    assert (rows[0]["report"], rows[0]["config"]) == ('{"a": 2, "z": 1}', '{"c": "ü", "y": 0}')
    assert store.get_run("run_2").status == "running"
    store.update_run("run_1", report=None, error="why")
    run = store.get_run("run_1")
    assert (run.report, run.error, run.config) == (None, "why", {"y": 0, "c": "ü"})
    assert _raw(tmp_path / "s.sqlite", "runs")[0]["report"] is None


def test_run_items_replace_and_count_per_run(tmp_path, store):
    store.create_run(_run("run_1"))
    store.create_run(_run("run_2"))
    assert store.add_run_item("run_1", "i2", {"s": 1}) is True
    assert store.add_run_item("run_1", "i1", {"s": "é"}) is True
    assert store.add_run_item("run_2", "i1", {"s": 9}) is True
    assert store.add_run_item("run_1", "i2", {"s": 2}) is False
    assert store.run_items("run_1") == {"i2": {"s": 1}, "i1": {"s": "é"}}
    assert list(store.run_items("run_1")) == ["i2", "i1"]  # the order they were written
    assert store.add_run_item("run_1", "i2", {"s": 3}, replace=True) is True
    assert store.run_items("run_1") == {"i1": {"s": "é"}, "i2": {"s": 3}}
    assert (store.get_run("run_1").n_done, store.get_run("run_2").n_done) == (2, 1)
    assert store.run_items("run_none") == {}
    rows = [r for r in _raw(tmp_path / "s.sqlite", "run_items") if r["run_id"] == "run_1"]
    assert sorted(r["result"] for r in rows) == ['{"s": "é"}', '{"s": 3}']


def test_run_calls_are_rounded_encoded_and_replaced_per_tick(tmp_path, store):
    t0 = time.time()
    store.add_run_call("run_1", "i2", 1.0000004, status="ok", attempts=2.0, latency_s=0.25, prompt="p",
                       raw_reply="yes", decision="respond", text="hi", compliant=True,
                       frame_times=(0.1234567, 1), audio_span=(0.5, 1.5))
    store.add_run_call("run_1", "i1", 3.0, status="error", error_kind="timeout", prompt=None, raw_reply=None,
                       text=None, compliant=False)
    store.add_run_call("run_1", "i1", 2.0, status="skipped")
    store.add_run_call("run_3", "i1", 0.1234567, status="ok")
    store.add_run_call("run_2", "i1", 1.0, status="ok")
    rows = {(r["item_id"], r["t"]): r for r in _raw(tmp_path / "s.sqlite", "run_calls")}
    ok = rows[("i2", 1.0)]
    assert {k: v for k, v in ok.items() if k != "created"} == {
        "run_id": "run_1", "item_id": "i2", "t": 1.0, "status": "ok", "error_kind": None, "attempts": 2,
        "latency_s": 0.25, "prompt": "p", "raw_reply": "yes", "decision": "respond", "text": "hi", "compliant": 1,
        "frame_times": "[0.123457, 1.0]", "audio_span": "[0.5, 1.5]",
            "endpoints": None}  # no endpoint pool: no per-attempt endpoints
    assert t0 <= ok["created"] <= time.time()
    err = rows[("i1", 3.0)]
    assert (err["error_kind"], err["attempts"], err["latency_s"], err["prompt"], err["raw_reply"], err["text"],
            err["compliant"], err["decision"], err["frame_times"], err["audio_span"]) == (
        "timeout", 0, None, "", "", "", 0, None, "[]", None)
    assert [rows[("i1", 2.0)][k] for k in ("compliant", "prompt", "raw_reply", "text", "attempts", "latency_s")] == [
        None, "", "", "", 0, None]
    assert [c["t"] for c in store.run_calls("run_3")] == [0.123457]  # rounded to the microsecond
    calls = store.run_calls("run_1")
    assert [(c["item_id"], c["t"]) for c in calls] == [("i1", 2.0), ("i1", 3.0), ("i2", 1.0)]
    assert (calls[2]["frame_times"], calls[2]["audio_span"]) == ([0.123457, 1.0], [0.5, 1.5])
    assert (calls[0]["frame_times"], calls[0]["audio_span"]) == ([], None)
    assert [(c["item_id"], c["t"]) for c in store.run_calls("run_1", item_id="i1")] == [("i1", 2.0), ("i1", 3.0)]
    assert [c["run_id"] for c in store.run_calls("run_2")] == ["run_2"]
    # a later record for the same tick replaces the first (a resumed run retrying an error)
    store.add_run_call("run_1", "i1", 3.0000001, status="ok", attempts=1)
    again = [c for c in store.run_calls("run_1", "i1") if c["t"] == 3.0]
    assert [(c["status"], c["attempts"], c["error_kind"]) for c in again] == [("ok", 1, None)]
    assert len(store.run_calls("run_1")) == 3


def test_a_run_call_row_with_null_frame_times_decodes_as_empty(store):
    store.db["run_calls"].insert({"run_id": "run_1", "item_id": "i", "t": 1.0, "status": "ok",
                                  "frame_times": None, "audio_span": None})
    (c,) = store.run_calls("run_1")
    assert (c["frame_times"], c["audio_span"]) == ([], None)


@pytest.mark.parametrize("status", ["OK", "failed", "", "done"])
def test_a_run_call_status_outside_ok_error_skipped_is_refused(store, status):
    with pytest.raises(ValueError) as e:
        store.add_run_call("run_1", "i", 1.0, status=status)
    assert str(e.value) == f"run call status must be ok, error or skipped, got {status!r}"
    assert store.run_calls("run_1") == []


# ---------------------------------------------------------------- judge verdict cache

def test_verdict_cache_put_get_and_overwrite(store):
    assert store.get("k1") is None
    t0 = time.time()
    store.put("k1", "judge-a", "v1", 0.75, "raw text")
    store.put("k2", "judge-b", "v2", None, "")
    got = store.get("k1")
    assert {k: v for k, v in got.items() if k != "created"} == {"key": "k1", "judge": "judge-a",
                                                               "prompt_version": "v1", "score": 0.75,
                                                               "raw": "raw text"}
    assert t0 <= got["created"] <= time.time()
    store.put("k1", "judge-a", "v3", 0.5, "again")
    assert (store.get("k1")["prompt_version"], store.get("k1")["score"], store.get("k1")["raw"]) == ("v3", 0.5,
                                                                                                     "again")
    assert store.get("k2")["score"] is None


# ---------------------------------------------------------------- users and tokens

def test_users_are_created_once_listed_in_order_and_updated(store):
    t0 = time.time()
    store.add_user("bob", "reviewer", "h1")
    store.add_user("al", "admin", "h2")
    bob = store.get_user("bob")
    assert {k: v for k, v in bob.items() if k != "created"} == {"name": "bob", "role": "reviewer",
                                                               "password_hash": "h1", "active": 1}
    assert t0 <= bob["created"] <= time.time()
    with pytest.raises(ValueError) as e:
        store.add_user("bob", "admin", "h3")
    assert str(e.value) == "user 'bob' already exists"
    assert store.get_user("bob")["password_hash"] == "h1"
    store.db["users"].update("al", {"created": 1.0})  # created decides the order
    assert [u["name"] for u in store.users()] == ["al", "bob"]
    store.update_user("bob", role="admin", active=0)
    assert (store.get_user("bob")["role"], store.get_user("bob")["active"]) == ("admin", 0)
    assert store.get_user("al")["role"] == "admin" and store.get_user("al")["active"] == 1
    with pytest.raises(KeyError) as e:
        store.update_user("carol", role="admin")
    assert e.value.args[0] == "no user 'carol'"
    assert store.get_user("carol") is None


def test_tokens_are_stored_and_revoked_one_at_a_time(store):
    t0 = time.time()
    store.add_token("th1", "bob", 500.0)
    store.add_token("th2", "bob", 600.0)
    tok = store.get_token("th1")
    assert {k: v for k, v in tok.items() if k not in ("created", "last_seen")} == {
        "token_hash": "th1", "user": "bob", "expires": 500.0, "revoked": 0, "idle": None, "link": None}
    assert t0 <= tok["created"] == tok["last_seen"] <= time.time()
    store.revoke_token("th1")
    assert (store.get_token("th1")["revoked"], store.get_token("th2")["revoked"]) == (1, 0)
    assert store.get_token("th3") is None
    with pytest.raises(sqlite3.IntegrityError):
        store.add_token("th2", "eve", 1.0)
    assert store.get_token("th2")["user"] == "bob"


# ---------------------------------------------------------------- reviews and verifications

def _review(rid: str, **kw) -> Review:
    base = dict(id=rid, benchmark="b1", item_id="i1", user="u1", field="answer", old_value={"a": 1},
                new_value=["x", "ü"], reason="typo", created=5.0, status="pending")
    return Review(**{**base, **kw})


def test_reviews_round_trip_filter_and_keep_write_order(tmp_path, store):
    a = store.add_review(_review("rv_a"))
    assert a == _review("rv_a")
    b = store.add_review(_review("", item_id="i2", user="u2", created=1.0, status=None))
    assert b.id.startswith("rv_") and len(b.id) == 15
    store.add_review(_review("rv_c", benchmark="b2", user="u2"))
    assert store.reviews() == [a, b, _review("rv_c", benchmark="b2", user="u2")]  # write order, not created
    assert [r.id for r in store.reviews(benchmark="b1")] == ["rv_a", b.id]
    assert [r.id for r in store.reviews(item_id="i1")] == ["rv_a", "rv_c"]
    assert [r.id for r in store.reviews(user="u2")] == [b.id, "rv_c"]
    assert [r.id for r in store.reviews(benchmark="b1", item_id="i1", user="u1")] == ["rv_a"]
    row = _raw(tmp_path / "s.sqlite", "reviews")[0]
    assert (row["old_value"], row["new_value"]) == ('{"a": 1}', '["x", "ü"]')
    with pytest.raises(sqlite3.IntegrityError):
        store.add_review(_review("rv_a", reason="other"))
    assert store.reviews(item_id="i1")[0].reason == "typo"


def test_a_review_without_reason_reads_as_empty(store):
    store.db["reviews"].insert({"id": "rv_n", "benchmark": "b", "item_id": "i", "user": "u", "field": "f",
                                "old_value": "null", "new_value": "1", "reason": None, "status": None,
                                "created": 1.0})
    (r,) = store.reviews()
    assert (r.reason, r.old_value, r.new_value, r.status) == ("", None, 1, None)


def _verification(vid: str, **kw) -> Verification:
    base = dict(id=vid, benchmark="b1", item_id="i1", target_id="t1", user="u1", kind="trigger",
                value={"t": 1.5, "n": "é"}, created=3.0)
    return Verification(**{**base, **kw})


def test_verifications_round_trip_filter_and_keep_write_order(tmp_path, store):
    a = store.add_verification(_verification("vf_a"))
    assert a == _verification("vf_a")
    b = store.add_verification(_verification("", item_id="i2", kind="prefix", value=True, created=1.0))
    assert b.id.startswith("vf_") and len(b.id) == 15
    c = store.add_verification(_verification("vf_c", benchmark="b2", user="u2"))
    assert store.verifications() == [a, b, c]
    assert store.verifications(benchmark="b1") == [a, b]
    assert store.verifications(item_id="i1") == [a, c]
    assert store.verifications(user="u2") == [c]
    assert store.verifications(kind="prefix") == [b]
    assert store.verifications(benchmark="b1", item_id="i1", user="u1", kind="trigger") == [a]
    assert _raw(tmp_path / "s.sqlite", "verifications")[0]["value"] == '{"n": "é", "t": 1.5}'


def test_a_correction_of_an_unknown_response_names_it(store):
    with pytest.raises(KeyError) as e:
        store.correct_response("r_missing", "x", user="rev1")
    assert e.value.args == ("no response r_missing",)
    assert store.responses(resolve_corrections=False) == []


def test_after_a_refused_batch_the_store_takes_new_responses(tmp_path, store):
    """A failed commit is rolled back, so the next one starts its own transaction."""
    store.add_response(_resp("r_ok"))
    store.db.execute("create trigger no_more before insert on responses begin select raise(abort, 'no'); end")
    with pytest.raises(sqlite3.IntegrityError):
        store.add_response(_resp("r_refused"))
    store.db.execute("drop trigger no_more")
    store.add_response(_resp("r_next", t=2.0))
    assert [r["id"] for r in _raw(tmp_path / "s.sqlite", "responses")] == ["r_ok", "r_next"]


def test_reviews_and_verifications_come_back_in_write_order_not_index_order(store):
    """The (benchmark, item_id) lookup index would return i1 before i2; the log order is the write order."""
    store.add_review(_review("rv_2", item_id="i2"))
    store.add_review(_review("rv_1", item_id="i1"))
    assert [r.id for r in store.reviews(benchmark="b1")] == ["rv_2", "rv_1"]
    assert [r.id for r in store.reviews()] == ["rv_2", "rv_1"]
    store.add_verification(_verification("vf_2", item_id="i2"))
    store.add_verification(_verification("vf_1", item_id="i1"))
    assert [v.id for v in store.verifications(benchmark="b1")] == ["vf_2", "vf_1"]
    assert [v.id for v in store.verifications()] == ["vf_2", "vf_1"]


class _GatedLock:
    """The store's lock, reporting when a thread other than the holder starts waiting for it."""

    def __init__(self, lock):
        self.lock, self.waiting, self.armed = lock, threading.Event(), False

    def __enter__(self):
        if self.armed and threading.current_thread() is not threading.main_thread():
            self.waiting.set()
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


def test_item_opened_keeps_a_time_set_while_it_waited_for_the_lock(tmp_path, store):
    """Caller A reads 'not opened yet', then waits for the lock; meanwhile another caller opens the item at
    123.5. A must return 123.5 (re-checked under the lock), not overwrite it with its own time."""
    store.create_session("P1", "b", ["a"], session_id="s_1")
    real = store._lock
    gate = store._lock = _GatedLock(real)
    ready, go, got, errors = threading.Event(), threading.Event(), [], []

    def caller():
        try:
            store._reader()  # this thread's read connection exists before the race
            ready.set()
            assert go.wait(60)
            got.append(store.item_opened("s_1", 0))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    th = threading.Thread(target=caller)
    th.start()
    assert ready.wait(60)
    with real:
        gate.armed = True
        go.set()
        assert gate.waiting.wait(60)  # A has read the row (not opened) and now waits for the lock
        store.db.execute("update sessions set item_opened = 123.5, item_opened_index = 0 where id = 's_1'")
    th.join(60)
    store._lock = real
    assert errors == [] and got == [123.5]
    (row,) = _raw(tmp_path / "s.sqlite", "sessions")
    assert (row["item_opened"], row["item_opened_index"]) == (123.5, 0)


class _Flaky:
    """enable_wal failing with `error` for the first `n` calls (what a second process switching the same new
    file to WAL can cause), then the real one."""

    def __init__(self, n: int, error: str):
        self.n, self.error, self.calls = n, error, 0
        self.real = sqlite_utils.Database.enable_wal

    def __call__(self, db):
        self.calls += 1
        if self.calls <= self.n:
            raise sqlite3.OperationalError(self.error)
        return self.real(db)


def _flaky_open(monkeypatch, n: int, error: str) -> tuple[_Flaky, list]:
    """Make the store's enable_wal fail `n` times with `error`; its backoff sleeps are recorded, not slept.

    Both patches are process-wide (a class attribute and `time.sleep`), so they act only on this test's
    thread: a background thread left by another test keeps the real enable_wal and really sleeps."""
    flaky, slept = _Flaky(n, error), []
    me, real_wal, real_sleep = threading.get_ident(), sqlite_utils.Database.enable_wal, time.sleep

    def enable_wal(db):
        return flaky(db) if threading.get_ident() == me else real_wal(db)

    def sleep(seconds):
        return slept.append(seconds) if threading.get_ident() == me else real_sleep(seconds)

    monkeypatch.setattr(sqlite_utils.Database, "enable_wal", enable_wal)
    monkeypatch.setattr("annotation.store.time.sleep", sleep)
    return flaky, slept


def test_opening_retries_a_locked_file_with_a_capped_backoff(tmp_path, monkeypatch):
    flaky, slept = _flaky_open(monkeypatch, 30, "database is locked")
    st = Store(tmp_path / "s.sqlite")
    # attempt k (from 0) waits min(0.5, 0.02 (k + 1)): 0.02, 0.04, ... 0.48, then 0.5 from the 25th on
    assert slept == pytest.approx([0.02 * k for k in range(1, 25)] + [0.5] * 6)
    assert flaky.calls == 31 and st.schema_version() == 1
    st.close()


def test_opening_gives_up_after_100_locked_attempts(tmp_path, monkeypatch):
    flaky, slept = _flaky_open(monkeypatch, 1000, "database is locked")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        Store(tmp_path / "s.sqlite")
    assert (flaky.calls, len(slept)) == (100, 99)


def test_opening_does_not_retry_other_errors(tmp_path, monkeypatch):
    flaky, slept = _flaky_open(monkeypatch, 1, "disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        Store(tmp_path / "s.sqlite")
    assert (flaky.calls, slept) == (1, [])


def test_responses_come_back_in_log_order_not_index_order(store):
    """The (session_id, item_id) and (benchmark, item_id) indexes would return item i1 before i2."""
    store.add_response(_resp("r_late_item", item_id="i2", session_id="s_1"))
    store.add_response(_resp("r_early_item", item_id="i1", session_id="s_1"))
    assert [r.id for r in store.responses(session_id="s_1")] == ["r_late_item", "r_early_item"]
    assert [r.id for r in store.responses(benchmark="interactionbench")] == ["r_late_item", "r_early_item"]


def test_every_session_of_an_account_ends_at_once(store):
    store.add_token("a1", "ann", 500.0)
    store.add_token("a2", "ann", 500.0, idle=60.0)
    store.add_token("b1", "bob", 500.0)
    store.revoke_user_tokens("ann")
    assert [store.get_token(h)["revoked"] for h in ("a1", "a2", "b1")] == [1, 1, 0]
