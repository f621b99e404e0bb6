"""Blind trigger verification and silence-prefix verification (ProactiveBench's protocol), as
append-only `Verification` records, plus adjudication, the agreement report and the verified subset.

Blind: an annotator sees the recording and the request, never the proposed time, and marks the
earliest moment the event is unambiguously observable (to the millisecond; a mark made while the media
plays has the annotator's calibrated reaction-time offset subtracted, and keeps it); the comparison is
revealed only after the mark is stored. Prefix: the verifier walks the prefix before the response window
one interval at a time and marks any interval that already satisfies the request. A verifier may
withdraw or change their records (each change is a new row) until a reviewer decides: marks more than
0.5 s apart and any prefix disagreement form the adjudication queue, and the reviewer's decision (with a
reason) is final until reopened. Annotators only ever read their own records and the decisions."""
from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Optional

from annotation import registry
from annotation import agreement
from annotation.auth import STAFF, User
from annotation.dataset import Dataset
from annotation.model import Item, Target, Verification
from annotation.store import Store

UNITS = ("ms", "frame", "second")  # "ms" keeps the player's time to the millisecond (the default)
TRIGGER, PREFIX, ADJUDICATION, CALIBRATION = "trigger", "prefix", "adjudication", "calibration"
TRIGGER_THRESHOLD = 0.5  # seconds: verifiers further apart than this send the event to adjudication
MAX_OFFSET = 1.5  # seconds: the largest reaction-time offset accepted (ELAN's delayed mode uses ~0.2-0.5 s)
SOURCES = ("typed", "playhead", "key", "click")


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
    """The proposed time as media seconds (the registry's shift: ProactiveBench seconds are 1-based intervals)."""
    return registry.get(item.benchmark).media_time(target.anchor)


def snap(t: float, unit: str, fps: Optional[float]) -> float:
    """A mark to the millisecond, to the second (start of that second) or to the frame (nearest frame start)."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; expected one of: {', '.join(UNITS)}")
    if unit == "ms":
        return round(float(t), 3)
    if unit == "second":
        return float(math.floor(t + 1e-9))
    if not fps:
        raise ValueError("marking to the frame needs the stream's fps (it was not read from the file)")
    return round(round(t * fps) / fps, 6)


# ---------------------------------------------------------------- reaction-time offset (calibration)

def offset_of(store: Store, user: User) -> float:
    """The user's reaction-time offset in seconds (their latest calibration; 0 before any)."""
    recs = store.verifications(user=user.name, kind=CALIBRATION)
    return float(recs[-1].value["offset"]) if recs else 0.0


def calibrate(store: Store, user: User, reactions: Iterable[float]) -> float:
    """Store the median of the user's reaction times (seconds, from a calibration run) as their offset."""
    try:
        xs = sorted(float(r) for r in reactions)
    except (TypeError, ValueError):
        raise ValueError("calibration: reaction times must be numbers of seconds") from None
    if len(xs) < 3:
        raise ValueError(f"calibration: needs at least 3 reactions, got {len(xs)}")
    if any(not math.isfinite(x) or x < 0.05 or x > MAX_OFFSET for x in xs):
        raise ValueError(f"calibration: every reaction must lie in 0.05-{MAX_OFFSET:g} s (a press before the flash "
                         "or a missed one); run it again")
    mid = len(xs) // 2
    median = xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2
    return set_offset(store, user, median, reactions=xs)


def set_offset(store: Store, user: User, seconds: float, reactions: Optional[list] = None) -> float:
    """Record the user's reaction-time offset (0 turns it off); every later mark made while playing subtracts it."""
    try:
        off = round(float(seconds), 3)
    except (TypeError, ValueError):
        raise ValueError(f"reaction-time offset must be seconds, got {seconds!r}") from None
    if not math.isfinite(off) or not 0 <= off <= MAX_OFFSET:
        raise ValueError(f"reaction-time offset must lie in 0-{MAX_OFFSET:g} s, got {seconds!r}")
    store.add_verification(Verification(id="", benchmark="", item_id="", target_id="", user=user.name,
                                        kind=CALIBRATION, value={"offset": off, "reactions": reactions or []},
                                        created=time.time()))
    return off


# ---------------------------------------------------------------- blind trigger marks

def own_marks(store: Store, user: User, benchmark: Optional[str] = None, item_id: Optional[str] = None) -> list[Verification]:
    """Every trigger row the user wrote (withdrawals included), oldest first."""
    return store.verifications(benchmark, item_id, user=user.name, kind=TRIGGER)


def current_marks(records: Iterable[Verification]) -> dict[tuple[str, str, str], Verification]:
    """(user, item, target) -> the latest trigger row, leaving out those whose latest row is a withdrawal."""
    out: dict[tuple[str, str, str], Verification] = {}
    for v in records:
        key = (v.user, v.item_id, v.target_id)
        if v.value.get("withdrawn"):
            out.pop(key, None)
        else:
            out[key] = v
    return out


def mark_of(store: Store, user: User, item: Item, target_id: str) -> Optional[Verification]:
    """The user's current (not withdrawn) mark for one target of the item."""
    return current_marks(own_marks(store, user, item.benchmark, item.id)).get((user.name, item.id, target_id))


def adjudication_of(store: Store, item: Item, target_id: str) -> Optional[Verification]:
    """The reviewer's final decision on one target (trigger) or on the prefix (target_id '' ), if any."""
    recs = [v for v in store.verifications(item.benchmark, item.id, kind=ADJUDICATION) if v.target_id == target_id]
    return recs[-1] if recs and not recs[-1].value.get("reopened") else None


def _require_open(store: Store, item: Item, target_id: str, what: str) -> None:
    """A verifier may change their records only until a reviewer has decided on them."""
    adj = adjudication_of(store, item, target_id)
    if adj is not None:
        raise PermissionError(f"{item.benchmark}/{item.id}: {what} is closed: reviewer {adj.user} decided it "
                              f"({adj.value.get('reason', '')!r}); ask them to reopen it")


def submit_mark(store: Store, user: User, item: Item, event: int, t: float, unit: str = "ms", *,
                playing: bool = False, source: str = "typed") -> Verification:
    """Store the user's mark for one event. `t` is the player time (or a typed time); a mark made while the
    media plays has the user's reaction-time offset subtracted, and the offset is stored with the mark.
    A current mark must be withdrawn first; a mark made after withdrawing one was made after the reveal."""
    target = event_target(item, event)
    _require_open(store, item, target.id, f"event {event + 1}")
    if mark_of(store, user, item, target.id) is not None:
        raise PermissionError(f"{item.benchmark}/{item.id} event {event + 1}: your mark is already submitted; "
                              "withdraw it first to change it")
    if source not in SOURCES:
        raise ValueError(f"unknown mark source {source!r}; expected one of: {', '.join(SOURCES)}")
    try:
        t = float(t)
    except (TypeError, ValueError):
        raise ValueError(f"{item.benchmark}/{item.id}: the mark must be a time in seconds, got {t!r}") from None
    dur = item.stream.duration
    if not math.isfinite(t) or t < 0 or (dur and t > dur + 1.0):
        raise ValueError(f"{item.benchmark}/{item.id}: mark {t} s is outside the recording (0–{dur or '?'} s)")
    offset = offset_of(store, user) if playing else 0.0
    seen = any(v.target_id == target.id for v in own_marks(store, user, item.benchmark, item.id))
    value = {"t": snap(max(0.0, t - offset), unit, item.stream.fps), "raw_t": t, "offset": offset,
             "playing": bool(playing), "source": source, "unit": unit, "fps": item.stream.fps, "event": event,
             "blind": not seen}
    return store.add_verification(Verification(id="", benchmark=item.benchmark, item_id=item.id, target_id=target.id,
                                               user=user.name, kind=TRIGGER, value=value, created=time.time()))


def withdraw_mark(store: Store, user: User, item: Item, event: int, reason: str = "") -> Verification:
    """Withdraw the user's own current mark (a new row; the earlier one stays in the audit trail)."""
    target = event_target(item, event)
    _require_open(store, item, target.id, f"event {event + 1}")
    cur = mark_of(store, user, item, target.id)
    if cur is None:
        raise ValueError(f"{item.benchmark}/{item.id} event {event + 1}: you have no mark to withdraw")
    return store.add_verification(Verification(
        id="", benchmark=item.benchmark, item_id=item.id, target_id=target.id, user=user.name, kind=TRIGGER,
        value={"withdrawn": True, "withdraws": cur.id, "event": event, "reason": (reason or "").strip()},
        created=time.time()))


def reveal(store: Store, user: User, item: Item, event: int) -> Optional[dict]:
    """The comparison of the user's own mark with the proposed time, or None before they submitted one."""
    target = event_target(item, event)
    v = mark_of(store, user, item, target.id)
    if v is None:
        return None
    proposed = proposed_media_time(item, target)
    adj = adjudication_of(store, item, target.id)
    return {"mark": v.value["t"], "unit": v.value["unit"], "proposed": proposed, "delta": v.value["t"] - proposed,
            "target_id": target.id, "raw_t": v.value.get("raw_t", v.value["t"]),
            "offset": float(v.value.get("offset", 0.0)), "source": v.value.get("source", "typed"),
            "blind": v.value.get("blind", True), "locked": adj is not None}


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
    end = registry.get(item.benchmark).media_time(opens)
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


def _prefix_rows(store: Store, item: Item, user: Optional[str] = None) -> list[Verification]:
    return store.verifications(item.benchmark, item.id, user=user, kind=PREFIX)


def start_prefix(store: Store, user: User, item: Item, step: float = 1.0, at: Optional[float] = None) -> dict:
    """The user's walk so far: the plan, their verdicts, and the interval to show (`at`, else the next one)."""
    _require_blind_first(store, user, item)
    plan = prefix_plan(item, step)
    state = prefix_state(plan, _prefix_rows(store, item, user.name), step, at)
    state["locked"] = adjudication_of(store, item, "") is not None
    return state


def mark_interval(store: Store, user: User, item: Item, start: float, satisfied: bool, step: float = 1.0) -> dict:
    """Record the user's verdict on one prefix interval (a later verdict on the same interval supersedes,
    until a reviewer decides the prefix); returns the walk state showing the next undecided interval."""
    _require_blind_first(store, user, item)
    _require_open(store, item, "", "the prefix")
    plan = prefix_plan(item, step)
    s, e = _interval(item, plan, start, step)
    target = prefix_target(item)
    store.add_verification(Verification(id="", benchmark=item.benchmark, item_id=item.id, target_id=target.id,
                                        user=user.name, kind=PREFIX, created=time.time(),
                                        value={"start": s, "end": e, "satisfied": bool(satisfied), "step": step}))
    return prefix_state(plan, _prefix_rows(store, item, user.name), step, after=s)


def withdraw_interval(store: Store, user: User, item: Item, start: float, step: float = 1.0) -> dict:
    """Withdraw the user's verdict on one interval (a new row); the walk shows that interval again."""
    _require_blind_first(store, user, item)
    _require_open(store, item, "", "the prefix")
    plan = prefix_plan(item, step)
    s, e = _interval(item, plan, start, step)
    store.add_verification(Verification(id="", benchmark=item.benchmark, item_id=item.id,
                                        target_id=prefix_target(item).id, user=user.name, kind=PREFIX,
                                        created=time.time(),
                                        value={"start": s, "end": e, "withdrawn": True, "step": step}))
    return prefix_state(plan, _prefix_rows(store, item, user.name), step, at=s)


def _interval(item: Item, plan: list[tuple[float, float]], start: float, step: float) -> tuple[float, float]:
    try:
        start = float(start)
    except (TypeError, ValueError):
        raise ValueError(f"{item.benchmark}/{item.id}: interval start must be seconds, got {start!r}") from None
    match = [iv for iv in plan if abs(iv[0] - start) < 1e-6]
    if not match:
        raise ValueError(f"{item.benchmark}/{item.id}: {start} s does not start a prefix interval "
                         f"(the prefix has {len(plan)} interval(s) of {step:g} s)")
    return match[0]


def verdicts_of(records: Iterable[Verification], step: float = 1.0) -> dict[float, bool]:
    """Interval start -> satisfied, from one user's prefix rows (later rows supersede, withdrawals remove)."""
    verdict: dict[float, bool] = {}
    for r in records:
        if abs(float(r.value.get("step", 1.0)) - step) < 1e-9:
            k = round(float(r.value["start"]), 6)
            if r.value.get("withdrawn"):
                verdict.pop(k, None)
            else:
                verdict[k] = bool(r.value["satisfied"])
    return verdict


def prefix_state(plan: list[tuple[float, float]], records: Iterable[Verification], step: float = 1.0,
                 at: Optional[float] = None, after: Optional[float] = None) -> dict:
    """pass (every interval clear), fail (some interval satisfies the request) or incomplete; `current` is
    the interval to show: `at` when given, else the first undecided one after `after`, else the first undecided."""
    verdict = verdicts_of(records, step)
    starts = [s for s, _ in plan]
    hits = [s for s in starts if verdict.get(s)]
    todo = [iv for iv in plan if iv[0] not in verdict]
    status = "fail" if hits else ("pass" if not todo else "incomplete")
    current = None
    if at is not None:
        current = next((iv for iv in plan if abs(iv[0] - float(at)) < 1e-6), None)
    elif status == "incomplete":
        later = [iv for iv in todo if after is not None and iv[0] > after + 1e-9]
        current = (later or todo)[0]
    idx = plan.index(current) if current in plan else None
    return {"status": status, "plan": plan, "done": len(plan) - len(todo), "total": len(plan), "hits": hits,
            "next": todo[0] if todo and not hits else None, "current": current, "index": idx,
            "verdict": None if current is None else verdict.get(current[0]),
            "verdicts": {f"{k:.3f}": v for k, v in verdict.items()}}


def user_prefix_states(store: Store, item: Item, step: float = 1.0) -> dict[str, dict]:
    """Each verifier's walk state for the item."""
    plan = prefix_plan(item, step)
    by_user: dict[str, list[Verification]] = {}
    for r in _prefix_rows(store, item):
        by_user.setdefault(r.user, []).append(r)
    return {u: prefix_state(plan, recs, step) for u, recs in by_user.items()}


def prefix_disagreement(states: dict[str, dict]) -> list[float]:
    """Interval starts on which two verifiers gave different verdicts."""
    per: dict[str, set] = {}
    for st in states.values():
        for k, v in st["verdicts"].items():
            per.setdefault(k, set()).add(v)
    return sorted(float(k) for k, vs in per.items() if len(vs) > 1)


def item_prefix_status(store: Store, item: Item, step: float = 1.0) -> str:
    """The reviewer's decision when there is one; otherwise 'disputed' when verifiers disagree on an
    interval (or one found a satisfying interval another passed), fail / pass when they agree,
    else incomplete (walk started) or unchecked."""
    adj = adjudication_of(store, item, "")
    if adj is not None:
        return adj.value["status"]
    states = user_prefix_states(store, item, step)
    kinds = {st["status"] for st in states.values()}
    if prefix_disagreement(states) or {"fail", "pass"} <= kinds:
        return "disputed"
    if "fail" in kinds:
        return "fail"
    if "pass" in kinds:
        return "pass"
    return "incomplete" if states else "unchecked"


def flagged(store: Store, dataset: Dataset, step: float = 1.0) -> dict[str, str]:
    """Items flagged for exclusion (a failed prefix), with the verifiers and seconds that failed them."""
    out = {}
    for it in dataset.items:
        if item_prefix_status(store, it, step) == "fail":
            adj = adjudication_of(store, it, "")
            if adj is not None:
                out[it.id] = f"reviewer {adj.user}: {adj.value.get('reason', '')}"
                continue
            hits = [(u, s) for u, st in user_prefix_states(store, it, step).items() for s in st["hits"]]
            out[it.id] = "; ".join(f"{u} at {s:g} s" for u, s in hits)
    return out


def verified_subset(store: Store, dataset: Dataset, include_unchecked: bool = False, step: float = 1.0) -> Dataset:
    """Items whose prefix passed (and, with include_unchecked, those nobody checked), minus review-rejected
    ones; disputed items stay out until a reviewer decides them."""
    from annotation.review import statuses
    st = statuses(store, dataset.benchmark)
    keep = []
    for it in dataset.items:
        status = item_prefix_status(store, it, step)
        if st.get((it.benchmark, it.id)) == "rejected" or status in ("fail", "disputed"):
            continue
        if status == "pass" or (include_unchecked and status in ("unchecked", "incomplete")):
            keep.append(it)
    return Dataset(dataset.benchmark, dataset.root, keep, list(dataset.problems), dict(dataset.extra))


# ---------------------------------------------------------------- adjudication

@dataclass(frozen=True)
class Dispute:
    """An event or a prefix on which verifiers disagree, with the reviewer's decision once made."""
    benchmark: str
    item_id: str
    kind: str  # trigger | prefix
    target_id: str  # '' for the prefix
    event: Optional[int]
    detail: str
    values: dict  # user -> mark (s) or prefix status
    decision: Optional[Verification]

    @property
    def key(self) -> str:
        return f"{self.item_id}|{self.kind}|{self.target_id}"


def disputes(store: Store, dataset: Dataset, threshold: float = TRIGGER_THRESHOLD, step: float = 1.0,
             include_resolved: bool = True) -> list[Dispute]:
    """The adjudication queue: events whose marks spread more than `threshold` seconds, and prefixes on
    which verifiers disagree about any interval."""
    out = []
    for it in dataset.items:
        cur = current_marks(store.verifications(it.benchmark, it.id, kind=TRIGGER))
        for k, tg in enumerate(timed_targets(it)):
            vals = {u: float(v.value["t"]) for (u, _i, tid), v in cur.items() if tid == tg.id}
            if len(vals) >= 2 and max(vals.values()) - min(vals.values()) > threshold + 1e-9:
                adj = adjudication_of(store, it, tg.id)
                if adj is None or include_resolved:
                    spread = max(vals.values()) - min(vals.values())
                    out.append(Dispute(it.benchmark, it.id, TRIGGER, tg.id, k,
                                       f"event {k + 1}: marks {spread:.3f} s apart (> {threshold:g} s)", vals, adj))
        states = user_prefix_states(store, it, step)
        diff = prefix_disagreement(states)
        kinds = {st["status"] for st in states.values()}
        if diff or {"fail", "pass"} <= kinds:
            adj = adjudication_of(store, it, "")
            if adj is None or include_resolved:
                where = ", ".join(f"{s:g} s" for s in diff) or "overall verdict"
                out.append(Dispute(it.benchmark, it.id, PREFIX, "", None, f"prefix: verifiers differ at {where}",
                                   {u: st["status"] for u, st in states.items()}, adj))
    return out


def adjudicate(store: Store, reviewer: User, item: Item, kind: str, target_id: str, decision, reason: str,
               threshold: float = TRIGGER_THRESHOLD) -> Verification:
    """A reviewer's final decision on a dispute: the event's time (seconds, to the millisecond) or the
    prefix's status (pass/fail), with a reason. It closes the verifiers' records on it."""
    from annotation.auth import require_user_role
    require_user_role(reviewer, STAFF)
    reason = (reason or "").strip()
    if not reason:
        raise ValueError(f"{item.benchmark}/{item.id}: give a reason for the decision")
    if kind == TRIGGER:
        if not any(t.id == target_id for t in timed_targets(item)):
            raise ValueError(f"{item.benchmark}/{item.id}: no timed target {target_id!r}")
        try:
            t = round(float(decision), 3)
        except (TypeError, ValueError):
            raise ValueError(f"{item.benchmark}/{item.id}: the decision is a time in seconds, got {decision!r}") from None
        if not math.isfinite(t) or t < 0:
            raise ValueError(f"{item.benchmark}/{item.id}: decision {decision!r} is not a time in the recording")
        value = {"for": TRIGGER, "t": t, "reason": reason, "threshold": threshold}
    elif kind == PREFIX:
        if decision not in ("pass", "fail"):
            raise ValueError(f"{item.benchmark}/{item.id}: a prefix decision is 'pass' or 'fail', got {decision!r}")
        target_id = ""
        value = {"for": PREFIX, "status": decision, "reason": reason}
    else:
        raise ValueError(f"unknown dispute kind {kind!r}; expected trigger or prefix")
    value["marks"] = {u: v.value["t"] for (u, _i, tid), v in
                      current_marks(store.verifications(item.benchmark, item.id, kind=TRIGGER)).items()
                      if tid == target_id} if kind == TRIGGER else \
        {u: st["status"] for u, st in user_prefix_states(store, item).items()}
    return store.add_verification(Verification(id="", benchmark=item.benchmark, item_id=item.id, target_id=target_id,
                                               user=reviewer.name, kind=ADJUDICATION, value=value,
                                               created=time.time()))


def reopen(store: Store, reviewer: User, item: Item, target_id: str, reason: str) -> Verification:
    """Undo a decision (a new row): the dispute is open again and the verifiers may change their records."""
    from annotation.auth import require_user_role
    require_user_role(reviewer, STAFF)
    reason = (reason or "").strip()
    if not reason:
        raise ValueError(f"{item.benchmark}/{item.id}: give a reason for reopening")
    cur = adjudication_of(store, item, target_id)
    if cur is None:
        raise ValueError(f"{item.benchmark}/{item.id}: nothing decided on {target_id or 'the prefix'!s} to reopen")
    return store.add_verification(Verification(
        id="", benchmark=item.benchmark, item_id=item.id, target_id=target_id, user=reviewer.name, kind=ADJUDICATION,
        value={"for": cur.value.get("for"), "reopened": True, "reopens": cur.id, "reason": reason},
        created=time.time()))


def audit_trail(store: Store, viewer: User, benchmark: str, item_id: str) -> list[Verification]:
    """Every verification row of an item (marks, withdrawals, prefix verdicts, decisions), oldest first;
    an annotator sees their own rows and the decisions."""
    rows = store.verifications(benchmark, item_id)
    if viewer.role not in STAFF:
        rows = [r for r in rows if r.user == viewer.name or r.kind == ADJUDICATION]
    return rows


def progress(store: Store, dataset: Dataset, step: float = 1.0) -> list[tuple]:
    """Per verifier: (user, events marked, events marked blind, prefix walks complete, walks started)."""
    events = {(it.id, t.id) for it in dataset.items for t in timed_targets(it)}
    cur = current_marks(store.verifications(dataset.benchmark, kind=TRIGGER))
    marked: dict[str, int] = {}
    blind: dict[str, int] = {}
    for (u, iid, tid), v in cur.items():
        if (iid, tid) in events:
            marked[u] = marked.get(u, 0) + 1
            blind[u] = blind.get(u, 0) + bool(v.value.get("blind", True))
    done: dict[str, int] = {}
    started: dict[str, int] = {}
    for it in dataset.items:
        for u, st in user_prefix_states(store, it, step).items():
            started[u] = started.get(u, 0) + 1
            done[u] = done.get(u, 0) + (st["status"] != "incomplete")
    users = sorted(set(marked) | set(started))
    return [(u, marked.get(u, 0), blind.get(u, 0), done.get(u, 0), started.get(u, 0)) for u in users]


# ---------------------------------------------------------------- agreement

@dataclass(frozen=True)
class AgreementReport:
    """Per benchmark: each annotator against the proposed times, every annotator pair, α over all
    annotators on the mark times, and prefix agreement per interval."""
    benchmark: str
    vs_proposed: list[agreement.PairStats]
    pairs: list[agreement.PairStats]
    alpha_all: Optional[float]
    prefix: Optional[agreement.PrefixStats]
    n_events: int
    revised: int  # marks made after the maker had seen the proposed time (withdrawn and marked again)
    alpha_n: int = 0  # events marked by two or more annotators: the units α over all annotators rests on


def agreement_report(store: Store, viewer: User, dataset: Dataset) -> AgreementReport:
    """Agreement of current marks on one benchmark; an annotator gets only their own row against the proposals."""
    marks: dict[str, dict[tuple[str, str], float]] = {}
    revised = 0
    for (u, iid, tid), v in current_marks(visible_marks(store, viewer, dataset.benchmark, kind=TRIGGER)).items():
        marks.setdefault(u, {})[(iid, tid)] = float(v.value["t"])
        revised += not v.value.get("blind", True)
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
    staff = viewer.role in STAFF
    pairs = agreement.all_pairs(marks, durations) if staff else []
    alpha = agreement.group_alpha(marks) if staff else None
    pstats = None
    if staff:
        verdicts: dict[tuple, dict[str, bool]] = {}
        for it in dataset.items:
            plan = dict(prefix_plan(it))
            for u, st in user_prefix_states(store, it).items():
                for k, v in st["verdicts"].items():
                    s = float(k)
                    verdicts.setdefault((it.id, s, plan.get(s, s)), {})[u] = v
        pstats = agreement.prefix_agreement(verdicts)
    shared = sum(n >= 2 for n in Counter(k for m in marks.values() for k in m).values()) if staff else 0
    return AgreementReport(dataset.benchmark, vs, pairs, alpha, pstats, sum(len(m) for m in marks.values()), revised,
                           shared)
