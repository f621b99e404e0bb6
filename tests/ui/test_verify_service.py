"""VerifyService without a browser: a signed-in caller only, acting on their own records: the queue,
blind marks and their reveal, next unverified, the offset and calibration, the prefix walk and agreement.
Expected values are worked by hand from the embedded InteractScope demo (is-t2-blue: one event proposed at
10.0 s, a prefix of nine 1 s intervals from 1 s; is-t8a-math: no prefix)."""
from __future__ import annotations

import json

import pytest

from annotation import auth
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.verify_service import VerifyService

IS = "interactscope"
BLUE = "is-t2-blue"


@pytest.fixture
def env(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    for name in ("ann", "bob"):
        auth.create_user(store, name, "annotator", f"{name}-password")
    toks = {n: auth.sign_in(store, n, f"{n}-password") for n in ("ann", "bob")}
    return VerifyService(AppContext(store=store)), toks


def test_a_signed_out_caller_is_refused(env):
    svc, _toks = env
    for tok in ("", None, "forged"):
        with pytest.raises(PermissionError):
            svc.queue(tok, IS)
        with pytest.raises(PermissionError):
            svc.submit(tok, IS, BLUE, 0, "10.5", "ms", "")


def test_the_queue_before_any_mark(env):
    svc, toks = env
    q = svc.queue(toks["ann"], IS)
    assert len(q.ids) == 10 and q.first == "is-t1-timer" and q.offset == 0.0
    rows = {r[0]: r for r in q.rows}
    assert rows[BLUE] == (BLUE, "T2", "0/1", "not started")
    assert rows["is-t4-count"] == ("is-t4-count", "T4", "0/4", "not started")
    assert rows["is-t8a-math"] == ("is-t8a-math", "T8", "0/1", "no prefix")


def test_a_blind_mark_is_revealed_to_its_maker_only_and_can_be_withdrawn(env):
    svc, toks = env
    m = svc.submit(toks["ann"], IS, BLUE, 0, " 10.5 ", "ms", "")
    assert m.user.name == "ann" and m.t == 10.5
    assert m.reveal["mark"] == 10.5 and m.reveal["proposed"] == 10.0 and m.reveal["delta"] == pytest.approx(0.5)
    assert m.marks == [{"t": 10.5, "label": "my mark 1", "tier": "mine", "target": "g1"}]
    assert (BLUE, "T2", "1/1", "not started") in m.rows
    assert svc.open(toks["ann"], IS, BLUE).reveal["mark"] == 10.5
    other = svc.open(toks["bob"], IS, BLUE)
    assert other.events == ["event 1"] and other.reveal is None and other.marks == []  # bob sees none of ann's
    gone = svc.withdraw(toks["ann"], IS, BLUE, 0)
    assert gone.t is None and gone.reveal is None and gone.marks == []
    assert svc.reveal(toks["ann"], IS, BLUE, 0) is None


def test_a_mark_needs_an_event_and_a_time(env):
    svc, toks = env
    with pytest.raises(ValueError, match="choose an item and an event"):
        svc.submit(toks["ann"], IS, BLUE, None, "10", "ms", "")
    with pytest.raises(ValueError, match="enter the mark"):
        svc.submit(toks["ann"], IS, BLUE, 0, "", "ms", "")
    with pytest.raises(ValueError, match="a time in seconds, got 'soon'"):
        svc.submit(toks["ann"], IS, BLUE, 0, "soon", "ms", "")


def test_next_unverified_skips_items_whose_mark_and_walk_are_done(env):
    svc, toks = env
    # is-t8a-math has no prefix: its one mark verifies it; is-t2-blue still has its walk to do
    svc.submit(toks["ann"], IS, "is-t8a-math", 0, "13", "ms", "")
    svc.submit(toks["ann"], IS, BLUE, 0, "10", "ms", "")
    assert svc.next_item(toks["ann"], IS, "is-t1-timer") == BLUE
    assert svc.next_item(toks["ann"], IS, "is-t7-narrate") == "is-t8b-colour"
    assert svc.next_item(toks["ann"], IS, "is-t8c-eggs") == "is-t1-timer"  # past the last: from the top


def test_offset_typed_and_calibrated(env):
    svc, toks = env
    user, off = svc.set_offset(toks["ann"], 0.25)
    assert (user.name, off) == ("ann", 0.25) and svc.queue(toks["ann"], IS).offset == 0.25
    user, off, n = svc.calibrate(toks["ann"], json.dumps({"reactions": [0.4, 0.2, 0.3]}))
    assert (off, n) == (0.3, 3)  # the median
    assert svc.queue(toks["bob"], IS).offset == 0.0
    with pytest.raises(ValueError, match="no reaction times"):
        svc.calibrate(toks["ann"], "[1, 2]")


def test_the_prefix_walk_waits_for_the_blind_mark_then_steps_and_goes_back(env):
    svc, toks = env
    with pytest.raises(PermissionError, match="blind mark"):
        svc.start_walk(toks["ann"], IS, BLUE)
    svc.submit(toks["ann"], IS, BLUE, 0, "10", "ms", "")
    w = svc.start_walk(toks["ann"], IS, BLUE)
    assert (w.state["total"], w.state["done"], w.state["current"]) == (9, 0, (1.0, 2.0))
    w = svc.mark_interval(toks["ann"], IS, BLUE, 1.0, False)
    assert (w.state["done"], w.state["current"], w.state["status"]) == (1, (2.0, 3.0), "incomplete")
    assert (BLUE, "T2", "1/1", "incomplete") in w.rows
    w = svc.back(toks["ann"], IS, BLUE, 2.0)
    assert w.state["current"] == (1.0, 2.0) and w.state["verdict"] is False
    with pytest.raises(ValueError, match="start the prefix walk"):
        svc.mark_interval(toks["ann"], IS, BLUE, None, True)
    svc.submit(toks["ann"], IS, "is-t8a-math", 0, "13", "ms", "")
    assert svc.start_walk(toks["ann"], IS, "is-t8a-math").state["total"] == 0


def test_agreement_of_one_benchmark_or_all(env):
    svc, toks = env
    assert [r.benchmark for r in svc.agreement(toks["ann"], IS)] == [IS]
    assert len(svc.agreement(toks["ann"], "all")) == 4


def test_what_is_left_on_an_item_and_previous_item(env):
    svc, toks = env
    # is-t2-blue: one event and nine prefix intervals, both part of verifying it
    assert svc.left_on(toks["ann"], IS, BLUE) == "1 of 1 event(s) unmarked; prefix walk 0 of 9 intervals decided"
    svc.submit(toks["ann"], IS, BLUE, 0, "10", "ms", "")
    svc.mark_interval(toks["ann"], IS, BLUE, 1.0, False)
    assert svc.left_on(toks["ann"], IS, BLUE) == "prefix walk 1 of 9 intervals decided"
    assert svc.left_on(toks["ann"], IS, "is-t8a-math") == "1 of 1 event(s) unmarked"  # no prefix
    svc.submit(toks["ann"], IS, "is-t8a-math", 0, "13", "ms", "")
    assert svc.left_on(toks["ann"], IS, "is-t8a-math") is None
    assert svc.left_on(toks["ann"], IS, "") is None
    # previous: the queue's order, finished or not; nothing before the first
    assert svc.prev_item(toks["ann"], IS, BLUE) == "is-t1-timer"
    assert svc.prev_item(toks["ann"], IS, "is-t1-timer") is None


def test_next_is_none_when_only_the_current_item_is_unfinished(env):
    svc, toks = env
    ids = svc.queue(toks["ann"], IS).ids
    for iid in ids[1:]:  # every event marked and every walk passed, but on the first item
        o = svc.open(toks["ann"], IS, iid)
        for k in range(len(o.events)):
            svc.submit(toks["ann"], IS, iid, k, "13", "ms", "")
        state = svc.start_walk(toks["ann"], IS, iid).state
        while state.get("current"):
            state = svc.mark_interval(toks["ann"], IS, iid, state["current"][0], False).state
    assert svc.next_item(toks["ann"], IS, ids[0]) is None
    assert svc.next_item(toks["ann"], IS, ids[1]) == ids[0]


def test_others_marks_show_only_on_events_a_reviewer_decided(env):
    from annotation import verification
    svc, toks = env
    svc.submit(toks["bob"], IS, BLUE, 0, "11", "ms", "")
    assert svc.open(toks["ann"], IS, BLUE).marks == []  # blind: nothing of bob's before ann's own mark
    m = svc.submit(toks["ann"], IS, BLUE, 0, "10", "ms", "")
    assert [p["tier"] for p in m.marks] == ["mine"]  # marked, but not decided: still only ann's own
    item = svc.ctx.item(IS, BLUE)
    verification.adjudicate(svc.ctx.store, auth.User("rev", "reviewer"), item, verification.TRIGGER, "g1", 10.4,
                            "midway")
    marks = svc.open(toks["ann"], IS, BLUE).marks
    assert [(p["tier"], p["t"], p["label"]) for p in marks] == [("mine", 10.0, "my mark 1"), ("others", 11.0, "bob 1")]
