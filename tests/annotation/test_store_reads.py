"""The store's hot reads (issue 14, load): who is calling, which session, which study link are read on the
calling thread's own WAL reader, so they answer while another caller holds the write lock for a commit,
and they see every committed row at once, including one committed by another process's connection."""
from __future__ import annotations

import threading

from annotation import studies
from annotation.store import Store


def test_query_returns_rows_as_dicts_with_bound_parameters(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    st.add_user("bea", "annotator", "h1")
    st.add_user("al", "admin", "h2")
    assert st.query("select name, role from users where name = ?", ["al"]) == [{"name": "al", "role": "admin"}]
    assert st.query("select name from users where name = ?", ["nobody"]) == []
    assert st.query("select count(*) as n from users") == [{"n": 2}]
    st.close()


def test_has_users_and_users_in_creation_order(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    assert st.has_users() is False and st.users() == []
    st.add_user("zed", "reviewer", "h1")
    st.add_user("amy", "admin", "h2")
    assert st.has_users() is True
    assert [u["name"] for u in st.users()] == ["zed", "amy"]  # created order, not name order
    assert st.get_user("amy")["role"] == "admin" and st.get_user("nobody") is None
    st.close()


def test_reads_answer_while_the_write_lock_is_held(tmp_path):
    """A commit holds the store's write lock through its fsync; a request's reads must not queue behind it."""
    st = Store(tmp_path / "s.sqlite")
    st.add_user("al", "admin", "h")
    st.add_token("tokhash", "al", expires=4e9)
    s = st.create_session("P1", "interactionbench", ["a#0"])
    got, done = {}, threading.Event()

    def reader():
        got["user"] = st.get_user("al")["name"]
        got["token"] = st.get_token("tokhash")["user"]
        got["has"] = st.has_users()
        got["session"] = st.get_session(s.id).participant
        done.set()

    with st._lock:  # as _commit_responses holds it during BEGIN ... COMMIT
        t = threading.Thread(target=reader)
        t.start()
        finished_under_lock = done.wait(60)  # generous: it must finish while the lock is still held
    t.join(60)
    assert finished_under_lock and got == {"user": "al", "token": "al", "has": True, "session": "P1"}
    st.close()


def test_a_reader_sees_a_row_another_connection_just_committed(tmp_path):
    a = Store(tmp_path / "s.sqlite")
    assert a.get_session("s_other") is None and a.has_users() is False  # this thread's reader is now open
    b = Store(tmp_path / "s.sqlite")  # another connection, as another process would have
    b.create_session("P9", "interactionbench", ["a#0"], session_id="s_other")
    b.add_user("kim", "annotator", "h")
    assert a.get_session("s_other").participant == "P9" and a.has_users() is True
    a.close()
    b.close()


def test_a_revoked_study_link_stops_resolving_at_once(tmp_path):
    st = Store(tmp_path / "s.sqlite")
    study, tokens = studies.create_study(st, "interactionbench", ["ann"], ["moving_square#0"], {})
    assert studies.resolve_token(st, tokens["ann"]).participant == "ann"
    assert studies.get_study(st, study.id).id == study.id
    studies.revoke_link(st, study.id, "ann")
    assert studies.resolve_token(st, tokens["ann"]) is None
    st.close()
