"""Per-response verdicts under each benchmark's own rules, for timelines and explanations.

Each classifier runs the benchmark scorer's own timing machinery (InteractionBench `decision_timing`,
ProactiveBench `score_item`, InteractScope `score_interaction`, OmniInteract `match_chunks`) and reads
every response's fate off it, so a lane's colours always agree with the scorer's counts. Pure."""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from annotation.interactionbench import rules as ib_rules
from scoring.interactscope import scorer as isc
from scoring.proactivebench import scorer as pb
from scoring.interactionbench.timing import decision_timing, merge_events
from scoring.interactionbench.scorer import IBConfig, filtered_emissions
from scoring.interactionbench.lexical import content_score, extract_number
from scoring.omniinteract.common import decay, normalize_chunks
from scoring.omniinteract.matching import match_chunks
from scoring.omniinteract.slots import Slot, build_slots

# every label a benchmark can give a response, in legend order
LABELS: dict[str, tuple[str, ...]] = {
    "interactionbench": ("matched", "premature", "redundant", "spurious", "unscored"),
    "proactivebench": ("in_window", "early", "missed", "late", "ignored", "counted", "response", "hit",
                       "breaks_silence", "neutral", "excluded"),
    "interactscope": ("correct", "wrong", "ignored", "early", "outside"),
    "omniinteract": ("early", "core", "early+core", "unmatched"),
}


@dataclass(frozen=True)
class ResponseVerdict:
    """One response's fate: its label, the target it was attributed to, delay and timing credit.

    `credit` is the timing credit in [0, 1] the scorer gives it (IB: 1 - d/delta; OI: timeliness decay;
    PB/IS: 1 when it makes the item/target correct); `counted` says whether it enters the score."""
    index: int
    t: float
    label: str
    end: Optional[float] = None
    text: str = ""
    target: Optional[str] = None
    delay: Optional[float] = None
    credit: Optional[float] = None
    counted: bool = True
    detail: str = ""
    roles: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (target id, role) pairs


# ---------------------------------------------------------------- InteractionBench

def _ib_gate(row: dict, fam: str, events, cfg: IBConfig, content: Optional[Callable[[str, str], Optional[float]]]):
    """The content gate exactly as the scorer builds it (ablation only); lexical content by default."""
    if not cfg.use_gate or fam not in ("B_trigger", "C_counting"):
        return None
    if fam == "C_counting":
        def gate(k: int, text: str) -> bool:
            g = extract_number(events[k].ref)
            p = extract_number(text)
            return g is None or (p is not None and abs(p - g) < 1e-9)
        return gate
    plain = content or (lambda gt, pred: content_score(gt, pred, cfg.fixed))

    def gate(k: int, text: str) -> bool:
        s = plain(events[k].ref, text)
        return s is None or s >= cfg.gate_thresh
    return gate


def classify_interactionbench(row: dict, line: Optional[dict], cfg: IBConfig = IBConfig(),
                              content: Optional[Callable[[str, str], Optional[float]]] = None) -> list[ResponseVerdict]:
    """matched / premature / redundant / spurious per filtered emission (spec §3), from `decision_timing`.

    row: the native item row (video fields added); line: its preds.jsonl line (or None = silent)."""
    iid = ib_rules.item_id(row)
    ems = filtered_emissions(line, iid)
    if not ib_rules.is_valid(row):
        return [ResponseVerdict(i, t, "unscored", text=x, counted=False, detail="item is not scoreable")
                for i, (t, x) in enumerate(ems)]
    fam = ib_rules.family(row)
    if fam == "negative":
        return [ResponseVerdict(i, t, "spurious", text=x, credit=0.0, detail="the item requires silence")
                for i, (t, x) in enumerate(ems)]
    if fam == "A_retro_qa":
        events = [merge_events([{"time_s": ib_rules.question_time(row), "content": ""}])[0]]
    else:
        events = merge_events(ib_rules.timed_answers(row))
    times = [e.time for e in events]
    tm = decision_timing(times, ems, cfg.pre_tol, _ib_gate(row, fam, events, cfg, content))
    owner = {m: k for k, m in enumerate(tm.match) if m is not None}
    infinite = math.isinf(cfg.pre_tol)
    note = " (timing diagnostic; the total is segment accuracy)" if fam == "C_segments" else ""
    out = []
    for i, (t, text) in enumerate(ems):
        if i in owner:
            k = owner[i]
            d = tm.delay[k]
            out.append(ResponseVerdict(i, t, "matched", text=text, target=str(k), delay=d,
                                       credit=max(0.0, 1.0 - d / cfg.delta),
                                       detail=f"answers event {k} at {times[k]:g}s{note}"))
        elif not infinite and t + cfg.pre_tol < times[0]:
            out.append(ResponseVerdict(i, t, "premature", text=text, delay=t - times[0], credit=0.0,
                                       detail=f"before the first event ({times[0]:g}s) minus tolerance{note}"))
        else:
            k = bisect_right(times, t if infinite else t + cfg.pre_tol) - 1
            k = max(k, 0)
            taken = tm.match[k] is not None and tm.match[k] < i
            label = "redundant" if (taken or infinite) else "spurious"
            why = "event already answered" if label == "redundant" else "rejected by the content gate"
            out.append(ResponseVerdict(i, t, label, text=text, target=str(k), delay=t - times[k], credit=0.0,
                                       detail=f"{why} (event {k} at {times[k]:g}s){note}"))
    return out


# ---------------------------------------------------------------- ProactiveBench

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


# ---------------------------------------------------------------- InteractScope

_IS_PRIORITY = ("correct", "wrong", "ignored", "early", "outside")


def classify_interactscope(interaction: Mapping, prediction: Optional[Mapping],
                           cfg: isc.ISConfig = isc.ISConfig()) -> list[ResponseVerdict]:
    """Per response (spec B.3-B.5): the judged candidate of a target is correct or wrong, other in-window
    responses are ignored (first-in-window rule), responses before a window are early, the rest outside.
    Verdicts must already be filled in (tool calls: `fill_tool_verdicts`; text: a judge)."""
    diag = isc.score_interaction(interaction, prediction, cfg)
    responses = list((prediction or {}).get("responses") or ())
    roles: dict[str, list[tuple[str, str]]] = {str(r.get("id")): [] for r in responses}
    for td in diag.targets:
        for rid in td.in_window:
            if rid == td.candidate:
                roles[rid].append((td.target_id, "correct" if td.correct else "wrong"))
            elif td.rule == "any_in_window" and not td.correct:
                roles[rid].append((td.target_id, "wrong"))
            else:
                roles[rid].append((td.target_id, "ignored"))
    out = []
    for i, r in enumerate(responses):
        rid = str(r.get("id"))
        t = isc.response_time(r, cfg)
        mine = list(roles.get(rid, []))
        if not mine:
            for td in diag.targets:
                if t < td.window[0]:
                    mine.append((td.target_id, "early"))
        label = next((p for p in _IS_PRIORITY if any(role == p for _, role in mine)), "outside")
        tid = next((tid for tid, role in mine if role == label), None)
        td = next((x for x in diag.targets if x.target_id == tid), None)
        delay = None if td is None else t - td.window[0]
        text = r.get("text") or ("" if not r.get("tool") else f"tool call {r['tool']}")
        out.append(ResponseVerdict(i, float(r["t"]), label, end=r.get("end"), text=str(text), target=tid,
                                   delay=delay, credit=1.0 if label == "correct" else 0.0,
                                   counted=label in ("correct", "wrong"), roles=tuple(mine),
                                   detail=", ".join(f"{a}: {b}" for a, b in mine) or "no target window"))
    return out


# ---------------------------------------------------------------- OmniInteract

def classify_omniinteract(gt_doc: Any, scene_type: str, transcript: Any, tail: float = 60.0,
                          slots: Optional[list[Slot]] = None) -> list[ResponseVerdict]:
    """Per transcript chunk (spec §4): early (before t_a), core, early+core (split at t_a by aligned words)
    or unmatched (no slot; one FP each). Credit is the timeliness decay of its phase (content is judged
    separately)."""
    slots = slots if slots is not None else build_slots(gt_doc, scene_type, tail)
    chunks = normalize_chunks(transcript)
    matches, unmatched = match_chunks(slots, chunks)
    phase: dict[int, tuple[Slot, set]] = {}
    for m in matches:
        for p in m.early:
            phase.setdefault(p.source_chunk_id, (m.slot, set()))[1].add("early")
        for p in m.core:
            phase.setdefault(p.source_chunk_id, (m.slot, set()))[1].add("core")
    out = []
    for c in chunks:
        base = dict(index=c.chunk_id, t=c.start, end=c.end, text=c.text)
        if c.chunk_id not in phase:
            out.append(ResponseVerdict(**base, label="unmatched", credit=0.0,
                                       detail="no slot owns this start time: one false positive"))
            continue
        slot, phases = phase[c.chunk_id]
        label = "early+core" if phases == {"early", "core"} else next(iter(phases))
        if label == "early":
            credit, delay = decay(c.start, slot.start, slot.t_a), c.start - slot.start
        else:
            start = max(c.start, slot.t_a)
            credit, delay = decay(start, slot.t_a, slot.end), start - slot.t_a
        out.append(ResponseVerdict(**base, label=label, target=str(slot.slot_id), delay=delay, credit=credit,
                                   detail=f"slot {slot.slot_id} [{slot.start:g}, t_a {slot.t_a:g}, {slot.end:g})"))
    return out


def oi_slots(item) -> list[Slot]:
    """An OmniInteract item's slots as the scorer builds them (the loader's copy if the scorer refuses)."""
    try:
        return build_slots(item.native, item.kind)
    except Exception:  # noqa: BLE001 - fall back to what the loader recorded
        keys = set(Slot.__dataclass_fields__)
        return [Slot(**{k: v for k, v in s.items() if k in keys}) for s in item.meta.get("slots") or []]


# ---------------------------------------------------------------- dispatch

def classify(benchmark: str, item, prediction: Any, judge: Any = None) -> list[ResponseVerdict]:
    """Verdicts of one responder's native prediction on one `annotation.model.Item`, default settings.

    judge: optional InteractScope content judge (question, gt, pred) -> [0, 1]; tool calls are always
    checked against the reference call, as the scorer does."""
    if benchmark == "interactionbench":
        return classify_interactionbench(item.native, prediction)
    if benchmark == "proactivebench":
        return classify_proactivebench(item.native, prediction)
    if benchmark == "interactscope":
        pred = isc.fill_tool_verdicts(item.native, prediction)
        if judge is not None:
            pred = isc.fill_judge_verdicts(item.native, pred, judge)
        return classify_interactscope(item.native, pred)
    if benchmark == "omniinteract":
        return classify_omniinteract(item.native, item.kind, prediction, slots=oi_slots(item))
    raise ValueError(f"unknown benchmark {benchmark!r}")
