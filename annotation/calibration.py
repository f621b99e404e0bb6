"""A participant's reaction-time calibration: cue-to-press latencies measured in the browser, reduced to
one median that is stored with the session and can shift their response times in export and scoring
(as ELAN's delayed mode and InteractionBench's 2.48 s human reference shift do, but per person)."""
from __future__ import annotations

import math
import statistics
import time
from typing import Any, Optional

CUES = ("visual", "audio")
MIN_MS = 100.0   # faster than this is an anticipation, not a reaction to the cue
MAX_MS = 1500.0  # slower than this is a missed cue
MIN_VALID = 3


class CalibrationError(ValueError):
    """Trials that cannot give a calibration (too few valid reactions, malformed values)."""


def summarize(trials: Any) -> dict:
    """Validate the page's trials ([{cue, latency_ms}...]) and reduce them to the stored record:
    the median over valid trials (seconds), per-cue medians, and every trial with its verdict."""
    if not isinstance(trials, list) or not 1 <= len(trials) <= 40:
        raise CalibrationError("trials must be a list of 1-40 {cue, latency_ms} records.")
    kept, out = [], []
    for i, tr in enumerate(trials):
        if not isinstance(tr, dict) or tr.get("cue") not in CUES:
            raise CalibrationError(f"trial {i + 1}: cue must be one of {', '.join(CUES)}.")
        lat = tr.get("latency_ms")
        if lat is None:
            out.append({"cue": tr["cue"], "latency_ms": None, "valid": False, "why": "missed"})
            continue
        try:
            lat = float(lat)
        except (TypeError, ValueError):
            raise CalibrationError(f"trial {i + 1}: latency_ms must be a number, got {lat!r}.") from None
        if not math.isfinite(lat):
            raise CalibrationError(f"trial {i + 1}: latency_ms must be finite.")
        why = "anticipated" if lat < MIN_MS else "missed" if lat > MAX_MS else ""
        out.append({"cue": tr["cue"], "latency_ms": round(lat, 1), "valid": not why, "why": why})
        if not why:
            kept.append(out[-1])
    if len(kept) < MIN_VALID:
        raise CalibrationError(f"Only {len(kept)} of {len(out)} reactions counted (need {MIN_VALID}); "
                               "react to each cue as soon as it appears.")
    by_cue = {c: round(statistics.median(t["latency_ms"] for t in kept if t["cue"] == c) / 1000.0, 4)
              for c in CUES if any(t["cue"] == c for t in kept)}
    return {"median_s": round(statistics.median(t["latency_ms"] for t in kept) / 1000.0, 4), "by_cue": by_cue,
            "n_valid": len(kept), "n_trials": len(out), "trials": out, "measured_at": time.time()}


def shift_of(settings: Optional[dict]) -> Optional[float]:
    """The participant's median reaction time in seconds from a session's settings (None if not measured)."""
    cal = (settings or {}).get("calibration")
    if isinstance(cal, dict) and isinstance(cal.get("median_s"), (int, float)):
        return float(cal["median_s"])
    return None


def shifted(t: float, shift: Optional[float]) -> float:
    """A response time moved back by the participant's reaction time, never before the stream starts."""
    return t if shift is None else max(0.0, round(t - shift, 4))
