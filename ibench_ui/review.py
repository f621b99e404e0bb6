"""Review tab (reviewers and admins): a filtered, clickable queue with per-annotator progress, the item on
the workbench timeline (windows and anchors draggable: a drag fills the edit form), edits of times/windows/
answers with a reason (every field an edit moves is recorded), undo through the audit trail, a status
with a comment, the verifications' audit trail, the adjudication queue, and export of the edited dataset.
Every handler re-checks the role."""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import gradio as gr

from annotation import auth, interchange, review, verification
from annotation.edits import current_value, default_field, valid_fields
from annotation.model import Item
from ibench_ui.handlers import IN_ORDER, guarded, ok_html
from ibench_ui.context import AppContext
from ibench_ui.render import esc, fmt_time, item_details_html, table_html, video_html
from ibench_ui.workbench_timeline import (build_controls, hidden_picker, pick_table, picked, picked_item_update,
                                          workbench_html)

STATUS_FILTERS = ["all", "unreviewed", "accepted", "needs-fix", "rejected", "flagged", "disputed", "undecided disputes"]
VIDEO_ID = "review-video"


def export_root(ctx: AppContext) -> Path:
    """Where the app writes exports: `exports/` next to the SQLite file (nothing outside it)."""
    return ctx.store.path.resolve().parent / "exports"


def current_item(ctx: AppContext, benchmark: str, item_id: str) -> Item:
    """The item as loaded, with every review edit applied."""
    return review.edited_item(ctx.item(benchmark, item_id), ctx.store.reviews(benchmark, item_id))


def when(ts: float) -> str:
    """A record's time, readable: UTC to the second."""
    return _dt.datetime.fromtimestamp(float(ts), _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, list):
        return ", ".join("" if x is None else f"{x:.3f}" if isinstance(x, float) else f"{x:g}"
                         if isinstance(x, (int, float)) else str(x) for x in v)
    if isinstance(v, float):
        return f"{v:.3f}"
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def history_html(records) -> str:
    rows = [(when(r.created), r.user, r.field + (" (moved by the edit above)" if r.status == review.DERIVED else ""),
             _fmt(r.old_value), _fmt(r.new_value), r.reason) for r in records]
    if not rows:
        return '<p id="review-history-empty">No review records yet.</p>'
    return table_html(["time", "who", "field", "old", "new", "reason / comment"], rows, "review-history-table")


def _vsummary(v) -> str:
    x = v.value
    if v.kind == verification.TRIGGER:
        if x.get("withdrawn"):
            return f"withdrew event {int(x.get('event', 0)) + 1} mark" + (f" ({x['reason']})" if x.get("reason") else "")
        off = f", player {x.get('raw_t', x['t']):.3f} − offset {x.get('offset', 0):.3f}" if x.get("offset") else ""
        return f"event {int(x.get('event', 0)) + 1} mark {x['t']:.3f} s ({x.get('source', 'typed')}{off})"
    if v.kind == verification.PREFIX:
        iv = f"{fmt_time(x['start'])}–{fmt_time(x['end'])}"
        return f"prefix {iv}: withdrawn" if x.get("withdrawn") else \
            f"prefix {iv}: {'already satisfied' if x['satisfied'] else 'not yet'}"
    if v.kind == verification.ADJUDICATION and x.get("reopened"):
        return f"reopened {x.get('for')} {v.target_id or ''} — {x.get('reason', '')}"
    if v.kind == verification.ADJUDICATION:
        what = f"{x['t']:.3f} s" if x.get("for") == verification.TRIGGER else x.get("status")
        return f"decided {x.get('for')} {v.target_id or ''}: {what} — {x.get('reason', '')}"
    return json.dumps(x)


def trail_html(rows) -> str:
    if not rows:
        return '<p id="review-trail-empty">No verification records yet.</p>'
    return table_html(["time", "who", "kind", "record"], [(when(r.created), r.user, r.kind, _vsummary(r)) for r in rows],
                      "review-trail-table")


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


def disputes_html(queue, current: str = "") -> str:
    rows = [(d.key, d.item_id, d.kind, d.detail,
             ", ".join(f"{u}: {v:.3f} s" if isinstance(v, float) else f"{u}: {v}" for u, v in sorted(d.values.items())),
             "open" if d.decision is None else
             f"decided by {d.decision.user}: " + (f"{d.decision.value['t']:.3f} s" if d.kind == "trigger"
                                                   else d.decision.value["status"]) + f" ({d.decision.value['reason']})")
            for d in queue]
    if not rows:
        return '<p id="adjudication-empty">No disagreements beyond the thresholds.</p>'
    return pick_table(["item", "kind", "what", "verifiers", "decision"], rows, "adjudication-table",
                      "adjudicate-pick-apply", current)


def progress_html(rows) -> str:
    return table_html(["annotator", "events marked", "of which blind", "prefix walks done", "walks started"], rows,
                      "review-progress-table")


def build_review(ctx: AppContext, token: gr.State):
    """Lay out the Review sub-tab; returns (fn, inputs, outputs) that refreshes it after sign-in."""
    benchmarks = ctx.benchmarks()
    with gr.Row():
        bench = gr.Dropdown(benchmarks, value=benchmarks[0], label="Benchmark", elem_id="review-benchmark")
        status_f = gr.Dropdown(STATUS_FILTERS, value="all", label="Status", elem_id="review-status-filter")
        annot_f = gr.Dropdown([("any", "")], value="", label="Verified by", elem_id="review-annotator-filter",
                              allow_custom_value=True)
        refresh = gr.Button("Refresh queue", elem_id="review-refresh")
    queue = gr.HTML("", elem_id="review-queue", js_on_load=None)
    pick = hidden_picker("review")
    with gr.Row():
        item = gr.Dropdown([], value=None, label="Item", elem_id="review-item", allow_custom_value=True, scale=4)
        nxt = gr.Button("Next in queue (j)", size="sm", elem_id="review-next", scale=1)
    msg = gr.HTML("", elem_id="review-msg", js_on_load=None)
    with gr.Row():
        with gr.Column(scale=3):
            player = gr.HTML(video_html(None, VIDEO_ID), elem_id="review-player", js_on_load=None)
            timeline = gr.HTML(workbench_html(None, VIDEO_ID), elem_id="review-timeline", js_on_load=None)
            build_controls(VIDEO_ID, with_targets=True)
        with gr.Column(scale=2):
            details = gr.HTML("", elem_id="review-details", js_on_load=None)
            field = gr.Dropdown([], value=None, label="Field", elem_id="review-field", allow_custom_value=True)
            current = gr.Textbox(label="Current value", interactive=False, elem_id="review-current")
            with gr.Row():
                value = gr.Textbox(label="New value (seconds, MM:SS, 'start, end', or text)", elem_id="review-value",
                                   scale=3)
                use_time = gr.Button("Use player time", size="sm", elem_id="review-use-time", scale=1)
            drag = gr.Textbox(elem_id="review-drag-box", elem_classes=["ib-hidden"], show_label=False,
                              container=False)
            drag_apply = gr.Button("drag", elem_id="review-drag-apply", elem_classes=["ib-hidden"])
            reason = gr.Textbox(label="Reason", elem_id="review-reason")
            save = gr.Button("Save edit", variant="primary", elem_id="review-save")
            with gr.Row():
                undo_pick = gr.Dropdown([], value=None, label="Undo an edit", elem_id="review-undo-pick", scale=3)
                undo = gr.Button("Undo edit", size="sm", elem_id="review-undo", scale=1)
            status = gr.Radio(list(review.STATUSES), label="Status", elem_id="review-status")
            comment = gr.Textbox(label="Comment", elem_id="review-comment")
            set_status = gr.Button("Set status", elem_id="review-set-status")
    gr.Markdown("#### History of this item")
    hist = gr.HTML("", elem_id="review-history", js_on_load=None)
    gr.Markdown("#### Verification audit trail")
    trail = gr.HTML("", elem_id="review-trail", js_on_load=None)
    with gr.Accordion("Adjudication queue (marks > 0.5 s apart, any prefix disagreement)", open=True,
                      elem_id="adjudication-box"):
        adj_queue = gr.HTML("", elem_id="adjudication-queue", js_on_load=None)
        adj_pick = hidden_picker("adjudicate")
        with gr.Row():
            dispute = gr.Dropdown([], value=None, label="Dispute", elem_id="adjudicate-dispute", scale=3)
            decision = gr.Textbox(label="Decision (seconds for an event; pass / fail for a prefix)",
                                  elem_id="adjudicate-decision", scale=2)
            adj_time = gr.Button("Use player time", size="sm", elem_id="adjudicate-use-time", scale=1)
        adj_reason = gr.Textbox(label="Reason for the decision", elem_id="adjudicate-reason")
        with gr.Row():
            resolve = gr.Button("Decide (final)", variant="primary", elem_id="adjudicate-resolve")
            reopen = gr.Button("Reopen the decision", elem_id="adjudicate-reopen")
    with gr.Accordion("Progress per annotator", open=False):
        progress = gr.HTML("", elem_id="review-progress", js_on_load=None)
    with gr.Accordion("Export (with review edits)", open=False):
        with gr.Row():
            fmt = gr.Dropdown(list(interchange.FORMATS), value="native", label="Format", elem_id="review-export-format")
            out_name = gr.Textbox(label="Name (inside the exports folder)", value="review-export",
                                  elem_id="review-export-name")
            verified_only = gr.Checkbox(label="Prefix-verified items only", elem_id="review-export-verified")
            do_export = gr.Button("Export", elem_id="review-export-button")
        export_msg = gr.HTML("", elem_id="review-export-msg", js_on_load=None)

    def staff(tok):
        return auth.require(ctx.store, tok, auth.STAFF)

    def targets_table(it: Item) -> str:
        rows = []
        for t in it.targets:
            win = "–" if t.window is None else f"[{fmt_time(t.window[0])}, {fmt_time(t.window[1])}" \
                                                 f"{']' if t.window_closed else ')'}"
            ref = t.reference if isinstance(t.reference, str) or t.reference is None else json.dumps(t.reference)
            rows.append((t.id, t.kind, fmt_time(t.anchor), win, ref))
        return table_html(["target", "kind", "time", "window", "reference answer"], rows, "review-video-targets")

    def marks_of(it: Item) -> list[dict]:
        """Verifiers' current marks (blue) and logged responses (orange) as points on the timeline."""
        cur = verification.current_marks(ctx.store.verifications(it.benchmark, it.id, kind=verification.TRIGGER))
        pts = [{"t": v.value["t"], "label": u} for (u, _i, _t), v in sorted(cur.items())]
        pts += [{"t": r.t, "label": r.responder, "color": "#d97706"}
                for r in ctx.store.responses(item_id=it.id, benchmark=it.benchmark)[:200]]
        return pts

    def undo_choices(b: str, iid: str):
        recs = [r for r in ctx.store.reviews(b, iid) if r.field != review.STATUS_FIELD and r.status != review.DERIVED]
        def short(v):  # dropdown labels stay plain: times shown, text answers only named
            return _fmt(v) if isinstance(v, (int, float, list)) or v is None else "(text)"
        return [(f"{when(r.created)} {r.field}: {short(r.old_value)} → {short(r.new_value)} by {r.user}", r.id)
                for r in recs]

    def item_view(b: str, iid: str):
        it = current_item(ctx, b, iid)
        fields = valid_fields(it)
        first = default_field(it)
        st = review.status_of(ctx.store.reviews(b, iid))
        bar = workbench_html(it, VIDEO_ID, editable_fields=fields, marks=marks_of(it))
        return (video_html(it, VIDEO_ID), bar,
                f'<div data-status="{esc(st)}" id="review-current-status">Status: <b>{esc(st)}</b> · prefix: '
                f'<b>{esc(verification.item_prefix_status(ctx.store, it))}</b></div>' + item_details_html(it)
                + targets_table(it),
                gr.update(choices=fields, value=first),
                _fmt(current_value(it, first)) if first else "", history_html(review.history(ctx.store, b, iid)),
                trail_html(ctx.store.verifications(b, iid)), gr.update(choices=undo_choices(b, iid), value=None))

    def adj_view(b: str, current: str = ""):
        q = verification.disputes(ctx.store, ctx.dataset(b))
        keys = [(f"{d.item_id} · {d.detail}" + ("" if d.decision is None else " (decided)"), d.key) for d in q]
        open_keys = [d.key for d in q if d.decision is None]
        sel = current if current in [k for _l, k in keys] else (open_keys[0] if open_keys else None)
        return disputes_html(q, sel or ""), gr.update(choices=keys, value=sel)

    @guarded(7, 3)
    def on_refresh(tok, b, sf, af):
        staff(tok)
        rows = queue_rows(ctx, b, sf, af or "")
        names = sorted({v.user for v in ctx.store.verifications(b)
                        if v.kind in (verification.TRIGGER, verification.PREFIX)})
        ids = [r[0] for r in rows]
        table = pick_table(["item", "kind", "status", "prefix", "open disputes", "verified by"],
                           [(r[0], *r) for r in rows], "review-queue-table", "review-pick-apply")
        return (table, gr.update(choices=[(f"{r[0]} · {r[2]}", r[0]) for r in rows], value=ids[0] if ids else None),
                gr.update(choices=[("any", "")] + [(n, n) for n in names]), "", *adj_view(b),
                progress_html(verification.progress(ctx.store, ctx.dataset(b))))

    @guarded(9, 8)
    def on_item(tok, b, iid):
        staff(tok)
        if not iid:
            return (video_html(None, VIDEO_ID), workbench_html(None, VIDEO_ID), "", gr.update(choices=[], value=None),
                    "", "", "", gr.update(choices=[], value=None), "")
        return (*item_view(b, iid), "")

    @guarded(2, 1)
    def on_field(tok, b, iid, f):
        staff(tok)
        if not (iid and f):
            return "", ""
        return _fmt(current_value(current_item(ctx, b, iid), f)), ""

    @guarded(4, 3)
    def on_drag(tok, b, iid, payload):
        staff(tok)
        if not (iid and payload):
            return gr.update(), gr.update(), gr.update(), ""
        try:
            d = json.loads(payload)
            f, v = str(d["field"]), str(d["value"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ValueError("the timeline sent an unreadable drag") from None
        it = current_item(ctx, b, iid)
        if f not in valid_fields(it):
            raise ValueError(f"{iid}: {f} cannot be edited")
        return (gr.update(value=f), _fmt(current_value(it, f)), v,
                ok_html(f"{f} → {v}: give a reason and save (or press Esc and pick again)"))

    def saved(b, iid, text):
        _p, tl, det, _fields, _cur, h, tr, undos = item_view(b, iid)  # the player keeps its position
        return tl, det, h, tr, undos, ok_html(text)

    @guarded(9, 8)
    def on_save(tok, b, iid, f, v, why):
        user = staff(tok)
        if not iid or not f:
            raise ValueError("choose an item and a field first")
        rec = review.edit(ctx.store, user, current_item(ctx, b, iid), f, v, why)
        tl, det, h, tr, undos, ok = saved(b, iid, f"{rec.field}: {_fmt(rec.old_value)} → {_fmt(rec.new_value)} "
                                                  f"(by {user.name})")
        return tl, det, _fmt(rec.new_value), h, tr, undos, "", "", ok

    @guarded(7, 6)
    def on_undo(tok, b, iid, rid, why):
        user = staff(tok)
        if not iid or not rid:
            raise ValueError("choose an item and the edit to undo")
        rec = review.revert(ctx.store, user, current_item(ctx, b, iid), rid, why)
        tl, det, h, tr, undos, ok = saved(b, iid, f"undone: {rec.field} back to {_fmt(rec.new_value)} (by {user.name})")
        return tl, det, h, tr, undos, "", ok

    @guarded(2, 1)
    def on_next(tok, b, sf, af, iid):
        staff(tok)
        ids = [r[0] for r in queue_rows(ctx, b, sf, af or "")]
        if not ids:
            return gr.update(), ok_html("The queue is empty for these filters.")
        later = ids[ids.index(iid) + 1:] if iid in ids else ids
        return gr.update(value=(later or ids)[0]), ""

    @guarded(4, 3)
    def on_status(tok, b, iid, s, c):
        user = staff(tok)
        if not iid:
            raise ValueError("choose an item first")
        review.set_status(ctx.store, user, ctx.item(b, iid), s, c)
        _p, _tl, det, _f, _c, h, _tr, _u = item_view(b, iid)
        return det, h, "", ok_html(f"{iid}: status {s} (by {user.name})")

    @guarded(2, 1)
    def on_pick(tok, b, value):
        staff(tok)
        return picked_item_update(ctx, b, value), ""

    @guarded(4, 3)
    def on_adj_pick(tok, b, value):
        staff(tok)
        key = picked(value)
        if not key:
            return gr.update(), gr.update(), gr.update(), ""
        upd = picked_item_update(ctx, b, value)
        html, dd = adj_view(b, key)
        return html, dd, upd, ""

    @guarded(7, 6)
    def on_resolve(tok, b, key, dec, why):
        user = staff(tok)
        if not key:
            raise ValueError("choose a dispute first")
        iid, kind, tid = key.split("|", 2)
        it = current_item(ctx, b, iid)
        verification.adjudicate(ctx.store, user, it, kind, tid, (dec or "").strip(), why)
        html, dd = adj_view(b)
        return (html, dd, "", "", trail_html(ctx.store.verifications(b, iid)),
                progress_html(verification.progress(ctx.store, ctx.dataset(b))),
                ok_html(f"{iid}: {kind} decided by {user.name}"))

    @guarded(7, 6)
    def on_reopen(tok, b, key, why):
        user = staff(tok)
        if not key:
            raise ValueError("choose a dispute first")
        iid, kind, tid = key.split("|", 2)
        verification.reopen(ctx.store, user, current_item(ctx, b, iid), tid, why)
        html, dd = adj_view(b, key)
        return (html, dd, "", "", trail_html(ctx.store.verifications(b, iid)),
                progress_html(verification.progress(ctx.store, ctx.dataset(b))),
                ok_html(f"{iid}: {kind} reopened by {user.name}"))

    @guarded(1, 0)
    def on_export(tok, b, f, name, only_verified):
        user = staff(tok)
        ds = review.apply_edits(ctx.dataset(b), ctx.store.reviews(b))
        if only_verified:
            ds = verification.verified_subset(ctx.store, ds)
        path = interchange.export(ds, f, export_root(ctx), (name or "").strip() or "review-export",
                                  ctx.store.responses(benchmark=b) if f in ("jsonl", "eaf", "vtt") else ())
        return ok_html(f"{user.name} exported {len(ds)} {b} item(s) as {f} to {path}")

    refresh_io = (on_refresh, [token, bench, status_f, annot_f],
                  [queue, item, annot_f, msg, adj_queue, dispute, progress])
    for trig in (refresh.click, bench.change, status_f.change, annot_f.change):
        trig(*refresh_io, api_name="review_queue" if trig == refresh.click else None,
             api_visibility="public" if trig == refresh.click else "private", **IN_ORDER["review"])
    item.change(on_item, [token, bench, item], [player, timeline, details, field, current, hist, trail, undo_pick, msg],
                api_name="review_item")
    field.input(on_field, [token, bench, item, field], [current, msg], api_name="review_field")
    snap = ("(id) => { const P = window.ibPlayer; if (!P) return ''; let c = P.capture(id);"
            " if (!c || !c.fresh) c = P.snapshot(id, 'playhead'); c.fresh = false; return c.t.toFixed(3); }")
    use_time.click(None, None, [value], js=f"() => ({snap})('{VIDEO_ID}')")
    adj_time.click(None, None, [decision], js=f"() => ({snap})('{VIDEO_ID}')")
    drag_apply.click(None, None, [drag], js=f"() => (window.ibTimeline ? window.ibTimeline.take('{VIDEO_ID}', 'drag') : '')")
    drag.change(on_drag, [token, bench, item, drag], [field, current, value, msg], api_visibility="private")
    save.click(on_save, [token, bench, item, field, value, reason],
               [timeline, details, current, hist, trail, undo_pick, value, reason, msg], api_name="review_edit")
    undo.click(on_undo, [token, bench, item, undo_pick, reason], [timeline, details, hist, trail, undo_pick, reason, msg],
               api_name="review_undo")
    set_status.click(on_status, [token, bench, item, status, comment], [details, hist, comment, msg],
                     api_name="review_status")
    pick.change(on_pick, [token, bench, pick], [item, msg], api_visibility="private")
    nxt.click(on_next, [token, bench, status_f, annot_f, item], [item, msg], api_name="review_next")
    adj_pick.change(on_adj_pick, [token, bench, adj_pick], [adj_queue, dispute, item, msg], api_visibility="private")
    resolve.click(on_resolve, [token, bench, dispute, decision, adj_reason],
                  [adj_queue, dispute, decision, adj_reason, trail, progress, msg], api_name="review_adjudicate")
    reopen.click(on_reopen, [token, bench, dispute, adj_reason],
                 [adj_queue, dispute, decision, adj_reason, trail, progress, msg], api_name="review_reopen")
    do_export.click(on_export, [token, bench, fmt, out_name, verified_only], [export_msg], api_name="review_export")
    return refresh_io
