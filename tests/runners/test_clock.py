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


def test_wait_until_real_time_and_close_wakes_waiters():
    c = MediaClock(stale_after=5.0)
    c.report(0.0, paused=False, rate=10.0)
    t0 = time.monotonic()
    got = c.wait_until(1.0, timeout=2.0)
    assert got >= 1.0 and time.monotonic() - t0 < 1.0
    c.report(3.0, paused=True)
    errors = []

    def waiter():
        try:
            c.wait_until(10.0, timeout=5.0)
        except ClockStale as exc:
            errors.append(exc)

    th = threading.Thread(target=waiter)
    th.start()
    time.sleep(0.1)
    c.close()
    th.join(2.0)
    assert errors and not th.is_alive()


def test_thread_safe_under_concurrent_reports():
    c = MediaClock(stale_after=5.0)
    stop = threading.Event()
    seen = []

    def reporter(offset):
        i = 0
        while not stop.is_set():
            c.report(offset + i * 0.001, paused=False, wall=time.time())
            i += 1

    def reader():
        while not stop.is_set():
            v = c.now()
            if v is not None:
                seen.append(v)

    threads = [threading.Thread(target=reporter, args=(k,)) for k in range(3)] + [threading.Thread(target=reader)]
    for th in threads:
        th.start()
    time.sleep(0.3)
    stop.set()
    for th in threads:
        th.join()
    assert seen and all(v >= 0 for v in seen)
