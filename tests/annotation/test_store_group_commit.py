"""Group commit of responses: many writers at once, each returns only once its row is committed and
readable from another connection; a retried id raises IntegrityError and adds no row."""
import sqlite3
import threading
import time

import pytest

from annotation.model import Response
from annotation.store import Store


def _r(rid: str, sid: str = "s1", t: float = 1.0) -> Response:
    return Response(id=rid, item_id="i", benchmark="interactionbench", responder="human:p", session_id=sid,
                    t=t, kind="press", wall_time=time.time(), meta={"k": rid})


def test_concurrent_writers_each_committed_on_return(tmp_path):
    st = Store(tmp_path / "db.sqlite")
    n_threads, per = 24, 15
    barrier = threading.Barrier(n_threads)
    missing, dup_errors, errors = [], [], []

    def writer(k: int) -> None:
        other = sqlite3.connect(str(tmp_path / "db.sqlite"))  # another connection, as another process would read
        barrier.wait()
        for i in range(per):
            rid = f"r_{k:02d}_{i:02d}"
            try:
                st.add_response(_r(rid, t=i))
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)
                continue
            if other.execute("select count(*) from responses where id = ?", [rid]).fetchone()[0] != 1:
                missing.append(rid)
            try:
                st.add_response(_r(rid, t=99.0))  # the retry of the same id
            except sqlite3.IntegrityError:
                dup_errors.append(rid)
        other.close()

    ts = [threading.Thread(target=writer, args=(k,)) for k in range(n_threads)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert errors == [] and missing == []
    assert len(dup_errors) == n_threads * per
    rows = st.responses()
    assert len(rows) == n_threads * per and len({r.id for r in rows}) == n_threads * per
    assert all(r.t != 99.0 for r in rows) and rows[0].meta == {"k": rows[0].id}
    st.close()


def test_a_failed_batch_reports_to_every_caller(tmp_path):
    st = Store(tmp_path / "db.sqlite")
    st.add_response(_r("r_ok"))
    st.db.execute("create trigger no_more before insert on responses begin select raise(abort, 'disk says no'); end")
    with pytest.raises(sqlite3.IntegrityError, match="disk says no"):
        st.add_response(_r("r_refused"))
    assert [r.id for r in st.responses()] == ["r_ok"]
    st.close()


def test_writers_arriving_during_a_commit_share_the_next_one(tmp_path):
    """The batching itself: while one commit is in progress (held open here by a gate), two more writers queue
    and are committed together in one transaction, so the commits are [1 row, 2 rows], not three of one."""
    st = Store(tmp_path / "db.sqlite")
    real, sizes = st._commit_responses, []
    in_commit, gate = threading.Event(), threading.Event()

    def gated(batch):
        sizes.append(len(batch))
        if len(sizes) == 1:  # the first commit waits until the others have queued
            in_commit.set()
            assert gate.wait(120)
        return real(batch)
    st._commit_responses = gated
    ts = [threading.Thread(target=st.add_response, args=(_r("r_first"),))]
    ts[0].start()
    assert in_commit.wait(120)
    ts += [threading.Thread(target=st.add_response, args=(_r(f"r_next{k}"),)) for k in (1, 2)]
    [t.start() for t in ts[1:]]
    deadline = time.monotonic() + 120  # a generous deadline for the two writers to queue (or, broken, to commit)
    while time.monotonic() < deadline and len(st._gc_queue) < 2 and len(sizes) < 3:
        time.sleep(0.01)
    gate.set()
    [t.join(120) for t in ts]
    assert sizes == [1, 2]
    assert sorted(r.id for r in st.responses()) == ["r_first", "r_next1", "r_next2"]
    st.close()
