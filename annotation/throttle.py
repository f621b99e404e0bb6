"""Exponential back-off for guessing: failed sign-ins and failed study-link tokens, per account and per client.

Each key ("user:<name>", "client:<address>", "link:<address>") counts its failures in the store, so a restart
does not reset them. The `free`-th failure and every one after it lock the key for `base * 2**k` seconds (k
counts from 0, capped at `cap`); while a key is locked every attempt is refused unchecked, the right password
too, with the seconds left (HTTP 429 with Retry-After). A key untouched for `forget` seconds starts afresh."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterable, Optional

from annotation.store import Store


@dataclass(frozen=True)
class Policy:
    """How many failures are free, the first lockout, its cap and when a quiet key is forgotten (seconds)."""
    free: int = 5
    base: float = 30.0
    cap: float = 3600.0
    forget: float = 24 * 3600.0


ACCOUNT = Policy(free=5)
CLIENT = Policy(free=20)   # a lab behind one address signs in many people
LINK = Policy(free=10)


class Throttle:
    """Failure counters in the store; `locked` before checking a secret, `failed`/`succeeded` after."""

    def __init__(self, store: Store, base: Optional[float] = None):
        self.store = store
        self.base = base  # serve --signin-lockout: the first lockout, seconds (None: each policy's own)

    def _policy(self, p: Policy) -> Policy:
        return p if self.base is None else Policy(p.free, self.base, max(p.cap, self.base), p.forget)

    def locked(self, keys: Iterable[tuple[str, Policy]], now: Optional[float] = None) -> float:
        """Seconds until every key may try again (0: none is locked)."""
        now = time.time() if now is None else now
        wait = 0.0
        for key, _ in keys:
            row = self.store.failure(key)
            if row and (row["locked_until"] or 0) > now:
                wait = max(wait, row["locked_until"] - now)
        return wait

    def failed(self, keys: Iterable[tuple[str, Policy]], now: Optional[float] = None) -> float:
        """Count one failure on every key; returns the longest lockout it started (0: none)."""
        now = time.time() if now is None else now
        wait = 0.0
        for key, policy in keys:
            p = self._policy(policy)
            row = self.store.failure(key)
            n = (row["failures"] if row and now - (row["last"] or 0) < p.forget else 0) + 1
            lock = min(p.cap, p.base * 2 ** (n - p.free)) if n >= p.free else 0.0
            self.store.set_failure(key, n, now, now + lock if lock else 0.0)
            wait = max(wait, lock)
        return wait

    def succeeded(self, key: str) -> None:
        self.store.clear_failure(key)


def retry_after(seconds: float) -> str:
    """The Retry-After header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
