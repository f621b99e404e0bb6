"""CompareService without a browser: a benchmark's item and responder choices, the selection to open with (the
default, a ?view=compare link's, a refresh's), an item's lanes and their export, for reviewers and admins only;
every method refuses anonymous visitors and annotators with auth's own message.

Hand-worked store (tests/ui/conftest.py studio_store) on InteractionBench: the batch run of baseline:periodic:5
covers ball_counter#0 (the ball appears at 8 s; it speaks at 1 and 6 s: premature, at 11 s: matched, 3 s late,
timing 1 - 3/5 = 40.0; at 16, 21, 26, 31 s: redundant); participant P01 covers color_scene#0 (the background
turns blue at 10 s; "The background turned blue." at 11 s: matched, 1 s late, timing 1 - 1/5 = 80.0)."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from annotation.store import Store
from ibench_ui.compare import render
from ibench_ui.compare_service import CompareService, View
from ibench_ui.context import AppContext

IB = "interactionbench"
HUMAN = "human:P01"
NOT_SIGNED_IN = "not signed in (or the session expired): sign in first"


@pytest.fixture(scope="module")
def compare(studio_store):
    db, run_id, tokens = studio_store
    return CompareService(AppContext(store=Store(db))), f"model:baseline:periodic:5@{run_id}", run_id, tokens


def test_choices_name_each_responder_and_count_who_covers_each_item(compare):
    svc, run_key, run_id, tok = compare
    sel = svc.select(tok["reviewer"], IB)
    store = svc.ctx.store
    at = lambda ts: time.strftime("%Y-%m-%d %H:%M", time.gmtime(ts))  # noqa: E731 - labels say who and when (UTC)
    sitting = store.sessions(participant="P01", benchmark=IB)[0].created
    assert sel.responders == [(f"P01 · studio session · {at(sitting)} (1 items)", HUMAN),
                              (f"baseline:periodic:5 · sliding · run {at(store.get_run(run_id).created)} · "
                               f"{run_id[-6:]} (1 items)", run_key)]
    assert len(sel.items) == 15 and sel.items[:4] == [
        ("ball_counter#0 · B_trigger · 1 responder(s)", "ball_counter#0"),
        ("ball_counter#1 · C_counting", "ball_counter#1"), ("ball_counter#2 · A_retro_qa", "ball_counter#2"),
        ("color_scene#0 · B_trigger · 1 responder(s)", "color_scene#0")]
    assert sum("responder(s)" in label for label, _ in sel.items) == 2


def test_the_selection_to_open_with(compare):
    svc, run_key, _, tok = compare
    t = tok["admin"]

    def picked(*args):
        sel = svc.select(t, IB, *args)
        return sel.item_id, sel.keys

    # the default: an item a human answered (color_scene#0, though ball_counter#0 comes first), its responders
    assert picked() == ("color_scene#0", [HUMAN])
    # a link naming responders but no item: the first item they cover
    assert picked(None, [run_key]) == ("ball_counter#0", [run_key])
    # a link naming an item: that item; of its responders only the valid ones, none valid: the item's own
    assert picked("ball_counter#1", ["bogus", HUMAN]) == ("ball_counter#1", [HUMAN])
    assert picked("ball_counter#0", ["bogus"]) == ("ball_counter#0", [run_key])
    # an item the benchmark lacks: the default item, whatever the responders cover
    assert picked("nope", [run_key]) == ("color_scene#0", [run_key])
    # a benchmark nobody answered: its first item, no lanes
    pb = svc.select(t, "proactivebench")
    assert (pb.item_id, pb.keys, pb.responders) == ("pb-or-ball", [], [])
    assert pb.items[0] == ("pb-or-ball · OR", "pb-or-ball")


def test_a_refresh_keeps_the_item_and_the_responders_still_valid(compare):
    svc, run_key, _, tok = compare
    sel = svc.refresh(tok["reviewer"], IB, "ball_counter#0", ["bogus", run_key, "humans:pooled", HUMAN])
    assert (sel.item_id, sel.keys) == ("ball_counter#0", [run_key, HUMAN]) and len(sel.responders) == 2
    empty = svc.refresh(tok["reviewer"], IB, None, None)
    assert (empty.item_id, empty.keys) == (None, [])


def test_a_view_has_one_lane_per_responder_labelled_by_the_rules(compare):
    svc, run_key, _, tok = compare
    v = svc.view(tok["reviewer"], IB, "ball_counter#0", [run_key, HUMAN])
    assert v.item.id == "ball_counter#0" and [ln.responder.key for ln in v.lanes] == [run_key, HUMAN]
    run_lane, human_lane = v.lanes
    assert [(x.t, x.label) for x in run_lane.verdicts] == [
        (1.0, "premature"), (6.0, "premature"), (11.0, "matched"),
        (16.0, "redundant"), (21.0, "redundant"), (26.0, "redundant"), (31.0, "redundant")]
    assert dict(run_lane.score)["timing_accuracy"] == 40.0
    assert not human_lane.covered and human_lane.verdicts == ()
    (lane,) = svc.view(tok["admin"], IB, "color_scene#0", [HUMAN]).lanes
    assert [(x.t, x.label) for x in lane.verdicts] == [(11.0, "matched")]
    assert dict(lane.score)["timing_accuracy"] == 80.0
    assert svc.view(tok["admin"], IB, None, [HUMAN]) == View(IB, None, [])
    assert svc.view(tok["admin"], IB, "nope", [HUMAN]) == View(IB, None, [])
    _, fig, lanes = render(v)  # the tab draws it: verdict counts in legend order, the uncovered lane said so
    assert fig is not None and re.findall(r">(\w+): (\d+)</span>", lanes) == [
        ("matched", "1"), ("premature", "2"), ("redundant", "4")]
    assert "this responder did not cover this item" in lanes


def test_the_export_writes_a_png_and_a_standalone_html(compare):
    svc, run_key, _, tok = compare
    png, html = map(Path, svc.export(tok["reviewer"], IB, "ball_counter#0", [run_key]))
    assert (png.name, html.name) == ("interactionbench__ball_counter_0.png", "interactionbench__ball_counter_0.html")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "Still watching" in html.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="^Choose an item first.$"):
        svc.export(tok["reviewer"], IB, None, [run_key])


@pytest.mark.parametrize("role", [None, "annotator", "reviewer", "admin"])
def test_every_method_is_for_reviewers_and_admins(compare, role):
    svc, run_key, _, tok = compare
    calls = {"select": (IB,), "refresh": (IB, "ball_counter#0", [run_key]),
             "view": (IB, "ball_counter#0", [run_key]), "export": (IB, None, [run_key])}
    for name, args in calls.items():
        call = getattr(svc, name)
        if role in ("reviewer", "admin"):
            try:
                call(tok[role], *args)
            except ValueError as exc:  # past the role check: the export's own input check
                assert name == "export" and str(exc) == "Choose an item first."
            continue
        why = NOT_SIGNED_IN if role is None else \
            f"user '{role}' ({role}) may not do this; it needs one of: admin, reviewer"
        with pytest.raises(PermissionError) as info:
            call(tok[role], *args)
        assert str(info.value) == why, name


def test_the_local_single_user_is_staff(tmp_path):
    """No accounts on a loopback bind: the one local user sees everything with an empty token."""
    svc = CompareService(AppContext(store=Store(tmp_path / "db.sqlite")))
    sel = svc.select("", IB)
    assert (sel.item_id, sel.keys, sel.responders) == ("ball_counter#0", [], [])
