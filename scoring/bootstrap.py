"""Seeded bootstrap confidence intervals over items, paired human - model differences and rank stability.

Every benchmark metric here is a function of column sums of a per-item statistics matrix (a mean is
sum(value)/sum(present), a pooled rate is sum(hits)/sum(alerts), an F1 comes from summed TP/FP/FN), so
one resample is a weighted sum: `counts @ stats`. `item_stats(benchmark, report)` builds that matrix
from a scorer report and carries the scorer's own figures as the point estimates: resampling only adds
the interval, and only when it reproduces the scorer's figure on all items (else the interval is left
out and the reason given), and only from `min_n` items up. Pure numpy; the same seed gives the same
intervals."""
from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from annotation import registry

Metric = Callable[[np.ndarray], np.ndarray]  # (B, k) column sums -> (B,) values (NaN = undefined)
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_MIN_N = 5  # fewer items than this: the point alone, no interval
MATCH_TOL = 5.1e-4  # scorer figures are rounded to at most 3 decimals (InteractionBench means)
_OWN = object()  # "no scorer figure given: the point is the metric on all items"
PERCENT = (0.0, 100.0)  # the range of a figure on the scorers' 0–100 scale; a bound of None: unbounded that side


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile bootstrap interval over `n_items` items; low/high are None
    when there is no interval, and `reason` says why (too few items, settings resampling cannot follow)."""
    point: Optional[float]
    low: Optional[float]
    high: Optional[float]
    level: float = 0.95
    n_resamples: int = 0
    n_items: int = 0
    reason: str = ""

    @property
    def has_interval(self) -> bool:
        return self.point is not None and self.low is not None and self.high is not None

    def fmt(self, digits: int = 1, n: bool = True) -> str:
        """"32.1 [20.0, 40.0] n=12", or "32.1 n=1 (no interval: fewer than 5 items)"."""
        size = f" n={self.n_items}" if n else ""
        if self.point is None:
            return "–" + size
        if not self.has_interval:
            why = f" (no interval: {self.reason})" if self.reason else ""
            return f"{figure_text(self.point, digits)}{size}{why}"
        ends = f"[{figure_text(self.low, digits)}, {figure_text(self.high, digits)}]"
        return f"{figure_text(self.point, digits)} {ends}{size}"


def figure_text(v: Any, digits: int = 1) -> str:
    """A figure at `digits` decimals ("–" when there is none), never "-0.0": a value that rounds to zero is 0,
    whatever its sign. Every table's figures and interval ends are written with it."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "–"
    text = f"{v:.{digits}f}"
    return f"{0.0:.{digits}f}" if float(text) == 0 else text


def within(iv: Interval, bounds: tuple[Optional[float], Optional[float]] = PERCENT) -> Interval:
    """The interval with its ends inside the quantity's range (`bounds`, None: unbounded on that side). Resampled
    figures are shifted by the scorer's rounding (`_anchor`), which can carry an end just past the range (a figure
    of 0 items in 15 read as -0.0003); a 0–100 figure's interval is shown within [0, 100], a time's at 0 or more."""
    if not iv.has_interval:
        return iv
    lo, hi = bounds
    clip = lambda v: max(lo, v) if lo is not None else v  # noqa: E731
    cap = lambda v: min(hi, v) if hi is not None else v  # noqa: E731
    return replace(iv, low=cap(clip(iv.low)), high=cap(clip(iv.high)))


def difference_bounds(a: tuple[Optional[float], Optional[float]],
                      b: tuple[Optional[float], Optional[float]]) -> tuple[Optional[float], Optional[float]]:
    """The range of a - b for a in range `a` and b in range `b` (two 0–100 figures: [-100, 100])."""
    low = None if a[0] is None or b[1] is None else a[0] - b[1]
    high = None if a[1] is None or b[0] is None else a[1] - b[0]
    return low, high


def too_few(n: int, min_n: int) -> str:
    """The reason shown instead of an interval over n < min_n items ("" when n is enough)."""
    if n >= min_n:
        return ""
    return "no items" if n == 0 else f"fewer than {min_n} items"


# ---------------------------------------------------------------- resampling

def resample_counts(n: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    strata: Optional[Sequence] = None) -> np.ndarray:
    """(B, n) multiplicities of each item in each resample; within each stratum when strata are given,
    so a per-stratum metric (a subtask's accuracy) never loses its whole stratum. Read-only (cached)."""
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    key = tuple(str(s) for s in strata) if strata is not None else None
    if key is not None and len(key) != n:
        raise ValueError(f"strata has {len(key)} labels for {n} items")
    return _counts(n, int(n_resamples), int(seed), key)


@lru_cache(maxsize=16)
def _counts(n: int, n_resamples: int, seed: int, strata: Optional[tuple[str, ...]]) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = np.zeros((n_resamples, n), dtype=np.float64)
    if n == 0:
        return counts
    groups: dict = {}
    for i, s in enumerate(strata if strata is not None else [""] * n):
        groups.setdefault(s, []).append(i)
    offsets = (np.arange(n_resamples) * n)[:, None]
    for key in sorted(groups):
        idx = np.asarray(groups[key])
        draws = idx[rng.integers(0, len(idx), size=(n_resamples, len(idx)))]
        counts += np.bincount((draws + offsets).ravel(), minlength=n_resamples * n).reshape(n_resamples, n)
    counts.setflags(write=False)
    return counts


def _finite(values: np.ndarray) -> np.ndarray:
    return values[np.isfinite(values)]


def _point(stats: np.ndarray, metric: Metric) -> Optional[float]:
    v = float(metric(stats.sum(axis=0, keepdims=True))[0]) if len(stats) else float("nan")
    return v if math.isfinite(v) else None


def _interval(point: Optional[float], samples: np.ndarray, level: float, n_resamples: int, n: int) -> Interval:
    fin = _finite(samples)
    if point is None:
        return Interval(None, None, None, level, n_resamples, n)
    if fin.size == 0:
        return Interval(point, None, None, level, n_resamples, n, "undefined in every resample")
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(fin, [a, 1.0 - a])
    return Interval(point, float(lo), float(hi), level, n_resamples, n)


def _anchor(own: Optional[float], point: Any) -> tuple[Optional[float], float, str]:
    """(point, shift, reason): the scorer's figure when given (samples shifted by its rounding), or the
    metric's own; a reason when the metric on all items does not reproduce the scorer's figure."""
    if point is _OWN:
        return own, 0.0, ""
    if point is None:
        return None, 0.0, ""
    point = float(point)
    if own is None or abs(own - point) > MATCH_TOL:
        return point, 0.0, "resampling does not reproduce the scorer's figure under these settings"
    return point, point - own, ""


def bootstrap_ci(stats: np.ndarray, metric: Metric, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = 0.95, strata: Optional[Sequence] = None, *, point: Any = _OWN,
                 min_n: int = DEFAULT_MIN_N, n_items: Optional[int] = None) -> Interval:
    """Percentile interval of `metric` over item resamples of `stats` (n items x k columns) around `point`
    (the scorer's figure; default: the metric on all items). No interval from fewer than `min_n` items
    (`n_items`: the items the metric counts, default all rows)."""
    stats = np.asarray(stats, dtype=np.float64)
    n = len(stats) if n_items is None else int(n_items)
    pt, shift, reason = _anchor(_point(stats, metric), point)
    reason = reason or too_few(n, min_n)
    if pt is None or reason:
        return Interval(pt, None, None, level, n_resamples, n, reason if pt is not None else "")
    counts = resample_counts(len(stats), n_resamples, seed, strata)
    return _interval(pt, metric(counts @ stats) + shift, level, n_resamples, n)


def paired_difference(stats_a: np.ndarray, metric_a: Metric, stats_b: np.ndarray, metric_b: Metric,
                      n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95,
                      strata: Optional[Sequence] = None, *, points: Any = _OWN,
                      min_n: int = DEFAULT_MIN_N, n_items: Optional[int] = None) -> Interval:
    """metric(a) - metric(b) with both resampled on the SAME items (rows of a and b must be aligned);
    `points`: the scorer's (a, b) figures on exactly these items, when known; `n_items`: the items the
    metric counts (default all rows)."""
    a, b = np.asarray(stats_a, dtype=np.float64), np.asarray(stats_b, dtype=np.float64)
    if len(a) != len(b):
        raise ValueError(f"paired difference needs aligned items: {len(a)} rows vs {len(b)} rows")
    pa, sa, ra = _anchor(_point(a, metric_a), _OWN if points is _OWN else points[0])
    pb_, sb, rb = _anchor(_point(b, metric_b), _OWN if points is _OWN else points[1])
    point = None if pa is None or pb_ is None else pa - pb_
    n = len(a) if n_items is None else int(n_items)
    reason = ra or rb or too_few(n, min_n)
    if point is None or reason:
        return Interval(point, None, None, level, n_resamples, n, reason if point is not None else "")
    counts = resample_counts(len(a), n_resamples, seed, strata)
    return _interval(point, (metric_a(counts @ a) + sa) - (metric_b(counts @ b) + sb), level, n_resamples, n)


@dataclass(frozen=True)
class RankStability:
    """How often a responder keeps its rank when the items are resampled (rank 1 = best). Ties are ties:
    equal values share the best rank they cover (competition ranking), `tied_with` names who shares the
    point rank, `p_best` counts resamples where it is best alone and `p_tied_best` where it shares rank 1."""
    name: str
    point_rank: int
    mean_rank: float
    p_same_rank: float
    p_best: float
    rank_low: int
    rank_high: int
    tied_with: tuple[str, ...] = ()
    p_tied_best: float = 0.0

    @property
    def rank_label(self) -> str:
        return f"{self.point_rank}=" if self.tied_with else str(self.point_rank)


def _ranks(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Competition ranks (1 = best, ties share the best rank) per row; NaN ranks last."""
    v = np.where(np.isfinite(values), values, -np.inf if higher_is_better else np.inf)
    v = -v if higher_is_better else v
    return (v[:, None, :] < v[:, :, None]).sum(axis=2) + 1


def rank_stability(stats: Sequence[np.ndarray], metrics: Sequence[Metric], names: Sequence[str],
                   n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, higher_is_better: bool = True,
                   level: float = 0.95, strata: Optional[Sequence] = None, *,
                   points: Optional[Sequence[Optional[float]]] = None) -> list[RankStability]:
    """Rank responders on the same resampled items; per responder its point rank (from `points`, the
    scorer's figures, when given), whom it ties with, and how stable the rank is."""
    if not stats:
        return []
    n = len(stats[0])
    if any(len(s) != n for s in stats):
        raise ValueError("rank stability needs every responder's statistics on the same items")
    arrs = [np.asarray(s, dtype=np.float64) for s in stats]
    own = [_point(a, m) for a, m in zip(arrs, metrics)]
    points = own if points is None else [o if p is _OWN else p for o, p in zip(own, points)]
    point = np.array([[np.nan if p is None else float(p) for p in points]])
    point_rank = _ranks(point, higher_is_better)[0]
    counts = resample_counts(n, n_resamples, seed, strata)
    values = np.stack([m(counts @ a) for a, m in zip(arrs, metrics)], axis=1)
    ranks = _ranks(values, higher_is_better)
    n_first = (ranks == 1).sum(axis=1)
    a = (1.0 - level) / 2.0
    out = []
    for j, name in enumerate(names):
        r = ranks[:, j]
        lo, hi = np.quantile(r, [a, 1.0 - a])
        tied = tuple(names[k] for k in range(len(names)) if k != j and point_rank[k] == point_rank[j])
        first = r == 1
        out.append(RankStability(name, int(point_rank[j]), float(r.mean()), float((r == point_rank[j]).mean()),
                                 float((first & (n_first == 1)).mean()), int(math.floor(lo)), int(math.ceil(hi)),
                                 tied, float((first & (n_first > 1)).mean())))
    return out


# ---------------------------------------------------------------- metric builders

def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def ratio(num: int, den: int, scale: float = 100.0) -> Metric:
    """scale * sum(num) / sum(den); NaN when the denominator is 0."""
    return lambda s: scale * _safe_div(s[:, num], s[:, den])


def geo_ratio(n1: int, d1: int, n2: int, d2: int, scale: float = 100.0) -> Metric:
    """scale * sqrt(sum(n1)/sum(d1) * sum(n2)/sum(d2)) (ProactiveBench S_ES)."""
    return lambda s: scale * np.sqrt(_safe_div(s[:, n1], s[:, d1]) * _safe_div(s[:, n2], s[:, d2]))


def f1(tp: int, fp: int, fn: int, scale: float = 100.0) -> Metric:
    """scale * F1 from summed TP/FP/FN; 0 (not NaN) when undefined, as the OmniInteract reference reports."""
    def m(s: np.ndarray) -> np.ndarray:
        t, p_, n_ = s[:, tp], s[:, fp], s[:, fn]
        prec = np.nan_to_num(_safe_div(t, t + p_))
        rec = np.nan_to_num(_safe_div(t, t + n_))
        return scale * np.nan_to_num(_safe_div(2 * prec * rec, prec + rec))
    return m


def mean_of(parts: Sequence[Metric], allow_partial: bool = False) -> Metric:
    """Equal-weight mean of metrics; NaN if any part is undefined (the papers' AVG), or with
    `allow_partial` the mean of the defined parts."""
    def m(s: np.ndarray) -> np.ndarray:
        vals = np.stack([p(s) for p in parts], axis=1)
        if not allow_partial:
            return np.mean(vals, axis=1)
        defined = np.isfinite(vals)
        total = np.where(defined, vals, 0.0).sum(axis=1)
        return _safe_div(total, defined.sum(axis=1).astype(np.float64))
    return m


# ---------------------------------------------------------------- benchmark statistics

@dataclass
class BenchStats:
    """Per-item statistics of one responder on one benchmark, the metrics defined over them, and the
    scorer's own figures (`points`, the point estimates; None = undefined) per metric name.

    table: the paper-table columns (names in `metrics`); breakdowns: dimension -> [(group, metric name)];
    support: metric name -> the columns whose non-zero rows are the items it counts (its n; absent: all
    rows, empty: none); ranges: metric name -> its (low, high) range where it is not 0–100 (a time in seconds)."""
    benchmark: str
    item_ids: list[str]
    stats: np.ndarray
    metrics: dict[str, Metric]
    table: list[str]
    headline: str
    strata: Optional[list] = None
    breakdowns: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    points: dict[str, Optional[float]] = field(default_factory=dict)
    support: dict[str, list[int]] = field(default_factory=dict)
    from_scorer: bool = True  # False for a subset: `points` are not the scorer's figures on these items
    ranges: dict[str, tuple[Optional[float], Optional[float]]] = field(default_factory=dict)

    def subset(self, item_ids: Sequence[str]) -> "BenchStats":
        """The same statistics restricted to (and ordered by) the given items. The scorer's figures do
        not carry over unless the subset is every item."""
        pos = {iid: i for i, iid in enumerate(self.item_ids)}
        idx = [pos[i] for i in item_ids]
        same = len(idx) == len(self.item_ids) and set(item_ids) == set(self.item_ids)  # sums ignore the order
        return BenchStats(self.benchmark, list(item_ids), self.stats[idx] if idx else self.stats[:0],
                          self.metrics, self.table, self.headline,
                          [self.strata[i] for i in idx] if self.strata is not None else None, self.breakdowns,
                          self.points, self.support, self.from_scorer and same, self.ranges)

    def n_for(self, name: str) -> int:
        """How many items the metric counts (rows with a non-zero support column; all rows by default)."""
        cols = self.support.get(name)
        if cols is None or not len(self.stats):
            return len(self.stats)
        if not cols:
            return 0
        return int(np.count_nonzero(np.any(self.stats[:, cols] != 0, axis=1)))

    def range_of(self, name: str) -> tuple[Optional[float], Optional[float]]:
        """The metric's range: 0–100 unless the scorer's statistics say otherwise."""
        return self.ranges.get(name, PERCENT)

    def point(self, name: str) -> Any:
        """The scorer's figure for the metric, or `_OWN` (the metric itself) on a subset."""
        return self.points.get(name) if self.from_scorer else _OWN

    def interval(self, name: str, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = 0.95, min_n: int = DEFAULT_MIN_N) -> Interval:
        """The scorer's figure for `name` with a bootstrap interval (when n and the settings allow one), inside the
        metric's range."""
        return within(bootstrap_ci(self.stats, self.metrics[name], n_resamples, seed, level, self.strata,
                                   point=self.point(name), min_n=min_n, n_items=self.n_for(name)), self.range_of(name))


class Cols:
    """Column registry: name -> index, values collected per item row."""

    def __init__(self):
        self.index: dict[str, int] = {}
        self.rows: list[dict[str, float]] = []

    def col(self, name: str) -> int:
        return self.index.setdefault(name, len(self.index))

    def add(self, values: Mapping[str, float]) -> None:
        for k in values:
            self.col(k)
        self.rows.append(dict(values))

    def matrix(self) -> np.ndarray:
        m = np.zeros((len(self.rows), len(self.index)))
        for i, r in enumerate(self.rows):
            for k, v in r.items():
                m[i, self.index[k]] = v
        return m


def num_or_none(v: Any) -> Optional[float]:
    return None if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) else float(v)


def sum_ratio(nums: Sequence[int], den: int, scale: float = 100.0) -> Metric:
    return lambda s: scale * _safe_div(s[:, list(nums)].sum(axis=1), s[:, den])


def item_stats(benchmark: str, report: Mapping) -> BenchStats:
    """The per-item statistics of a scorer report (the dict `runners.evaluate.score_predictions` returns)."""
    return registry.get(benchmark).hook("scoring", "item_stats")(report)
