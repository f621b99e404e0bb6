"""ProactiveBench: each response's verdict under the scorer's own rules, read off its timing machinery
(scoring.classify dispatches here through the registry). Pure."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from scoring.classify import ResponseVerdict
from scoring.proactivebench import scorer as pb


def _pb_second(value: Any, cfg: pb.PBConfig) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if isinstance(value, int) else pb.seconds_to_interval(value)


def classify_proactivebench(item: Mapping, prediction: Optional[Mapping],
                            cfg: pb.PBConfig = pb.PBConfig()) -> list[ResponseVerdict]:
    """Per non-silent second (spec A.5-A.7): the first scored response of a window subtask gets the item's
    outcome (early / in_window / missed|late), later ones are ignored; DC seconds are counted; ES seconds
    hit an alert, break a silence segment, or are neutral. `t` is the interval start k-1 (media seconds)."""
    diag = pb.score_item(item, prediction, cfg)
    pred = prediction or {}
    texts = pred.get("texts") or {}
    scored = set(diag.scored_responses)
    raw = sorted({s for s in (_pb_second(v, cfg) for v in pred.get("response_seconds") or ()) if s is not None})
    out = []
    counted_first = False
    for i, k in enumerate(raw):
        text = str(texts.get(str(k), texts.get(k, "")) if isinstance(texts, Mapping) else "")
        base = dict(index=i, t=float(k - 1), end=float(k), text=text)
        if k not in scored:
            out.append(ResponseVerdict(**base, label="excluded", counted=False,
                                       detail=f"second {k} is outside the scored seconds [{diag.eval_start}, duration]"))
            continue
        if isinstance(diag, pb.WindowDiag):
            start, end = diag.window
            in_win = start <= k <= end if cfg.window_closed else start <= k < end
            is_counted = (not counted_first) and (k == diag.first_response if not (
                cfg.window_rule == "any_in_window" and diag.outcome == "in_window") else in_win)
            if is_counted:
                counted_first = True
                out.append(ResponseVerdict(**base, label=diag.outcome, target="window", delay=float(k - start),
                                           credit=1.0 if diag.correct else 0.0,
                                           detail=f"second {k}, window [{start}, {end}]: {diag.outcome}"))
            else:
                out.append(ResponseVerdict(**base, label="ignored", target="window", delay=float(k - start),
                                           counted=False, detail="only the first response counts"))
        elif isinstance(diag, pb.CountDiag):
            by_resp = diag.count_source == "responses"
            out.append(ResponseVerdict(**base, label="counted" if by_resp else "response", counted=by_resp,
                                       credit=None, detail=f"count from {diag.count_source}: "
                                                           f"{diag.predicted_count} vs reference {diag.ref_count}"))
        else:
            tol = cfg.es_alert_tol
            alert = next((a for a in diag.hit_alerts if a - tol <= k <= a + tol), None)
            seg = next(((s, e) for s, e in diag.broken_segments
                        if (s <= k <= e if cfg.es_segment_closed else s <= k < e)), None)
            if alert is not None:
                out.append(ResponseVerdict(**base, label="hit", target=f"alert {alert}", delay=float(k - alert),
                                           credit=1.0, detail=f"answers the alert at second {alert}"))
            elif seg is not None:
                out.append(ResponseVerdict(**base, label="breaks_silence", target=f"silence {seg[0]}-{seg[1]}",
                                           credit=0.0, detail=f"inside silence segment [{seg[0]}, {seg[1]}]"))
            else:
                out.append(ResponseVerdict(**base, label="neutral", counted=False, detail="neither alert nor silence"))
    return out
