"""The Review tab's server side, without Gradio: the queue and its filters, an item with its edits, edits,
undo, status, adjudication and export. Every method takes the caller's sign-in token first and checks on
the server that they are a reviewer or admin (annotation.auth), then returns plain data for the tab to draw."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from annotation import auth, interchange, review, verification
from annotation.edits import current_value, default_field, valid_fields
from annotation.model import Item, Review, Verification
from ibench_ui.context import AppContext
from ibench_ui.role_table import ELSEWHERE

STATUS_FILTERS = ["all", "unreviewed", "accepted", "needs-fix", "rejected", "flagged", "disputed", "undecided disputes"]


def export_root(ctx: AppContext) -> Path:
    """Where the app writes exports: `exports/` next to the SQLite file (nothing outside it)."""
    return ctx.store.path.resolve().parent / "exports"


def current_item(ctx: AppContext, benchmark: str, item_id: str) -> Item:
    """The item as loaded, with every review edit applied."""
    return review.edited_item(ctx.item(benchmark, item_id), ctx.store.reviews(benchmark, item_id))


def queue_rows(ctx: AppContext, benchmark: str, status_filter: str, annotator: str) -> list[tuple]:
    """(item, kind, review status, prefix check, open disputes, verifiers) for the items that pass the filters."""
    ds = ctx.dataset(benchmark)
    st = review.statuses(ctx.store, benchmark)
    who: dict[str, set] = {}
    for v in ctx.store.verifications(benchmark):
        if v.kind in (verification.TRIGGER, verification.PREFIX):
            who.setdefault(v.item_id, set()).add(v.user)
    open_disputes: dict[str, int] = {}
    all_disputes: dict[str, int] = {}
    for d in verification.disputes(ctx.store, ds):
        all_disputes[d.item_id] = all_disputes.get(d.item_id, 0) + 1
        if d.decision is None:
            open_disputes[d.item_id] = open_disputes.get(d.item_id, 0) + 1
    out = []
    for it in ds.items:
        status = st.get((benchmark, it.id), "unreviewed")
        prefix = verification.item_prefix_status(ctx.store, it)
        if status_filter == "flagged" and prefix != "fail":
            continue
        if status_filter == "disputed" and not all_disputes.get(it.id):
            continue
        if status_filter == "undecided disputes" and not open_disputes.get(it.id):
            continue
        if status_filter in review.STATUSES + ("unreviewed",) and status != status_filter:
            continue
        if annotator and annotator not in who.get(it.id, set()):
            continue
        out.append((it.id, it.kind, status, prefix, open_disputes.get(it.id, 0), ", ".join(sorted(who.get(it.id, set())))))
    return out


@dataclass
class Disputes:
    """The adjudication queue, the (label, key) choices naming each dispute, and the one selected."""
    queue: list[verification.Dispute]
    choices: list[tuple[str, str]]
    selected: Optional[str]


@dataclass
class Queue:
    """A refreshed Review queue: its rows (see queue_rows), every verifier's name, disputes and progress."""
    rows: list[tuple]
    annotators: list[str]
    disputes: Disputes
    progress: list[tuple]


@dataclass
class ReviewItem:
    """An item as the reviewer sees it: edited, with its editable fields, status, records and timeline marks."""
    item: Item
    fields: list[str]
    field: Optional[str]
    value: Any
    status: str
    prefix: str
    history: list[Review]
    trail: list[Verification]
    undoable: list[Review]
    marks: list[dict] = field(default_factory=list)


@dataclass
class Changed:
    """What an edit, undo or status change did: who, the record it wrote, and the item after it."""
    user: auth.User
    record: Review
    view: ReviewItem


@dataclass
class Decided:
    """An adjudication or a reopening: who, which item and kind, and the queue, trail and progress after it."""
    user: auth.User
    item_id: str
    kind: str
    disputes: Disputes
    trail: list[Verification]
    progress: list[tuple]


class ReviewService:
    """Plain methods behind the Review tab; each checks the caller's role on the server first."""

    def __init__(self, ctx: AppContext):
        self.ctx = ctx

    def staff(self, tok: str) -> auth.User:
        """The caller, if a reviewer or admin; PermissionError otherwise, which tells a signed-in annotator
        plainly where their own work is."""
        user = auth.require(self.ctx.store, tok, auth.ANYONE)
        if user.role not in auth.STAFF:
            raise PermissionError(f"Review is for reviewers and admins; you are signed in as {user.name} "
                                  f"({user.role}). {ELSEWHERE['review']}")
        return user

    def queue(self, tok: str, benchmark: str, status_filter: str, annotator: str) -> Queue:
        self.staff(tok)
        store = self.ctx.store
        names = sorted({v.user for v in store.verifications(benchmark)
                        if v.kind in (verification.TRIGGER, verification.PREFIX)})
        return Queue(queue_rows(self.ctx, benchmark, status_filter, annotator or ""), names,
                     self._disputes(benchmark), self._progress(benchmark))

    def next_item(self, tok: str, benchmark: str, status_filter: str, annotator: str,
                  item_id: Optional[str]) -> Optional[str]:
        """The queue's item after `item_id` (the first when it is last or not in the queue); None: queue empty."""
        self.staff(tok)
        ids = [r[0] for r in queue_rows(self.ctx, benchmark, status_filter, annotator or "")]
        if not ids:
            return None
        later = ids[ids.index(item_id) + 1:] if item_id in ids else ids
        return (later or ids)[0]

    def item(self, tok: str, benchmark: str, item_id: str) -> ReviewItem:
        self.staff(tok)
        return self._view(benchmark, item_id)

    def field_value(self, tok: str, benchmark: str, item_id: str, name: str) -> Any:
        self.staff(tok)
        return current_value(current_item(self.ctx, benchmark, item_id), name)

    def drag(self, tok: str, benchmark: str, item_id: str, payload: str) -> tuple[str, Any, str]:
        """(field, its current value, the dragged value) from the timeline's drag payload."""
        self.staff(tok)
        try:
            d = json.loads(payload)
            name, value = str(d["field"]), str(d["value"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ValueError("the timeline sent an unreadable drag") from None
        it = current_item(self.ctx, benchmark, item_id)
        if name not in valid_fields(it):
            raise ValueError(f"{item_id}: {name} cannot be edited")
        return name, current_value(it, name), value

    def edit(self, tok: str, benchmark: str, item_id: str, name: str, value: str, reason: str) -> Changed:
        user = self.staff(tok)
        if not item_id or not name:
            raise ValueError("choose an item and a field first")
        rec = review.edit(self.ctx.store, user, current_item(self.ctx, benchmark, item_id), name, value, reason)
        return Changed(user, rec, self._view(benchmark, item_id))

    def undo(self, tok: str, benchmark: str, item_id: str, record_id: Optional[str], reason: str) -> Changed:
        user = self.staff(tok)
        if not item_id or not record_id:
            raise ValueError("choose an item and the edit to undo")
        rec = review.revert(self.ctx.store, user, current_item(self.ctx, benchmark, item_id), record_id, reason)
        return Changed(user, rec, self._view(benchmark, item_id))

    def set_status(self, tok: str, benchmark: str, item_id: str, status: str, comment: str) -> Changed:
        user = self.staff(tok)
        if not item_id:
            raise ValueError("choose an item first")
        rec = review.set_status(self.ctx.store, user, self.ctx.item(benchmark, item_id), status, comment)
        return Changed(user, rec, self._view(benchmark, item_id))

    def disputes(self, tok: str, benchmark: str, current: str = "") -> Disputes:
        self.staff(tok)
        return self._disputes(benchmark, current)

    def adjudicate(self, tok: str, benchmark: str, key: Optional[str], decision: str, reason: str) -> Decided:
        user = self.staff(tok)
        iid, kind, tid = self._dispute_key(key)
        verification.adjudicate(self.ctx.store, user, current_item(self.ctx, benchmark, iid), kind, tid,
                                (decision or "").strip(), reason)
        return self._decided(user, benchmark, iid, kind, "")

    def reopen(self, tok: str, benchmark: str, key: Optional[str], reason: str) -> Decided:
        user = self.staff(tok)
        iid, kind, tid = self._dispute_key(key)
        verification.reopen(self.ctx.store, user, current_item(self.ctx, benchmark, iid), tid, reason)
        return self._decided(user, benchmark, iid, kind, key)

    def export(self, tok: str, benchmark: str, fmt: str, name: str, verified_only: bool) -> tuple[auth.User, int, Path]:
        """Write the benchmark with every review edit (optionally only prefix-verified items) into the
        exports folder; (who, how many items, the path written)."""
        user = self.staff(tok)
        store = self.ctx.store
        ds = review.apply_edits(self.ctx.dataset(benchmark), store.reviews(benchmark))
        if verified_only:
            ds = verification.verified_subset(store, ds)
        path = interchange.export(ds, fmt, export_root(self.ctx), (name or "").strip() or "review-export",
                                  store.responses(benchmark=benchmark) if fmt in ("jsonl", "eaf", "vtt") else ())
        return user, len(ds), path

    # ---- unchecked helpers of the checked methods above
    def _view(self, benchmark: str, item_id: str) -> ReviewItem:
        store = self.ctx.store
        it = current_item(self.ctx, benchmark, item_id)
        first = default_field(it)
        records = store.reviews(benchmark, item_id)
        return ReviewItem(
            item=it, fields=valid_fields(it), field=first, value=current_value(it, first) if first else None,
            status=review.status_of(records), prefix=verification.item_prefix_status(store, it),
            history=review.history(store, benchmark, item_id), trail=store.verifications(benchmark, item_id),
            undoable=[r for r in records if r.field != review.STATUS_FIELD and r.status != review.DERIVED],
            marks=self._marks(it))

    def _marks(self, it: Item) -> list[dict]:
        """Verifiers' current marks (blue, tier "marks") and logged responses (orange, tier "responses") as
        points on the timeline."""
        store = self.ctx.store
        cur = verification.current_marks(store.verifications(it.benchmark, it.id, kind=verification.TRIGGER))
        pts = [{"t": v.value["t"], "label": u, "tier": "marks"} for (u, _i, _t), v in sorted(cur.items())]
        pts += [{"t": r.t, "label": r.responder, "color": "#d97706", "tier": "responses"}
                for r in store.responses(item_id=it.id, benchmark=it.benchmark)[:200]]
        return pts

    def _disputes(self, benchmark: str, current: str = "") -> Disputes:
        q = verification.disputes(self.ctx.store, self.ctx.dataset(benchmark))
        choices = [(f"{d.item_id} · {d.detail}" + ("" if d.decision is None else " (decided)"), d.key) for d in q]
        open_keys = [d.key for d in q if d.decision is None]
        sel = current if current in [k for _l, k in choices] else (open_keys[0] if open_keys else None)
        return Disputes(q, choices, sel)

    def _progress(self, benchmark: str) -> list[tuple]:
        return verification.progress(self.ctx.store, self.ctx.dataset(benchmark))

    def _decided(self, user: auth.User, benchmark: str, item_id: str, kind: str, current: str) -> Decided:
        return Decided(user, item_id, kind, self._disputes(benchmark, current),
                       self.ctx.store.verifications(benchmark, item_id), self._progress(benchmark))

    @staticmethod
    def _dispute_key(key: Optional[str]) -> tuple[str, str, str]:
        if not key:
            raise ValueError("choose a dispute first")
        iid, kind, tid = key.split("|", 2)
        return iid, kind, tid
