"""Seeded bootstrap confidence intervals over items, paired human - model differences and rank stability.

Every benchmark metric here is a function of column sums of a per-item statistics matrix (a mean is
sum(value)/sum(present), a pooled rate is sum(hits)/sum(alerts), an F1 comes from summed TP/FP/FN), so
one resample is a weighted sum: `counts @ stats`. `item_stats(benchmark, report)` builds that matrix
from a scorer report. Pure numpy; the same seed always gives the same intervals."""
from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

Metric = Callable[[np.ndarray], np.ndarray]  # (B, k) column sums -> (B,) values (NaN = undefined)
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile bootstrap interval (None when undefined)."""
    point: Optional[float]
    low: Optional[float]
    high: Optional[float]
    level: float = 0.95
    n_resamples: int = 0
    n_items: int = 0

    def fmt(self, digits: int = 1) -> str:
        if self.point is None:
            return "–"
        if self.low is None or self.high is None:
            return f"{self.point:.{digits}f}"
        return f"{self.point:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


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
    if point is None or fin.size == 0:
        return Interval(point, None, None, level, n_resamples, n)
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(fin, [a, 1.0 - a])
    return Interval(point, float(lo), float(hi), level, n_resamples, n)


def bootstrap_ci(stats: np.ndarray, metric: Metric, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = 0.95, strata: Optional[Sequence] = None) -> Interval:
    """Percentile interval of `metric` over item resamples of `stats` (n items x k columns)."""
    stats = np.asarray(stats, dtype=np.float64)
    point = _point(stats, metric)
    if len(stats) == 0:
        return Interval(None, None, None, level, n_resamples, 0)
    counts = resample_counts(len(stats), n_resamples, seed, strata)
    return _interval(point, metric(counts @ stats), level, n_resamples, len(stats))


def paired_difference(stats_a: np.ndarray, metric_a: Metric, stats_b: np.ndarray, metric_b: Metric,
                      n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95,
                      strata: Optional[Sequence] = None) -> Interval:
    """metric(a) - metric(b) with both resampled on the SAME items (rows of a and b must be aligned)."""
    a, b = np.asarray(stats_a, dtype=np.float64), np.asarray(stats_b, dtype=np.float64)
    if len(a) != len(b):
        raise ValueError(f"paired difference needs aligned items: {len(a)} rows vs {len(b)} rows")
    pa, pb_ = _point(a, metric_a), _point(b, metric_b)
    point = None if pa is None or pb_ is None else pa - pb_
    if len(a) == 0:
        return Interval(None, None, None, level, n_resamples, 0)
    counts = resample_counts(len(a), n_resamples, seed, strata)
    return _interval(point, metric_a(counts @ a) - metric_b(counts @ b), level, n_resamples, len(a))


@dataclass(frozen=True)
class RankStability:
    """How often a responder keeps its rank when the items are resampled (rank 1 = best)."""
    name: str
    point_rank: int
    mean_rank: float
    p_same_rank: float
    p_best: float
    rank_low: int
    rank_high: int


def _ranks(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Competition ranks (1 = best, ties share the best rank) per row; NaN ranks last."""
    v = np.where(np.isfinite(values), values, -np.inf if higher_is_better else np.inf)
    v = -v if higher_is_better else v
    return (v[:, None, :] < v[:, :, None]).sum(axis=2) + 1


def rank_stability(stats: Sequence[np.ndarray], metrics: Sequence[Metric], names: Sequence[str],
                   n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, higher_is_better: bool = True,
                   level: float = 0.95, strata: Optional[Sequence] = None) -> list[RankStability]:
    """Rank responders on the same resampled items; per responder its point rank and how stable it is."""
    if not stats:
        return []
    n = len(stats[0])
    if any(len(s) != n for s in stats):
        raise ValueError("rank stability needs every responder's statistics on the same items")
    arrs = [np.asarray(s, dtype=np.float64) for s in stats]
    point = np.array([[_point(a, m) if _point(a, m) is not None else np.nan for a, m in zip(arrs, metrics)]])
    point_rank = _ranks(point, higher_is_better)[0]
    counts = resample_counts(n, n_resamples, seed, strata)
    values = np.stack([m(counts @ a) for a, m in zip(arrs, metrics)], axis=1)
    ranks = _ranks(values, higher_is_better)
    a = (1.0 - level) / 2.0
    out = []
    for j, name in enumerate(names):
        r = ranks[:, j]
        lo, hi = np.quantile(r, [a, 1.0 - a])
        out.append(RankStability(name, int(point_rank[j]), float(r.mean()), float((r == point_rank[j]).mean()),
                                 float((r == 1).mean()), int(math.floor(lo)), int(math.ceil(hi))))
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


def mean_of(parts: Sequence[Metric]) -> Metric:
    """Equal-weight mean of metrics; NaN if any part is undefined (the papers' AVG without allow_partial)."""
    return lambda s: np.mean(np.stack([p(s) for p in parts], axis=1), axis=1)


# ---------------------------------------------------------------- benchmark statistics

@dataclass
class BenchStats:
    """Per-item statistics of one responder on one benchmark, and the metrics defined over them.

    table: the paper-table columns (names in `metrics`); breakdowns: dimension -> [(group, metric name)]."""
    benchmark: str
    item_ids: list[str]
    stats: np.ndarray
    metrics: dict[str, Metric]
    table: list[str]
    headline: str
    strata: Optional[list] = None
    breakdowns: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def subset(self, item_ids: Sequence[str]) -> "BenchStats":
        """The same statistics restricted to (and ordered by) the given items."""
        pos = {iid: i for i, iid in enumerate(self.item_ids)}
        idx = [pos[i] for i in item_ids]
        return BenchStats(self.benchmark, list(item_ids), self.stats[idx] if idx else self.stats[:0],
                          self.metrics, self.table, self.headline,
                          [self.strata[i] for i in idx] if self.strata is not None else None, self.breakdowns)


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


IB_TABLE = (("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
            ("silence_compliance", "silence_compliance"))
IB_DIMENSIONS = ("capability_group", "time_type", "family")


def ib_stats(report: Mapping) -> BenchStats:
    """InteractionBench: item-weighted means of total / accuracy / TA / SC, each over its own items."""
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
    metrics = {name: ratio(cols.col(f"{f}:v"), cols.col(f"{f}:n"), 1.0) for name, f in IB_TABLE}
    breakdowns = {}
    for d in IB_DIMENSIONS:
        breakdowns[d] = []
        for g in sorted(groups[d]):
            key = f"total|{d}={g}"
            metrics[key] = ratio(cols.col(f"{d}={g}:v"), cols.col(f"{d}={g}:n"), 1.0)
            breakdowns[d].append((g, key))
    return BenchStats("interactionbench", ids, cols.matrix(), metrics, [n for n, _ in IB_TABLE], "total",
                      None, breakdowns)


PB_SUBTASKS = ("ES", "OR", "WR", "AA", "SS", "DC")
PB_WINDOW = ("OR", "WR", "AA", "SS")


def pb_stats(report: Mapping) -> BenchStats:
    """ProactiveBench: per-subtask accuracy, pooled S_ES, AVG of the six; outcome rates as breakdown."""
    cols = _Cols()
    for name in ("ES:hits", "ES:alerts", "ES:clean", "ES:segs") + tuple(
            f"{x}:{k}" for x in PB_SUBTASKS[1:] for k in ("n", "correct", "early", "in_window", "missed")):
        cols.col(name)
    ids, strata = [], []
    for iid, d in (report.get("per_item") or {}).items():
        ids.append(iid)
        x = d["subtask"]
        strata.append(x)
        if x == "ES":
            cols.add({"ES:hits": d["hits"], "ES:alerts": d["alerts"], "ES:clean": d["clean_segments"],
                      "ES:segs": d["segments"]})
        else:
            row = {f"{x}:n": 1.0, f"{x}:correct": float(bool(d["correct"]))}
            if x in PB_WINDOW:
                out = "missed" if d["outcome"] == "late" else d["outcome"]
                row[f"{x}:{out}"] = 1.0
            cols.add(row)
    c = cols.col
    metrics: dict[str, Metric] = {"ES": geo_ratio(c("ES:hits"), c("ES:alerts"), c("ES:clean"), c("ES:segs"))}
    for x in PB_SUBTASKS[1:]:
        metrics[x] = ratio(c(f"{x}:correct"), c(f"{x}:n"))
    metrics["AVG"] = mean_of([metrics[x] for x in PB_SUBTASKS])
    breakdown = []
    for x in PB_WINDOW:
        for out in ("early", "in_window", "missed"):
            key = f"{x} {out} %"
            metrics[key] = ratio(c(f"{x}:{out}"), c(f"{x}:n"))
            breakdown.append((f"{x} {out}", key))
    return BenchStats("proactivebench", ids, cols.matrix(), metrics, list(PB_SUBTASKS) + ["AVG"], "AVG",
                      strata, {"outcome": breakdown})


IS_TASKS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
IS_AVG = ("T1", "T2", "T3", "T4", "T6", "T7")


def is_stats(report: Mapping) -> BenchStats:
    """InteractScope: per-target accuracy of T1-T7, Avg (no T5), pooled T8 recall; timing rates by task."""
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
    metrics: dict[str, Metric] = {t: ratio(c(f"{t}:correct"), c(f"{t}:n")) for t in IS_TASKS}
    metrics["Avg"] = mean_of([metrics[t] for t in IS_AVG])
    metrics["T8"] = ratio(c("T8:correct"), c("T8:n"))
    timing = []
    for t in IS_TASKS + ("T8",):
        for k in ("in_window", "early", "missed"):
            key = f"{t} {k} %"
            metrics[key] = ratio(c(f"{t}:{k}"), c(f"{t}:n"))
            timing.append((f"{t} {k}", key))
    sub_rows = []
    for sub in sorted(subtypes):
        key = f"T8-{sub} recall"
        metrics[key] = ratio(c(f"T8{sub}:correct"), c(f"T8{sub}:n"))
        sub_rows.append((f"T8-{sub}", key))
    return BenchStats("interactscope", ids, cols.matrix(), metrics, list(IS_TASKS) + ["Avg", "T8"], "Avg", strata,
                      {"timing": timing, "t8_subtype": sub_rows})


OI_CATEGORIES = ("realtime", "proactive", "nested", "1QnA", "all")


def _oi_category(slot: Mapping) -> str:
    scene = str(slot.get("scene_type") or "")
    if scene in ("nested", "1QnA"):
        return scene
    return str(slot.get("question_type") or "unknown")


def oi_stats(report: Mapping) -> BenchStats:
    """OmniInteract: IA-QTF1 (x100) from summed TP/FP/FN per category; unmatched chunks only in 'all'."""
    cols = _Cols()
    for cat in OI_CATEGORIES + ("1Q1A",):
        for k in ("tp", "fp", "fn"):
            cols.col(f"{cat}:{k}")
    ids = []
    for s in report.get("samples") or []:
        if s.get("item_kind") != "summarized" or s.get("status") != "ok":
            continue
        ids.append(str(s["sample_id"]))
        row: dict[str, float] = {}
        for slot in s.get("slots") or []:
            interrupted = bool(slot.get("is_interrupted"))
            fn = slot.get("FN_delta")
            if fn is None:
                fn = float(float(slot.get("TP_core") or 0.0) <= 0)
            vals = {"tp": float(slot.get("TP_n") or 0.0), "fp": float(slot.get("FP_delta") or 0.0),
                    "fn": 0.0 if interrupted else float(fn)}
            cat = _oi_category(slot)
            cats = [cat, "all"] + (["1Q1A"] if cat != "1QnA" else [])
            for cc in cats:
                for k, v in vals.items():
                    row[f"{cc}:{k}"] = row.get(f"{cc}:{k}", 0.0) + v
        row["all:fp"] = row.get("all:fp", 0.0) + len(s.get("unmatched_chunks") or [])
        cols.add(row)
    c = cols.col
    names = {"Realtime": "realtime", "Proactive": "proactive", "Nested": "nested", "1Q1A": "1Q1A",
             "1QnA": "1QnA", "All": "all"}
    metrics = {n: f1(c(f"{k}:tp"), c(f"{k}:fp"), c(f"{k}:fn")) for n, k in names.items()}
    return BenchStats("omniinteract", ids, cols.matrix(), metrics, list(names), "All", None, {})


STATS = {"interactionbench": ib_stats, "proactivebench": pb_stats, "interactscope": is_stats,
         "omniinteract": oi_stats}


def item_stats(benchmark: str, report: Mapping) -> BenchStats:
    """The per-item statistics of a scorer report (the dict `runners.evaluate.score_predictions` returns)."""
    try:
        return STATS[benchmark](report)
    except KeyError:
        raise ValueError(f"unknown benchmark {benchmark!r}; expected one of {sorted(STATS)}") from None
