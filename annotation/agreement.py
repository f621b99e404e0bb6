"""Agreement between trigger marks and between silence-prefix verdicts. Pure functions, no store.

Timing comes first because it is what a trigger mark is: mean |Δ| with a 95 % percentile-bootstrap
interval (inside [min |Δ|, max |Δ|], so never below 0), the share
of pairs within 0.25 / 0.5 / 1 / 2 s (Wilson intervals), ICC(A,1) on the mark times and Krippendorff's
α (interval level) on them. Chance-corrected coefficients on labels (Cohen's κ, nominal α) are kept
for comparison with papers that report them, but they depend on the bins the clip is cut into, so
every such figure carries its bin width: with 1 s bins, marks 0.44 s apart in one second agree
perfectly while marks 0.06 s apart across a second boundary do not. Below `MIN_N` pairs the mean's interval
is not computed, every report carries a warning and `below_min` gives the reason the page shows with '—' in
place of ICC, α and κ. α comes from the `krippendorff` package and intervals from scipy."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Hashable, Mapping, Optional, Sequence

TOL = 1e-6
WITHIN = (0.25, 0.5, 1.0, 2.0)  # seconds: the tolerances timing agreement is reported at
BIN_S = 1.0  # width of the per-time-bin labels κ and nominal α are computed on
MIN_N = 10  # below this many pairs: no interval of the mean, and ICC / α / κ are shown as '—' with the reason
CONF = 0.95
RESAMPLES = 9999
SEED = 0  # the bootstrap's fixed seed: one report, one interval


@dataclass(frozen=True)
class DeltaStats:
    """Distances between paired marks (seconds): mean |Δ| with its interval, median, shares within tolerances."""
    n: int
    mean_abs: Optional[float]
    mean_abs_ci: Optional[tuple[float, float]]  # 95 % percentile-bootstrap interval of mean |Δ|; None below MIN_N
    median_abs: Optional[float]
    within: dict = field(default_factory=dict)  # tolerance (s) -> share of pairs with |Δ| <= tolerance
    within_ci: dict = field(default_factory=dict)  # tolerance (s) -> Wilson 95 % interval of that share


@dataclass(frozen=True)
class PairStats:
    """Agreement of two raters (or a rater and the proposed times) over the events both marked."""
    a: str
    b: str
    deltas: DeltaStats
    icc: Optional[float]  # ICC(A,1), two-way random, absolute agreement, on mark times
    alpha_interval: Optional[float]  # Krippendorff's α, interval level, on mark times (no bins)
    kappa: Optional[float]  # Cohen's κ on per-bin labels (bin width `bin_s`)
    alpha_nominal: Optional[float]  # Krippendorff's α, nominal, on the same per-bin labels
    bin_s: float
    n_bins: int
    warnings: tuple = ()


@dataclass(frozen=True)
class PrefixStats:
    """Agreement of prefix verdicts per interval judged by two or more verifiers."""
    n_intervals: int
    agree_share: Optional[float]
    agree_ci: Optional[tuple[float, float]]
    alpha: Optional[float]  # nominal α over the verdicts (None when only one verdict value occurs)
    rows: list  # (item, start, end, {user: satisfied}, agree)
    warnings: tuple = ()


def small_n_warning(n: int, what: str = "pairs") -> tuple:
    """A warning for reports built on fewer than MIN_N observations."""
    if n == 0:
        return (f"no {what} yet",)
    if n < MIN_N:
        return (f"only {n} {what} (< {MIN_N}): treat these figures as indicative; intervals are wide",)
    return ()


def wilson(k: int, n: int) -> Optional[tuple[float, float]]:
    """Wilson score interval (95 %) of the share k/n."""
    if n <= 0:
        return None
    from scipy.stats import binomtest
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=CONF, method="wilson")
    return float(ci.low), float(ci.high)


def below_min(n: int, what: str = "pairs") -> Optional[str]:
    """Why a coefficient or interval on `n` observations is not shown ('—'), or None from MIN_N on."""
    if n >= MIN_N:
        return None
    return f"n = {n} {what} < {MIN_N}: not computed"


def mean_interval(values: Sequence[float]) -> Optional[tuple[float, float]]:
    """Percentile-bootstrap 95 % interval of the mean (scipy; fixed seed), None below MIN_N values. Percentiles
    of resampled means lie between the smallest and largest value, so the interval stays inside the quantity's
    range (a mean |Δ| interval never goes below 0)."""
    if len(values) < MIN_N:
        return None
    import numpy as np
    from scipy.stats import bootstrap
    x = np.asarray(values, dtype=float)
    if np.ptp(x) == 0:  # every resample has the same mean
        return float(x[0]), float(x[0])
    res = bootstrap((x,), np.mean, confidence_level=CONF, n_resamples=RESAMPLES, method="percentile",
                    random_state=np.random.default_rng(SEED))
    ci = res.confidence_interval
    return float(ci.low), float(ci.high)


def delta_stats(a: Sequence[float], b: Sequence[float], tolerances: Sequence[float] = WITHIN) -> DeltaStats:
    """Mean and median |a-b|, the mean's interval, and the shares within each tolerance (None when empty)."""
    if len(a) != len(b):
        raise ValueError(f"delta_stats needs paired lists, got {len(a)} and {len(b)} values")
    d = [abs(float(x) - float(y)) for x, y in zip(a, b)]
    if not d:
        return DeltaStats(0, None, None, None, {k: None for k in tolerances}, {k: None for k in tolerances})
    srt = sorted(d)
    mid = len(srt) // 2
    median = srt[mid] if len(srt) % 2 else (srt[mid - 1] + srt[mid]) / 2
    hits = {k: sum(v <= k + TOL for v in d) for k in tolerances}
    return DeltaStats(len(d), sum(d) / len(d), mean_interval(d), median, {k: hits[k] / len(d) for k in tolerances},
                      {k: wilson(hits[k], len(d)) for k in tolerances})


def bin_labels(mark: float, duration: float, bin_s: float = BIN_S) -> list[int]:
    """Per-bin labels of one mark over a clip: 0 for bins before the one holding the mark, 1 from it on."""
    n = max(int(math.ceil(duration / bin_s - TOL)), 0)
    first = int(math.floor(mark / bin_s + TOL))
    return [1 if s >= first else 0 for s in range(n)]


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> Optional[float]:
    """Cohen's kappa of two equally long label sequences; None when empty or when both raters use one
    single category throughout (chance agreement is then 1 and kappa is undefined)."""
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa needs equally long sequences, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if abs(1.0 - pe) < 1e-12:
        return None
    return (po - pe) / (1.0 - pe)


def krippendorff_alpha(rows: Sequence[Sequence[Optional[float]]], level: str = "nominal") -> Optional[float]:
    """Krippendorff's α of a raters x units table (None = missing), from the `krippendorff` package;
    None when nothing is pairable or only one value occurs (α is undefined there)."""
    import krippendorff
    import numpy as np
    data = np.array([[np.nan if v is None else float(v) for v in r] for r in rows], dtype=float)
    if data.size == 0 or data.shape[0] < 2:
        return None
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if not pairable.any() or len(set(data[:, pairable][~np.isnan(data[:, pairable])].tolist())) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def icc_a1(rows: Sequence[Sequence[float]]) -> Optional[float]:
    """ICC(A,1) (McGraw & Wong; Shrout & Fleiss ICC(2,1)) of a complete targets x raters table: two-way
    random effects, absolute agreement, single rater. None below 2 targets or 2 raters, or with no variance.

    A two-way ANOVA in a few lines of numpy: the maintained implementation (pingouin) would bring
    scikit-learn, seaborn and statsmodels into the app for this one formula."""
    import numpy as np
    x = np.asarray(rows, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2 or np.isnan(x).any():
        return None
    n, k = x.shape
    grand = x.mean()
    msr = k * ((x.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    msc = n * ((x.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + grand
    mse = (resid ** 2).sum() / ((n - 1) * (k - 1))
    denom = msr + (k - 1) * mse + k * (msc - mse) / n
    if denom <= 0:
        return None
    return float((msr - mse) / denom)


def pair_agreement(name_a: str, marks_a: Mapping[Hashable, float], name_b: str, marks_b: Mapping[Hashable, float],
                   durations: Mapping[Hashable, float], bin_s: float = BIN_S) -> PairStats:
    """Compare two raters on the keys both marked: timing first, then κ/α on per-bin labels."""
    keys = sorted((k for k in marks_a if k in marks_b), key=str)
    xa = [float(marks_a[k]) for k in keys]
    xb = [float(marks_b[k]) for k in keys]
    ds = delta_stats(xa, xb)
    la: list[int] = []
    lb: list[int] = []
    for k, x, y in zip(keys, xa, xb):
        dur = durations.get(k)
        if dur is None or dur <= 0:
            dur = max(x, y) + bin_s
        la += bin_labels(x, dur, bin_s)
        lb += bin_labels(y, dur, bin_s)
    return PairStats(name_a, name_b, ds, icc=icc_a1(list(zip(xa, xb))),
                     alpha_interval=krippendorff_alpha([xa, xb], "interval") if keys else None,
                     kappa=cohen_kappa(la, lb), alpha_nominal=krippendorff_alpha([la, lb]) if la else None,
                     bin_s=bin_s, n_bins=len(la), warnings=small_n_warning(len(keys)))


def group_alpha(marks: Mapping[str, Mapping[Hashable, float]], level: str = "interval") -> Optional[float]:
    """Krippendorff's α across every rater at once on the mark times (missing marks allowed)."""
    keys = sorted({k for m in marks.values() for k in m}, key=str)
    raters = sorted(marks)
    return krippendorff_alpha([[marks[r].get(k) for k in keys] for r in raters], level) if keys else None


def all_pairs(marks: Mapping[str, Mapping[Hashable, float]], durations: Mapping[Hashable, float]) -> list[PairStats]:
    """Pairwise agreement for every pair of raters that share at least one marked key."""
    out = []
    for a, b in combinations(sorted(marks), 2):
        ps = pair_agreement(a, marks[a], b, marks[b], durations)
        if ps.deltas.n:
            out.append(ps)
    return out


def prefix_agreement(verdicts: Mapping[tuple, Mapping[str, bool]]) -> PrefixStats:
    """Per interval ((item, start, end) -> {verifier: satisfied}), whether the verifiers agree; only
    intervals judged by two or more verifiers count."""
    shared = [(key, v) for key, v in sorted(verdicts.items(), key=lambda kv: (str(kv[0][0]), kv[0][1]))
              if len(v) >= 2]
    rows = [(key[0], key[1], key[2], dict(v), len(set(v.values())) == 1) for key, v in shared]
    n = len(rows)
    agree = sum(r[4] for r in rows)
    users = sorted({u for _, v in shared for u in v})
    table = [[(1.0 if v[u] else 0.0) if u in v else None for _, v in shared] for u in users]
    return PrefixStats(n, agree / n if n else None, wilson(agree, n), krippendorff_alpha(table) if n else None,
                       rows, small_n_warning(n, "shared intervals"))
