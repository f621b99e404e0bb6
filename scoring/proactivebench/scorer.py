"""ProactiveBench (streaming) scorer: six subtasks decided in 1-s intervals, timing-only metrics.

Pure functions over the native dicts (see docs/formats.md). Every reading the spec marks as an
assumption (A1-A12 in the shared ProactiveBench / InteractScope spec under specs/) is an option of `PBConfig`, whose
defaults reproduce the golden cases.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Optional, Union

from annotation.proactivebench.writer import second_of
from annotation.errors import Problem
from scoring import common
from scoring.common import (check_options, check_pair, index_predictions, is_int, is_real, not_an_object, pct,
                            record_id, round1)

SUBTASKS = ("ES", "OR", "WR", "AA", "SS", "DC")
WINDOW_SUBTASKS = ("OR", "WR", "AA", "SS")
OUTCOMES = ("early", "in_window", "missed", "late")
SS_SILENCE_RANGE = (60, 194)  # seed: SS windows open after 60-194 s of verified silence
TABLE_COLUMNS = ("ES", "OR", "WR", "AA", "SS", "DC", "AVG")


@dataclass(frozen=True)
class PBConfig:
    """Scoring options; each names the spec assumption it settles. Defaults = spec = golden."""
    # A1: ints are 1-based interval indices; a float time tau becomes interval floor(tau)+1
    #     ("interval_of_time") or is rejected ("reject").
    float_times: str = "interval_of_time"
    # A2: decisions before this second are dropped (the first interval is excluded).
    #     An item's own "eval_start" takes precedence.
    eval_start: int = 2
    # A3: preceding context the protocol may show the model (recorded, not used in scoring).
    max_context_seconds: int = 30
    # A4: OR window = [onset + or_window[0], onset + or_window[1]].
    or_window: tuple[int, int] = (0, 2)
    # A5: SS scored like the other window subtasks ("window") or only as restraint
    #     ("no_early": correct unless the first response comes before the window).
    ss_rule: str = "window"
    # A6: window bounds inclusive at both ends (False: half-open [start, end)).
    window_closed: bool = True
    # A6: only the first scored response is classified ("first_response") or any response
    #     inside the window counts ("any_in_window").
    window_rule: str = "first_response"
    # A6: a first response after the window counts as "missed" or gets its own "late" outcome
    #     (still incorrect).
    late_outcome: str = "missed"
    # A7: DC predicted count from the number of scored responses or parsed from the texts.
    dc_count_source: str = "responses"
    # A8: prediction.predicted_count, when present, overrides the derived count.
    dc_prefer_predicted_count: bool = True
    # A9: an alert second a is hit by a response in [a - tol, a + tol].
    es_alert_tol: int = 0
    # A10: silence segments inclusive at both ends (False: half-open [s, e)).
    es_segment_closed: bool = True
    # A11: S_ES from pooled R and Q ("micro") or mean of per-item S_ES ("macro").
    es_pooling: str = "micro"
    # A12: AVG weights the six subtask scores equally ("equal") or by item count ("by_items").
    avg_weighting: str = "equal"
    # A.10: with missing subtasks AVG is None unless partial averages are allowed.
    allow_partial: bool = False

    def __post_init__(self) -> None:
        checks = {
            "float_times": (self.float_times, ("interval_of_time", "reject")),
            "ss_rule": (self.ss_rule, ("window", "no_early")),
            "window_rule": (self.window_rule, ("first_response", "any_in_window")),
            "late_outcome": (self.late_outcome, ("missed", "late")),
            "dc_count_source": (self.dc_count_source, ("responses", "text")),
            "es_pooling": (self.es_pooling, ("micro", "macro")),
            "avg_weighting": (self.avg_weighting, ("equal", "by_items")),
        }
        check_options("PBConfig", checks)
        if self.eval_start < 1:
            raise ValueError(f"PBConfig.eval_start={self.eval_start}: must be >= 1 (1-based seconds)")
        if self.es_alert_tol < 0:
            raise ValueError(f"PBConfig.es_alert_tol={self.es_alert_tol}: must be >= 0")
        if self.or_window[0] > self.or_window[1]:
            raise ValueError(f"PBConfig.or_window={self.or_window}: start offset exceeds end offset")


# ---------------------------------------------------------------- diagnostics

@dataclass(frozen=True)
class WindowDiag:
    """Outcome of one OR/WR/AA/SS item: its window, first scored response and classification."""
    item_id: str
    subtask: str
    window: tuple[int, int]
    first_response: Optional[int]
    outcome: str
    correct: bool
    scored_responses: tuple[int, ...] = ()
    eval_start: int = 2
    deciding_response: Optional[int] = None  # the scored second whose timing gave the outcome


@dataclass(frozen=True)
class CountDiag:
    """Outcome of one DC item: reference count, predicted count and where the count came from."""
    item_id: str
    subtask: str
    ref_count: int
    predicted_count: Optional[int]
    count_source: str
    correct: bool
    scored_responses: tuple[int, ...] = ()
    eval_start: int = 2


@dataclass(frozen=True)
class ESDiag:
    """Outcome of one ES item: alert hits, clean silence segments and the item's own S_ES."""
    item_id: str
    subtask: str
    hits: int
    alerts: int
    clean_segments: int
    segments: int
    responsiveness: Optional[float]
    restraint: Optional[float]
    S_ES: Optional[float]
    hit_alerts: tuple[int, ...] = ()
    broken_segments: tuple[tuple[int, int], ...] = ()
    scored_responses: tuple[int, ...] = ()
    eval_start: int = 2
    alert_responses: tuple[tuple[int, int], ...] = ()  # (scored second, the alert it hits)
    segment_responses: tuple[tuple[int, tuple[int, int]], ...] = ()  # (scored second, the segment it breaks)


ItemDiag = Union[WindowDiag, CountDiag, ESDiag]


# ---------------------------------------------------------------- time helpers

def seconds_to_interval(tau: float) -> int:
    """A1: clip time tau (seconds) falls in the 1-based decision interval floor(tau) + 1 (the same rule the
    prediction writer applies to logged responses)."""
    return second_of(tau)


def _as_second(value: Any, config: PBConfig, where: str) -> int:
    """An annotation/prediction time as a 1-based interval index (A1)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: expected an integer second, got {value!r}")
    if isinstance(value, int):
        return value
    if config.float_times == "reject":
        raise ValueError(f"{where}: float time {value!r} given; PBConfig.float_times='reject'")
    return seconds_to_interval(value)


def item_eval_start(item: Mapping, config: PBConfig) -> int:
    """A2: the first scored second; an item's own eval_start overrides the config default."""
    value = item.get("eval_start")
    return config.eval_start if value is None else int(value)


def response_seconds(item: Mapping, prediction: Optional[Mapping], config: PBConfig = PBConfig()) -> tuple[int, ...]:
    """Sorted distinct non-silent seconds of a prediction (A1), scored or not."""
    if not prediction:
        return ()
    iid = item.get("item_id")
    return tuple(sorted({
        _as_second(s, config, f"prediction for item {iid} field 'response_seconds'")
        for s in prediction.get("response_seconds") or ()
    }))


def scored_seconds(item: Mapping, prediction: Optional[Mapping], config: PBConfig = PBConfig()) -> tuple[int, ...]:
    """Sorted distinct non-silent seconds in [eval_start, duration]; everything else is silent."""
    if not prediction:
        return ()
    start = item_eval_start(item, config)
    duration = int(item["duration"])
    return tuple(k for k in response_seconds(item, prediction, config) if start <= k <= duration)


def item_window(item: Mapping, config: PBConfig = PBConfig()) -> tuple[int, int]:
    """A4: OR window from the onset second; WR/AA/SS windows as annotated (inclusive)."""
    iid = item.get("item_id")
    if item["subtask"] == "OR":
        onset = _as_second(item["onset_second"], config, f"item {iid} field 'onset_second'")
        return (onset + config.or_window[0], onset + config.or_window[1])
    start, end = item["window"]
    return (_as_second(start, config, f"item {iid} field 'window'"),
            _as_second(end, config, f"item {iid} field 'window'"))


def _in_range(k: int, start: int, end: int, closed: bool) -> bool:
    return start <= k <= end if closed else start <= k < end


# ---------------------------------------------------------------- per-item scoring

def score_window_item(item: Mapping, prediction: Optional[Mapping], config: PBConfig = PBConfig()) -> WindowDiag:
    """A5/A6: classify the first scored response as early / in_window / missed (late)."""
    seconds = scored_seconds(item, prediction, config)
    start, end = item_window(item, config)
    first = seconds[0] if seconds else None
    closed = config.window_closed

    def classify(r: Optional[int]) -> str:
        if r is None:
            return "missed"
        if r < start:
            return "early"
        if _in_range(r, start, end, closed):
            return "in_window"
        return config.late_outcome

    inside = next((k for k in seconds if _in_range(k, start, end, closed)), None) \
        if config.window_rule == "any_in_window" else None
    if inside is not None:
        outcome, deciding = "in_window", inside
    else:
        outcome, deciding = classify(first), first
    if item["subtask"] == "SS" and config.ss_rule == "no_early":
        correct = outcome != "early"
    else:
        correct = outcome == "in_window"
    return WindowDiag(item_id=str(item.get("item_id")), subtask=item["subtask"], window=(start, end),
                      first_response=first, outcome=outcome, correct=correct,
                      scored_responses=seconds, eval_start=item_eval_start(item, config),
                      deciding_response=deciding)


_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_COUNT_RE = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def parse_count(text: str) -> Optional[int]:
    """The last integer (digits or an English number word up to twenty) in a text, else None."""
    found = _COUNT_RE.findall(text or "")
    if not found:
        return None
    last = found[-1].lower()
    return int(last) if last.isdigit() else _NUMBER_WORDS[last]


def _count_from_texts(prediction: Mapping, seconds: tuple[int, ...]) -> Optional[int]:
    """A7 ("text"): the count stated in the last scored response that states one."""
    texts = prediction.get("texts") or {}
    for k in reversed(seconds):
        value = parse_count(texts.get(str(k), texts.get(k, "")) if isinstance(texts, Mapping) else "")
        if value is not None:
            return value
    return None


def score_dc_item(item: Mapping, prediction: Optional[Mapping], config: PBConfig = PBConfig()) -> CountDiag:
    """A7/A8: exact match of the predicted occurrence count with ref_count, no partial credit."""
    seconds = scored_seconds(item, prediction, config)
    pred = prediction or {}
    if config.dc_prefer_predicted_count and pred.get("predicted_count") is not None:
        count, source = int(pred["predicted_count"]), "predicted_count"
    elif config.dc_count_source == "text":
        count, source = _count_from_texts(pred, seconds), "text"
    else:
        count, source = len(seconds), "responses"
    ref = int(item["ref_count"])
    return CountDiag(item_id=str(item.get("item_id")), subtask="DC", ref_count=ref, predicted_count=count,
                     count_source=source, correct=count is not None and count == ref,
                     scored_responses=seconds, eval_start=item_eval_start(item, config))


def _ratio(num: int, den: int) -> Optional[float]:
    return num / den if den else None


def _geo(r: Optional[float], q: Optional[float]) -> Optional[float]:
    return None if r is None or q is None else 100.0 * math.sqrt(r * q)


def score_es_item(item: Mapping, prediction: Optional[Mapping], config: PBConfig = PBConfig()) -> ESDiag:
    """A9/A10: alert seconds answered (within tolerance) and silence segments left clean."""
    seconds = scored_seconds(item, prediction, config)
    iid = item.get("item_id")
    alerts = [_as_second(a, config, f"item {iid} field 'alert_seconds'") for a in item.get("alert_seconds") or ()]
    segments = [(_as_second(s, config, f"item {iid} field 'silence_segments'"),
                 _as_second(e, config, f"item {iid} field 'silence_segments'"))
                for s, e in item.get("silence_segments") or ()]
    tol = config.es_alert_tol
    hit_by = tuple((k, a) for a in alerts for k in seconds if a - tol <= k <= a + tol)
    broken_by = tuple((k, (s, e)) for s, e in segments for k in seconds
                      if _in_range(k, s, e, config.es_segment_closed))
    hit = tuple(a for a in alerts if any(x == a for _, x in hit_by))
    broken = tuple(seg for seg in segments if any(x == seg for _, x in broken_by))
    r = _ratio(len(hit), len(alerts))
    q = _ratio(len(segments) - len(broken), len(segments))
    return ESDiag(item_id=str(iid), subtask="ES", hits=len(hit), alerts=len(alerts),
                  clean_segments=len(segments) - len(broken), segments=len(segments),
                  responsiveness=r, restraint=q, S_ES=_geo(r, q), hit_alerts=hit,
                  broken_segments=broken, scored_responses=seconds, eval_start=item_eval_start(item, config),
                  alert_responses=hit_by, segment_responses=broken_by)


def score_item(item: Mapping, prediction: Optional[Mapping], config: PBConfig = PBConfig()) -> ItemDiag:
    """Dispatch one item to its subtask's rule; a missing prediction means silent throughout."""
    subtask = item.get("subtask")
    if subtask in WINDOW_SUBTASKS:
        return score_window_item(item, prediction, config)
    if subtask == "DC":
        return score_dc_item(item, prediction, config)
    if subtask == "ES":
        return score_es_item(item, prediction, config)
    raise ValueError(f"item {item.get('item_id')} field 'subtask': unknown subtask {subtask!r}; "
                     f"expected one of {SUBTASKS}")


# ---------------------------------------------------------------- aggregation

def subtask_aggregate(subtask: str, diags: list[ItemDiag], config: PBConfig = PBConfig()) -> dict:
    """Per-subtask score with diagnostics: accuracy and outcome rates, or pooled S_ES for ES."""
    n = len(diags)
    if subtask == "ES":
        hits = sum(d.hits for d in diags)
        alerts = sum(d.alerts for d in diags)
        clean = sum(d.clean_segments for d in diags)
        segs = sum(d.segments for d in diags)
        if config.es_pooling == "micro":
            r, q = _ratio(hits, alerts), _ratio(clean, segs)
            s = _geo(r, q)
        else:
            def mean(values):
                vals = [v for v in values if v is not None]
                return sum(vals) / len(vals) if vals else None
            r = mean(d.responsiveness for d in diags)
            q = mean(d.restraint for d in diags)
            s = mean(d.S_ES for d in diags)
        return {"n": n, "hits": hits, "alerts": alerts, "clean_segments": clean, "segments": segs,
                "responsiveness": r, "restraint": q, "S_ES": s, "score": s, "pooling": config.es_pooling}
    correct = sum(1 for d in diags if d.correct)
    out = {"n": n, "correct": correct, "accuracy": pct(correct, n)}
    if subtask in WINDOW_SUBTASKS:
        outcomes = [d.outcome for d in diags]
        out["outcomes"] = outcomes
        for name in OUTCOMES:
            if name != "late" or config.late_outcome == "late":
                out[f"{name}_rate"] = pct(outcomes.count(name), n)
    out["score"] = out["accuracy"]
    return out


def benchmark_avg(scores: Mapping[str, Optional[float]], config: PBConfig = PBConfig(),
                  counts: Optional[Mapping[str, int]] = None) -> Optional[float]:
    """A12: AVG over S_ES and the five accuracies (keys "ES" or "S_ES" accepted)."""
    values = {}
    for name in SUBTASKS:
        v = scores.get("S_ES", scores.get("ES")) if name == "ES" else scores.get(name)
        if v is not None:
            values[name] = float(v)
    if len(values) < len(SUBTASKS) and not config.allow_partial:
        return None
    if not values:
        return None
    if config.avg_weighting == "by_items":
        if counts is None:
            raise ValueError("PBConfig.avg_weighting='by_items' needs per-subtask item counts")
        total = sum(counts.get(k, 0) for k in values)
        return sum(values[k] * counts.get(k, 0) for k in values) / total if total else None
    return sum(values.values()) / len(values)


def score(items: Iterable[Mapping], predictions: Union[Iterable[Mapping], Mapping[str, Mapping], None],
          config: PBConfig = PBConfig()) -> dict:
    """Score a run: {"per_item", "aggregate", "table", "warnings", "config"} (JSON-ready dicts)."""
    items = list(items)
    warnings: list[str] = []
    known = {str(it.get("item_id")) for it in items}
    preds, missing = index_predictions(predictions, known, "item_id", "item", warnings)
    per_item: dict[str, dict] = {}
    by_subtask: dict[str, list[ItemDiag]] = {s: [] for s in SUBTASKS}
    for it in items:
        iid = str(it.get("item_id"))
        diag = score_item(it, preds.get(iid), config)
        per_item[iid] = asdict(diag)
        by_subtask[diag.subtask].append(diag)
    subtasks = {}
    scores: dict[str, Optional[float]] = {}
    for name in SUBTASKS:
        diags = by_subtask[name]
        agg = subtask_aggregate(name, diags, config)
        subtasks[name] = agg
        scores[name] = agg["score"]
        if not diags:
            warnings.append(f"no {name} items: its score is None")
        elif agg["score"] is None:
            warnings.append(f"{name} score undefined (no alerts or no silence segments)")
    counts = {k: len(v) for k, v in by_subtask.items()}
    avg = benchmark_avg(scores, config, counts)
    if avg is None and any(v is None for v in scores.values()):
        warnings.append("AVG is None because a subtask score is missing (set allow_partial=True)")
    aggregate = {"subtasks": subtasks, "S_ES": scores["ES"],
                 **{k: scores[k] for k in SUBTASKS if k != "ES"}, "AVG": avg,
                 "n_items": len(items), "n_predicted": len(preds), "missing_predictions": missing}
    table = {k: round1(scores[k]) for k in SUBTASKS}
    table["AVG"] = round1(avg)
    return {"per_item": per_item, "aggregate": aggregate, "table": table,
            "warnings": warnings, "config": asdict(config)}


def format_table(report: Mapping, model: str = "model") -> str:
    """Paper-style header and one row (ES OR WR AA SS DC AVG, one decimal) for the terminal."""
    return common.format_table(report["table"], TABLE_COLUMNS, model)


# ---------------------------------------------------------------- validation

def _check_time(v: Any, file: str, iid: Optional[str], fld: str, out: list[Problem]) -> bool:
    """An integer second >= 0; floats are a warning (A1 converts them), others an error."""
    if not is_real(v):
        out.append(Problem(file, iid, fld, f"expected an integer second, got {v!r}"))
        return False
    if v < 0:
        out.append(Problem(file, iid, fld, f"negative time {v!r}; times are seconds from clip start"))
        return False
    if not is_int(v):
        out.append(Problem(file, iid, fld, f"float time {v!r}: interval indices are integers; "
                           "it will be read as second floor(t)+1", "warning"))
    return True


def _check_pair(v: Any, file: str, iid: Optional[str], fld: str, out: list[Problem]) -> Optional[tuple]:
    """[start, end] of integer seconds (see _check_time), start <= end; the pair, or None after a problem."""
    if check_pair(v, file, iid, fld, out, lambda w: all(_check_time(x, file, iid, fld, out) for x in w)):
        return (v[0], v[1])
    return None


REQUIRED_FIELDS = {"OR": ("onset_second",), "WR": ("window",), "AA": ("window",), "SS": ("window",),
                   "DC": ("ref_count",), "ES": ("alert_seconds", "silence_segments")}


def validate_item(item: Any, file: str) -> list[Problem]:
    """Problems with one annotation item (errors and warnings), each naming file, item and field."""
    if not isinstance(item, Mapping):
        return [not_an_object(item, file, "item")]
    out: list[Problem] = []
    iid = record_id(item, file, "item_id", out, "missing item_id", empty_is_missing=True)
    subtask = item.get("subtask")
    if subtask not in SUBTASKS:
        out.append(Problem(file, iid, "subtask", f"unknown subtask {subtask!r}; expected one of {SUBTASKS}"))
    duration = item.get("duration")
    if not is_real(duration) or duration <= 0:
        out.append(Problem(file, iid, "duration", f"expected a positive number of seconds, got {duration!r}"))
        duration = None
    elif not is_int(duration):
        out.append(Problem(file, iid, "duration", f"duration {duration!r} is not a whole number of seconds; "
                           "scoring uses int(duration)", "warning"))
    start = item.get("eval_start", 2)
    if "eval_start" in item:
        if not is_int(start) or start < 1:
            out.append(Problem(file, iid, "eval_start", f"expected an integer second >= 1, got {start!r}"))
            start = 2
        elif duration is not None and start > duration:
            out.append(Problem(file, iid, "eval_start", f"eval_start {start} is after the clip end {duration}"))
    if subtask not in SUBTASKS:
        return out
    for fld in REQUIRED_FIELDS[subtask]:
        if item.get(fld) is None:
            out.append(Problem(file, iid, fld, f"subtask {subtask} requires field '{fld}'"))
    if subtask == "OR" and item.get("onset_second") is not None:
        if _check_time(item["onset_second"], file, iid, "onset_second", out):
            u = item["onset_second"]
            if duration is not None and u > duration:
                out.append(Problem(file, iid, "onset_second", f"onset {u} is after the clip end {duration}"))
            elif u < start:
                out.append(Problem(file, iid, "onset_second", f"onset {u} is before eval_start {start}: "
                                   "part of the window cannot be answered", "warning"))
    if subtask in ("WR", "AA", "SS") and item.get("window") is not None:
        w = _check_pair(item["window"], file, iid, "window", out)
        if w is not None:
            if duration is not None and w[0] > duration:
                out.append(Problem(file, iid, "window", f"window starts at {w[0]}, after the clip end {duration}"))
            elif duration is not None and w[1] > duration:
                out.append(Problem(file, iid, "window", f"window end {w[1]} runs past the clip end {duration} "
                                   "(clipped for display only)", "warning"))
            if w[0] < start:
                out.append(Problem(file, iid, "window", f"window starts at {w[0]}, before eval_start {start}",
                                   "warning"))
            if subtask == "SS":
                lo, hi = SS_SILENCE_RANGE
                silence = w[0] - start
                if not lo <= silence <= hi:
                    out.append(Problem(file, iid, "window", f"SS window opens after {silence} s of silence "
                                       f"(window start {w[0]} - eval_start {start}); expected {lo}-{hi}",
                                       "warning"))
    if subtask == "SS" and item.get("verified_silence_seconds") is not None:
        v = item["verified_silence_seconds"]
        lo, hi = SS_SILENCE_RANGE
        if not is_real(v):
            out.append(Problem(file, iid, "verified_silence_seconds", f"expected seconds, got {v!r}"))
        elif not lo <= v <= hi:
            out.append(Problem(file, iid, "verified_silence_seconds",
                               f"verified silence {v} s is outside the expected {lo}-{hi} s", "warning"))
    if subtask == "DC" and item.get("ref_count") is not None:
        c = item["ref_count"]
        if not is_int(c) or c < 0:
            out.append(Problem(file, iid, "ref_count", f"expected an integer count >= 0, got {c!r}"))
    if subtask == "ES":
        _validate_es(item, file, iid, start, duration, out)
    return out


def _validate_es(item: Mapping, file: str, iid: Optional[str], start: int, duration: Any,
                 out: list[Problem]) -> None:
    alerts = item.get("alert_seconds")
    segments = item.get("silence_segments")
    good_alerts: list = []
    good_segments: list = []
    if alerts is not None:
        if not isinstance(alerts, (list, tuple)):
            out.append(Problem(file, iid, "alert_seconds", f"expected a list of seconds, got {alerts!r}"))
        else:
            if not alerts:
                out.append(Problem(file, iid, "alert_seconds", "no alert seconds: responsiveness undefined",
                                   "warning"))
            for a in alerts:
                if _check_time(a, file, iid, "alert_seconds", out):
                    good_alerts.append(a)
                    if a < start:
                        out.append(Problem(file, iid, "alert_seconds",
                                           f"alert {a} is before eval_start {start} and can never be hit",
                                           "warning"))
                    elif duration is not None and a > duration:
                        out.append(Problem(file, iid, "alert_seconds", f"alert {a} is after the clip end {duration}"))
    if segments is not None:
        if not isinstance(segments, (list, tuple)):
            out.append(Problem(file, iid, "silence_segments", f"expected a list of [start, end], got {segments!r}"))
        else:
            if not segments:
                out.append(Problem(file, iid, "silence_segments", "no silence segments: restraint undefined",
                                   "warning"))
            for seg in segments:
                pair = _check_pair(seg, file, iid, "silence_segments", out)
                if pair is not None:
                    good_segments.append(pair)
    for a in good_alerts:
        for s, e in good_segments:
            if s <= a <= e:
                out.append(Problem(file, iid, "silence_segments",
                                   f"silence segment [{s}, {e}] contains alert second {a}", "warning"))


def validate_prediction(prediction: Any, file: str) -> list[Problem]:
    """Problems with one prediction: response_seconds must be 1-based ints, counts ints >= 0."""
    if not isinstance(prediction, Mapping):
        return [not_an_object(prediction, file, "prediction")]
    out: list[Problem] = []
    iid = record_id(prediction, file, "item_id", out, "prediction without item_id")
    secs = prediction.get("response_seconds")
    if not isinstance(secs, (list, tuple)):
        out.append(Problem(file, iid, "response_seconds", f"expected a list of seconds, got {secs!r}"))
    else:
        for s in secs:
            if not is_real(s) or s < 1:
                out.append(Problem(file, iid, "response_seconds", f"expected 1-based second >= 1, got {s!r}"))
            elif not is_int(s):
                out.append(Problem(file, iid, "response_seconds",
                                   f"float second {s!r} will be read as interval floor(t)+1", "warning"))
    pc = prediction.get("predicted_count")
    if pc is not None and (not is_int(pc) or pc < 0):
        out.append(Problem(file, iid, "predicted_count", f"expected an integer >= 0, got {pc!r}"))
    texts = prediction.get("texts")
    if texts is not None and not isinstance(texts, Mapping):
        out.append(Problem(file, iid, "texts", f"expected an object second -> text, got {type(texts).__name__}"))
    return out
