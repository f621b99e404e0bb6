"""Endpoint pools: one model served at several base URLs (vLLM or SGLang replicas). A call goes to the healthy
endpoint with the fewest calls in flight, at most `limit` at once per endpoint; an endpoint whose call failed for
a reason the server owns (connection, timeout, 5xx, 429) is taken out for `cooldown` seconds, then tried again."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

SCHEMES = {"openai": ("http://", "https://"), "realtime": ("ws://", "wss://", "http://", "https://")}
DEFAULT_COOLDOWN = 30.0


def split_urls(text: str) -> list[str]:
    """The base URLs of a spec's address part: `url` or `url1,url2,...` (empty parts are kept, to be refused)."""
    return [u.strip() for u in text.split(",")] if text else []


def check_urls(kind: str, urls: list[str]) -> Optional[str]:
    """Why a pool's URLs cannot be used ('' when they can): each has the kind's scheme, none twice."""
    schemes = SCHEMES[kind]
    for u in urls:
        if not u.startswith(schemes) or len(u) <= len(u.split("//", 1)[0]) + 2:
            return f"expected {' or '.join(s for s in schemes)} base URLs separated by commas, found {u or '(empty)'!r}"
    seen = [u.rstrip("/") for u in urls]
    dup = next((u for u in seen if seen.count(u) > 1), None)
    return f"base URL {dup!r} is named twice" if dup else ""


@dataclass(frozen=True)
class Attempt:
    """One attempt of a call at one endpoint: stored with the call, summed per endpoint in run_health."""
    endpoint: str
    ok: bool
    latency_s: float
    kind: Optional[str] = None  # the failure's kind (http_503, timeout, connection, ...) when not ok

    def to_json(self) -> list:
        return [self.endpoint, self.ok, round(self.latency_s, 4), self.kind]


class EndpointPool:
    """Thread-safe: `acquire()` blocks for a free slot and names the endpoint to call; `release(url, ok)` frees it
    and marks the endpoint up or out. When every endpoint is out, the one whose cooldown ends first is tried."""

    def __init__(self, urls: list[str], limit: int = 4, cooldown: float = DEFAULT_COOLDOWN,
                 clock: Callable[[], float] = time.monotonic):
        if not urls:
            raise ValueError("an endpoint pool needs at least one base URL")
        self.urls = list(urls)
        self.limit = max(1, int(limit))
        self.cooldown = float(cooldown)
        self._clock = clock
        self._busy = {u: 0 for u in self.urls}
        self._out_until = {u: 0.0 for u in self.urls}
        self._cond = threading.Condition()

    def acquire(self) -> str:
        with self._cond:
            while True:
                free = [u for u in self.urls if self._busy[u] < self.limit]
                if free:
                    now = self._clock()
                    up = [u for u in free if self._out_until[u] <= now]
                    # least loaded healthy endpoint; with none healthy, the one back soonest (a probe)
                    url = (min(up, key=lambda u: self._busy[u]) if up
                           else min(free, key=lambda u: self._out_until[u]))
                    self._busy[url] += 1
                    return url
                self._cond.wait()

    def release(self, url: str, ok: bool) -> None:
        with self._cond:
            self._busy[url] -= 1
            self._out_until[url] = 0.0 if ok else self._clock() + self.cooldown
            self._cond.notify_all()

    def healthy(self) -> list[str]:
        """The endpoints not taken out now."""
        with self._cond:
            now = self._clock()
            return [u for u in self.urls if self._out_until[u] <= now]


_POOLS: dict[tuple, EndpointPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(urls: list[str], limit: int, cooldown: float = DEFAULT_COOLDOWN) -> EndpointPool:
    """One pool per (URLs, limit, cooldown), shared by every backend of the process: the limit holds per server
    however many runs or live sessions call it."""
    key = (tuple(urls), max(1, int(limit)), float(cooldown))
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = EndpointPool(list(urls), key[1], key[2])
        return _POOLS[key]
