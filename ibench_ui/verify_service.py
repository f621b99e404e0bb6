"""The Verify and Agreement tabs' server side, without Gradio: the caller's own queue, blind marks, the
reaction-time offset, the silence-prefix walk and agreement. Every method takes the caller's sign-in token
first, resolves it on the server (annotation.auth: any signed-in role) and acts only as that user, on that
user's own records, returning plain data for the tab to draw."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from annotation import auth, verification
from annotation.model import Item
from ibench_ui.context import AppContext
from ibench_ui.review_service import current_item


def interval_frames(item: Item, start: float, end: float, n: int = 3) -> list:
    """A few whole frames spread over [start, end) for the still view (empty when the video cannot be read)."""
    if not item.stream.video_path:
        return []
    try:
        from runners.sampling import FrameSampler, SamplingError
    except ImportError:
        return []
    try:
        with FrameSampler(item.stream.video_path, max_long_side=480) as fs:
            out = []
            for k in range(n):
                t = start + (end - start) * (k + 0.5) / n
                ft, img = fs.frame_at(t)
                out.append((img, f"{ft:.3f} s"))
            return out
    except (SamplingError, OSError, ValueError):
        return []


def capture(raw: str, typed: str) -> tuple[float, bool, str]:
    """The mark's time, whether the media played and its source: the page's snapshot when it matches the
    mark box (full precision), else the typed value. Only the user's own offset decision depends on it."""
    t = float(typed)
    try:
        cap = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        cap = None
    if isinstance(cap, dict) and isinstance(cap.get("t"), (int, float)) and abs(float(cap["t"]) - t) < 0.0006:
        src = cap.get("source") if cap.get("source") in verification.SOURCES else "typed"
        return float(cap["t"]), bool(cap.get("playing")) and src != "typed", src
    return t, False, "typed"


@dataclass
class Queue:
    """The caller's queue: items with timed events, the one to open first, a row per item, their offset.
    A row is (item, kind, "marked/events", prefix walk state)."""
    ids: list[str]
    first: Optional[str]
    rows: list[tuple]
    offset: float


@dataclass
class Opened:
    """An item opened for blind marking: its event labels, the caller's reveal of event 0, marks and queue."""
    item: Item
    events: list[str]
    reveal: Optional[dict]
    marks: list[dict]
    rows: list[tuple]


@dataclass
class Marked:
    """After a mark is submitted or withdrawn: who, the item, the stored time (None: withdrawn), the reveal,
    the caller's marks on the timeline and their queue."""
    user: auth.User
    item: Item
    t: Optional[float]
    reveal: Optional[dict]
    marks: list[dict]
    rows: list[tuple]


@dataclass
class Walk:
    """The caller's prefix walk on an item: its state, the current interval's frames, marks and queue."""
    item: Item
    state: dict
    frames: list
    marks: list[dict]
    rows: list[tuple]


class VerifyService:
    """Plain methods behind the Verify and Agreement tabs; each resolves the caller on the server first."""

    def __init__(self, ctx: AppContext):
        self.ctx = ctx

    def who(self, tok: str) -> auth.User:
        """The signed-in caller (any role); PermissionError otherwise."""
        return auth.require(self.ctx.store, tok, auth.ANYONE)

    def queue(self, tok: str, benchmark: str) -> Queue:
        user = self.who(tok)
        ids = [it.id for it in self.ctx.dataset(benchmark).items if verification.timed_targets(it)]
        first = self._unverified(user, benchmark, None) or (ids[0] if ids else None)
        return Queue(ids, first, self._rows(user, benchmark), verification.offset_of(self.ctx.store, user))

    def next_item(self, tok: str, benchmark: str, item_id: Optional[str]) -> Optional[str]:
        """The caller's next item with an unmarked event or an unfinished walk after `item_id`, wrapping to the
        first (None: nothing left but `item_id` itself)."""
        nid = self._unverified(self.who(tok), benchmark, item_id)
        return None if nid == item_id else nid

    def left_on(self, tok: str, benchmark: str, item_id: Optional[str]) -> Optional[str]:
        """What the caller has not finished on this item, in words (None: finished, or no item)."""
        user = self.who(tok)
        if not item_id:
            return None
        it = current_item(self.ctx, benchmark, item_id)
        tt = verification.timed_targets(it)
        n = sum(verification.mark_of(self.ctx.store, user, it, t.id) is not None for t in tt)
        st = self._walk_state(user, it)
        left = [f"{len(tt) - n} of {len(tt)} event(s) unmarked"] if n < len(tt) else []
        if st["status"] == "incomplete":
            left.append(f"prefix walk {st['done']} of {st['total']} intervals decided")
        return "; ".join(left) or None

    def prev_item(self, tok: str, benchmark: str, item_id: Optional[str]) -> Optional[str]:
        """The item before `item_id` in the caller's queue, finished or not (None: at the first)."""
        self.who(tok)
        ids = [it.id for it in self.ctx.dataset(benchmark).items if verification.timed_targets(it)]
        k = ids.index(item_id) if item_id in ids else len(ids)
        return ids[k - 1] if k > 0 else None

    def open(self, tok: str, benchmark: str, item_id: str) -> Opened:
        user = self.who(tok)
        it = current_item(self.ctx, benchmark, item_id)
        events = verification.blind_view(it)["events"]
        return Opened(it, events, verification.reveal(self.ctx.store, user, it, 0) if events else None,
                      self._marks(user, it), self._rows(user, benchmark))

    def reveal(self, tok: str, benchmark: str, item_id: str, event: int) -> Optional[dict]:
        user = self.who(tok)
        return verification.reveal(self.ctx.store, user, current_item(self.ctx, benchmark, item_id), int(event))

    def submit(self, tok: str, benchmark: str, item_id: str, event: Optional[int], typed, unit: str,
               raw_capture: str) -> Marked:
        user = self.who(tok)
        if not item_id or event is None:
            raise ValueError("choose an item and an event first")
        if typed in (None, ""):
            raise ValueError("enter the mark in seconds (or press 'Use player time' or m)")
        try:
            when, playing, source = capture(raw_capture, str(typed).strip())
        except ValueError:
            raise ValueError(f"the mark must be a time in seconds, got {typed!r}") from None
        it = current_item(self.ctx, benchmark, item_id)
        v = verification.submit_mark(self.ctx.store, user, it, int(event), when, unit or "ms", playing=playing,
                                     source=source)
        return self._marked(user, it, benchmark, v.value["t"], verification.reveal(self.ctx.store, user, it, int(event)))

    def withdraw(self, tok: str, benchmark: str, item_id: str, event: Optional[int]) -> Marked:
        user = self.who(tok)
        if not item_id or event is None:
            raise ValueError("choose an item and an event first")
        it = current_item(self.ctx, benchmark, item_id)
        verification.withdraw_mark(self.ctx.store, user, it, int(event), "withdrawn in the Verify tab")
        return self._marked(user, it, benchmark, None, None)

    def set_offset(self, tok: str, value: Optional[float]) -> tuple[auth.User, float]:
        user = self.who(tok)
        return user, verification.set_offset(self.ctx.store, user, value if value is not None else 0.0)

    def calibrate(self, tok: str, payload: str) -> tuple[auth.User, float, int]:
        """Store the median of the page's calibration reactions as the offset: (who, offset, reactions)."""
        user = self.who(tok)
        try:
            xs = json.loads(payload).get("reactions")
        except (json.JSONDecodeError, AttributeError):
            raise ValueError("calibration: the page sent no reaction times") from None
        off = verification.calibrate(self.ctx.store, user, xs or [])
        return user, off, len(xs)

    def start_walk(self, tok: str, benchmark: str, item_id: str) -> Walk:
        user = self.who(tok)
        if not item_id:
            raise ValueError("choose an item first")
        it = current_item(self.ctx, benchmark, item_id)
        return self._walk(user, it, verification.start_prefix(self.ctx.store, user, it), rows=False)

    def mark_interval(self, tok: str, benchmark: str, item_id: str, start: Optional[float], satisfied: bool) -> Walk:
        user = self.who(tok)
        if not item_id or start is None:
            raise ValueError("start the prefix walk first")
        it = current_item(self.ctx, benchmark, item_id)
        state = verification.mark_interval(self.ctx.store, user, it, float(start), satisfied)
        return self._walk(user, it, state, rows=True)

    def back(self, tok: str, benchmark: str, item_id: str, start: Optional[float]) -> Walk:
        """The interval before `start`; when the walk has ended (no `start`), the interval decided last."""
        user = self.who(tok)
        if not item_id:
            raise ValueError("start the prefix walk first")
        it = current_item(self.ctx, benchmark, item_id)
        starts = [p[0] for p in verification.prefix_plan(it)]
        if start is None:
            mine = self.ctx.store.verifications(benchmark, item_id, user=user.name, kind=verification.PREFIX)
            last = [float(r.value["start"]) for r in mine if not r.value.get("withdrawn")]
            at = last[-1] if last else (starts[-1] if starts else None)
        else:
            k = next((i for i, x in enumerate(starts) if abs(x - float(start)) < 1e-6), 0)
            at = starts[max(0, k - 1)]
        if at is None:
            raise ValueError("this item has no prefix")
        return self._walk(user, it, verification.start_prefix(self.ctx.store, user, it, at=at), rows=False)

    def agreement(self, tok: str, benchmark: str) -> list:
        """Agreement reports for one benchmark or "all"; an annotator's hold only their own row."""
        user = self.who(tok)
        names = self.ctx.benchmarks() if benchmark == "all" else [benchmark]
        return [verification.agreement_report(self.ctx.store, user, self.ctx.dataset(n)) for n in names]

    # ---- unchecked helpers of the checked methods above
    def _marks(self, user: auth.User, it: Item) -> list[dict]:
        """The caller's own current marks (tier "mine") and, on events a reviewer has decided, the other
        verifiers' marks (tier "others") as timeline points; a blind view holds nothing of anyone else's."""
        store, pts = self.ctx.store, []
        for k, tg in enumerate(verification.timed_targets(it)):
            v = verification.mark_of(store, user, it, tg.id)
            if v is not None:
                pts.append({"t": v.value["t"], "label": f"my mark {k + 1}", "tier": "mine",
                            "target": tg.id})
            if v is None or verification.adjudication_of(store, it, tg.id) is None:
                continue
            cur = verification.current_marks(store.verifications(it.benchmark, it.id, kind=verification.TRIGGER))
            pts += [{"t": o.value["t"], "label": f"{u} {k + 1}", "tier": "others", "color": "#8250df"}
                    for (u, _i, tid), o in sorted(cur.items()) if tid == tg.id and u != user.name]
        return pts

    def _walk_state(self, user: auth.User, it: Item) -> dict:
        return verification.prefix_state(verification.prefix_plan(it), self.ctx.store.verifications(
            it.benchmark, it.id, user=user.name, kind=verification.PREFIX))

    def _rows(self, user: auth.User, benchmark: str) -> list[tuple]:
        rows = []
        for it in self.ctx.dataset(benchmark).items:
            tt = verification.timed_targets(it)
            if not tt:
                continue
            n = sum(verification.mark_of(self.ctx.store, user, it, t.id) is not None for t in tt)
            st = self._walk_state(user, it)
            walk = st["status"] if st["done"] or not st["total"] else "not started"
            rows.append((it.id, it.kind, f"{n}/{len(tt)}", walk if st["total"] else "no prefix"))
        return rows

    def _unverified(self, user: auth.User, benchmark: str, after: Optional[str]) -> Optional[str]:
        items = self.ctx.dataset(benchmark).items
        ids = []
        for it in items:
            tt = verification.timed_targets(it)
            if not tt:
                continue
            if any(verification.mark_of(self.ctx.store, user, it, t.id) is None for t in tt) \
                    or self._walk_state(user, it)["status"] == "incomplete":
                ids.append(it.id)
        all_ids = [it.id for it in items]
        pos = all_ids.index(after) if after in all_ids else -1
        later = [i for i in ids if all_ids.index(i) > pos]
        return (later or ids or [None])[0]

    def _marked(self, user, it: Item, benchmark: str, t: Optional[float], reveal: Optional[dict]) -> Marked:
        return Marked(user, it, t, reveal, self._marks(user, it), self._rows(user, benchmark))

    def _walk(self, user: auth.User, it: Item, state: dict, rows: bool) -> Walk:
        cur = state.get("current")
        return Walk(it, state, interval_frames(it, *cur) if cur else [], self._marks(user, it),
                    self._rows(user, it.benchmark) if rows else [])
