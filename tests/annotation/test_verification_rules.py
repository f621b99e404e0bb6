"""Blind verification rules on hand-built items: what each role may see and change, the edges of every
threshold (recording end, reaction-time bounds, the 0.5 s adjudication spread, the prefix walk's ends) and
exact records, worked out by hand in the comments. Items are built here, not loaded, so every time is known;
users are plain `User` values (the library re-checks roles itself, no sign-in is needed)."""
import math

import pytest

from annotation import review, verification as vf
from annotation.auth import User
from annotation.dataset import Dataset
from annotation.model import Item, Request, Stream, Target
from annotation.store import Store

ANN, BOB, CAT = User("ann", "annotator"), User("bob", "annotator"), User("cat", "annotator")
REV, ROOT = User("rev", "reviewer"), User("root", "admin")


def make_item(iid="i1", bench="interactionbench", targets=None, req_t=2.0, modality="text", duration=20.0,
              fps=25.0):
    """Default: a request at 2 s, event 1 proposed at 6.5 s in window 5-8 s, an untimed target, event 2 at 12 s."""
    if targets is None:
        targets = (Target("t0", "onset", 6.5, (5.0, 8.0)), Target("tx", "answer", None),
                   Target("t2", "onset", 12.0))
    return Item(iid, bench, "kind-a", Stream(f"s-{iid}", None, duration=duration, fps=fps),
                Request("say when the ball drops", req_t, modality), tuple(targets), native={})


def dataset(*items, bench="interactionbench"):
    return Dataset(bench, "/nowhere", list(items))


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "v.sqlite")


# ---------------------------------------------------------------- what the blind annotator sees

def test_blind_view_shows_the_request_and_numbered_events_never_a_target():
    it = make_item()
    assert vf.blind_view(it) == {"benchmark": "interactionbench", "item_id": "i1", "kind": "kind-a",
                                 "request_text": "say when the ball drops", "request_time": 2.0, "modality": "text",
                                 "duration": 20.0, "fps": 25.0, "events": ["event 1", "event 2"]}
    standing = make_item(req_t=3.0, modality="standing")
    assert vf.blind_view(standing)["request_time"] is None  # a standing request has no time to show
    assert [t.id for t in vf.timed_targets(it)] == ["t0", "t2"]  # the untimed target is no event


def test_events_are_addressed_by_position_within_range_only():
    it = make_item()
    assert vf.event_target(it, 0).id == "t0" and vf.event_target(it, 1).id == "t2"
    with pytest.raises(ValueError, match=r"i1: no event 3 \(the item has 2 timed target\(s\)\)"):
        vf.event_target(it, 2)
    with pytest.raises(ValueError, match="no event 0"):
        vf.event_target(it, -1)  # -1 would otherwise read the last target


def test_proposed_time_uses_the_benchmarks_shift():
    # ProactiveBench seconds are 1-based intervals: second 4 starts at media 3.0; others are media seconds
    pb = make_item(bench="proactivebench", targets=(Target("on", "onset", 4, (4, 6)),))
    assert vf.proposed_media_time(pb, pb.targets[0]) == 3.0
    it = make_item()
    assert vf.proposed_media_time(it, it.targets[0]) == 6.5


@pytest.mark.parametrize("t,unit,fps,expected", [
    (7.2914, "ms", None, 7.291), (7.2915001, "ms", None, 7.292),
    (2.999, "second", None, 2.0), (2.9999999999, "second", None, 3.0),  # within 1e-9 of 3 counts as 3
    (3.0, "second", None, 3.0),
    (1.03, "frame", 25.0, 1.04),  # 25.75 frames -> frame 26 -> 26/25
    (1.01, "frame", 25.0, 1.0),  # 25.25 -> 25 -> 1.0
    (0.05, "frame", 30.0, 0.066667),  # 1.5 frames -> 2 -> 2/30 to 6 places
])
def test_snap_hand_worked(t, unit, fps, expected):
    assert vf.snap(t, unit, fps) == expected


def test_snap_refuses_an_unknown_unit_and_frames_without_fps():
    with pytest.raises(ValueError, match="unknown unit 'minute'; expected one of: ms, frame, second"):
        vf.snap(1.0, "minute", 25.0)
    for fps in (None, 0):
        with pytest.raises(ValueError, match=r"^marking to the frame needs the stream's fps \(it was not read from "
                                             r"the file\)$"):
            vf.snap(1.0, "frame", fps)


# ---------------------------------------------------------------- reaction-time offset

def test_offset_is_zero_before_calibration_and_the_latest_after(store):
    assert vf.offset_of(store, ANN) == 0.0
    assert vf.set_offset(store, ANN, 0.2346) == 0.235  # to the millisecond
    assert vf.set_offset(store, ANN, 0.3) == 0.3
    assert vf.offset_of(store, ANN) == 0.3 and vf.offset_of(store, BOB) == 0.0  # one user's offset only
    (row, _) = store.verifications(user="ann", kind="calibration")
    assert row.value == {"offset": 0.235, "reactions": []} and row.kind == "calibration"
    assert (row.benchmark, row.item_id, row.target_id, row.user) == ("", "", "", "ann")  # a user's, no item's
    assert isinstance(row.created, float) and row.created > 0


@pytest.mark.parametrize("seconds", [0, 0.0, 1.5, 1.5004])  # both ends allowed; 1.5004 rounds to 1.5
def test_offset_bounds_inside(store, seconds):
    assert vf.set_offset(store, ANN, seconds) == round(seconds, 3)
    assert vf.offset_of(store, ANN) == round(seconds, 3)


@pytest.mark.parametrize("seconds", [-0.001, 1.501, 2, float("nan"), float("inf"), "soon", None])
def test_offset_bounds_outside(store, seconds):
    with pytest.raises(ValueError, match="offset must"):
        vf.set_offset(store, ANN, seconds)
    assert store.verifications(kind="calibration") == []


def test_calibration_takes_the_median_of_valid_reactions(store):
    # odd count: sorted .2 .25 .31 -> .25; even count: sorted .2 .3 .4 .5 -> (.3 + .4)/2 = .35
    assert vf.calibrate(store, ANN, [0.31, 0.2, 0.25]) == 0.25
    assert vf.calibrate(store, BOB, [0.5, 0.2, 0.4, 0.3]) == 0.35
    assert vf.offset_of(store, BOB) == 0.35
    rows = store.verifications(user="bob", kind="calibration")
    assert rows[-1].value == {"offset": 0.35, "reactions": [0.2, 0.3, 0.4, 0.5]}
    # the ends 0.05 and 1.5 s are valid reactions
    assert vf.calibrate(store, CAT, [0.05, 0.05, 1.5]) == 0.05
    assert vf.calibrate(store, CAT, [1.5, 1.5, 0.05]) == 1.5


@pytest.mark.parametrize("reactions,msg", [
    ([0.3, 0.2], "needs at least 3 reactions, got 2"),
    ([0.3, 0.049, 0.2], r"^calibration: every reaction must lie in 0.05-1.5 s \(a press before the flash or a "
                        r"missed one\); run it again$"),
    ([0.3, 1.501, 0.2], "every reaction must lie in 0.05-1.5 s"),
    ([0.3, float("nan"), 0.2], "every reaction must lie"),
    ([0.3, "fast", 0.2], "^calibration: reaction times must be numbers of seconds$"),
    ([0.3, None, 0.2], "must be numbers of seconds"),
])
def test_calibration_refuses(store, reactions, msg):
    with pytest.raises(ValueError, match=msg):
        vf.calibrate(store, ANN, reactions)
    assert vf.offset_of(store, ANN) == 0.0


# ---------------------------------------------------------------- blind marks

def test_a_mark_is_stored_with_every_field(store):
    it = make_item()
    v = vf.submit_mark(store, ANN, it, 1, 12.3456)
    assert (v.benchmark, v.item_id, v.target_id, v.user, v.kind) == ("interactionbench", "i1", "t2", "ann", "trigger")
    assert v.value == {"t": 12.346, "raw_t": 12.3456, "offset": 0.0, "playing": False, "source": "typed",
                       "unit": "ms", "fps": 25.0, "event": 1, "blind": True}


def test_offset_is_subtracted_only_while_playing_and_never_below_zero(store):
    it = make_item()
    vf.set_offset(store, ANN, 0.3)
    v = vf.submit_mark(store, ANN, it, 0, 6.8, playing=True, source="key")
    assert v.value["t"] == 6.5 and v.value["offset"] == 0.3 and v.value["playing"] is True  # 6.8 - 0.3
    assert v.value["source"] == "key" and v.value["raw_t"] == 6.8
    w = vf.submit_mark(store, ANN, it, 1, 6.8, playing=False, source="playhead")
    assert w.value["t"] == 6.8 and w.value["offset"] == 0.0
    other = make_item("i2")
    z = vf.submit_mark(store, ANN, other, 0, 0.1, playing=True, source="click")  # 0.1 - 0.3 -> 0, not -0.2
    assert z.value["t"] == 0.0


@pytest.mark.parametrize("t", [0, 0.0, 21.0, "21"])  # duration 20 s: up to 1 s past the end is accepted
def test_mark_times_inside_the_recording(store, t):
    assert vf.submit_mark(store, ANN, make_item(), 0, t).value["t"] == float(t)


@pytest.mark.parametrize("t,msg", [(-0.001, "outside the recording"), (21.001, "outside the recording"),
                                   (float("nan"), "outside"), (float("inf"), "outside"),
                                   ("later", "must be a time in seconds"), (None, "must be a time in seconds")])
def test_mark_times_outside_are_refused(store, t, msg):
    with pytest.raises(ValueError, match=msg):
        vf.submit_mark(store, ANN, make_item(), 0, t)
    assert store.verifications(kind="trigger") == []


def test_a_recording_without_duration_takes_any_non_negative_time(store):
    it = make_item(duration=None)
    assert vf.submit_mark(store, ANN, it, 0, 500.0).value["t"] == 500.0
    with pytest.raises(ValueError, match=r"outside the recording \(0–\? s\)"):
        vf.submit_mark(store, BOB, it, 0, -1)


def test_mark_source_and_unit_are_checked(store):
    it = make_item()
    with pytest.raises(ValueError, match="^unknown mark source 'voice'; expected one of: typed, playhead, key, click$"):
        vf.submit_mark(store, ANN, it, 0, 6.0, source="voice")
    with pytest.raises(ValueError, match="unknown unit"):
        vf.submit_mark(store, ANN, it, 0, 6.0, unit="minute")
    with pytest.raises(ValueError, match="no event 3"):
        vf.submit_mark(store, ANN, it, 2, 6.0)
    assert store.verifications(kind="trigger") == []
    v = vf.submit_mark(store, ANN, it, 0, 6.03, unit="frame")  # 150.75 frames -> 151/25 = 6.04
    assert v.value["t"] == 6.04 and v.value["unit"] == "frame"


def test_one_current_mark_per_user_and_event_then_withdraw_then_a_revised_mark(store):
    it = make_item()
    first = vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 7.0)  # another annotator's mark does not block ann's or bob's
    other_event = vf.submit_mark(store, ANN, it, 1, 12.0)  # nor does a mark on another event...
    assert other_event.value["blind"] is True  # ...which stays blind: only event 1 was revealed
    assert isinstance(other_event.created, float) and other_event.created >= first.created
    with pytest.raises(PermissionError, match="event 1: your mark is already submitted; withdraw it first"):
        vf.submit_mark(store, ANN, it, 0, 6.2)
    w = vf.withdraw_mark(store, ANN, it, 0, "  pressed late  ")
    assert w.value == {"withdrawn": True, "withdraws": first.id, "event": 0, "reason": "pressed late"}
    assert (w.target_id, w.user, w.kind) == ("t0", "ann", "trigger")
    assert vf.mark_of(store, ANN, it, "t0") is None and vf.mark_of(store, ANN, it, "t2").value["t"] == 12.0
    assert vf.reveal(store, ANN, it, 0) is None
    with pytest.raises(ValueError, match="event 1: you have no mark to withdraw"):
        vf.withdraw_mark(store, ANN, it, 0)
    assert isinstance(w.created, float) and w.created >= first.created  # the withdrawal keeps its time
    again = vf.submit_mark(store, ANN, it, 0, 6.2)
    assert again.value["blind"] is False  # made after the reveal of the first
    assert vf.reveal(store, ANN, it, 0)["blind"] is False
    assert vf.submit_mark(store, CAT, it, 0, 6.1).value["blind"] is True
    assert [r.value.get("withdrawn", False) for r in vf.own_marks(store, ANN, "interactionbench", "i1")] == [
        False, False, True, False]
    assert vf.mark_of(store, ANN, it, "t0").value["t"] == 6.2 and vf.mark_of(store, BOB, it, "t0").value["t"] == 7.0


def test_current_marks_drop_withdrawn_keys_only():
    from annotation.model import Verification as V
    rows = [V("1", "b", "i", "t0", "ann", "trigger", {"t": 1.0}, 0), V("2", "b", "i", "t0", "bob", "trigger",
                                                                           {"t": 2.0}, 0),
            V("3", "b", "i", "t0", "ann", "trigger", {"withdrawn": True}, 0),
            V("4", "b", "i", "t1", "ann", "trigger", {"t": 3.0}, 0), V("5", "b", "i", "t1", "ann", "trigger",
                                                                       {"t": 3.5}, 0)]
    cur = vf.current_marks(rows)
    assert {k: v.id for k, v in cur.items()} == {("bob", "i", "t0"): "2", ("ann", "i", "t1"): "5"}
    assert vf.current_marks([V("6", "b", "i", "t2", "cat", "trigger", {"withdrawn": True}, 0)]) == {}


def test_reveal_compares_with_the_proposed_time_after_the_mark_only(store):
    pb = make_item(bench="proactivebench", targets=(Target("on", "onset", 4, (4, 6)),), req_t=0.0,
                   modality="standing")
    assert vf.reveal(store, ANN, pb, 0) is None
    vf.set_offset(store, ANN, 0.2)
    vf.submit_mark(store, ANN, pb, 0, 3.45, playing=True, source="key")  # 3.45 - 0.2 = 3.25
    assert vf.reveal(store, ANN, pb, 0) == {"mark": 3.25, "unit": "ms", "proposed": 3.0, "delta": 0.25,
                                             "target_id": "on", "raw_t": 3.45, "offset": 0.2, "source": "key",
                                             "blind": True, "locked": False}
    assert vf.reveal(store, BOB, pb, 0) is None  # bob has not marked: nothing of ann's leaks to him
    vf.submit_mark(store, BOB, pb, 0, 5.0)
    vf.adjudicate(store, REV, pb, "trigger", "on", 3.1, "ball visible at 3.1")
    assert vf.reveal(store, ANN, pb, 0)["locked"] is True


# ---------------------------------------------------------------- who reads which records

def _three_marks(store):
    it = make_item()
    other = make_item("i9", bench="proactivebench", targets=(Target("on", "onset", 4, (4, 6)),))
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 7.0)
    vf.submit_mark(store, CAT, other, 0, 2.0)
    vf.set_offset(store, BOB, 0.2)
    return it, other


def test_an_annotator_reads_only_their_own_records(store):
    _three_marks(store)
    assert [(v.user, v.kind) for v in vf.visible_marks(store, ANN)] == [("ann", "trigger")]
    assert [v.user for v in vf.visible_marks(store, ANN, of_user="ann")] == ["ann"]
    assert [(v.user, v.kind) for v in vf.visible_marks(store, BOB)] == [("bob", "trigger"), ("bob", "calibration")]
    for victim in ("bob", "cat", "rev"):
        with pytest.raises(PermissionError, match=f"user 'ann' \\(annotator\\) may not read the marks of '{victim}'"):
            vf.visible_marks(store, ANN, of_user=victim)


@pytest.mark.parametrize("staff", [REV, ROOT])
def test_staff_read_everyones_records_with_filters(store, staff):
    _three_marks(store)
    assert [v.user for v in vf.visible_marks(store, staff, kind="trigger")] == ["ann", "bob", "cat"]
    assert [v.user for v in vf.visible_marks(store, staff, "interactionbench", kind="trigger")] == ["ann", "bob"]
    assert [v.kind for v in vf.visible_marks(store, staff, of_user="bob")] == ["trigger", "calibration"]
    assert [v.user for v in vf.visible_marks(store, staff, "proactivebench")] == ["cat"]


def test_audit_trail_annotators_see_their_rows_and_decisions_staff_see_all(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 7.0)
    vf.adjudicate(store, REV, it, "trigger", "t0", 6.4, "frame 160")
    assert [(r.user, r.kind) for r in vf.audit_trail(store, ANN, "interactionbench", "i1")] == [
        ("ann", "trigger"), ("rev", "adjudication")]
    assert [(r.user, r.kind) for r in vf.audit_trail(store, BOB, "interactionbench", "i1")] == [
        ("bob", "trigger"), ("rev", "adjudication")]
    assert [r.user for r in vf.audit_trail(store, CAT, "interactionbench", "i1")] == ["rev"]
    for staff in (REV, ROOT):
        assert [r.user for r in vf.audit_trail(store, staff, "interactionbench", "i1")] == ["ann", "bob", "rev"]
    assert vf.audit_trail(store, ROOT, "interactionbench", "other") == []


# ---------------------------------------------------------------- prefix plan and walk

def test_prefix_runs_from_the_request_to_the_earliest_window():
    # window 5-8 s opens 3 s after the 2 s request: three 1 s intervals; 2 s steps: 2-4 and a short 4-5
    it = make_item()
    assert vf.prefix_target(it).id == "t0"
    assert vf.prefix_plan(it) == [(2.0, 3.0), (3.0, 4.0), (4.0, 5.0)]
    assert vf.prefix_plan(it, 2.0) == [(2.0, 4.0), (4.0, 5.0)]
    assert vf.prefix_plan(it, 0.5) == [(2.0, 2.5), (2.5, 3.0), (3.0, 3.5), (3.5, 4.0), (4.0, 4.5), (4.5, 5.0)]
    # the earliest window decides, not the first target: event 2 opens at 3 s
    late_first = make_item(targets=(Target("a", "onset", 10.0, (9.0, 12.0)), Target("b", "onset", 4.0, (3.5, 6.0))))
    assert vf.prefix_target(late_first).id == "b" and vf.prefix_plan(late_first) == [(2.0, 3.0), (3.0, 3.5)]
    # a target without window opens at its anchor
    anchored = make_item(targets=(Target("a", "onset", 4.5),))
    assert vf.prefix_plan(anchored) == [(2.0, 3.0), (3.0, 4.0), (4.0, 4.5)]


def test_prefix_ends_hand_worked():
    # 2.0 + 0.3 three times is 2.8999999999999995 in floats: within 1e-9 of the 2.9 s end, so no fourth interval
    it = make_item(targets=(Target("a", "onset", 2.9),))
    assert vf.prefix_plan(it, 0.3) == [(2.0, 2.3), (2.3, 2.6), (2.6, 2.9)]
    # a window opening with the request (or before it): the prefix runs to the anchor instead
    with_q = make_item(targets=(Target("a", "onset", 4.5, (2.0, 8.0)),))
    assert vf.prefix_plan(with_q) == [(2.0, 3.0), (3.0, 4.0), (4.0, 4.5)]
    before_q = make_item(targets=(Target("a", "onset", 3.5, (1.0, 8.0)),))
    assert vf.prefix_plan(before_q) == [(2.0, 3.0), (3.0, 3.5)]
    just_after = make_item(targets=(Target("a", "onset", 4.5, (2.5, 8.0)),))  # opens 0.5 s after the request
    assert vf.prefix_plan(just_after) == [(2.0, 2.5)]
    # a standing request runs from 0; ProactiveBench's second 4 opens at media 3.0
    pb = make_item(bench="proactivebench", targets=(Target("on", "onset", 4, (4, 6)),), req_t=2.0,
                   modality="standing")
    assert vf.prefix_plan(pb) == [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
    # no timed target: no prefix
    assert vf.prefix_plan(make_item(targets=(Target("x", "answer", None),))) == []
    assert vf.prefix_target(make_item(targets=(Target("x", "answer", None),))) is None


@pytest.mark.parametrize("step", [0, -1.0])
def test_prefix_step_must_be_positive(step):
    with pytest.raises(ValueError, match="prefix step must be > 0 seconds"):
        vf.prefix_plan(make_item(), step)


def test_annotators_walk_the_prefix_only_after_their_blind_mark_of_the_prefix_event(store):
    it = make_item(targets=(Target("a", "onset", 10.0, (9.0, 12.0)), Target("b", "onset", 4.0, (3.5, 6.0))))
    with pytest.raises(PermissionError, match="submit your blind mark for event 2 before the prefix walk"):
        vf.start_prefix(store, ANN, it)
    vf.submit_mark(store, ANN, it, 0, 10.0)  # event 1 is not the one the prefix reveals
    for call in (lambda: vf.start_prefix(store, ANN, it), lambda: vf.mark_interval(store, ANN, it, 2.0, False),
                 lambda: vf.withdraw_interval(store, ANN, it, 2.0)):
        with pytest.raises(PermissionError, match="blind mark for event 2"):
            call()
    assert store.verifications(kind="prefix") == []
    vf.submit_mark(store, ANN, it, 1, 4.0)
    assert vf.start_prefix(store, ANN, it)["status"] == "incomplete"
    for staff in (REV, ROOT):  # staff have seen the targets anyway
        assert vf.start_prefix(store, staff, it)["current"] == (2.0, 3.0)


def test_walk_records_states_and_the_next_interval(store):
    it = make_item()  # plan 2-3, 3-4, 4-5
    vf.submit_mark(store, ANN, it, 0, 6.0)
    st = vf.start_prefix(store, ANN, it)
    assert st == {"status": "incomplete", "plan": [(2.0, 3.0), (3.0, 4.0), (4.0, 5.0)], "done": 0, "total": 3,
                  "hits": [], "next": (2.0, 3.0), "current": (2.0, 3.0), "index": 0, "verdict": None,
                  "verdicts": {}, "locked": False}
    st = vf.mark_interval(store, ANN, it, 3.0, False)  # out of order: the next undecided after 3 is 4-5
    assert st["current"] == (4.0, 5.0) and st["index"] == 2 and st["next"] == (2.0, 3.0) and st["done"] == 1
    row = store.verifications(kind="prefix")[-1]
    assert (row.target_id, row.user, row.value) == ("t0", "ann", {"start": 3.0, "end": 4.0, "satisfied": False,
                                                                  "step": 1.0})
    st = vf.mark_interval(store, ANN, it, 4.0, False)  # nothing undecided after 4: back to the first undecided
    assert st["current"] == (2.0, 3.0) and st["index"] == 0
    st = vf.mark_interval(store, ANN, it, "2.0000001", False)  # within 1e-6 of a start
    assert st["status"] == "pass" and st["current"] is None and st["next"] is None and st["done"] == 3
    assert st["verdicts"] == {"3.000": False, "4.000": False, "2.000": False}
    assert vf.item_prefix_status(store, it) == "pass"
    back = vf.start_prefix(store, ANN, it, at=3.0)
    assert back["current"] == (3.0, 4.0) and back["index"] == 1 and back["verdict"] is False
    st = vf.withdraw_interval(store, ANN, it, 3.0)
    assert st["status"] == "incomplete" and st["current"] == (3.0, 4.0) and st["verdict"] is None
    assert store.verifications(kind="prefix")[-1].value == {"start": 3.0, "end": 4.0, "withdrawn": True, "step": 1.0}
    st = vf.mark_interval(store, ANN, it, 3.0, True)
    assert st["status"] == "fail" and st["hits"] == [3.0] and st["next"] is None and st["verdict"] is None


@pytest.mark.parametrize("start", [2.5, 5.0, 1.0, 2.00001, "two"])
def test_verdicts_only_on_interval_starts(store, start):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    with pytest.raises(ValueError, match="does not start a prefix interval|interval start must be seconds"):
        vf.mark_interval(store, ANN, it, start, True)
    assert store.verifications(kind="prefix") == []


def test_verdicts_of_keep_one_step_and_the_latest_row():
    from annotation.model import Verification as V
    rows = [V("1", "b", "i", "t", "ann", "prefix", {"start": 2.0, "end": 3.0, "satisfied": True, "step": 1.0}, 0),
            V("2", "b", "i", "t", "ann", "prefix", {"start": 2.0, "end": 3.0, "satisfied": False, "step": 1.0}, 0),
            V("3", "b", "i", "t", "ann", "prefix", {"start": 3.0, "end": 3.5, "satisfied": True, "step": 0.5}, 0),
            V("4", "b", "i", "t", "ann", "prefix", {"start": 4.0, "end": 5.0, "satisfied": True}, 0),
            V("5", "b", "i", "t", "ann", "prefix", {"start": 4.0, "end": 5.0, "withdrawn": True, "step": 1.0}, 0),
            V("6", "b", "i", "t", "ann", "prefix", {"start": 5.0, "end": 6.0, "satisfied": 1, "step": 1.0}, 0)]
    assert vf.verdicts_of(rows) == {2.0: False, 5.0: True}
    assert vf.verdicts_of(rows, 0.5) == {3.0: True}


def test_item_prefix_status_for_several_verifiers(store):
    it = make_item()  # plan 2-3, 3-4, 4-5
    assert vf.item_prefix_status(store, it) == "unchecked"
    for u in (ANN, BOB, CAT):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, ANN, it, 2.0, False)
    assert vf.item_prefix_status(store, it) == "incomplete"
    vf.mark_interval(store, ANN, it, 3.0, False)
    vf.mark_interval(store, ANN, it, 4.0, False)
    vf.mark_interval(store, BOB, it, 2.0, False)
    assert vf.item_prefix_status(store, it) == "pass"  # ann passed, bob agrees so far
    vf.mark_interval(store, CAT, it, 4.0, True)  # cat found 4-5 satisfied, ann cleared it: disputed
    assert vf.item_prefix_status(store, it) == "disputed"
    assert vf.prefix_disagreement(vf.user_prefix_states(store, it)) == [4.0]
    vf.withdraw_interval(store, CAT, it, 4.0)
    vf.mark_interval(store, CAT, it, 2.0, False)
    vf.mark_interval(store, CAT, it, 3.0, True)  # bob never judged 3-4, ann cleared it
    assert vf.item_prefix_status(store, it) == "disputed"


def test_fails_on_different_intervals_are_fail_until_someone_clears_one_of_them(store):
    it = make_item()
    for u in (ANN, BOB, CAT):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, ANN, it, 2.0, True)  # ann: fail at 2 s
    assert vf.item_prefix_status(store, it) == "fail"
    vf.mark_interval(store, BOB, it, 3.0, True)  # bob: fail at 3 s, ann never judged 3-4: both fail
    assert vf.item_prefix_status(store, it) == "fail"
    ds = dataset(it)
    assert vf.flagged(store, ds) == {"i1": "ann at 2 s; bob at 3 s"}
    for s in (2.0, 4.0):
        vf.mark_interval(store, CAT, it, s, False)
    assert vf.item_prefix_status(store, it) == "disputed"  # cat cleared 2-3, ann found it satisfied
    assert vf.flagged(store, ds) == {}


def test_a_pass_and_a_fail_on_different_intervals_are_disputed(store):
    it = make_item()  # plan 2-3, 3-4, 4-5
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 6.0)
    vf.mark_interval(store, ANN, it, 2.0, False)  # ann: 2-3 clear only (incomplete)
    vf.mark_interval(store, BOB, it, 3.0, True)  # bob: fail at 3-4, which ann has not judged
    assert vf.prefix_disagreement(vf.user_prefix_states(store, it)) == []
    assert vf.item_prefix_status(store, it) == "fail"  # incomplete + fail, no interval in dispute
    vf.mark_interval(store, ANN, it, 4.0, False)
    vf.mark_interval(store, BOB, it, 2.0, False)
    assert vf.item_prefix_status(store, it) == "fail"  # still no interval judged differently
    vf.withdraw_interval(store, BOB, it, 3.0)
    vf.mark_interval(store, BOB, it, 4.0, True)  # bob fails 4-5 which ann cleared
    assert vf.prefix_disagreement(vf.user_prefix_states(store, it)) == [4.0]


def test_flagged_and_verified_subset(store):
    passed, failed, disputed, unchecked, started, rejected = (make_item(f"i{k}") for k in range(6))
    ds = dataset(passed, failed, disputed, unchecked, started, rejected)
    for it in (passed, failed, disputed, started, rejected):
        vf.submit_mark(store, ANN, it, 0, 6.0)
        vf.submit_mark(store, BOB, it, 0, 6.0)
    for it in (passed, rejected):
        for s in (2.0, 3.0, 4.0):
            vf.mark_interval(store, ANN, it, s, False)
    vf.mark_interval(store, ANN, failed, 3.0, True)
    vf.mark_interval(store, ANN, disputed, 2.0, True)
    vf.mark_interval(store, BOB, disputed, 2.0, False)
    vf.mark_interval(store, BOB, started, 2.0, False)
    review.set_status(store, REV, rejected, "rejected", "wrong clip")
    assert vf.flagged(store, ds) == {"i1": "ann at 3 s"}
    assert [i.id for i in vf.verified_subset(store, ds).items] == ["i0"]
    assert [i.id for i in vf.verified_subset(store, ds, include_unchecked=True).items] == ["i0", "i3", "i4"]
    sub = vf.verified_subset(store, ds)
    assert (sub.benchmark, sub.root) == ("interactionbench", "/nowhere")
    vf.adjudicate(store, REV, disputed, "prefix", "", "pass", "nothing visible before 5 s")
    vf.adjudicate(store, ROOT, failed, "prefix", "", "fail", "the ball is already down")
    assert vf.flagged(store, ds) == {"i1": "reviewer root: the ball is already down"}
    assert [i.id for i in vf.verified_subset(store, ds).items] == ["i0", "i2"]


# ---------------------------------------------------------------- adjudication queue

def test_marks_more_than_half_a_second_apart_are_disputed(store):
    # three annotators: spread = max - min; 0.5 s exactly stays out of the queue, 0.501 s goes in
    close, edge, over = make_item("c"), make_item("e"), make_item("o")
    for it, marks in ((close, (6.0, 6.2, 6.3)), (edge, (6.0, 6.25, 6.5)), (over, (6.0, 6.3, 6.501))):
        for u, t in zip((ANN, BOB, CAT), marks):
            vf.submit_mark(store, u, it, 0, t)
    vf.submit_mark(store, ANN, over, 1, 12.0)  # one mark on event 2: nothing to compare
    q = vf.disputes(store, dataset(close, edge, over))
    assert [(d.item_id, d.kind, d.target_id, d.event) for d in q] == [("o", "trigger", "t0", 0)]
    assert q[0].values == {"ann": 6.0, "bob": 6.3, "cat": 6.501} and q[0].decision is None
    assert q[0].detail == "event 1: marks 0.501 s apart (> 0.5 s)" and q[0].key == "o|trigger|t0"
    assert q[0].benchmark == "interactionbench"
    wide = vf.disputes(store, dataset(close, edge, over), threshold=0.2)  # spreads .3, .5, .501 all exceed .2
    assert [d.item_id for d in wide] == ["c", "e", "o"] and wide[0].detail.endswith("(> 0.2 s)")


def test_a_withdrawn_mark_leaves_the_queue(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 1, 11.0)
    vf.submit_mark(store, BOB, it, 1, 12.0)
    assert [d.event for d in vf.disputes(store, dataset(it))] == [1]
    assert vf.disputes(store, dataset(it))[0].detail == "event 2: marks 1.000 s apart (> 0.5 s)"
    vf.withdraw_mark(store, BOB, it, 1)
    assert vf.disputes(store, dataset(it)) == []


def test_prefix_disputes_name_the_intervals(store):
    it = make_item()
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, ANN, it, 2.0, True)
    vf.mark_interval(store, BOB, it, 2.0, False)
    vf.mark_interval(store, ANN, it, 4.0, False)
    vf.mark_interval(store, BOB, it, 4.0, True)
    (d,) = vf.disputes(store, dataset(it))
    assert (d.kind, d.target_id, d.event) == ("prefix", "", None)
    assert d.detail == "prefix: verifiers differ at 2 s, 4 s" and d.values == {"ann": "fail", "bob": "fail"}
    assert d.key == "i1|prefix|"


def test_a_prefix_dispute_names_the_interval_a_pass_and_a_fail_differ_on(store):
    # ann clears every interval (pass), bob finds 3-4 satisfied (fail): they differ at 3 s
    it = make_item()
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    for s in (2.0, 3.0, 4.0):
        vf.mark_interval(store, ANN, it, s, False)
    vf.mark_interval(store, BOB, it, 3.0, True)
    (d,) = vf.disputes(store, dataset(it))
    assert d.detail == "prefix: verifiers differ at 3 s" and d.values == {"ann": "pass", "bob": "fail"}
    assert d.decision is None


def test_resolved_disputes_and_their_decisions(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 7.0)
    vf.adjudicate(store, REV, it, "trigger", "t0", "6.4567", "frame 161")
    (d,) = vf.disputes(store, dataset(it))
    assert d.decision.value == {"for": "trigger", "t": 6.457, "reason": "frame 161", "threshold": 0.5,
                                "marks": {"ann": 6.0, "bob": 7.0}}
    assert (d.decision.user, d.decision.target_id, d.decision.kind) == ("rev", "t0", "adjudication")
    assert vf.disputes(store, dataset(it), include_resolved=False) == []
    vf.reopen(store, ROOT, it, "t0", "bob asked")
    assert [x.decision for x in vf.disputes(store, dataset(it), include_resolved=False)] == [None]


# ---------------------------------------------------------------- adjudication: who and what

def test_only_staff_decide_and_reopen(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 7.0)
    for who in (ANN, BOB, User("eve", "guest")):
        with pytest.raises(PermissionError, match="may not do this"):
            vf.adjudicate(store, who, it, "trigger", "t0", 6.5, "mine")
    assert store.verifications(kind="adjudication") == []
    vf.adjudicate(store, REV, it, "trigger", "t0", 6.5, "frame 162")
    for who in (ANN, BOB):
        with pytest.raises(PermissionError, match="may not do this"):
            vf.reopen(store, who, it, "t0", "please")
    assert vf.adjudication_of(store, it, "t0").value["t"] == 6.5


@pytest.mark.parametrize("kind,target,decision,reason,msg", [
    ("trigger", "t0", 6.5, "  ", "give a reason for the decision"),
    ("trigger", "t0", 6.5, None, "give a reason for the decision"),
    ("trigger", "tx", 6.5, "r", "no timed target 'tx'"),  # the untimed target
    ("trigger", "zz", 6.5, "r", "no timed target 'zz'"),
    ("trigger", "t0", "soon", "r", "the decision is a time in seconds, got 'soon'"),
    ("trigger", "t0", None, "r", "the decision is a time in seconds"),
    ("trigger", "t0", -0.001, "r", "is not a time in the recording"),
    ("trigger", "t0", float("nan"), "r", "is not a time in the recording"),
    ("trigger", "t0", float("inf"), "r", "is not a time in the recording"),
    ("prefix", "", "maybe", "r", "a prefix decision is 'pass' or 'fail', got 'maybe'"),
    ("prefix", "", True, "r", "a prefix decision is 'pass' or 'fail'"),
    ("label", "t0", 6.5, "r", "unknown dispute kind 'label'; expected trigger or prefix"),
])
def test_bad_decisions_are_refused(store, kind, target, decision, reason, msg):
    it = make_item()
    with pytest.raises(ValueError, match=msg):
        vf.adjudicate(store, REV, it, kind, target, decision, reason)
    assert store.verifications(kind="adjudication") == []


def test_a_decision_at_zero_and_a_prefix_decision_record(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, ANN, it, 1, 12.0)
    v = vf.adjudicate(store, REV, it, "trigger", "t2", 0, " at the start ", threshold=0.25)
    assert v.value == {"for": "trigger", "t": 0.0, "reason": "at the start", "threshold": 0.25,
                       "marks": {"ann": 12.0}}
    vf.submit_mark(store, BOB, it, 0, 6.0)  # ann marked event 1 above: both may walk the prefix
    vf.mark_interval(store, ANN, it, 2.0, True)
    vf.mark_interval(store, BOB, it, 2.0, False)
    p = vf.adjudicate(store, ROOT, it, "prefix", "t0", "fail", "visible at 2.5 s")  # target id is ignored
    assert p.target_id == "" and p.user == "root"
    assert p.value == {"for": "prefix", "status": "fail", "reason": "visible at 2.5 s",
                       "marks": {"ann": "fail", "bob": "incomplete"}}
    assert vf.item_prefix_status(store, it) == "fail"
    assert vf.adjudication_of(store, it, "t0") is None  # the prefix decision is not event 1's


def test_a_decision_closes_only_its_own_records_until_reopened(store):
    it = make_item()
    for u, t in ((ANN, 6.0), (BOB, 7.0)):
        vf.submit_mark(store, u, it, 0, t)
        vf.submit_mark(store, u, it, 1, 12.0)
    vf.mark_interval(store, ANN, it, 2.0, False)
    dec = vf.adjudicate(store, REV, it, "trigger", "t0", 6.5, "frame 162")
    for u in (ANN, BOB):  # closed for every verifier of event 1
        with pytest.raises(PermissionError, match=r"i1: event 1 is closed: reviewer rev decided it \('frame 162'\)"):
            vf.withdraw_mark(store, u, it, 0)
    with pytest.raises(PermissionError, match="event 1 is closed"):
        vf.submit_mark(store, CAT, it, 0, 6.6)
    vf.withdraw_mark(store, BOB, it, 1)  # event 2 and the prefix stay open
    vf.mark_interval(store, ANN, it, 3.0, False)
    assert vf.start_prefix(store, ANN, it)["locked"] is False
    vf.adjudicate(store, REV, it, "prefix", "", "pass", "clear")
    assert vf.start_prefix(store, ANN, it)["locked"] is True
    for call in (lambda: vf.mark_interval(store, ANN, it, 4.0, False), lambda: vf.withdraw_interval(store, ANN, it, 2.0)):
        with pytest.raises(PermissionError, match="the prefix is closed: reviewer rev decided it"):
            call()
    for blank in (" ", None):
        with pytest.raises(ValueError, match="give a reason for reopening"):
            vf.reopen(store, REV, it, "t0", blank)
    with pytest.raises(ValueError, match="nothing decided on t2 to reopen"):
        vf.reopen(store, REV, it, "t2", "why not")
    r = vf.reopen(store, ROOT, it, "t0", " bob asked ")
    assert (r.user, r.target_id, r.kind) == ("root", "t0", "adjudication") and r.created >= dec.created
    assert r.value == {"for": "trigger", "reopened": True, "reopens": dec.id, "reason": "bob asked"}
    assert vf.adjudication_of(store, it, "t0") is None and vf.reveal(store, ANN, it, 0)["locked"] is False
    with pytest.raises(ValueError, match="nothing decided on t0 to reopen"):
        vf.reopen(store, ROOT, it, "t0", "again")
    vf.withdraw_mark(store, ANN, it, 0)  # open again
    assert vf.item_prefix_status(store, it) == "pass"  # the prefix decision still stands
    p = vf.reopen(store, REV, it, "", "look again")
    assert p.value["for"] == "prefix" and vf.item_prefix_status(store, it) == "incomplete"
    with pytest.raises(ValueError, match="nothing decided on the prefix to reopen"):
        vf.reopen(store, REV, it, "", "again")


# ---------------------------------------------------------------- progress and the agreement report

def test_progress_counts_current_marks_blind_marks_and_walks_per_verifier(store):
    i1, i2, gone = make_item("i1"), make_item("i2"), make_item("gone")
    ds = dataset(i1, i2)
    vf.submit_mark(store, ANN, i1, 0, 6.0)
    vf.submit_mark(store, ANN, i1, 1, 12.0)
    vf.submit_mark(store, ANN, i2, 0, 5.0)
    vf.withdraw_mark(store, ANN, i2, 0)
    vf.submit_mark(store, ANN, i2, 0, 6.0)  # revised after the reveal: not blind
    vf.submit_mark(store, ANN, gone, 0, 6.0)  # an item no longer in the dataset does not count
    vf.submit_mark(store, BOB, i1, 0, 7.0)
    vf.submit_mark(store, BOB, i1, 1, 11.0)
    vf.withdraw_mark(store, BOB, i1, 1)  # withdrawn: not marked
    vf.submit_mark(store, CAT, i2, 0, 6.0)
    for s in (2.0, 3.0, 4.0):
        vf.mark_interval(store, CAT, i2, s, False)  # cat: one complete walk
    vf.mark_interval(store, ANN, i1, 2.0, False)  # ann: i1 started, i2 failed (complete)
    vf.mark_interval(store, ANN, i2, 3.0, True)
    assert vf.progress(store, ds) == [("ann", 3, 2, 1, 2), ("bob", 1, 1, 0, 0), ("cat", 1, 1, 1, 1)]


def _report_marks(store):
    i1, i2, gone = make_item("i1"), make_item("i2"), make_item("gone")
    vf.submit_mark(store, ANN, i1, 0, 6.0)
    vf.submit_mark(store, ANN, i1, 1, 12.5)
    vf.submit_mark(store, ANN, i2, 0, 6.5)
    vf.submit_mark(store, BOB, i1, 0, 7.0)
    vf.submit_mark(store, BOB, i2, 0, 5.0)
    vf.withdraw_mark(store, BOB, i2, 0)
    vf.submit_mark(store, BOB, i2, 0, 6.0)  # revised
    vf.submit_mark(store, CAT, gone, 0, 3.0)  # only on an item that left the dataset
    vf.mark_interval(store, ANN, i1, 2.0, False)
    vf.mark_interval(store, ANN, i1, 3.0, True)
    vf.mark_interval(store, BOB, i1, 2.0, False)
    vf.mark_interval(store, BOB, i1, 3.0, False)
    vf.mark_interval(store, ANN, i2, 2.0, False)  # bob never judged i2: not shared
    return dataset(i1, i2)


@pytest.mark.parametrize("staff", [REV, ROOT])
def test_agreement_report_for_staff_hand_worked(store, staff):
    """Proposed: i1 t0 6.5, i1 t2 12, i2 t0 6.5. ann |Δ| .5 .5 0 -> mean 1/3; bob .5 .5 -> .5; cat has nothing
    left. Pair ann-bob on i1 t0 and i2 t0: |Δ| 1 and .5 -> .75. α (interval) on the units marked twice, values
    6 7 | 6.5 6: Do = (2*1 + 2*.25)/4 = .625; mean 6.375, squares .140625 .390625 .015625 .140625 = .6875,
    De = 2*4*.6875/12 = 11/24 -> α = 1 - .625*24/11 = -4/11. Prefix: i1 2-3 both clear, 3-4 ann satisfied
    and bob clear -> 1 of 2 agree."""
    rep = vf.agreement_report(store, staff, _report_marks(store))
    assert rep.benchmark == "interactionbench"
    assert [(p.a, p.b, p.deltas.n) for p in rep.vs_proposed] == [("ann", "proposed", 3), ("bob", "proposed", 2)]
    assert rep.vs_proposed[0].deltas.mean_abs == pytest.approx(1 / 3) and rep.vs_proposed[1].deltas.mean_abs == 0.5
    assert rep.vs_proposed[0].deltas.within[0.5] == 1.0 and rep.vs_proposed[0].deltas.within[0.25] == 1 / 3
    assert rep.vs_proposed[0].n_bins == 60  # three 20 s clips of 1 s bins
    assert [(p.a, p.b, p.deltas.n, p.deltas.mean_abs) for p in rep.pairs] == [("ann", "bob", 2, 0.75)]
    assert rep.pairs[0].n_bins == 40
    assert rep.alpha_all == pytest.approx(-4 / 11)
    assert (rep.n_events, rep.revised, rep.alpha_n) == (5, 1, 2)
    assert rep.prefix.n_intervals == 2 and rep.prefix.agree_share == 0.5
    assert rep.prefix.rows == [("i1", 2.0, 3.0, {"ann": False, "bob": False}, True),
                               ("i1", 3.0, 4.0, {"ann": True, "bob": False}, False)]


def test_agreement_report_for_an_annotator_holds_only_their_own_row(store):
    ds = _report_marks(store)
    mine = vf.agreement_report(store, ANN, ds)
    assert [(p.a, p.deltas.n) for p in mine.vs_proposed] == [("ann", 3)]
    assert (mine.pairs, mine.alpha_all, mine.prefix, mine.n_events, mine.revised, mine.alpha_n) == (
        [], None, None, 3, 0, 0)
    bobs = vf.agreement_report(store, BOB, ds)
    assert [(p.a, p.deltas.mean_abs) for p in bobs.vs_proposed] == [("bob", 0.5)]
    assert (bobs.n_events, bobs.revised) == (2, 1)
    assert vf.agreement_report(store, CAT, ds).vs_proposed == []  # cat's only mark is on a removed item


def test_agreement_report_compares_with_media_times_and_bins_unknown_durations(store):
    # ProactiveBench second 4 is media 3.0: a mark at 3.0 agrees exactly. No duration: the clip is taken to
    # run to the later of mark and proposal plus one bin, 3.0 + 1 -> 4 bins
    pb = make_item("p", bench="proactivebench", targets=(Target("on", "onset", 4, (4, 6)),), duration=None)
    vf.submit_mark(store, ANN, pb, 0, 3.0)
    rep = vf.agreement_report(store, REV, dataset(pb, bench="proactivebench"))
    (row,) = rep.vs_proposed
    assert row.deltas.mean_abs == 0.0 and row.n_bins == 4


def test_a_withdrawal_without_a_reason_records_an_empty_one(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, ANN, it, 1, 12.0)
    assert vf.withdraw_mark(store, ANN, it, 0).value["reason"] == ""
    assert vf.withdraw_mark(store, ANN, it, 1, None).value["reason"] == ""


def test_reveal_of_a_mark_stored_before_offsets_and_sources_existed(store):
    # an older row carries only t and unit: raw time = t, no offset, typed, blind
    from annotation.model import Verification as V
    it = make_item()
    store.add_verification(V("", "interactionbench", "i1", "t0", "ann", "trigger", {"t": 6.25, "unit": "ms"}, 1.0))
    assert vf.reveal(store, ANN, it, 0) == {"mark": 6.25, "unit": "ms", "proposed": 6.5, "delta": -0.25,
                                             "target_id": "t0", "raw_t": 6.25, "offset": 0.0, "source": "typed",
                                             "blind": True, "locked": False}
    assert vf.submit_mark(store, ANN, it, 1, 12.0).value["blind"] is True


def test_a_walk_shows_only_the_walkers_own_verdicts(store):
    it = make_item()
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, BOB, it, 2.0, True)
    vf.mark_interval(store, BOB, it, 3.0, False)
    st = vf.start_prefix(store, ANN, it)
    assert st["verdicts"] == {} and st["status"] == "incomplete" and st["current"] == (2.0, 3.0)
    assert vf.start_prefix(store, ANN, it, at=2.0)["verdict"] is None  # bob's 'satisfied' does not leak
    assert vf.start_prefix(store, REV, it)["verdicts"] == {}  # a reviewer's own walk is theirs too


def test_walks_with_half_second_steps(store):
    it = make_item()  # 2-5 s in 0.5 s steps: 6 intervals
    vf.submit_mark(store, ANN, it, 0, 6.0)
    st = vf.start_prefix(store, ANN, it, step=0.5)
    assert st["total"] == 6 and st["current"] == (2.0, 2.5)
    st = vf.mark_interval(store, ANN, it, 2.5, True, step=0.5)
    assert st["status"] == "fail" and st["hits"] == [2.5]
    assert store.verifications(kind="prefix")[-1].value == {"start": 2.5, "end": 3.0, "satisfied": True, "step": 0.5}
    ds = dataset(it)
    # at the 1 s step ann's walk has begun (she has rows) but holds no 1 s verdict
    assert vf.item_prefix_status(store, it) == "incomplete" and vf.item_prefix_status(store, it, 0.5) == "fail"
    assert vf.flagged(store, ds) == {} and vf.flagged(store, ds, step=0.5) == {"i1": "ann at 2.5 s"}
    assert [i.id for i in vf.verified_subset(store, ds, include_unchecked=True).items] == ["i1"]
    assert vf.verified_subset(store, ds, include_unchecked=True, step=0.5).items == []
    vf.mark_interval(store, ANN, it, 2.0, False, step=0.5)
    st = vf.withdraw_interval(store, ANN, it, 2.5, step=0.5)
    assert st["current"] == (2.5, 3.0) and st["status"] == "incomplete" and st["done"] == 1
    for s in (2.0, 2.5, 3.0, 3.5, 4.0, 4.5):
        vf.mark_interval(store, ANN, it, s, False, step=0.5)
    assert [i.id for i in vf.verified_subset(store, ds, step=0.5).items] == ["i1"]
    assert vf.progress(store, ds, 0.5) == [("ann", 1, 1, 1, 1)] and vf.progress(store, ds) == [("ann", 1, 1, 0, 1)]


def test_flagged_lists_every_failed_item_after_a_decided_one(store):
    a, b = make_item("a"), make_item("b")
    for it in (a, b):
        vf.submit_mark(store, ANN, it, 0, 6.0)
        vf.mark_interval(store, ANN, it, 4.0, True)
    vf.adjudicate(store, REV, a, "prefix", "", "fail", "visible at 4.2 s")
    assert vf.flagged(store, dataset(a, b)) == {"a": "reviewer rev: visible at 4.2 s", "b": "ann at 4 s"}


def test_records_of_another_benchmark_with_the_same_item_id_stay_out(store):
    ib = make_item("same")
    other = make_item("same", bench="interactscope")
    vf.submit_mark(store, ANN, ib, 0, 6.0)
    vf.submit_mark(store, BOB, other, 0, 9.0)  # 3 s from ann's, but on another benchmark's item
    vf.submit_mark(store, CAT, other, 0, 6.1)
    assert vf.disputes(store, dataset(ib)) == []
    assert [d.values for d in vf.disputes(store, dataset(other, bench="interactscope"))] == [{"bob": 9.0, "cat": 6.1}]
    assert [r.user for r in vf.audit_trail(store, REV, "interactionbench", "same")] == ["ann"]
    assert [r.user for r in vf.audit_trail(store, BOB, "interactscope", "same")] == ["bob"]


def test_a_spread_within_a_nanosecond_of_the_threshold_is_not_more_than_it(store):
    # 0.499999999 + 1e-9 is the double 0.5: a 0.5 s spread is within float noise of this threshold
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 6.5)
    assert vf.disputes(store, dataset(it), threshold=0.499999999) == []
    assert len(vf.disputes(store, dataset(it), threshold=0.4999)) == 1


def test_the_verified_subset_keeps_the_datasets_problems_and_extra_records(store):
    from annotation.errors import Problem
    it = make_item()
    ds = Dataset("interactionbench", "/root", [it], [Problem("a.json", "i7", "anchor", "not a number")],
                 {"maps": {"i1": "clip.mp4"}})
    sub = vf.verified_subset(store, ds, include_unchecked=True)
    assert [i.id for i in sub.items] == ["i1"] and sub.problems == ds.problems and sub.extra == ds.extra
    assert sub.root == "/root"


def test_a_decided_prefix_dispute_carries_its_decision_until_reopened(store):
    it = make_item()
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, ANN, it, 2.0, True)
    vf.mark_interval(store, BOB, it, 2.0, False)
    (d,) = vf.disputes(store, dataset(it), include_resolved=False)
    assert (d.benchmark, d.item_id, d.kind, d.decision) == ("interactionbench", "i1", "prefix", None)
    dec = vf.adjudicate(store, REV, it, "prefix", "", "fail", "the ball is down at 2.4 s")
    (d,) = vf.disputes(store, dataset(it))
    assert d.decision == dec and d.decision.value["status"] == "fail"
    assert vf.disputes(store, dataset(it), include_resolved=False) == []
    vf.reopen(store, REV, it, "", "check again")
    (d,) = vf.disputes(store, dataset(it), include_resolved=False)
    assert d.decision is None


def test_prefix_disputes_at_another_step(store):
    it = make_item()
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, ANN, it, 2.5, True, step=0.5)
    vf.mark_interval(store, BOB, it, 2.5, False, step=0.5)
    assert vf.disputes(store, dataset(it)) == []  # no 1 s verdicts
    (d,) = vf.disputes(store, dataset(it), step=0.5)
    assert d.detail == "prefix: verifiers differ at 2.5 s"


def test_withdrawing_a_verdict_shows_that_interval_with_only_the_walkers_rows(store):
    it = make_item()  # plan 2-3, 3-4, 4-5
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.mark_interval(store, BOB, it, 2.0, True)
    vf.mark_interval(store, ANN, it, 4.0, False)
    st = vf.withdraw_interval(store, ANN, it, 4.0)  # 2-3 and 3-4 are undecided too: 4-5 is shown, as asked
    assert st["current"] == (4.0, 5.0) and st["index"] == 2 and st["verdicts"] == {} and st["hits"] == []
    row = store.verifications(user="ann", kind="prefix")[-1]
    assert (row.target_id, row.item_id, row.benchmark) == ("t0", "i1", "interactionbench")
    assert isinstance(row.created, float) and row.created > 0
    with pytest.raises(ValueError, match=r"i1: 4.5 s does not start a prefix interval \(the prefix has 3 interval"):
        vf.withdraw_interval(store, ANN, it, 4.5)
    vf.withdraw_interval(store, ANN, it, 3.0)
    ids = [r.id for r in store.verifications()]
    assert len(set(ids)) == len(ids) == 6 and all(i.startswith("vf_") for i in ids)  # each row its own new id


def test_a_decision_snapshots_only_this_items_marks_on_that_event(store):
    it, other = make_item("i1"), make_item("i2")
    twin = make_item("i1", bench="interactscope")  # same item and target ids, another benchmark
    vf.submit_mark(store, ANN, it, 0, 6.0)
    vf.submit_mark(store, BOB, it, 0, 7.0)
    vf.submit_mark(store, CAT, other, 0, 6.6)
    vf.submit_mark(store, CAT, twin, 0, 6.7)
    vf.submit_mark(store, CAT, it, 1, 12.0)
    dec = vf.adjudicate(store, REV, it, "trigger", "t0", 6.5, "frame 162")
    assert dec.value["marks"] == {"ann": 6.0, "bob": 7.0}
    assert (dec.benchmark, dec.item_id, dec.target_id) == ("interactionbench", "i1", "t0")


def _row(start, step=1.0, **value):
    from annotation.model import Verification as V
    if step is not None:
        value["step"] = step
    return V("r", "b", "i", "t", "ann", "prefix", {"start": start, **value}, 0)


def test_prefix_state_after_at_and_the_default_step_hand_worked():
    plan = [(2.0, 3.0), (3.0, 4.0), (4.0, 5.0)]
    # rows of the 1 s step count by default
    st = vf.prefix_state(plan, [_row(2.0, satisfied=False)])
    assert st["done"] == 1 and st["current"] == (3.0, 4.0)
    assert vf.prefix_state(plan, [_row(2.0, 0.5, satisfied=False)], 0.5)["done"] == 1
    # 'after' means starting strictly after it (2.999999999 + 1e-9 is the double 3.0: not after)
    assert vf.prefix_state(plan, [], after=2.5)["current"] == (3.0, 4.0)
    assert vf.prefix_state(plan, [], after=3.0)["current"] == (4.0, 5.0)
    assert vf.prefix_state(plan, [], after=2.999999999)["current"] == (4.0, 5.0)
    assert vf.prefix_state(plan, [], after=4.0)["current"] == (2.0, 3.0)  # none after: the first undecided
    # 'at' must start an interval (to 1e-6, exclusive)
    assert vf.prefix_state(plan, [], at=3.0000005)["current"] == (3.0, 4.0)
    off = vf.prefix_state(plan, [], at=2.5)
    assert off["current"] is None and off["index"] is None and off["verdict"] is None
    zero = [(0.0, 1.0), (1.0, 2.0)]
    assert vf.prefix_state(zero, [], at=1e-6)["current"] is None  # exactly 1e-6 away: not that interval


def test_verdicts_of_older_rows_and_raw_starts():
    # a row without a step is a 1 s row; starts count to the microsecond; a withdrawal of nothing is harmless
    rows = [_row(6.0, None, satisfied=True), _row(3.0000004, satisfied=False), _row(7.0, withdrawn=True)]
    assert vf.verdicts_of(rows) == {6.0: True, 3.0: False}
    assert vf.verdicts_of(rows, 2.0) == {}
    assert vf.verdicts_of([_row(1.0, 1e-9, satisfied=True)], 2e-9) == {}  # steps 1e-9 apart differ


def test_a_start_exactly_a_microsecond_off_is_refused(store):
    it = make_item(req_t=0.0, modality="standing")  # plan 0-1, ... 4-5
    vf.submit_mark(store, ANN, it, 0, 6.0)
    with pytest.raises(ValueError, match="does not start a prefix interval"):
        vf.mark_interval(store, ANN, it, 1e-6, True)
    assert vf.mark_interval(store, ANN, it, 9e-7, True)["hits"] == [0.0]


def test_a_decision_row_keeps_its_time(store):
    it = make_item()
    vf.submit_mark(store, ANN, it, 0, 6.0)
    dec = vf.adjudicate(store, REV, it, "trigger", "t0", 6.5, "frame 162")
    assert isinstance(dec.created, float) and dec.created > 0
    assert store.verifications(kind="adjudication")[0].created == dec.created


def test_the_prefix_event_is_the_one_whose_window_opens_first():
    # a: anchor 10, window 9-10.5; b: anchor 11, window 3.5-12. b's window opens first (its anchor and its
    # window's end are both later than a's)
    it = make_item(targets=(Target("a", "onset", 10.0, (9.0, 10.5)), Target("b", "onset", 11.0, (3.5, 12.0))))
    assert vf.prefix_target(it).id == "b" and vf.prefix_plan(it) == [(2.0, 3.0), (3.0, 3.5)]


def test_prefix_plan_rounds_to_the_microsecond_and_stops_a_nanosecond_short():
    # request at 2.0000004 s: starts 2.0000004 and 3.0000004 show as 2.0 and 3.0, the end 3.0000004 as 3.0
    it = make_item(req_t=2.0000004, targets=(Target("a", "onset", 3.5),))
    assert vf.prefix_plan(it) == [(2.0, 3.0), (3.0, 3.5)]
    # a window opening at 3.000000001: 3.0 is within 1e-9 of the end, so no empty 3.0-3.0 interval
    edge = make_item(targets=(Target("a", "onset", 3.000000001),))
    assert vf.prefix_plan(edge) == [(2.0, 3.0)]


def test_prefix_rows_of_other_walkers_and_benchmarks_stay_out_of_a_walk(store):
    it = make_item()
    twin = make_item("i1", bench="interactscope")  # same item id on another benchmark
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
    vf.submit_mark(store, ANN, twin, 0, 6.0)
    vf.mark_interval(store, ANN, twin, 3.0, True)
    vf.mark_interval(store, BOB, it, 4.0, True)
    st = vf.mark_interval(store, ANN, it, 2.0, False)
    assert st["verdicts"] == {"2.000": False} and st["hits"] == [] and st["current"] == (3.0, 4.0)
    assert store.verifications(user="ann", kind="prefix")[-1].created > 0
    assert {u: s["verdicts"] for u, s in vf.user_prefix_states(store, it).items()} == {
        "bob": {"4.000": True}, "ann": {"2.000": False}}
    assert vf.item_prefix_status(store, twin) == "fail" and vf.item_prefix_status(store, it) == "fail"


def test_marks_and_decisions_on_a_twin_item_do_not_count_for_this_one(store):
    it, sibling = make_item("i1"), make_item("i2")  # same target ids on both items
    twin = make_item("i1", bench="interactscope")  # same item and target ids, another benchmark
    vf.submit_mark(store, ANN, twin, 0, 6.0)
    vf.submit_mark(store, ANN, sibling, 0, 6.0)
    vf.withdraw_mark(store, ANN, sibling, 0)
    vf.withdraw_mark(store, ANN, twin, 0)
    with pytest.raises(PermissionError, match="blind mark for event 1"):  # the twin's mark is not this one's
        vf.start_prefix(store, ANN, it)
    assert vf.mark_of(store, ANN, it, "t0") is None and vf.reveal(store, ANN, it, 0) is None
    v = vf.submit_mark(store, ANN, it, 0, 6.1)  # the withdrawn marks were on other items: still blind
    assert v.value["blind"] is True
    vf.submit_mark(store, BOB, twin, 0, 7.0)
    vf.adjudicate(store, REV, twin, "trigger", "t0", 6.5, "decided on the twin")
    assert vf.adjudication_of(store, it, "t0") is None and vf.reveal(store, ANN, it, 0)["locked"] is False
    vf.withdraw_mark(store, ANN, it, 0)  # this item's event stays open


def test_progress_and_report_skip_twins_and_read_older_rows_as_blind(store):
    """ann: one older row (no 'blind' key: blind) on i1 t0 and one mark on the twin item of another benchmark
    (not counted). rev walks i1 and i2 to the end without marking: two walks done, no marks."""
    from annotation.model import Verification as V
    i1, i2 = make_item("i1"), make_item("i2")
    twin = make_item("i1", bench="interactscope")
    store.add_verification(V("", "interactionbench", "i1", "t0", "ann", "trigger", {"t": 6.0, "unit": "ms"}, 1.0))
    vf.submit_mark(store, ANN, twin, 1, 12.0)
    for it in (i1, i2):
        for s in (2.0, 3.0, 4.0):
            vf.mark_interval(store, REV, it, s, False)
    ds = dataset(i1, i2)
    assert vf.progress(store, ds) == [("ann", 1, 1, 0, 0), ("rev", 0, 0, 2, 2)]
    rep = vf.agreement_report(store, REV, ds)
    assert [(p.a, p.deltas.n) for p in rep.vs_proposed] == [("ann", 1)] and rep.revised == 0
    assert rep.n_events == 1


def test_report_keys_a_verdict_off_an_edited_plan_by_its_start(store):
    # ann and bob walked 2-3 with the request at 2 s; a later edit moved the request to 1.5 s, so 2.0 starts
    # no interval of the new plan (1.5-2.5, 2.5-3.5, ...): the row ends where it starts
    it = make_item()
    for u in (ANN, BOB):
        vf.submit_mark(store, u, it, 0, 6.0)
        vf.mark_interval(store, u, it, 2.0, False)
    edited = make_item(req_t=1.5)
    rep = vf.agreement_report(store, ROOT, dataset(edited))
    assert rep.prefix.rows == [("i1", 2.0, 2.0, {"ann": False, "bob": False}, True)]
