"""Opening a store: a new store opened by several processes at once comes up whole in all of them (the app and
a CLI command, or two commands, may start together); the opening checks refuse what is not a store."""
import multiprocessing
import sqlite3

import pytest

from annotation.store import SCHEMA_VERSION, Store, StoreError, check_store_path


def _open(path):
    Store(path).close()


def test_a_new_store_opened_by_four_processes_at_once(tmp_path):
    ctx = multiprocessing.get_context("fork")  # fork: the race is in opening, not in importing
    for k in range(3):
        path = tmp_path / f"s{k}.sqlite"
        procs = [ctx.Process(target=_open, args=(str(path),)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        assert [p.exitcode for p in procs] == [0, 0, 0, 0]
        assert Store(path).schema_version() == SCHEMA_VERSION


def test_opening_checks(tmp_path):
    (tmp_path / "empty.sqlite").write_bytes(b"")
    check_store_path(tmp_path / "empty.sqlite", create=False)  # an empty file is an empty database
    check_store_path(tmp_path / "new.sqlite", create=True)
    assert not (tmp_path / "new.sqlite").exists()  # checking creates nothing
    with pytest.raises(StoreError, match="found nothing"):
        check_store_path(tmp_path / "new.sqlite", create=False)
    with pytest.raises(StoreError, match="folder"):
        check_store_path(tmp_path, create=True)
    with pytest.raises(StoreError, match="parent folder"):
        check_store_path(tmp_path / "no" / "such" / "db.sqlite", create=True)
    (tmp_path / "text.sqlite").write_text("hello")
    with pytest.raises(StoreError, match="not SQLite"):
        check_store_path(tmp_path / "text.sqlite", create=False)
    conn = sqlite3.connect(tmp_path / "v.sqlite")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', 'abc')")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="integer schema version"):
        check_store_path(tmp_path / "v.sqlite", create=False)
    Store(tmp_path / "ok.sqlite").close()
    check_store_path(tmp_path / "ok.sqlite", create=False)
