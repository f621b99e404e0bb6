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
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

Metric = Callable[[np.ndarray], np.ndarray]  # (B, k) column sums -> (B,) values (NaN = undefined)
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_MIN_N = 5  # fewer items than this: the point alone, no interval
MATCH_TOL = 5.1e-4  # scorer figures are rounded to at most 3 decimals (InteractionBench means)
_OWN = object()  # "no scorer figure given: the point is the metric on all items"


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
            return f"{self.point:.{digits}f}{size}{why}"
        return f"{self.point:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]{size}"


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
    rows, empty: none)."""
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

    def subset(self, item_ids: Sequence[str]) -> "BenchStats":
        """The same statistics restricted to (and ordered by) the given items. The scorer's figures do
        not carry over unless the subset is every item."""
        pos = {iid: i for i, iid in enumerate(self.item_ids)}
        idx = [pos[i] for i in item_ids]
        same = len(idx) == len(self.item_ids) and set(item_ids) == set(self.item_ids)  # sums ignore the order
        return BenchStats(self.benchmark, list(item_ids), self.stats[idx] if idx else self.stats[:0],
                          self.metrics, self.table, self.headline,
                          [self.strata[i] for i in idx] if self.strata is not None else None, self.breakdowns,
                          self.points, self.support, self.from_scorer and same)

    def n_for(self, name: str) -> int:
        """How many items the metric counts (rows with a non-zero support column; all rows by default)."""
        cols = self.support.get(name)
        if cols is None or not len(self.stats):
            return len(self.stats)
        if not cols:
            return 0
        return int(np.count_nonzero(np.any(self.stats[:, cols] != 0, axis=1)))

    def point(self, name: str) -> Any:
        """The scorer's figure for the metric, or `_OWN` (the metric itself) on a subset."""
        return self.points.get(name) if self.from_scorer else _OWN

    def interval(self, name: str, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = 0.95, min_n: int = DEFAULT_MIN_N) -> Interval:
        """The scorer's figure for `name` with a bootstrap interval (when n and the settings allow one)."""
        return bootstrap_ci(self.stats, self.metrics[name], n_resamples, seed, level, self.strata,
                            point=self.point(name), min_n=min_n, n_items=self.n_for(name))


class _Cols:
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


def _num(v: Any) -> Optional[float]:
    return None if v is None or isinstance(v, bool) or not isinstance(v, (int, float)) else float(v)


IB_TABLE = (("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
            ("silence_compliance", "silence_compliance"))
IB_DIMENSIONS = ("capability_group", "time_type", "family")


def ib_stats(report: Mapping) -> BenchStats:
    """InteractionBench: item-weighted means of total / accuracy / TA / SC, each over its own items;
    points from the scorer's `aggregate` (overall and by_<dimension>)."""
    cols = _Cols()
    ids, groups = [], {d: {} for d in IB_DIMENSIONS}
    for rec in report.get("records") or []:
        ids.append(rec["item_id"])
        row = {}
        for _, f in IB_TABLE:
            v = rec.get(f)
            row[f"{f}:v"], row[f"{f}:n"] = (0.0, 0.0) if v is None else (float(v), 1.0)
        for d in IB_DIMENSIONS:
            g = str(rec.get(d))
            groups[d].setdefault(g, None)
            v = rec.get("total_score")
            row[f"{d}={g}:v"], row[f"{d}={g}:n"] = (0.0, 0.0) if v is None else (float(v), 1.0)
        cols.add(row)
    for _, f in IB_TABLE:
        cols.col(f"{f}:v"), cols.col(f"{f}:n")
    agg = report.get("aggregate") or {}
    overall = agg.get("overall") or {}
    metrics = {name: ratio(cols.col(f"{f}:v"), cols.col(f"{f}:n"), 1.0) for name, f in IB_TABLE}
    points = {name: _num(overall.get(f)) for name, f in IB_TABLE}
    support = {name: [cols.col(f"{f}:n")] for name, f in IB_TABLE}
    breakdowns = {}
    for d in IB_DIMENSIONS:
        breakdowns[d] = []
        for g in sorted(groups[d]):
            key = f"total|{d}={g}"
            metrics[key] = ratio(cols.col(f"{d}={g}:v"), cols.col(f"{d}={g}:n"), 1.0)
            points[key] = _num(((agg.get(f"by_{d}") or {}).get(g) or {}).get("total_score"))
            support[key] = [cols.col(f"{d}={g}:n")]
            breakdowns[d].append((g, key))
    return BenchStats("interactionbench", ids, cols.matrix(), metrics, [n for n, _ in IB_TABLE], "total",
                      None, breakdowns, points, support)


PB_SUBTASKS = ("ES", "OR", "WR", "AA", "SS", "DC")
PB_WINDOW = ("OR", "WR", "AA", "SS")
PB_OUTCOMES = ("early", "in_window", "missed", "late")


def pb_stats(report: Mapping) -> BenchStats:
    """ProactiveBench: per-subtask accuracy, pooled S_ES, AVG of the six; outcome rates as breakdown;
    points from the scorer's `aggregate`."""
    cols = _Cols()
    for name in ("ES:hits", "ES:alerts", "ES:clean", "ES:segs", "ES:items") + tuple(
            f"{x}:{k}" for x in PB_SUBTASKS[1:] for k in ("n", "correct") + PB_OUTCOMES):
        cols.col(name)
    ids, strata = [], []
    for iid, d in (report.get("per_item") or {}).items():
        ids.append(iid)
        x = d["subtask"]
        strata.append(x)
        if x == "ES":
            cols.add({"ES:hits": d["hits"], "ES:alerts": d["alerts"], "ES:clean": d["clean_segments"],
                      "ES:segs": d["segments"], "ES:items": 1.0})
        else:
            row = {f"{x}:n": 1.0, f"{x}:correct": float(bool(d["correct"]))}
            if x in PB_WINDOW and d.get("outcome") in PB_OUTCOMES:
                row[f"{x}:{d['outcome']}"] = 1.0
            cols.add(row)
    c = cols.col
    agg = report.get("aggregate") or {}
    config = report.get("config") or {}
    metrics: dict[str, Metric] = {"ES": geo_ratio(c("ES:hits"), c("ES:alerts"), c("ES:clean"), c("ES:segs"))}
    for x in PB_SUBTASKS[1:]:
        metrics[x] = ratio(c(f"{x}:correct"), c(f"{x}:n"))
    metrics["AVG"] = mean_of([metrics[x] for x in PB_SUBTASKS], bool(config.get("allow_partial")))
    points = {x: _num(agg.get("S_ES" if x == "ES" else x)) for x in PB_SUBTASKS}
    points["AVG"] = _num(agg.get("AVG"))
    support = {"ES": [c("ES:items")], **{x: [c(f"{x}:n")] for x in PB_SUBTASKS[1:]}}
    breakdown = []
    for x in PB_WINDOW:
        sub = (agg.get("subtasks") or {}).get(x) or {}
        for out in PB_OUTCOMES:
            if f"{out}_rate" not in sub:
                continue  # the scorer's settings decide which outcomes it reports
            key = f"{x} {out} %"
            cols_ = [c(f"{x}:{out}")] + ([c(f"{x}:late")] if out == "missed" and "late_rate" not in sub else [])
            num = cols_[0] if len(cols_) == 1 else None
            metrics[key] = ratio(num, c(f"{x}:n")) if num is not None else _sum_ratio(cols_, c(f"{x}:n"))
            points[key] = _num(sub.get(f"{out}_rate"))
            support[key] = [c(f"{x}:n")]
            breakdown.append((f"{x} {out}", key))
    return BenchStats("proactivebench", ids, cols.matrix(), metrics, list(PB_SUBTASKS) + ["AVG"], "AVG",
                      strata, {"outcome": breakdown}, points, support)


def _sum_ratio(nums: Sequence[int], den: int, scale: float = 100.0) -> Metric:
    return lambda s: scale * _safe_div(s[:, list(nums)].sum(axis=1), s[:, den])


IS_TASKS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
IS_AVG = ("T1", "T2", "T3", "T4", "T6", "T7")


def is_stats(report: Mapping) -> BenchStats:
    """InteractScope: per-target accuracy of T1-T7, Avg (no T5), pooled T8 recall; timing rates by task;
    points from the scorer's `aggregate`."""
    cols = _Cols()
    for t in IS_TASKS + ("T8",):
        for k in ("n", "correct", "in_window", "early", "missed"):
            cols.col(f"{t}:{k}")
    ids, strata = [], []
    subtypes: set = set()
    for iid, d in (report.get("per_item") or {}).items():
        ids.append(iid)
        t = d["task"]
        strata.append(t)
        row: dict[str, float] = {}
        for td in d["targets"]:
            for k, v in ((f"{t}:n", 1.0), (f"{t}:correct", float(bool(td["correct"]))), (f"{t}:{td['timing']}", 1.0)):
                row[k] = row.get(k, 0.0) + v
            if t == "T8":
                sub = str(d.get("subtype"))
                subtypes.add(sub)
                for k, v in ((f"T8{sub}:n", 1.0), (f"T8{sub}:correct", float(bool(td["correct"])))):
                    row[k] = row.get(k, 0.0) + v
        cols.add(row)
    c = cols.col
    agg = report.get("aggregate") or {}
    config = report.get("config") or {}
    avg_tasks = tuple(config.get("avg_tasks") or IS_AVG)
    metrics: dict[str, Metric] = {t: ratio(c(f"{t}:correct"), c(f"{t}:n")) for t in IS_TASKS}
    metrics["Avg"] = mean_of([metrics[t] for t in avg_tasks if t in metrics], bool(config.get("allow_partial")))
    metrics["T8"] = ratio(c("T8:correct"), c("T8:n"))
    points = {t: _num(agg.get(t)) for t in IS_TASKS}
    points["Avg"], points["T8"] = _num(agg.get("Avg")), _num(agg.get("T8_recall"))
    support = {t: [c(f"{t}:n")] for t in IS_TASKS + ("T8",)}
    timing = []
    for t in IS_TASKS:
        task = (agg.get("tasks") or {}).get(t) or {}
        for k in ("in_window", "early", "missed"):
            key = f"{t} {k} %"
            metrics[key] = ratio(c(f"{t}:{k}"), c(f"{t}:n"))
            points[key] = _num(task.get(f"{k}_rate"))
            support[key] = [c(f"{t}:n")]
            timing.append((f"{t} {k}", key))
    sub_rows = []
    by_sub = ((agg.get("T8") or {}).get("recall_by_subtype") or {})
    for sub in sorted(subtypes):
        key = f"T8-{sub} recall"
        metrics[key] = ratio(c(f"T8{sub}:correct"), c(f"T8{sub}:n"))
        points[key] = _num(by_sub.get(sub))
        support[key] = [c(f"T8{sub}:n")]
        sub_rows.append((f"T8-{sub}", key))
    return BenchStats("interactscope", ids, cols.matrix(), metrics, list(IS_TASKS) + ["Avg", "T8"], "Avg", strata,
                      {"timing": timing, "t8_subtype": sub_rows}, points, support)


# OmniInteract: the paper table's columns and where the scorer's summary keeps them (paper_metrics.exp_f1)
OI_COLUMNS = (("Realtime", "realtime"), ("Proactive", "proactive"), ("Nested", "nested"),
              ("1Q1A", "one_q1a_global"), ("1QnA", "one_qna"), ("All", "all_global"))
OI_GROUPS = ("by_scene_type", "by_question_type", "nested_by_role", "exclusive_by_question_type")
OI_IDS = (("NOR", "interrupted_no_output_rate"), ("PAQ", "partial_quality_avg"),
          ("CSM-SR", "spill_positive_rate_in_output_slots"), ("CSM-AS (s)", "avg_spill_seconds_in_output_slots"),
          ("NCCS", None))
_METRIC_KEYS = (("slots", "num_slots"), ("tp", "Global_TP"), ("fp", "Global_FP"), ("fn", "Global_FN"))


def oi_stats(report: Mapping) -> BenchStats:
    """OmniInteract from the scorer's own per-sample summaries (`sample_summary`, made under the run's
    settings) of exactly the samples its aggregate counts (item_kind "summarized", judge failures
    included): each resample sums them as the scorer's `aggregate` does and reads IA-QTF1 (x100) through
    the scorer's `paper_metrics`; by-category breakdowns as the scorer groups them; IDS and NCCS."""
    from scoring.omniinteract.summary import MetricAcc, paper_metrics

    cols = _Cols()
    for k, _ in _METRIC_KEYS:
        cols.col(f"total:{k}")
    ids: list[str] = []
    groups: dict[str, list[str]] = {g: [] for g in OI_GROUPS}
    fixed = False
    for s in report.get("samples") or []:
        if s.get("item_kind") != "summarized":
            continue
        ss = s.get("sample_summary") or {}
        summ = ss.get("summary") or {}
        fixed = fixed or "exclusive_by_question_type" in summ
        row: dict[str, float] = {}

        def put(prefix: str, r: Mapping) -> None:
            for k, src in _METRIC_KEYS:
                row[f"{prefix}:{k}"] = row.get(f"{prefix}:{k}", 0.0) + float(r.get(src, 0) or 0)
        put("total", summ)
        for g in OI_GROUPS:
            for k, r in (summ.get(g) or {}).items():
                if k not in groups[g]:
                    groups[g].append(k)
                put(f"{g}={k}", r or {})
        intr = ss.get("interrupted_summary") or {}
        pq_n = float(intr.get("partial_quality_count", intr.get("interrupted_with_output_count", 0)) or 0)
        ni = ss.get("nested_ira") or {}
        row.update({"int:n": float(intr.get("interrupted_slot_count") or 0),
                    "int:no_out": float(intr.get("interrupted_no_output_count") or 0),
                    "int:out": float(intr.get("interrupted_with_output_count") or 0),
                    "int:spill": float(intr.get("interrupted_with_positive_spill_count") or 0),
                    "int:spill_s": float(intr.get("total_spill_seconds_in_output_slots",
                                                  intr.get("total_spill_seconds", 0)) or 0),
                    "pq:n": pq_n, "pq:sum": float(intr.get("partial_quality_avg") or 0) * pq_n,
                    "nc:pairs": float(ni.get("num_pairs") or 0),
                    "nc:sum": float(ni.get("score_sum", ni.get("ira_sum", 0)) or 0)})
        ids.append(str(s.get("sample_id")))
        cols.add(row)
    c = cols.col
    for g in OI_GROUPS:
        for k in groups[g]:
            for m, _ in _METRIC_KEYS:
                c(f"{g}={k}:{m}")
    for name in ("int:n", "int:no_out", "int:out", "int:spill", "int:spill_s", "pq:n", "pq:sum", "nc:pairs",
                 "nc:sum"):
        c(name)
    index = dict(cols.index)
    where = {pre.rsplit(":", 1)[0]: None for pre in index if pre.endswith(":slots")}
    where = {pre: [index[f"{pre}:{m}"] for m, _ in _METRIC_KEYS] for pre in where}

    def acc(row: np.ndarray, prefix: str) -> MetricAcc:
        return MetricAcc(*row[where[prefix]].tolist())

    def summary_of(row: np.ndarray) -> dict:
        """The part of the scorer's benchmark summary that paper_metrics reads, from summed sample rows."""
        out = acc(row, "total").row()
        for g in OI_GROUPS:
            if g == "exclusive_by_question_type" and not fixed:
                continue
            out[g] = {k: acc(row, f"{g}={k}").row() for k in sorted(groups[g])
                      if row[index[f"{g}={k}:slots"]] > 0}
        return out

    cache: dict = {}  # the last few inputs: every column reads the same resamples (and the same point row)

    def exp_f1(s: np.ndarray) -> list:
        key = (s.shape, s.tobytes())
        if key not in cache:
            if len(cache) >= 4:
                cache.pop(next(iter(cache)))
            cache[key] = [paper_metrics(summary_of(r), fixed)["exp_f1"] for r in s]
        return cache[key]

    def column(cat: str) -> Metric:
        def m(s: np.ndarray) -> np.ndarray:
            return np.array([100.0 * float(e[cat]["IA_QTF1"]) if e.get(cat) else np.nan for e in exp_f1(s)])
        return m

    def group_f1(prefix: str) -> Metric:
        def m(s: np.ndarray) -> np.ndarray:
            return np.array([100.0 * float(acc(r, prefix).row()["IA_QTF1"]) if r[index[f"{prefix}:slots"]] > 0
                             else np.nan for r in s])
        return m

    summary = report.get("summary") or {}
    pm = summary.get("paper_metrics") or {}
    f1s = pm.get("exp_f1") or {}
    metrics: dict[str, Metric] = {}
    points: dict[str, Optional[float]] = {}
    support: dict[str, list[int]] = {}
    for name, cat in OI_COLUMNS:
        metrics[name] = column(cat)
        row = f1s.get(cat) or {}
        points[name] = 100.0 * float(row["IA_QTF1"]) if row.get("IA_QTF1") is not None else None
    qtypes, scenes = groups["by_question_type"], groups["by_scene_type"]
    support["Realtime"] = [c("by_question_type=realtime:slots")] if "realtime" in qtypes else []
    support["Proactive"] = [c("by_question_type=proactive:slots")] if "proactive" in qtypes else []
    for name, scene in (("Nested", "nested"), ("1QnA", "1QnA")):
        support[name] = [c(f"by_scene_type={scene}:slots")] if scene in scenes else []
    support["1Q1A"] = [c(f"by_scene_type={k}:slots") for k in scenes if k != "1QnA"]
    breakdowns: dict[str, list[tuple[str, str]]] = {}
    for g in OI_GROUPS:
        entries = []
        for k in sorted(groups[g]):
            key = f"IA-QTF1|{g}={k}"
            metrics[key] = group_f1(f"{g}={k}")
            row = (summary.get(g) or {}).get(k) or {}
            points[key] = 100.0 * float(row["IA_QTF1"]) if row.get("IA_QTF1") is not None else None
            support[key] = [c(f"{g}={k}:slots")]
            entries.append((k, key))
        if entries:
            breakdowns[g] = entries
    intr = summary.get("interrupted") or {}
    chain = summary.get("nested_chain_completion") or {}
    ids_metrics = {"NOR": ratio(c("int:no_out"), c("int:n")), "PAQ": ratio(c("pq:sum"), c("pq:n")),
                   "CSM-SR": ratio(c("int:spill"), c("int:out")), "CSM-AS (s)": ratio(c("int:spill_s"), c("int:out"), 1.0),
                   "NCCS": ratio(c("nc:sum"), c("nc:pairs"))}
    ids_support = {"NOR": [c("int:n")], "PAQ": [c("pq:n")], "CSM-SR": [c("int:out")], "CSM-AS (s)": [c("int:out")],
                   "NCCS": [c("nc:pairs")]}
    entries = []
    for name, src in OI_IDS:
        v = (chain.get("NCCS") if src is None else intr.get(src)) if summary else None
        key = f"IDS|{name}"
        metrics[key] = ids_metrics[name]
        points[key] = None if v is None else float(v) * (1.0 if name == "CSM-AS (s)" else 100.0)
        support[key] = ids_support[name]
        entries.append((name, key))
    breakdowns["interruption and nested chain"] = entries
    return BenchStats("omniinteract", ids, cols.matrix(), metrics, [n for n, _ in OI_COLUMNS], "All", None, breakdowns,
                      points, support)


STATS = {"interactionbench": ib_stats, "proactivebench": pb_stats, "interactscope": is_stats,
         "omniinteract": oi_stats}


def item_stats(benchmark: str, report: Mapping) -> BenchStats:
    """The per-item statistics of a scorer report (the dict `runners.evaluate.score_predictions` returns)."""
    try:
        return STATS[benchmark](report)
    except KeyError:
        raise ValueError(f"unknown benchmark {benchmark!r}; expected one of {sorted(STATS)}") from None
