"""Blind trigger verification and silence-prefix verification (ProactiveBench's protocol), as
append-only `Verification` records, plus the agreement report and the verified subset.

Blind: an annotator sees the recording and the request, never the proposed time, and marks the
earliest moment the event is unambiguously observable; the comparison is revealed only after the
mark is stored, and a submitted mark is final. Prefix: the verifier walks the prefix before the
response window one interval at a time and marks any interval that already satisfies the request;
an item whose prefix fails is flagged for exclusion. Annotators only ever read their own records."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterable, Optional

from annotation import agreement
from annotation.auth import STAFF, User
from annotation.dataset import Dataset
from annotation.model import Item, Target, Verification
from annotation.store import Store

UNITS = ("second", "frame")
TRIGGER, PREFIX = "trigger", "prefix"


# ---------------------------------------------------------------- what the blind annotator may see

def timed_targets(item: Item) -> list[Target]:
    """Targets that have a proposed time to verify, in item order."""
    return [t for t in item.targets if t.anchor is not None]


def blind_view(item: Item) -> dict:
    """Everything the blind annotator is shown: the request and the stream, never a target time."""
    return {"benchmark": item.benchmark, "item_id": item.id, "kind": item.kind, "request_text": item.request.text,
            "request_time": item.request.time if item.request.modality != "standing" else None,
            "modality": item.request.modality, "duration": item.stream.duration, "fps": item.stream.fps,
            "events": [f"event {k + 1}" for k in range(len(timed_targets(item)))]}


def event_target(item: Item, event: int) -> Target:
    """The k-th (0-based) timed target, addressed by position so that ids reveal nothing."""
    tt = timed_targets(item)
    if not 0 <= event < len(tt):
        raise ValueError(f"{item.benchmark}/{item.id}: no event {event + 1} (the item has {len(tt)} timed target(s))")
    return tt[event]


def proposed_media_time(item: Item, target: Target) -> float:
    """The proposed time as media seconds: ProactiveBench seconds are 1-based intervals ([k-1, k))."""
    return float(target.anchor) - 1.0 if item.benchmark == "proactivebench" else float(target.anchor)


def snap(t: float, unit: str, fps: Optional[float]) -> float:
    """A mark to the second (start of that second) or to the frame (nearest frame start)."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; expected one of: {', '.join(UNITS)}")
    if unit == "second":
        return float(math.floor(t + 1e-9))
    if not fps:
        raise ValueError("marking to the frame needs the stream's fps (it was not read from the file)")
    return round(round(t * fps) / fps, 6)


# ---------------------------------------------------------------- blind trigger marks

def own_marks(store: Store, user: User, benchmark: Optional[str] = None, item_id: Optional[str] = None) -> list[Verification]:
    return store.verifications(benchmark, item_id, user=user.name, kind=TRIGGER)


def mark_of(store: Store, user: User, item: Item, target_id: str) -> Optional[Verification]:
    for v in own_marks(store, user, item.benchmark, item.id):
        if v.target_id == target_id:
            return v
    return None


def submit_mark(store: Store, user: User, item: Item, event: int, t: float, unit: str = "second") -> Verification:
    """Store the user's blind mark for one event of the item; a second mark for the same event is refused."""
    target = event_target(item, event)
    if mark_of(store, user, item, target.id) is not None:
        raise PermissionError(f"{item.benchmark}/{item.id} event {event + 1}: your blind mark is already submitted "
                              "and final (the comparison has been shown)")
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise ValueError(f"{item.benchmark}/{item.id}: the mark must be a time in seconds, got {t!r}") from None
    dur = item.stream.duration
    if not math.isfinite(t) or t < 0 or (dur and t > dur + 1.0):
        raise ValueError(f"{item.benchmark}/{item.id}: mark {t} s is outside the recording (0–{dur or '?'} s)")
    value = {"t": snap(t, unit, item.stream.fps), "raw_t": t, "unit": unit, "fps": item.stream.fps, "event": event}
    return store.add_verification(Verification(id="", benchmark=item.benchmark, item_id=item.id, target_id=target.id,
                                               user=user.name, kind=TRIGGER, value=value, created=time.time()))


def reveal(store: Store, user: User, item: Item, event: int) -> Optional[dict]:
    """The comparison of the user's own mark with the proposed time, or None before they submitted one."""
    target = event_target(item, event)
    v = mark_of(store, user, item, target.id)
    if v is None:
        return None
    proposed = proposed_media_time(item, target)
    return {"mark": v.value["t"], "unit": v.value["unit"], "proposed": proposed, "delta": v.value["t"] - proposed,
            "target_id": target.id}


def visible_marks(store: Store, viewer: User, benchmark: Optional[str] = None, of_user: Optional[str] = None,
                  kind: Optional[str] = None) -> list[Verification]:
    """Verification records the viewer may read: staff see everyone's, an annotator only their own."""
    if viewer.role not in STAFF:
        if of_user not in (None, viewer.name):
            raise PermissionError(f"user {viewer.name!r} (annotator) may not read the marks of {of_user!r}")
        of_user = viewer.name
    return store.verifications(benchmark, user=of_user, kind=kind)


# ---------------------------------------------------------------- silence-prefix walk

def prefix_target(item: Item) -> Optional[Target]:
    """The first response window of the item (the prefix runs up to where it opens)."""
    tt = timed_targets(item)
    if not tt:
        return None
    return min(tt, key=lambda t: t.window[0] if t.window else t.anchor)


def prefix_plan(item: Item, step: float = 1.0) -> list[tuple[float, float]]:
    """The intervals (media seconds) from the request to the opening of the first response window
    (to the proposed time when the window opens with the request)."""
    if step <= 0:
        raise ValueError(f"prefix step must be > 0 seconds, got {step}")
    target = prefix_target(item)
    if target is None:
        return []
    start = item.request.time if item.request.modality != "standing" else 0.0
    opens = target.window[0] if target.window else target.anchor
    if opens <= start:  # a window that opens with the question (OmniInteract slots): the prefix runs to the anchor
        opens = target.anchor
    end = float(opens) - 1.0 if item.benchmark == "proactivebench" else float(opens)
    out, s = [], max(0.0, float(start))
    while s < end - 1e-9:
        out.append((round(s, 6), round(min(s + step, end), 6)))
        s += step
    return out


def _require_blind_first(store: Store, user: User, item: Item) -> None:
    """An annotator walks the prefix (which reveals where the window opens) only after their blind mark."""
    if user.role in STAFF:
        return
    target = prefix_target(item)
    if target is not None and mark_of(store, user, item, target.id) is None:
        k = timed_targets(item).index(target)
        raise PermissionError(f"{item.benchmark}/{item.id}: submit your blind mark for event {k + 1} before "
                              "the prefix walk (the walk shows where the response window opens)")


def start_prefix(store: Store, user: User, item: Item, step: float = 1.0) -> dict:
    """The user's walk so far: the plan, their verdicts, and the next interval to examine."""
    _require_blind_first(store, user, item)
    plan = prefix_plan(item, step)
    return prefix_state(plan, store.verifications(item.benchmark, item.id, user=user.name, kind=PREFIX), step)


def mark_interval(store: Store, user: User, item: Item, start: float, satisfied: bool, step: float = 1.0) -> dict:
    """Record the user's verdict on one prefix interval; returns the updated walk state."""
    _require_blind_first(store, user, item)
    plan = prefix_plan(item, step)
    match = [iv for iv in plan if abs(iv[0] - float(start)) < 1e-6]
    if not match:
        raise ValueError(f"{item.benchmark}/{item.id}: {start} s does not start a prefix interval "
                         f"(the prefix has {len(plan)} interval(s) of {step:g} s)")
    target = prefix_target(item)
    s, e = match[0]
    store.add_verification(Verification(id="", benchmark=item.benchmark, item_id=item.id, target_id=target.id,
                                        user=user.name, kind=PREFIX, created=time.time(),
                                        value={"start": s, "end": e, "satisfied": bool(satisfied), "step": step}))
    return prefix_state(plan, store.verifications(item.benchmark, item.id, user=user.name, kind=PREFIX), step)


def prefix_state(plan: list[tuple[float, float]], records: Iterable[Verification], step: float = 1.0) -> dict:
    """pass (every interval clear), fail (some interval satisfies the request) or incomplete."""
    verdict: dict[float, bool] = {}
    for r in records:
        if abs(float(r.value.get("step", 1.0)) - step) < 1e-9:
            verdict[round(float(r.value["start"]), 6)] = bool(r.value["satisfied"])  # later rows supersede
    starts = [s for s, _ in plan]
    hits = [s for s in starts if verdict.get(s)]
    todo = [iv for iv in plan if iv[0] not in verdict]
    status = "fail" if hits else ("pass" if not todo else "incomplete")
    return {"status": status, "plan": plan, "done": len(plan) - len(todo), "total": len(plan), "hits": hits,
            "next": todo[0] if todo and not hits else None}


def item_prefix_status(store: Store, item: Item, step: float = 1.0) -> str:
    """Across verifiers: fail if anyone found an earlier satisfying interval, pass if someone finished clean,
    else incomplete (walk started) or unchecked."""
    plan = prefix_plan(item, step)
    by_user: dict[str, list[Verification]] = {}
    for r in store.verifications(item.benchmark, item.id, kind=PREFIX):
        by_user.setdefault(r.user, []).append(r)
    states = [prefix_state(plan, recs, step)["status"] for recs in by_user.values()]
    if "fail" in states:
        return "fail"
    if "pass" in states:
        return "pass"
    return "incomplete" if states else "unchecked"


def flagged(store: Store, dataset: Dataset, step: float = 1.0) -> dict[str, str]:
    """Items flagged for exclusion (a failed prefix), with the verifiers and seconds that failed them."""
    out = {}
    for it in dataset.items:
        recs = [r for r in store.verifications(it.benchmark, it.id, kind=PREFIX) if r.value.get("satisfied")]
        if item_prefix_status(store, it, step) == "fail":
            out[it.id] = "; ".join(f"{r.user} at {r.value['start']:g}–{r.value['end']:g} s" for r in recs)
    return out


def verified_subset(store: Store, dataset: Dataset, include_unchecked: bool = False, step: float = 1.0) -> Dataset:
    """Items whose prefix passed (and, with include_unchecked, those nobody checked), minus review-rejected ones."""
    from annotation.review import statuses
    st = statuses(store, dataset.benchmark)
    keep = []
    for it in dataset.items:
        status = item_prefix_status(store, it, step)
        if st.get((it.benchmark, it.id)) == "rejected" or status == "fail":
            continue
        if status == "pass" or (include_unchecked and status in ("unchecked", "incomplete")):
            keep.append(it)
    return Dataset(dataset.benchmark, dataset.root, keep, list(dataset.problems), dict(dataset.extra))


# ---------------------------------------------------------------- agreement

@dataclass(frozen=True)
class AgreementReport:
    """Per benchmark: each annotator against the proposed times, every annotator pair, and alpha overall."""
    benchmark: str
    vs_proposed: list[agreement.PairStats]
    pairs: list[agreement.PairStats]
    alpha_all: Optional[float]


def agreement_report(store: Store, viewer: User, dataset: Dataset) -> AgreementReport:
    """Agreement of blind marks on one benchmark; an annotator gets only their own row against the proposals."""
    marks: dict[str, dict[tuple[str, str], float]] = {}
    for v in visible_marks(store, viewer, dataset.benchmark, kind=TRIGGER):
        marks.setdefault(v.user, {})[(v.item_id, v.target_id)] = float(v.value["t"])
    proposed: dict[tuple[str, str], float] = {}
    durations: dict[tuple[str, str], float] = {}
    for it in dataset.items:
        for t in timed_targets(it):
            proposed[(it.id, t.id)] = proposed_media_time(it, t)
            durations[(it.id, t.id)] = float(it.stream.duration or 0.0)
    for m in marks.values():  # marks on items no longer in the dataset cannot be compared
        for k in [k for k in m if k not in proposed]:
            del m[k]
    vs = [agreement.pair_agreement(u, marks[u], "proposed", proposed, durations) for u in sorted(marks) if marks[u]]
    pairs = agreement.all_pairs(marks, durations) if viewer.role in STAFF else []
    alpha = agreement.group_alpha(marks, durations) if viewer.role in STAFF else None
    return AgreementReport(dataset.benchmark, vs, pairs, alpha)
