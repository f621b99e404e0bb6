"""ReviewService without a browser: the role check on every method, the queue and its filters, next, edits
with undo, the status, adjudication and export. Expected values are worked by hand from the embedded
InteractScope demo (10 items; is-t2-blue's one event is proposed at 10.0 s)."""
from __future__ import annotations

import json

import pytest

from annotation import auth, verification
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.review_service import ReviewService

IS = "interactscope"
BLUE = "is-t2-blue"
ORDER = ["is-t1-timer", "is-t2-blue", "is-t3-hot", "is-t4-count", "is-t5-remind", "is-t6-wave", "is-t7-narrate",
         "is-t8a-math", "is-t8b-colour", "is-t8c-eggs"]


@pytest.fixture
def env(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    for name, role in [("ann", "annotator"), ("bob", "annotator"), ("rev", "reviewer")]:
        auth.create_user(store, name, role, f"{name}-password")
    ctx = AppContext(store=store)
    toks = {n: auth.sign_in(store, n, f"{n}-password") for n in ("ann", "rev")}
    return ReviewService(ctx), ctx, toks


def _mark(ctx, who: str, t: float) -> None:
    verification.submit_mark(ctx.store, auth.User(who, "annotator"), ctx.item(IS, BLUE), 0, t, "ms")


def test_every_method_refuses_an_annotator_and_a_signed_out_caller(env):
    svc, _ctx, toks = env
    calls = [lambda t: svc.queue(t, IS, "all", ""), lambda t: svc.next_item(t, IS, "all", "", None),
             lambda t: svc.item(t, IS, BLUE), lambda t: svc.field_value(t, IS, BLUE, "target.g1.anchor"),
             lambda t: svc.edit(t, IS, BLUE, "target.g1.anchor", "11", "why"),
             lambda t: svc.set_status(t, IS, BLUE, "accepted", ""), lambda t: svc.disputes(t, IS),
             lambda t: svc.export(t, IS, "jsonl", "x", False)]
    for tok in (toks["ann"], "", None):
        for call in calls:
            with pytest.raises(PermissionError):
                call(tok)


def test_queue_lists_every_item_then_filters_by_dispute_and_verifier(env):
    svc, ctx, toks = env
    q = svc.queue(toks["rev"], IS, "all", "")
    assert [r[0] for r in q.rows] == ORDER
    assert q.rows[1] == (BLUE, "T2", "unreviewed", "unchecked", 0, "")
    assert q.annotators == [] and q.disputes.queue == [] and q.disputes.selected is None
    _mark(ctx, "bob", 11.72)
    _mark(ctx, "ann", 10.0)  # 1.72 s apart: beyond the 0.5 s threshold, one open dispute
    q = svc.queue(toks["rev"], IS, "undecided disputes", "")
    assert q.rows == [(BLUE, "T2", "unreviewed", "unchecked", 1, "ann, bob")]
    assert q.annotators == ["ann", "bob"]
    assert [d.item_id for d in q.disputes.queue] == [BLUE] and q.disputes.selected == q.disputes.queue[0].key
    assert [r[0] for r in svc.queue(toks["rev"], IS, "all", "bob").rows] == [BLUE]
    assert ("bob", 1, 1, 0, 0) in q.progress  # one event marked, blind; no prefix walk


def test_next_item_walks_the_queue_and_wraps(env):
    svc, _ctx, toks = env
    assert svc.next_item(toks["rev"], IS, "all", "", BLUE) == "is-t3-hot"
    assert svc.next_item(toks["rev"], IS, "all", "", "is-t8c-eggs") == "is-t1-timer"
    assert svc.next_item(toks["rev"], IS, "all", "", None) == "is-t1-timer"
    assert svc.next_item(toks["rev"], IS, "accepted", "", BLUE) is None  # nothing accepted yet


def test_edit_then_undo_restores_the_anchor_and_keeps_both_records(env):
    svc, _ctx, toks = env
    view = svc.item(toks["rev"], IS, BLUE)
    assert view.field == "target.g1.anchor" and view.value == 10.0 and view.status == "unreviewed"
    done = svc.edit(toks["rev"], IS, BLUE, "target.g1.anchor", "11", "blue fills the frame at 11 s")
    assert (done.user.name, done.record.field, done.record.old_value, done.record.new_value) == (
        "rev", "target.g1.anchor", 10.0, 11.0)
    assert done.view.item.targets[0].anchor == 11.0
    assert [r.id for r in done.view.undoable] == [done.record.id]
    assert svc.field_value(toks["rev"], IS, BLUE, "target.g1.anchor") == 11.0
    back = svc.undo(toks["rev"], IS, BLUE, done.record.id, "too late")
    assert back.record.new_value == 10.0 and back.view.item.targets[0].anchor == 10.0
    assert [r.reason for r in back.view.history if r.field == "target.g1.anchor"] == [
        "blue fills the frame at 11 s", f"undo {done.record.id}: too late"]


def test_edit_and_undo_need_their_choices(env):
    svc, _ctx, toks = env
    with pytest.raises(ValueError, match="choose an item and a field"):
        svc.edit(toks["rev"], IS, BLUE, "", "11", "x")
    with pytest.raises(ValueError, match="the edit to undo"):
        svc.undo(toks["rev"], IS, BLUE, None, "x")


def test_a_drag_names_the_field_its_value_now_and_the_dragged_value(env):
    svc, _ctx, toks = env
    payload = json.dumps({"field": "target.g1.anchor", "value": "12.5"})
    assert svc.drag(toks["rev"], IS, BLUE, payload) == ("target.g1.anchor", 10.0, "12.5")
    with pytest.raises(ValueError, match="unreadable drag"):
        svc.drag(toks["rev"], IS, BLUE, "{not json")
    with pytest.raises(ValueError, match="cannot be edited"):
        svc.drag(toks["rev"], IS, BLUE, json.dumps({"field": "request.nowhere", "value": "1"}))


def test_status_then_filter(env):
    svc, _ctx, toks = env
    done = svc.set_status(toks["rev"], IS, BLUE, "accepted", "looks right")
    assert done.view.status == "accepted"
    assert [r[0] for r in svc.queue(toks["rev"], IS, "accepted", "").rows] == [BLUE]
    assert len(svc.queue(toks["rev"], IS, "unreviewed", "").rows) == 9


def test_adjudication_closes_the_dispute_and_reopening_opens_it(env):
    svc, ctx, toks = env
    _mark(ctx, "bob", 11.72)
    _mark(ctx, "ann", 10.0)
    key = svc.disputes(toks["rev"], IS).selected
    assert key.startswith(f"{BLUE}|trigger|")
    done = svc.adjudicate(toks["rev"], IS, key, " 11.0 ", "the ball is fully blue at 11 s")
    assert (done.user.name, done.item_id, done.kind) == ("rev", BLUE, "trigger")
    assert done.disputes.selected is None and done.disputes.choices[0][0].endswith("(decided)")
    assert svc.queue(toks["rev"], IS, "undecided disputes", "").rows == []
    again = svc.reopen(toks["rev"], IS, key, "second look")
    assert again.disputes.selected == key
    assert [r[0] for r in svc.queue(toks["rev"], IS, "undecided disputes", "").rows] == [BLUE]
    with pytest.raises(ValueError, match="choose a dispute"):
        svc.adjudicate(toks["rev"], IS, None, "1", "x")


def test_export_writes_inside_the_exports_folder(env, tmp_path):
    svc, _ctx, toks = env
    user, n, path = svc.export(toks["rev"], IS, "jsonl", "  ", False)
    assert user.name == "rev" and n == 10
    assert path.resolve().is_relative_to((tmp_path / "exports").resolve()) and path.name.startswith("review-export")
