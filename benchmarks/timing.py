"""Wall-clock timing shared by the benchmark scripts: the median of a few runs, so one slow run does not skew it."""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable


def median_time(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    """Run `fn` `repeat` times; return the median wall time in seconds and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out
