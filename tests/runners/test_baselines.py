import threading

import pytest

from tests.runners.conftest import ib_item
from runners.backends import load_backend
from runners.backends.baselines import MotionBaseline
from runners.clock import MediaClock
from runners.interactionbench.prediction import prediction_line
from runners.protocols import drive, get_protocol


def test_motion_speaks_within_1s_of_each_visual_event(clip):
    backend = load_backend("baseline:motion")
    proto = get_protocol("sliding", **MotionBaseline.protocol_hints)
    trace = drive(ib_item(clip, "B"), proto, backend)
    times = [e.t for e in trace.emissions]
    for ev in clip.events:
        assert any(ev <= t <= ev + 1.0 for t in times), (ev, times)
    for t in times:  # no chatter: every emission answers an event
        assert any(ev <= t <= ev + 1.0 for ev in clip.events), (t, times)
    assert all(e.content == "Something changed." for e in trace.emissions)


def test_motion_beats_silent_on_an_alert_item(clip):
    from scoring.interactionbench.scorer import score

    item = ib_item(clip, "C", capability="PTR")
    preds = []
    for spec in ("baseline:silent", "baseline:motion", "baseline:periodic:2"):
        trace = drive(item, get_protocol("sliding", **MotionBaseline.protocol_hints), load_backend(spec))
        preds.append(prediction_line(trace, "events", 0, model=spec))
    totals = {p["model"]: score([item.native], [p])["records"][0] for p in preds}
    silent, motion = totals["baseline:silent"], totals["baseline:motion"]
    assert silent["total_score"] == 0
    assert motion["total_score"] > silent["total_score"] and motion["timing_accuracy"] > 80
    assert motion["total_score"] > totals["baseline:periodic:2"]["total_score"]


def test_simple_baselines(clip):
    item = ib_item(clip, "B")
    assert drive(item, get_protocol("sliding"), load_backend("baseline:silent")).emissions == []
    assert len(drive(item, get_protocol("sliding"), load_backend("baseline:always")).emissions) == 12
    assert [e.t for e in drive(item, get_protocol("sliding"), load_backend("baseline:periodic:5")).emissions] == [1.0, 6.0, 11.0]
    off = drive(item, get_protocol("offline", max_frames=48), load_backend("baseline:motion"))
    assert len(off.emissions) == 3 and all(any(ev <= e.t <= ev + 0.5 for ev in clip.events) for e in off.emissions)
    with pytest.raises(ValueError, match="unknown baseline"):
        load_backend("baseline:psychic")
    with pytest.raises(ValueError, match="unknown backend spec"):
        load_backend("gpt4")


def test_live_drive_follows_the_media_clock(clip):
    """A live drive decides each tick only once the page's media time has reached it: the page below steps its
    (paused) clock tick by tick and waits for each decision, so nothing depends on wall-clock speed."""
    item = ib_item(clip, "B")
    ref = drive(item, get_protocol("sliding", **MotionBaseline.protocol_hints), load_backend("baseline:motion"))
    ticks = [t for t, _, _ in ref.shown]  # the decision times without a clock
    assert ticks and len(ref.emissions) == 3
    cond = threading.Condition()
    waiting = []  # the media times the drive asked to wait for, in order

    class WatchedClock(MediaClock):  # the real clock; it only tells the page what the drive waits for
        def wait_until(self, t, timeout=None, poll=0.05):
            with cond:
                waiting.append(t)
                cond.notify_all()
            return super().wait_until(t, timeout, poll)

    clock = WatchedClock(stale_after=120.0)  # generous: a loaded machine may take long between reports
    clock.report(0.0, paused=True)
    decided = []  # (tick, the page's media time when it was decided)
    seen_at_step = []  # how many decisions existed once the page had reached tick k and seen it decided

    def on_decision(d):
        with cond:
            decided.append((d.t, clock.now()))
            cond.notify_all()

    def page():  # the browser: once the drive waits for tick k, show it; wait (generous deadline) for its decision
        for k, t in enumerate(ticks):
            with cond:
                if not cond.wait_for(lambda: len(waiting) > k, timeout=120.0):
                    return
            clock.report(t, paused=True)
            with cond:
                if not cond.wait_for(lambda: len(decided) > k, timeout=120.0):
                    return
                seen_at_step.append(len(decided))
        clock.report(ticks[-1] + 1.0, paused=True)

    th = threading.Thread(target=page, daemon=True)
    th.start()
    got = []
    trace = drive(item, get_protocol("sliding", **MotionBaseline.protocol_hints), load_backend("baseline:motion"),
                  clock=clock, on_decision=on_decision, on_emission=lambda e: got.append((e.t, clock.now())))
    th.join(timeout=120.0)
    assert not th.is_alive()
    # every tick decided once, in order, at exactly the media time the page showed (never ahead of it)
    assert waiting == ticks and decided == [(t, t) for t in ticks]
    assert seen_at_step == list(range(1, len(ticks) + 1))  # the drive waited: never a decision beyond the page
    assert trace.skipped_ticks == 0 and not trace.failed
    assert [(e.t, e.content) for e in trace.emissions] == [(e.t, e.content) for e in ref.emissions]
    assert [t for t, _ in got] == [e.t for e in trace.emissions]
    assert all(now >= t for t, now in got)  # an emission is never announced ahead of the page
    clock.close()
    trace = drive(item, get_protocol("sliding"), load_backend("baseline:silent"), clock=clock)
    assert trace.failed and "stale" in trace.failed
