"""The live media clock: the page reports its video state, the server extrapolates between reports.

Media time is always the page's `currentTime`; wall time is only used to extrapolate between two
reports (never to invent a media time from scratch)."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class ClockReport:
    """One report from the page: media time, paused flag, playback rate, the page's wall time (s)."""
    media_t: float
    paused: bool
    rate: float
    wall: Optional[float]
    received: float  # server monotonic time at receipt


class ClockStale(RuntimeError):
    """The page stopped reporting (closed, reloaded or throttled); the clock no longer knows the time."""


class MediaClock:
    """Thread-safe media clock for one page. `now()` = last media_t + rate * elapsed while playing.

    `stale_after` seconds without a report make the clock stale (`now()` then returns None)."""

    def __init__(self, stale_after: float = 3.0, monotonic: Callable[[], float] = time.monotonic):
        self.stale_after = float(stale_after)
        self._mono = monotonic
        self._last: Optional[ClockReport] = None
        self._cond = threading.Condition()
        self._closed = False

    def report(self, media_t: float, paused: bool, rate: float = 1.0, wall: Optional[float] = None) -> bool:
        """Record a page report (play/pause/seek/ratechange/heartbeat). Returns False if it was ignored
        because it is older (by page wall time) than the report already held."""
        if media_t is None or media_t != media_t or media_t < 0:
            raise ValueError(f"media clock report: media_t must be a time >= 0, got {media_t!r}")
        rate = float(rate) if rate else 1.0
        with self._cond:
            last = self._last
            if last is not None and wall is not None and last.wall is not None and wall < last.wall:
                return False
            self._last = ClockReport(float(media_t), bool(paused), rate, wall, self._mono())
            self._cond.notify_all()
        return True

    def last_report(self) -> Optional[ClockReport]:
        with self._cond:
            return self._last

    def is_stale(self) -> bool:
        """True before the first report, after close(), or when the last report is too old."""
        with self._cond:
            return self._stale_locked()

    def _stale_locked(self) -> bool:
        return (self._closed or self._last is None
                or self._mono() - self._last.received > self.stale_after)

    @property
    def paused(self) -> Optional[bool]:
        with self._cond:
            return None if self._last is None else self._last.paused

    def now(self) -> Optional[float]:
        """Current media time, extrapolated from the last report; None when stale or unknown."""
        with self._cond:
            if self._stale_locked():
                return None
            return self._extrapolate_locked()

    def _extrapolate_locked(self) -> float:
        r = self._last
        if r.paused:
            return r.media_t
        return r.media_t + r.rate * (self._mono() - r.received)

    def wait_until(self, t: float, timeout: Optional[float] = None, poll: float = 0.05) -> float:
        """Block until media time reaches `t`; returns the media time then. Raises ClockStale when the
        page stops reporting, TimeoutError after `timeout` wall seconds."""
        deadline = None if timeout is None else self._mono() + timeout
        with self._cond:
            while True:
                if self._stale_locked():
                    raise ClockStale(f"media clock went stale while waiting for t={t:.3f}s "
                                     f"(no report for {self.stale_after}s)")
                now = self._extrapolate_locked()
                if now >= t:
                    return now
                r = self._last
                wait = poll
                if not r.paused and r.rate > 0:
                    wait = min(poll * 4, max(0.001, (t - now) / r.rate))
                if deadline is not None:
                    left = deadline - self._mono()
                    if left <= 0:
                        raise TimeoutError(f"media time did not reach {t:.3f}s in {timeout}s")
                    wait = min(wait, left)
                self._cond.wait(wait)

    def close(self) -> None:
        """Mark the page gone (e.g. from `demo.unload`); waiters wake and raise ClockStale."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
