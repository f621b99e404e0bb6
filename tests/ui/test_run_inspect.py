"""Runs drill-down at the server: one row per stored call with the scorer's verdict for what it said,
errors shown as errors, the verdict filter, two runs side by side, and refusals for unknown runs/items."""
from __future__ import annotations

import pytest

from annotation.store import Store
from app import main
from ibench_ui.context import AppContext
from ibench_ui.run_inspect import decisions, drill_html, pick_frames, run_label

ITEM = "ball_counter#0"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    (d / "items.txt").write_text(ITEM + "\n")
    for model in ("baseline:motion", "baseline:periodic:5"):
        assert main(["run", "--benchmark", "interactionbench", "--model", model, "--items", str(d / "items.txt"),
                     "--db", str(d / "db.sqlite")]) == 0
    st = Store(d / "db.sqlite")
    yield AppContext(store=st), [r.id for r in st.runs()]
    st.close()


def test_one_row_per_call_with_verdicts(runs):
    ctx, (motion, periodic) = runs
    ds = ctx.dataset("interactionbench")
    calls = ctx.store.run_calls(periodic, ITEM)
    rows = decisions(ctx.store, ds, periodic, ITEM)
    assert [d.t for d in rows] == [c["t"] for c in calls]
    spoke = [d for d in rows if d.decision == "speak"]
    # periodic:5 speaks every 5 s: each utterance gets the InteractionBench classifier's label
    assert spoke and all(d.verdict in ("matched", "premature", "redundant", "spurious") for d in spoke)
    assert all(d.verdict == "silent" for d in rows if d.decision == "silent")
    assert all(d.frame_times for d in rows) and rows[0].raw_reply == calls[0]["raw_reply"]


def test_error_calls_filter_and_side_by_side(runs):
    ctx, (motion, periodic) = runs
    ctx.store.add_run_call(motion, ITEM, 0.3, status="error", error_kind="timeout", attempts=3,
                           raw_reply="timed out after 60 s")
    html = drill_html(ctx.store, ctx, motion, ITEM, "error", other_run=periodic)
    assert 'id="drill-table"' in html and 'id="drill-table-b"' in html
    first_pane = html.split('id="drill-table-b"')[0]
    assert first_pane.count('class="ib-decision') == 1 and 'data-verdict="error"' in first_pane
    assert "timed out after 60 s" in first_pane and "timeout" in first_pane
    assert run_label(ctx.store.get_run(motion)).split(" · ")[1] == "baseline:motion"
    assert "No run" in drill_html(ctx.store, ctx, "run_nope", ITEM)
    assert "has no item" in drill_html(ctx.store, ctx, motion, "../../etc/passwd")


def test_thumbnails_spread_over_the_frames_given():
    assert pick_frames((1.0, 2.0)) == [1.0, 2.0]
    assert pick_frames(tuple(float(i) for i in range(16))) == [0.0, 5.0, 10.0, 15.0]
