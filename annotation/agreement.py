"""Agreement between trigger marks: mean |Δ|, share within 0/1/2 s, and chance-corrected coefficients
(Cohen's kappa, Krippendorff's alpha, nominal) on per-second labels. Pure functions, no store.

Per-second labels turn a trigger mark into a sequence over the clip: second s is 1 once the event is
observable (s >= floor(mark)) and 0 before, so two marks agree on every second except those between them."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Hashable, Mapping, Optional, Sequence

TOL = 1e-6


@dataclass(frozen=True)
class DeltaStats:
    """Distance statistics over paired marks (seconds)."""
    n: int
    mean_abs: Optional[float]
    within0: Optional[float]
    within1: Optional[float]
    within2: Optional[float]


@dataclass(frozen=True)
class PairStats:
    """Agreement of two raters (or a rater and the proposed times) over the items both marked."""
    a: str
    b: str
    deltas: DeltaStats
    kappa: Optional[float]
    alpha: Optional[float]
    n_seconds: int


def delta_stats(a: Sequence[float], b: Sequence[float]) -> DeltaStats:
    """Mean |a-b| and the shares with |a-b| <= 0, 1 and 2 seconds (None when there are no pairs)."""
    if len(a) != len(b):
        raise ValueError(f"delta_stats needs paired lists, got {len(a)} and {len(b)} values")
    d = [abs(float(x) - float(y)) for x, y in zip(a, b)]
    if not d:
        return DeltaStats(0, None, None, None, None)
    share = lambda k: sum(v <= k + TOL for v in d) / len(d)  # noqa: E731
    return DeltaStats(len(d), sum(d) / len(d), share(0), share(1), share(2))


def second_labels(mark: float, duration: float) -> list[int]:
    """Per-second labels of one mark over a clip of `duration` seconds: 0 before floor(mark), 1 from it on."""
    n = max(int(math.ceil(duration - TOL)), 0)
    first = int(math.floor(mark + TOL))
    return [1 if s >= first else 0 for s in range(n)]


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> Optional[float]:
    """Cohen's kappa of two equally long label sequences; None when empty.

    When both raters use one single category throughout (expected agreement 1), kappa is undefined;
    we return 1.0 if they agree everywhere (they do, by construction) — the usual convention."""
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa needs equally long sequences, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if abs(1.0 - pe) < 1e-12:
        return 1.0 if po == 1.0 else 0.0
    return (po - pe) / (1.0 - pe)


def krippendorff_alpha(units: Sequence[Sequence[Optional[Hashable]]]) -> Optional[float]:
    """Krippendorff's alpha (nominal) over units, each a list of the raters' values (None = missing).

    Built from the coincidence matrix: units with fewer than two values are not pairable and are dropped.
    None when nothing is pairable; 1.0 when there is no variation at all (expected disagreement 0)."""
    coincid: Counter = Counter()
    for unit in units:
        vals = [v for v in unit if v is not None]
        m = len(vals)
        if m < 2:
            continue
        for i, j in ((i, j) for i in range(m) for j in range(m) if i != j):
            coincid[(vals[i], vals[j])] += 1.0 / (m - 1)
    n = sum(coincid.values())
    if n == 0:
        return None
    marg: Counter = Counter()
    for (c, _), w in coincid.items():
        marg[c] += w
    d_obs = sum(w for (c, k), w in coincid.items() if c != k) / n
    d_exp = sum(marg[c] * marg[k] for c in marg for k in marg if c != k) / (n * (n - 1))
    if d_exp == 0:
        return 1.0
    return 1.0 - d_obs / d_exp


def pair_agreement(name_a: str, marks_a: Mapping[Hashable, float], name_b: str, marks_b: Mapping[Hashable, float],
                   durations: Mapping[Hashable, float]) -> PairStats:
    """Compare two raters on the keys both marked: deltas, and kappa/alpha on per-second labels."""
    keys = [k for k in marks_a if k in marks_b]
    ds = delta_stats([marks_a[k] for k in keys], [marks_b[k] for k in keys])
    la: list[int] = []
    lb: list[int] = []
    for k in keys:
        dur = durations.get(k)
        if dur is None or dur <= 0:
            dur = max(marks_a[k], marks_b[k]) + 1.0
        la += second_labels(marks_a[k], dur)
        lb += second_labels(marks_b[k], dur)
    kappa = cohen_kappa(la, lb) if la else None
    alpha = krippendorff_alpha(list(zip(la, lb))) if la else None
    return PairStats(name_a, name_b, ds, kappa, alpha, len(la))


def group_alpha(marks: Mapping[str, Mapping[Hashable, float]], durations: Mapping[Hashable, float]) -> Optional[float]:
    """Krippendorff's alpha across every rater at once (missing marks allowed), on per-second labels."""
    keys = sorted({k for m in marks.values() for k in m}, key=str)
    raters = sorted(marks)
    units = []
    for k in keys:
        have = [r for r in raters if k in marks[r]]
        if len(have) < 2:
            continue
        dur = durations.get(k) or (max(marks[r][k] for r in have) + 1.0)
        labels = {r: second_labels(marks[r][k], dur) for r in have}
        for s in range(len(next(iter(labels.values())))):
            units.append([labels[r][s] if r in labels else None for r in raters])
    return krippendorff_alpha(units)


def all_pairs(marks: Mapping[str, Mapping[Hashable, float]], durations: Mapping[Hashable, float]) -> list[PairStats]:
    """Pairwise agreement for every pair of raters that share at least one marked key."""
    out = []
    for a, b in combinations(sorted(marks), 2):
        ps = pair_agreement(a, marks[a], b, marks[b], durations)
        if ps.deltas.n:
            out.append(ps)
    return out
