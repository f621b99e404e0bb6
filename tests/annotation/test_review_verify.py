"""Accounts, review edits with their audit trail, blind marks, prefix walks and the verified export,
on the embedded demo (the issue's 'done when' scenario, as a library test)."""
import json

import pytest

from annotation import auth, review, verification
from annotation.loaders import load, loader
from annotation.store import Store


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "t.sqlite")


@pytest.fixture
def people(store):
    auth.create_user(store, "root", "admin", "admin-pass-1")
    auth.create_user(store, "ann", "annotator", "ann-pass-12")
    auth.create_user(store, "bob", "annotator", "bob-pass-12")
    auth.create_user(store, "rev", "reviewer", "rev-pass-12")
    return {n: auth.User(n, r) for n, r in [("root", "admin"), ("ann", "annotator"), ("bob", "annotator"),
                                             ("rev", "reviewer")]}


def test_passwords_are_hashed_with_argon2_and_tokens_expire(store, people):
    row = store.get_user("ann")
    assert row["password_hash"].startswith("$argon2") and "ann-pass-12" not in row["password_hash"]
    with pytest.raises(PermissionError):
        auth.sign_in(store, "ann", "wrong-password")
    with pytest.raises(PermissionError):
        auth.sign_in(store, "nobody", "ann-pass-12")
    tok = auth.sign_in(store, "ann", "ann-pass-12")
    assert auth.require(store, tok).name == "ann"
    assert store.get_token(tok) is None  # only the hash is stored
    with pytest.raises(PermissionError, match="needs one of"):
        auth.require(store, tok, auth.STAFF)
    auth.sign_out(store, tok)
    with pytest.raises(PermissionError, match="not signed in"):
        auth.require(store, tok)
    short = auth.sign_in(store, "rev", "rev-pass-12", ttl=-1)
    assert auth.user_for(store, short) is None
    store.update_user("rev", active=0)
    with pytest.raises(PermissionError):
        auth.sign_in(store, "rev", "rev-pass-12")


def test_bad_accounts_refused(store, people):
    with pytest.raises(ValueError, match="already exists"):
        auth.create_user(store, "ann", "annotator", "whatever-123")
    with pytest.raises(ValueError, match="role"):
        auth.create_user(store, "eve", "superuser", "whatever-123")
    with pytest.raises(ValueError, match="at least"):
        auth.create_user(store, "eve", "annotator", "short")
    with pytest.raises(ValueError, match="bad user name"):
        auth.create_user(store, "<script>", "annotator", "whatever-123")


def test_review_edit_is_an_audit_record_and_reaches_the_export(store, people, tmp_path):
    ds = load("proactivebench", probe_media=False)
    it = ds.get("pb-or-ball")
    assert it.targets[0].anchor == 9
    with pytest.raises(PermissionError):
        review.edit(store, people["ann"], it, "target.onset.anchor", "10", "I think so")
    with pytest.raises(ValueError, match="reason"):
        review.edit(store, people["rev"], it, "target.onset.anchor", "10", "  ")
    with pytest.raises(ValueError):
        review.edit(store, people["rev"], it, "target.onset.anchor", "-3", "negative")
    r1 = review.edit(store, people["rev"], it, "target.onset.anchor", "10", "ball fully visible at 10")
    it2 = review.edited_item(it, store.reviews("proactivebench", it.id))
    r2 = review.edit(store, people["rev"], it2, "target.onset.anchor", "11", "second look")
    review.set_status(store, people["rev"], it, "needs-fix", "check again")
    hist = review.history(store, "proactivebench", it.id)
    assert [(h.field, h.old_value, h.new_value) for h in hist if h.status == "derived"] == [
        ("target.onset.window", [9.0, 11.0], [10.0, 12.0]), ("target.onset.window", [10.0, 12.0], [11.0, 13.0])]
    hist = [h for h in hist if h.status != "derived"]
    assert [(h.field, h.old_value, h.new_value, h.user) for h in hist] == [
        ("target.onset.anchor", 9, 10.0, "rev"), ("target.onset.anchor", 10.0, 11.0, "rev"),
        ("status", "unreviewed", "needs-fix", "rev")]
    assert hist[0].reason == "ball fully visible at 10" and r1.id != r2.id
    assert review.status_of(hist) == "needs-fix"
    edited = review.apply_edits(ds, store.reviews("proactivebench"))
    assert edited.get(it.id).targets[0].anchor == 11 and ds.get(it.id).targets[0].anchor == 9
    out = tmp_path / "exp"
    loader("proactivebench").export_dataset(edited, out)
    rec = [r for r in json.loads((out / "annotations.json").read_text())["items"] if r["item_id"] == it.id][0]
    assert rec["onset_second"] == 11
    again = load("proactivebench", out, probe_media=False)
    assert not again.errors and again.get(it.id).targets[0].window == (11, 13)


@pytest.mark.parametrize("bench,item,field,value,check", [
    ("interactscope", "is-t2-blue", "target.g1.window", "10.5, 13", lambda it: it.targets[0].window == (10.5, 13.0)),
    ("interactionbench", "ball_counter#0", "target.0.anchor", "8.5", lambda it: it.targets[0].anchor == 8.5),
    ("omniinteract", "1q1a__videos__0001", "target.1.anchor", "00:09", lambda it: it.targets[0].anchor == 9.0),
    ("omniinteract", "1qna__captaincook4d__Eggs-1_1", "target.2.reference", "<b>whisk</b>",
     lambda it: it.targets[1].reference == "<b>whisk</b>"),
])
def test_edits_round_trip_through_every_native_layout(store, people, tmp_path, bench, item, field, value, check):
    ds = load(bench, probe_media=False)
    review.edit(store, people["rev"], ds.get(item), field, value, "fix")
    edited = review.apply_edits(ds, store.reviews(bench))
    assert check(edited.get(item))
    loader(bench).export_dataset(edited, tmp_path / "out")
    again = load(bench, tmp_path / "out", probe_media=False)
    assert not again.errors, again.errors
    assert check(again.get(item))


def test_blind_marks_are_private_final_and_revealed_after_submit(store, people):
    ds = load("proactivebench", probe_media=False)
    it = ds.get("pb-or-ball")  # proposed onset second 9 = media [8, 9)
    view = verification.blind_view(it)
    assert "9" not in json.dumps({k: v for k, v in view.items() if k not in ("duration", "fps")})
    assert verification.reveal(store, people["ann"], it, 0) is None
    verification.submit_mark(store, people["ann"], it, 0, 8.4, "second")
    r = verification.reveal(store, people["ann"], it, 0)
    assert r["mark"] == 8.0 and r["proposed"] == 8.0 and r["delta"] == 0.0
    with pytest.raises(PermissionError, match="withdraw it first"):
        verification.submit_mark(store, people["ann"], it, 0, 9.0, "second")
    verification.submit_mark(store, people["bob"], it, 0, 10.2, "second")
    assert verification.reveal(store, people["bob"], it, 0)["delta"] == 2.0
    assert {v.user for v in verification.visible_marks(store, people["ann"])} == {"ann"}
    with pytest.raises(PermissionError):
        verification.visible_marks(store, people["ann"], of_user="bob")
    assert {v.user for v in verification.visible_marks(store, people["rev"])} == {"ann", "bob"}
    rep = verification.agreement_report(store, people["rev"], ds)
    assert [p.a for p in rep.vs_proposed] == ["ann", "bob"] and len(rep.pairs) == 1
    assert rep.pairs[0].deltas.mean_abs == 2.0 and rep.pairs[0].warnings
    mine = verification.agreement_report(store, people["ann"], ds)
    assert [p.a for p in mine.vs_proposed] == ["ann"] and mine.pairs == [] and mine.alpha_all is None
    assert mine.prefix is None


def test_frame_marks_snap_to_frames(store, people):
    it = load("interactscope").get("is-t2-blue")
    fps = it.stream.fps
    v = verification.submit_mark(store, people["ann"], it, 0, 10.013, "frame")
    assert v.value["t"] == pytest.approx(round(10.013 * fps) / fps)


def test_prefix_walk_pass_fail_and_verified_export(store, people, tmp_path):
    ds = load("proactivebench", probe_media=False)
    it = ds.get("pb-wr-blue")  # window [11, 14] -> prefix media [0, 10)
    plan = verification.prefix_plan(it)
    assert plan[0] == (0.0, 1.0) and plan[-1] == (9.0, 10.0) and len(plan) == 10
    with pytest.raises(PermissionError, match="blind mark"):
        verification.start_prefix(store, people["ann"], it)
    verification.submit_mark(store, people["ann"], it, 0, 10, "second")
    state = verification.start_prefix(store, people["ann"], it)
    while state["next"]:
        state = verification.mark_interval(store, people["ann"], it, state["next"][0], False)
    assert state["status"] == "pass" and verification.item_prefix_status(store, it) == "pass"
    with pytest.raises(ValueError, match="does not start"):
        verification.mark_interval(store, people["ann"], it, 3.5, False)
    other = ds.get("pb-or-ball")
    verification.submit_mark(store, people["bob"], other, 0, 8)
    verification.mark_interval(store, people["bob"], other, 0.0, False)
    state = verification.mark_interval(store, people["bob"], other, 1.0, True)
    assert state["status"] == "fail" and state["next"] is None
    assert set(verification.flagged(store, ds)) == {"pb-or-ball"}
    sub = verification.verified_subset(store, ds)
    assert [i.id for i in sub.items] == ["pb-wr-blue"]
    loose = verification.verified_subset(store, ds, include_unchecked=True)
    assert "pb-or-ball" not in [i.id for i in loose.items] and len(loose) == len(ds) - 1


def test_marks_keep_milliseconds_and_subtract_the_offset_only_while_playing(store, people):
    it = load("interactionbench").get("ball_counter#0")
    v = verification.submit_mark(store, people["ann"], it, 0, 7.2914)
    assert v.value["t"] == 7.291 and v.value["offset"] == 0.0  # the issue: 7.29 used to become 7.000
    assert verification.reveal(store, people["ann"], it, 0)["delta"] == pytest.approx(7.291 - 8.0)
    assert verification.calibrate(store, people["bob"], [0.31, 0.25, 0.2]) == 0.25  # median
    with pytest.raises(ValueError, match="0.05"):
        verification.calibrate(store, people["bob"], [0.3, 0.01, 0.2])
    v = verification.submit_mark(store, people["bob"], it, 0, 8.3127, playing=True, source="key")
    assert v.value["t"] == 8.063 and v.value["raw_t"] == 8.3127 and v.value["offset"] == 0.25
    other = load("interactionbench").get("moving_square#1")
    v = verification.submit_mark(store, people["bob"], other, 0, 14.5, playing=False, source="playhead")
    assert v.value["t"] == 14.5 and v.value["offset"] == 0.0


def test_withdraw_and_change_until_a_reviewer_decides(store, people):
    ds = load("interactionbench", probe_media=False)
    it = ds.get("ball_counter#0")
    verification.submit_mark(store, people["ann"], it, 0, 8.1)
    w = verification.withdraw_mark(store, people["ann"], it, 0, "pressed too late")
    assert w.value["withdrawn"] and verification.reveal(store, people["ann"], it, 0) is None
    again = verification.submit_mark(store, people["ann"], it, 0, 7.9)
    assert again.value["blind"] is False  # made after seeing the proposed time
    rows = store.verifications("interactionbench", it.id, user="ann", kind="trigger")
    assert [r.value.get("withdrawn", False) for r in rows] == [False, True, False]  # the audit trail keeps all
    verification.submit_mark(store, people["bob"], it, 0, 9.0)  # 1.1 s from ann: beyond 0.5 s
    queue = verification.disputes(store, ds)
    assert [(d.item_id, d.kind, d.target_id) for d in queue] == [("ball_counter#0", "trigger", "0")]
    assert queue[0].values == {"ann": 7.9, "bob": 9.0} and queue[0].decision is None
    with pytest.raises(PermissionError):
        verification.adjudicate(store, people["ann"], it, "trigger", "0", 8.0, "mine")
    with pytest.raises(ValueError, match="reason"):
        verification.adjudicate(store, people["rev"], it, "trigger", "0", 8.0, " ")
    verification.adjudicate(store, people["rev"], it, "trigger", "0", "8.0042", "ball enters at 8.0")
    d = verification.disputes(store, ds)[0]
    assert d.decision.value["t"] == 8.004 and d.decision.user == "rev"
    assert verification.disputes(store, ds, include_resolved=False) == []
    with pytest.raises(PermissionError, match="closed"):
        verification.withdraw_mark(store, people["bob"], it, 0)
    assert verification.reveal(store, people["bob"], it, 0)["locked"] is True
    trail = verification.audit_trail(store, people["ann"], "interactionbench", it.id)
    assert {r.user for r in trail} == {"ann", "rev"}
    verification.reopen(store, people["rev"], it, "0", "bob asked for a second look")
    assert verification.disputes(store, ds)[0].decision is None
    verification.withdraw_mark(store, people["bob"], it, 0)  # open again: the verifier may change it
    assert verification.disputes(store, ds) == []


def test_prefix_disagreement_is_disputed_not_flagged_until_adjudicated(store, people):
    ds = load("proactivebench", probe_media=False)
    it = ds.get("pb-or-ball")  # 8 intervals
    for u in ("ann", "bob"):
        verification.submit_mark(store, people[u], it, 0, 8)
    st = verification.start_prefix(store, people["ann"], it)
    while st["next"]:
        st = verification.mark_interval(store, people["ann"], it, st["next"][0], False)
    assert st["status"] == "pass"
    verification.mark_interval(store, people["bob"], it, 0.0, True)  # the issue: one click flagged the item
    assert verification.item_prefix_status(store, it) == "disputed"
    assert verification.flagged(store, ds) == {}
    assert "pb-or-ball" not in [i.id for i in verification.verified_subset(store, ds).items]
    (d,) = [d for d in verification.disputes(store, ds) if d.kind == "prefix"]
    assert d.values == {"ann": "pass", "bob": "fail"} and "0 s" in d.detail
    # back / undo: bob withdraws his verdict on 0-1 and the walk shows that interval again
    st = verification.withdraw_interval(store, people["bob"], it, 0.0)
    assert st["current"] == (0.0, 1.0) and st["verdict"] is None
    assert verification.item_prefix_status(store, it) == "pass"
    verification.mark_interval(store, people["bob"], it, 0.0, True)
    verification.adjudicate(store, people["rev"], it, "prefix", "", "fail", "the ball is visible at 0.5 s")
    assert verification.item_prefix_status(store, it) == "fail"
    assert "reviewer rev" in verification.flagged(store, ds)["pb-or-ball"]
    with pytest.raises(PermissionError, match="closed"):
        verification.mark_interval(store, people["ann"], it, 0.0, False)
    prog = {r[0]: r for r in verification.progress(store, ds)}
    assert prog["ann"] == ("ann", 1, 1, 1, 1) and prog["bob"][4] == 1


def test_prefix_walk_auto_advances_and_back_shows_the_earlier_verdict(store, people):
    it = load("proactivebench", probe_media=False).get("pb-ss-erase")
    assert len(verification.prefix_plan(it)) == 32
    verification.submit_mark(store, people["ann"], it, 0, 32)
    st = verification.start_prefix(store, people["ann"], it)
    st = verification.mark_interval(store, people["ann"], it, st["current"][0], False)
    st = verification.mark_interval(store, people["ann"], it, st["current"][0], False)
    assert st["current"] == (2.0, 3.0) and st["index"] == 2
    back = verification.start_prefix(store, people["ann"], it, at=1.0)
    assert back["current"] == (1.0, 2.0) and back["verdict"] is False
    st = verification.mark_interval(store, people["ann"], it, 1.0, False)  # re-decided: on to the next undecided
    assert st["current"] == (2.0, 3.0)


def test_an_edit_records_every_field_it_moves_and_can_be_undone(store, people):
    it = load("interactscope", probe_media=False).get("is-t2-blue")  # anchor = window start = 10
    review.edit(store, people["rev"], it, "target.g1.window", "10.5, 13", "blue at 10.5")
    recs = store.reviews("interactscope", it.id)
    assert [(r.field, r.old_value, r.new_value, r.status) for r in recs] == [
        ("target.g1.window", [10.0, 13.0], [10.5, 13.0], None), ("target.g1.anchor", 10.0, 10.5, "derived")]
    edited = review.edited_item(it, recs)
    assert edited.targets[0].anchor == 10.5
    review.revert(store, people["rev"], edited, recs[0].id, "too late after all")
    back = review.edited_item(it, store.reviews("interactscope", it.id))
    assert back.targets[0].window == (10.0, 13.0)


@pytest.mark.parametrize("bench,item,expected", [
    ("interactionbench", "ball_counter#0", "target.0.anchor"),
    ("interactscope", "is-t2-blue", "target.g1.anchor"),
    ("proactivebench", "pb-or-ball", "target.onset.anchor"),
])
def test_review_form_opens_on_a_field_the_item_can_change(bench, item, expected):
    from annotation.edits import default_field, valid_fields
    it = load(bench, probe_media=False).get(item)
    assert default_field(it) == expected
    if bench == "interactionbench":  # a type B question stands from t=0: it has no request time to edit
        assert "request.time" not in valid_fields(it)
