"""Media clock rules (runners.clock) on a fake monotonic clock, worked by hand: the staleness threshold on both
sides, which reports are taken, extrapolation while playing, and how long `wait_until` sleeps each time (a recording
condition advances the fake clock by exactly what it was asked to wait, so no test waits on the wall clock)."""
from __future__ import annotations

import threading

import pytest

from runners.clock import ClockReport, ClockStale, MediaClock


class FakeTime:
    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class RecordingCondition(threading.Condition):
    """A condition whose wait(s) advances the fake clock by s (and, when asked, makes the page stop reporting)."""

    def __init__(self, clock: FakeTime):
        super().__init__()
        self.clock, self.waits, self.on_wait = clock, [], None

    def wait(self, timeout=None):
        self.waits.append(timeout)
        assert len(self.waits) < 100, "wait_until kept waiting without the clock moving"
        self.clock.now += timeout
        if self.on_wait:
            self.on_wait()
        return False


def _clock(stale_after: float = 3.0) -> tuple[MediaClock, FakeTime, RecordingCondition]:
    ft = FakeTime()
    c = MediaClock(stale_after=stale_after, monotonic=ft)
    c._cond = RecordingCondition(ft)
    return c, ft, c._cond


def test_stale_exactly_after_the_threshold_not_at_it():
    """Reported at 100.0 with stale_after 3: at 103.0 (3 s) it is still live, at 103.001 stale."""
    c, ft, _ = _clock()
    c.report(5.0, paused=True)
    ft.now = 103.0
    assert not c.is_stale() and c.now() == 5.0
    ft.now = 103.001
    assert c.is_stale() and c.now() is None
    assert c.paused is True  # the last report is still known


def test_an_unknown_or_closed_clock_is_stale():
    c, ft, _ = _clock()
    assert c.is_stale() and c.now() is None and c.paused is None and c.last_report() is None
    c.report(0.0, paused=False)
    assert not c.is_stale()
    c.close()
    assert c.is_stale() and c.now() is None


def test_reports_keep_time_rate_and_receipt():
    """Reported at monotonic 100 with rate 1.5 and page wall 7: 2 s later media time is 4 + 1.5 * 2 = 7."""
    c, ft, _ = _clock()
    assert c.report(4, paused=0, rate=1.5, wall=7.0) is True
    assert c.last_report() == ClockReport(4.0, False, 1.5, 7.0, 100.0)
    ft.now = 102.0
    assert c.now() == 7.0 and c.paused is False


@pytest.mark.parametrize("rate", [0, None, 0.0])
def test_a_missing_rate_plays_at_normal_speed(rate):
    """Rate 0 / None is read as 1.0: 2 s after a report at 10, media time is 12."""
    c, ft, _ = _clock()
    c.report(10.0, paused=False, rate=rate)
    ft.now = 102.0
    assert c.now() == 12.0 and c.last_report().rate == 1.0


def test_an_older_page_report_is_ignored_and_an_equal_or_unstamped_one_taken():
    """Held wall 10: a report stamped 9.999 is dropped (False), one stamped 10 (the same instant) and one without a
    stamp are taken; after an unstamped report any stamped one is taken."""
    c, ft, _ = _clock()
    c.report(5.0, paused=True, wall=10.0)
    assert c.report(1.0, paused=True, wall=9.999) is False and c.now() == 5.0
    assert c.report(6.0, paused=True, wall=10.0) is True and c.now() == 6.0
    assert c.report(7.0, paused=True) is True and c.now() == 7.0
    assert c.report(8.0, paused=True, wall=1.0) is True and c.now() == 8.0


@pytest.mark.parametrize("bad", [None, float("nan"), -0.001])
def test_a_report_without_a_media_time_is_refused(bad):
    c, _, _ = _clock()
    with pytest.raises(ValueError, match=r"^media clock report: media_t must be a time >= 0, got "):
        c.report(bad, paused=False)
    assert c.last_report() is None
    assert c.report(0.0, paused=False) is True  # zero is a time


def test_wait_until_a_time_already_reached_returns_at_once():
    """Paused exactly at 10.0: waiting for 10.0 returns 10.0 without sleeping."""
    c, _, cond = _clock()
    c.report(10.0, paused=True)
    assert c.wait_until(10.0, timeout=1.0) == 10.0 and cond.waits == []


def test_wait_until_sleeps_until_the_target_when_it_is_near():
    """Playing at rate 2 from 0, poll 0.125: target 1.0 is (1 - 0) / 2 = 0.5 s away, and the longest sleep is
    4 * poll = 0.5: one sleep of 0.5 s, then media time is 0 + 2 * 0.5 = 1.0."""
    c, _, cond = _clock()
    c.report(0.0, paused=False, rate=2.0)
    assert c.wait_until(1.0, poll=0.125) == 1.0 and cond.waits == [0.5]


def test_wait_until_sleeps_at_most_four_polls_at_a_time():
    """Rate 2 from 0 to target 4.0 (2 s away): four sleeps of 4 * 0.125 = 0.5 s (media 1, 2, 3, 4)."""
    c, _, cond = _clock()
    c.report(0.0, paused=False, rate=2.0)
    assert c.wait_until(4.0, poll=0.125) == 4.0 and cond.waits == [0.5] * 4


def test_wait_until_at_normal_speed_sleeps_the_distance():
    """Rate 1 from 0, target 0.25, poll 0.125: min(0.5, 0.25 / 1) = 0.25 s, one sleep."""
    c, _, cond = _clock()
    c.report(0.0, paused=False, rate=1.0)
    assert c.wait_until(0.25, poll=0.125) == 0.25 and cond.waits == [0.25]


def test_wait_until_sleeps_at_least_a_millisecond():
    """Target 0.0001 s ahead at rate 1: the sleep is max(0.001, 0.0001) = 0.001 s."""
    c, _, cond = _clock()
    c.report(0.0, paused=False, rate=1.0)
    assert c.wait_until(0.0001, poll=0.125) == pytest.approx(0.001) and cond.waits == [0.001]


def test_a_paused_clock_polls_until_the_deadline():
    """Paused at 3, timeout 0.375 s, poll 0.125: sleeps 0.125 three times; then no time is left -> TimeoutError."""
    c, _, cond = _clock(stale_after=60.0)
    c.report(3.0, paused=True)
    with pytest.raises(TimeoutError, match=r"^media time did not reach 10\.000s in 0\.375s$"):
        c.wait_until(10.0, timeout=0.375, poll=0.125)
    assert cond.waits == [0.125, 0.125, 0.125]


def test_the_last_sleep_is_cut_to_the_time_left():
    """Paused, timeout 0.25, poll 0.5: the one sleep is min(0.5, 0.25) = 0.25, then the deadline has passed."""
    c, _, cond = _clock(stale_after=60.0)
    c.report(3.0, paused=True)
    with pytest.raises(TimeoutError):
        c.wait_until(10.0, timeout=0.25, poll=0.5)
    assert cond.waits == [0.25]


def test_a_zero_timeout_never_sleeps():
    c, _, cond = _clock()
    c.report(3.0, paused=True)
    with pytest.raises(TimeoutError):
        c.wait_until(10.0, timeout=0)
    assert cond.waits == []


def test_a_clock_playing_backwards_polls():
    """Rate -1 (reported as is): media time falls, so the sleep is the poll, 0.125, until the 0.25 s timeout."""
    c, _, cond = _clock()
    c.report(5.0, paused=False, rate=-1.0)
    with pytest.raises(TimeoutError):
        c.wait_until(10.0, timeout=0.25, poll=0.125)
    assert cond.waits == [0.125, 0.125]


def test_wait_until_raises_clock_stale_when_the_page_stops_reporting():
    """stale_after 3 (given as an int): one 0.5 s sleep, then the page is gone for 3.5 s -> ClockStale naming the
    target and the threshold."""
    c, ft, cond = _clock(stale_after=3)
    c.report(0.0, paused=True)
    cond.on_wait = lambda: setattr(ft, "now", ft.now + 3.5)
    stale = r"^media clock went stale while waiting for t=2\.500s \(no report for 3\.0s\)$"
    with pytest.raises(ClockStale, match=stale):
        c.wait_until(2.5, poll=0.5)
    assert cond.waits == [0.5]


def test_wait_until_divides_the_distance_left_by_the_rate():
    """From media 1.0 at rate 2 to 1.25: (1.25 - 1.0) / 2 = 0.125 s, one sleep (4 * poll = 0.5 is longer)."""
    c, _, cond = _clock()
    c.report(1.0, paused=False, rate=2.0)
    assert c.wait_until(1.25, poll=0.125) == 1.25 and cond.waits == [0.125]


def test_the_default_poll_is_fifty_milliseconds():
    """Paused, timeout 0.1 s on a clock at 0: two polls of 0.05 s, then the deadline."""
    c, ft, cond = _clock()
    ft.now = 0.0
    c.report(3.0, paused=True)
    with pytest.raises(TimeoutError):
        c.wait_until(10.0, timeout=0.1)
    assert cond.waits == [0.05, 0.05]


def test_the_defaults_are_three_seconds_and_normal_speed():
    """MediaClock() goes stale after 3 s; a report without a rate plays at 1: 3 s after 2.0 it is 5.0, then stale."""
    ft = FakeTime()
    c = MediaClock(monotonic=ft)
    c.report(2.0, paused=False)
    ft.now = 103.0
    assert c.now() == 5.0
    ft.now = 103.001
    assert c.now() is None
