"""ProactiveBench: each non-silent second's verdict as the scorer recorded it in the item's per-item record
(scored seconds, the deciding second, alert hits and broken silences); no matching of its own. Pure."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from scoring.classify import ResponseVerdict
from scoring.proactivebench import scorer as pb


def _text(prediction: Mapping, k: int) -> str:
    texts = prediction.get("texts") or {}
    return str(texts.get(str(k), texts.get(k, "")) if isinstance(texts, Mapping) else "")


def _verdict(rec: Mapping, k: int, base: dict) -> Optional[ResponseVerdict]:
    """One scored second's verdict from the record; None when the record predates what it needs."""
    if "outcome" in rec:
        if "deciding_response" not in rec:
            return None
        start = rec["window"][0]
        if k == rec["deciding_response"]:
            return ResponseVerdict(**base, label=rec["outcome"], target="window", delay=float(k - start),
                                   credit=1.0 if rec["correct"] else 0.0,
                                   detail=f"second {k}, window {list(rec['window'])}: {rec['outcome']}")
        return ResponseVerdict(**base, label="ignored", target="window", delay=float(k - start), counted=False,
                               detail="only the deciding response counts")
    if "count_source" in rec:
        by_resp = rec["count_source"] == "responses"
        return ResponseVerdict(**base, label="counted" if by_resp else "response", counted=by_resp,
                               detail=f"count from {rec['count_source']}: {rec['predicted_count']} vs reference "
                                      f"{rec['ref_count']}")
    if "alert_responses" not in rec:
        return None
    alerts = [a for s, a in rec["alert_responses"] if s == k]
    segments = [seg for s, seg in rec["segment_responses"] if s == k]
    if alerts:
        return ResponseVerdict(**base, label="hit", target=f"alert {alerts[0]}", delay=float(k - alerts[0]),
                               credit=1.0, detail="answers the alert at second " + ", ".join(map(str, alerts)))
    if segments:
        s, e = segments[0]
        return ResponseVerdict(**base, label="breaks_silence", target=f"silence {s}-{e}", credit=0.0,
                               detail=f"inside silence segment [{s}, {e}]")
    return ResponseVerdict(**base, label="neutral", counted=False, detail="neither alert nor silence")


def classify_proactivebench(item: Mapping, prediction: Optional[Mapping],
                            report: Mapping) -> Optional[list[ResponseVerdict]]:
    """Per non-silent second (spec A.5-A.7): the deciding second of a window subtask gets the item's outcome
    (early / in_window / missed|late), other scored ones are ignored; DC seconds are counted; ES seconds hit an
    alert, break a silence segment, or are neutral; seconds outside the scored range are excluded. `t` is the
    interval start k-1 (media seconds). None when the report holds no record of the item, or an older one."""
    rec: Any = (report.get("per_item") or {}).get(str(item.get("item_id")))
    if rec is None:
        return None
    pred = prediction or {}
    scored = set(rec["scored_responses"])
    cfg = pb.PBConfig(float_times=(report.get("config") or {}).get("float_times", pb.PBConfig.float_times))
    out = []
    for i, k in enumerate(pb.response_seconds(item, pred, cfg)):
        base = dict(index=i, t=float(k - 1), end=float(k), text=_text(pred, k))
        if k not in scored:
            out.append(ResponseVerdict(**base, label="excluded", counted=False,
                                       detail=f"second {k} is outside the scored seconds [{rec['eval_start']}, "
                                              "duration]"))
            continue
        v = _verdict(rec, k, base)
        if v is None:
            return None
        out.append(v)
    return out
