import threading
import time

import pytest

from runners.clock import ClockStale, MediaClock


class FakeTime:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_extrapolates_while_playing_and_holds_while_paused():
    ft = FakeTime()
    c = MediaClock(stale_after=3.0, monotonic=ft)
    assert c.now() is None and c.is_stale()
    c.report(10.0, paused=False, rate=1.0, wall=1.0)
    ft.now += 0.5
    assert c.now() == pytest.approx(10.5)
    c.report(12.0, paused=True, wall=2.0)
    ft.now += 1.0
    assert c.now() == pytest.approx(12.0)
    c.report(12.0, paused=False, rate=2.0, wall=3.0)
    ft.now += 1.0
    assert c.now() == pytest.approx(14.0)


def test_goes_stale_and_ignores_out_of_order_reports():
    ft = FakeTime()
    c = MediaClock(stale_after=3.0, monotonic=ft)
    c.report(5.0, paused=False, wall=10.0)
    assert c.report(4.0, paused=False, wall=9.0) is False  # older page report arrives late
    assert c.now() == pytest.approx(5.0)
    ft.now += 3.5
    assert c.is_stale() and c.now() is None
    c.report(9.0, paused=False, wall=11.0)  # a seek re-anchors
    assert c.now() == pytest.approx(9.0)
    with pytest.raises(ValueError):
        c.report(-1.0, paused=False)


def test_wait_until_returns_once_media_time_reaches_the_target():
    c = MediaClock(stale_after=5.0)
    c.report(0.0, paused=False, rate=10.0)
    got = c.wait_until(1.0, timeout=60.0)  # a generous deadline: the state is asserted, not the speed
    assert got >= 1.0


def test_wait_until_times_out_on_a_paused_clock():
    c = MediaClock(stale_after=60.0)
    c.report(3.0, paused=True)
    with pytest.raises(TimeoutError):
        c.wait_until(10.0, timeout=0.2)
    assert c.now() == 3.0


def test_close_wakes_a_waiter_with_clock_stale():
    c = MediaClock(stale_after=60.0)
    c.report(3.0, paused=True)
    waiting, errors = threading.Event(), []

    def waiter():
        waiting.set()
        try:
            c.wait_until(10.0, timeout=120.0)
        except ClockStale as exc:
            errors.append(exc)

    th = threading.Thread(target=waiter)
    th.start()
    assert waiting.wait(60.0)
    c.close()
    th.join(120.0)
    assert not th.is_alive() and len(errors) == 1
    assert c.is_stale() and c.now() is None
    with pytest.raises(ClockStale):
        c.wait_until(1.0, timeout=1.0)


def test_concurrent_reports_never_give_a_time_nobody_reported():
    """Three pages' reporters and a reader race; paused reports make now() exactly a reported value, so
    a torn or invented state would show as a value outside the reported sets."""
    c = MediaClock(stale_after=60.0)
    n = 2000
    reported = {k: [k * 10_000 + i for i in range(n)] for k in range(3)}
    allowed = {float(v) for vals in reported.values() for v in vals}
    done = threading.Barrier(4)
    seen = []

    def reporter(k):
        for v in reported[k]:
            c.report(float(v), paused=True)
        done.wait()

    def reader():
        readers_done = False
        while not readers_done:
            v = c.now()
            if v is not None:
                seen.append(v)
            readers_done = done.n_waiting == 3
        seen.append(c.now())  # every reporter has finished: the clock holds a reported value
        done.wait()

    threads = [threading.Thread(target=reporter, args=(k,)) for k in range(3)]
    th_reader = threading.Thread(target=reader)
    th_reader.start()
    for th in threads:
        th.start()
    for th in threads + [th_reader]:
        th.join(120.0)
    assert seen and set(seen) <= allowed
    # each reporter's last value is one of the three that can be last
    assert c.now() in {float(vals[-1]) for vals in reported.values()}
