import threading
import time

import pytest

from conftest import ib_item
from runners.backends import load_backend
from runners.backends.baselines import MotionBaseline
from runners.clock import MediaClock
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
    from scoring.interactionbench import score

    item = ib_item(clip, "C", capability="PTR")
    preds = []
    for spec in ("baseline:silent", "baseline:motion", "baseline:periodic:2"):
        trace = drive(item, get_protocol("sliding", **MotionBaseline.protocol_hints), load_backend(spec))
        preds.append(trace.to_interactionbench("events", 0, model=spec))
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
    clock = MediaClock(stale_after=2.0)
    clock.report(0.0, paused=False, rate=8.0)
    stop = threading.Event()

    def heartbeat():  # the page reports once in a while, like the browser would
        start = time.monotonic()
        while not stop.is_set():
            time.sleep(0.2)
            clock.report((time.monotonic() - start) * 8.0, paused=False, rate=8.0)

    th = threading.Thread(target=heartbeat, daemon=True)
    th.start()
    got = []
    t0 = time.monotonic()
    trace = drive(ib_item(clip, "B"), get_protocol("sliding", **MotionBaseline.protocol_hints),
                  load_backend("baseline:motion"), clock=clock,
                  on_emission=lambda e: got.append((e.t, clock.now())))
    stop.set()
    assert 1.0 < time.monotonic() - t0 < 4.0  # 12 s of media at 8x
    assert [t for t, _ in got] == [e.t for e in trace.emissions] and len(got) == 3
    assert all(now >= t for t, now in got)  # never decided ahead of the page
    clock.close()
    trace = drive(ib_item(clip, "B"), get_protocol("sliding"), load_backend("baseline:silent"), clock=clock)
    assert trace.failed and "stale" in trace.failed
