"""InteractionBench decision timing (reference `metrics.py decision_timing`): events, attribution of
emissions to standard response times r*, and the TA / SC axes with their diagnostics."""
from __future__ import annotations

import math
from bisect import bisect_right
from typing import Callable, Optional, Sequence

from scoring.interactionbench.refmath import exact_mean

# emission = (t, content) after filtering empty contents and a stable sort by t
Emission = tuple[float, str]
Gate = Callable[[int, str], bool]


def seconds(v) -> float | int:
    """A time as the reference computes with it: an int or float as written (so a delay between whole seconds
    stays an int, as the reference writes `delay_mean_s` 7, not 7.0), anything else through float()."""
    return v if type(v) is int or type(v) is float else float(v)


class Unscorable(ValueError):
    """Input the reference scorer stops on (it raises there too): scoring refuses it with the reason."""


class Event:
    """One standard response time r* and its (merged) reference text."""
    __slots__ = ("time", "ref")

    def __init__(self, time: float, ref: str) -> None:
        self.time, self.ref = time, ref


def merge_events(timed_answers: Sequence[dict]) -> list[Event]:
    """Group answers by exactly equal time_s into one event each; references joined with '; ', by time."""
    if len(timed_answers) == 1:  # the common case, without the grouping
        a = timed_answers[0]
        ref = a.get("content") or ""
        if isinstance(ref, str):
            return [Event(seconds(a["time_s"]), ref)]
    groups: dict[float, list[str]] = {}
    for a in timed_answers:
        groups.setdefault(seconds(a["time_s"]), []).append(a.get("content") or "")
    return [Event(t, "; ".join(c for c in groups[t] if c)) for t in sorted(groups)]


class Timing:
    """The outcome of attributing emissions to events: per event the matched emission and delay, per emission
    its fate. (A plain class: one is built per item, and `score` does not import dataclasses.)"""
    __slots__ = ("n_gt", "n_resp", "match", "delay", "v_premature", "v_redundant", "v_spurious", "times", "fates")

    def __init__(self, n_gt: int, n_resp: int, match: list[Optional[int]], delay: list[Optional[float]],
                 v_premature: int = 0, v_redundant: int = 0, v_spurious: int = 0) -> None:
        self.n_gt, self.n_resp = n_gt, n_resp
        self.match = match  # emission index per event
        self.delay = delay
        self.v_premature, self.v_redundant, self.v_spurious = v_premature, v_redundant, v_spurious
        self.times: Sequence[float] = ()  # the events' times r*
        # per emission in order, as counted: (matched | premature | redundant | spurious, event index or None)
        self.fates: list[tuple[str, Optional[int]]] = []

    @property
    def n_matched(self) -> int:
        return sum(m is not None for m in self.match)

    def verdicts(self, delta: float) -> list[dict]:
        """Each emission's fate as counted, for Compare: label, event index and time, delay and credit (matches)."""
        out = []
        for label, k in self.fates:
            d = self.delay[k] if label == "matched" else None
            out.append({"label": label, "event": k, "event_time": None if k is None else self.times[k],
                        "delay": d, "credit": 0.0 if d is None else timing_credit(d, delta)})
        return out

    def fields(self, delta: float, sc_defined: bool = True) -> dict:
        """The record's timing fields, in reference order (TA, SC, counts, precision, delay, miss)."""
        n_gt, n_resp = self.n_gt, self.n_resp
        delays = [d for d in self.delay if d is not None]
        matched = len(delays)
        if matched:
            # missed events score 0.0; the exact mean does not depend on the order of the terms
            scores = [timing_credit(d, delta) for d in delays]
            scores.extend([0.0] * (n_gt - matched))
            ta = round(100 * exact_mean(scores), 1)
        else:
            ta = 0.0
        viol = self.v_premature + self.v_redundant + self.v_spurious
        return {
            "timing_accuracy": ta,
            "silence_compliance": round(100 * max(0.0, 1 - viol / max(n_gt, 1)), 1) if (n_resp and sc_defined) else None,
            "n_gt": n_gt,
            "n_resp": n_resp,
            "n_matched": matched,
            "n_violations": viol,
            "v_premature": self.v_premature,
            "v_redundant": self.v_redundant,
            "v_spurious": self.v_spurious,
            "response_precision": round(matched / n_resp, 3) if n_resp else None,
            "delay_mean_s": round(exact_mean(delays), 2) if matched else None,
            "miss_rate": round((n_gt - matched) / n_gt, 3),
        }


def timing_credit(delay: float, delta: float) -> float:
    """One matched event's timing score: 1 - d/delta, floored at 0."""
    return max(0.0, 1.0 - delay / delta)


def decision_timing(times: Sequence[float], ems: Sequence[Emission], pre_tol: float = 1.0,
                    gate: Optional[Gate] = None) -> Timing:
    """Attribute time-sorted emissions to events (times sorted, distinct).

    Finite tolerance: a = t + pre_tol; before r*_1 -> premature; else event n = last r*_n <= a; taken ->
    redundant; gate rejects -> spurious; else matched with delay max(0, t - r*_n).
    Infinite tolerance (human-reference mode): greedy, never premature/spurious, no gate."""
    n = len(times)
    match: list[Optional[int]] = [None] * n
    delay: list[Optional[float]] = [None] * n
    out = Timing(n, len(ems), match, delay)
    out.times = times
    if n == 0:
        return out
    first = times[0]
    if math.isinf(pre_tol) and pre_tol > 0:
        for i, (t, _) in enumerate(ems):
            if t != t:
                raise Unscorable(f"an emission at {t} s has no event window (the reference scorer stops here too)")
            if t < first:
                k, d = 0, 0.0
            else:
                k = bisect_right(times, t) - 1
                d = t - times[k]
                if match[k] is not None and k + 1 < n and match[k + 1] is None:
                    k, d = k + 1, 0.0
            if match[k] is not None:
                out.v_redundant += 1
                out.fates.append(("redundant", k))
                continue
            match[k], delay[k] = i, d
            out.fates.append(("matched", k))
        return out
    for i, (t, text) in enumerate(ems):
        a = t + pre_tol
        if a != a:  # NaN (inf - inf): no window holds it, and the reference stops
            raise Unscorable(f"an emission at {t} s with tolerance {pre_tol} s has no event window (the reference "
                             "scorer stops here too)")
        if a < first:
            out.v_premature += 1
            out.fates.append(("premature", None))
            continue
        k = bisect_right(times, a) - 1
        if match[k] is not None:
            out.v_redundant += 1
            out.fates.append(("redundant", k))
            continue
        if gate is not None and not gate(k, text):
            out.v_spurious += 1
            out.fates.append(("spurious", k))
            continue
        match[k] = i
        delay[k] = max(0.0, t - times[k])
        out.fates.append(("matched", k))
    return out
