"""Review records: edits of times, windows and answers, and item statuses, as an append-only audit trail.

Every change is a new `Review` row (who, when, old value, new value, reason); the current value of a
field is the latest record's new value. `apply_edits` turns a dataset plus its review records into an
edited dataset whose native records carry the edits, so any export writes them."""
from __future__ import annotations

import time
from typing import Iterable, Optional

from annotation.auth import STAFF, User, require_user_role
from annotation.dataset import Dataset
from annotation.edits import apply_field, current_value, editable_fields, parse_value, split_field
from annotation.model import Item, Review
from annotation.store import Store

STATUSES = ("accepted", "needs-fix", "rejected")
STATUS_FIELD = "status"
DERIVED = "derived"  # `status` of a record for a field that changed because another field was edited


def edit(store: Store, user: User, item: Item, field: str, raw_value, reason: str) -> Review:
    """Record a reviewer's change of one field of `item` (which must already carry earlier edits).

    The value is parsed and validated by rebuilding the item with the benchmark's own checks."""
    require_user_role(user, STAFF)
    reason = (reason or "").strip()
    if not reason:
        raise ValueError(f"{item.benchmark}/{item.id}: {field}: give a reason for the change")
    value = parse_value(item, field, raw_value)
    old = current_value(item, field)
    if _same(old, value):
        raise ValueError(f"{item.benchmark}/{item.id}: {field} is already {old!r}")
    after = apply_field(item, field, value)  # raises with the loader's message when the edit is invalid
    now = time.time()
    rec = store.add_review(Review(id="", benchmark=item.benchmark, item_id=item.id, user=user.name, field=field,
                                  old_value=old, new_value=value, reason=reason, created=now))
    for other in editable_fields(item):  # every other field the change moved is recorded too (not re-applied)
        if other == field:
            continue
        try:
            a, b = current_value(item, other), current_value(after, other)
        except KeyError:
            continue
        if not _same(a, b):
            store.add_review(Review(id="", benchmark=item.benchmark, item_id=item.id, user=user.name, field=other,
                                    old_value=a, new_value=b, reason=f"{reason} (follows {field})", created=now,
                                    status=DERIVED))
    return rec


def revert(store: Store, user: User, item: Item, record_id: str, reason: str) -> Review:
    """Undo one earlier edit through the audit trail: a new edit that sets its field back to the old value."""
    recs = [r for r in store.reviews(item.benchmark, item.id) if r.id == record_id]
    if not recs or recs[0].field == STATUS_FIELD or recs[0].status == DERIVED:
        raise ValueError(f"{item.benchmark}/{item.id}: no field edit {record_id!r} to undo")
    return edit(store, user, item, recs[0].field, recs[0].old_value, f"undo {record_id}: {(reason or '').strip()}"
                if (reason or "").strip() else "")


def set_status(store: Store, user: User, item: Item, status: str, comment: str = "") -> Review:
    """Record a review status (accepted / needs-fix / rejected) with a comment."""
    require_user_role(user, STAFF)
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}; expected one of: {', '.join(STATUSES)}")
    old = status_of(store.reviews(item.benchmark, item.id))
    return store.add_review(Review(id="", benchmark=item.benchmark, item_id=item.id, user=user.name,
                                   field=STATUS_FIELD, old_value=old, new_value=status, reason=(comment or "").strip(),
                                   created=time.time(), status=status))


def history(store: Store, benchmark: str, item_id: str) -> list[Review]:
    """Every review record of one item, oldest first."""
    return store.reviews(benchmark, item_id)


def status_of(records: Iterable[Review]) -> str:
    """The item's current status: the latest status record, or 'unreviewed'."""
    cur = "unreviewed"
    for r in records:
        if r.field == STATUS_FIELD:
            cur = r.new_value
    return cur


def edited_item(item: Item, records: Iterable[Review]) -> Item:
    """The item with its field edits applied in record order (status records are skipped)."""
    for r in records:
        if r.item_id != item.id or r.benchmark != item.benchmark or r.field == STATUS_FIELD or r.status == DERIVED:
            continue
        item = apply_field(item, r.field, r.new_value)
    return item


def apply_edits(dataset: Dataset, edits: Iterable[Review]) -> Dataset:
    """A new Dataset whose items (and native records) carry the review edits; the input is untouched."""
    by_item: dict[str, list[Review]] = {}
    for r in edits:
        if r.benchmark == dataset.benchmark and r.field != STATUS_FIELD and r.status != DERIVED:
            by_item.setdefault(r.item_id, []).append(r)
    missing = sorted(set(by_item) - {it.id for it in dataset.items})
    if missing:
        raise KeyError(f"{dataset.benchmark}: review edits name items not in {dataset.root}: {', '.join(missing[:5])}")
    items = [edited_item(it, by_item[it.id]) if it.id in by_item else it for it in dataset.items]
    return Dataset(dataset.benchmark, dataset.root, items, list(dataset.problems), dict(dataset.extra))


def fields_of(item: Item) -> list[str]:
    return editable_fields(item)


def statuses(store: Store, benchmark: Optional[str] = None) -> dict[tuple[str, str], str]:
    """Current status per (benchmark, item id) for every reviewed item."""
    out: dict[tuple[str, str], str] = {}
    for r in store.reviews(benchmark):
        if r.field == STATUS_FIELD:
            out[(r.benchmark, r.item_id)] = r.new_value
    return out


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


__all__ = ["STATUSES", "DERIVED", "edit", "revert", "set_status", "history", "status_of", "edited_item", "apply_edits", "statuses",
           "fields_of", "split_field"]
