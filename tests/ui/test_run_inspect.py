"""Runs drill-down at the server: one row per stored call with the scorer's verdict for what it said,
errors shown as errors, the verdict filter, two runs side by side, and refusals for unknown runs/items."""
from __future__ import annotations

import re

import pytest

from annotation.store import Store
from app import main
from ibench_ui.context import AppContext
from ibench_ui.run_inspect import Decision, decisions, decisions_table, drill_html, pick_frames, repeats, run_label

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


def _d(t, decision="silent", text="", verdict="silent", detail="", status="ok", kind=None, latency=0.01):
    return Decision(t=t, status=status, error_kind=kind, attempts=1, latency_s=latency, prompt="p", raw_reply=decision,
                    decision=decision if status == "ok" else None, text=text, frame_times=(), audio_span=None,
                    verdict=verdict, verdict_detail=detail)


# worked by hand: waits at 1-3 s (latencies differ: still one run), "hi" twice too early, a wait, two errors of
# different kinds, "hi" twice redundant with different delays (told apart), two waits at the end
ROWS = [_d(1, latency=0.01), _d(2, latency=0.02), _d(3), _d(4, "speak", "hi", "premature"),
        _d(5, "speak", "hi", "premature"), _d(6), _d(7, status="error", verdict="error", kind="timeout"),
        _d(8, status="error", verdict="error", kind="http"), _d(11, "speak", "hi", "redundant", "delay 1.00 s"),
        _d(12, "speak", "hi", "redundant", "delay 2.00 s"), _d(13), _d(14)]


def test_identical_decisions_fold_at_their_boundaries():
    assert repeats([]) == []
    assert repeats(ROWS[:1]) == [(True, 1, 1)]
    assert repeats(ROWS) == [(True, 3, 3), (False, 3, 3), (False, 3, 3), (True, 2, 5), (False, 2, 5), (True, 1, 6),
                             (True, 1, 7), (True, 1, 8), (True, 1, 11), (True, 1, 12), (True, 2, 14), (False, 2, 14)]


class _NoItems:
    def __contains__(self, item_id):
        return False


def _rows(html: str) -> list[tuple]:
    """(time, folded, count or None, group) of each drawn row."""
    out = []
    for tr in re.findall(r"<tr class=\"ib-decision[^>]*>", html):
        count = re.search(r'data-count="(\d+)"', tr)
        out.append((float(re.search(r'data-t="([\d.]+)"', tr)[1]), "ib-repeat" in tr,
                    int(count[1]) if count else None, int(re.search(r'data-group="(\d+)"', tr)[1])))
    return out


def test_a_folded_run_unfolds_each_time_and_a_filter_never_joins_runs():
    html = decisions_table(_NoItems(), ITEM, ROWS)
    assert _rows(html) == [(1, False, 3, 0), (2, True, None, 0), (3, True, None, 0), (4, False, 2, 1),
                           (5, True, None, 1), (6, False, 1, 2), (7, False, 1, 3), (8, False, 1, 4), (11, False, 1, 5),
                           (12, False, 1, 6), (13, False, 2, 7), (14, True, None, 7)]
    # each folded row is hidden until its run's "×N" button (one per run, naming its span) unfolds it
    assert html.count(" hidden>") == 4
    assert re.findall(r'<button type="button" class="ib-times" data-group="(\d+)" aria-expanded="false" '
                      r'title="(\d+) identical decisions in a row, ([^"]+): click to show each">×(\d+)</button>', html) \
        == [("0", "3", "00:01.000–00:03.000", "3"), ("1", "2", "00:04.000–00:05.000", "2"),
           ("7", "2", "00:13.000–00:14.000", "2")]
    assert "00:02.000<br><small>20 ms, 1 try" in html  # a folded row keeps its own time and latency
    # the waits at 1-3, 6 and 13-14 s were not one after another: still three runs when only silence is shown
    silent = decisions_table(_NoItems(), ITEM, ROWS, "silent")
    assert [(t, folded, n) for t, folded, n, _ in _rows(silent)] == [
        (1, False, 3), (2, True, None), (3, True, None), (6, False, 1), (13, False, 2), (14, True, None)]
    spoke = decisions_table(_NoItems(), ITEM, ROWS, "responded")
    assert [(t, folded, n) for t, folded, n, _ in _rows(spoke)] == [(4, False, 2), (5, True, None), (11, False, 1),
                                                                    (12, False, 1)]
