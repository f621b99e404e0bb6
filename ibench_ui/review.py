"""Review tab (reviewers and admins): a filtered queue, the item's timeline under the video with
frame-accurate navigation, edits of times/windows/answers with a reason, a status with a comment,
the per-item audit trail, and export of the edited dataset. Every handler re-checks the role."""
from __future__ import annotations

import json
from pathlib import Path

import gradio as gr

from annotation import auth, interchange, review, verification
from annotation.edits import current_value, editable_fields
from annotation.model import Item
from ibench_ui.auth_ui import guarded, ok_html
from ibench_ui.context import AppContext
from ibench_ui.player import build_controls, timeline_html
from ibench_ui.render import esc, item_details_html, table_html, video_html

STATUS_FILTERS = ["all", "unreviewed", "accepted", "needs-fix", "rejected", "flagged"]
VIDEO_ID = "review-video"


def export_root(ctx: AppContext) -> Path:
    """Where the app writes exports: `exports/` next to the SQLite file (nothing outside it)."""
    return ctx.store.path.resolve().parent / "exports"


def current_item(ctx: AppContext, benchmark: str, item_id: str) -> Item:
    """The item as loaded, with every review edit applied."""
    return review.edited_item(ctx.item(benchmark, item_id), ctx.store.reviews(benchmark, item_id))


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, list):
        return ", ".join("" if x is None else f"{x:g}" if isinstance(x, (int, float)) else str(x) for x in v)
    if isinstance(v, float):
        return f"{v:g}"
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def history_html(records) -> str:
    rows = [(f"{r.created:.0f}", r.user, r.field, _fmt(r.old_value), _fmt(r.new_value), r.reason) for r in records]
    if not rows:
        return '<p id="review-history-empty">No review records yet.</p>'
    return table_html(["time (unix)", "who", "field", "old", "new", "reason / comment"], rows, "review-history-table")


def queue_rows(ctx: AppContext, benchmark: str, status_filter: str, annotator: str) -> list[tuple]:
    """(item, kind, review status, prefix check, verifiers) for the items that pass the filters."""
    ds = ctx.dataset(benchmark)
    st = review.statuses(ctx.store, benchmark)
    who: dict[str, set] = {}
    for v in ctx.store.verifications(benchmark):
        who.setdefault(v.item_id, set()).add(v.user)
    out = []
    for it in ds.items:
        status = st.get((benchmark, it.id), "unreviewed")
        prefix = verification.item_prefix_status(ctx.store, it)
        if status_filter == "flagged" and prefix != "fail":
            continue
        if status_filter not in ("all", "flagged") and status != status_filter:
            continue
        if annotator and annotator not in who.get(it.id, set()):
            continue
        out.append((it.id, it.kind, status, prefix, ", ".join(sorted(who.get(it.id, set())))))
    return out


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
    item = gr.Dropdown([], value=None, label="Item", elem_id="review-item", allow_custom_value=True)
    msg = gr.HTML("", elem_id="review-msg", js_on_load=None)
    with gr.Row():
        with gr.Column(scale=3):
            player = gr.HTML(video_html(None, VIDEO_ID), elem_id="review-player", js_on_load=None)
            timeline = gr.HTML(timeline_html(None, VIDEO_ID), elem_id="review-timeline", js_on_load=None)
            build_controls(VIDEO_ID, with_targets=True)
        with gr.Column(scale=2):
            details = gr.HTML("", elem_id="review-details", js_on_load=None)
            field = gr.Dropdown([], value=None, label="Field", elem_id="review-field", allow_custom_value=True)
            current = gr.Textbox(label="Current value", interactive=False, elem_id="review-current")
            with gr.Row():
                value = gr.Textbox(label="New value (seconds, MM:SS, 'start, end', or text)", elem_id="review-value",
                                   scale=3)
                use_time = gr.Button("Use player time", size="sm", elem_id="review-use-time", scale=1)
            reason = gr.Textbox(label="Reason", elem_id="review-reason")
            save = gr.Button("Save edit", variant="primary", elem_id="review-save")
            status = gr.Radio(list(review.STATUSES), label="Status", elem_id="review-status")
            comment = gr.Textbox(label="Comment", elem_id="review-comment")
            set_status = gr.Button("Set status", elem_id="review-set-status")
    gr.Markdown("#### History of this item")
    hist = gr.HTML("", elem_id="review-history", js_on_load=None)
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

    def item_view(b: str, iid: str):
        it = current_item(ctx, b, iid)
        fields = editable_fields(it)
        st = review.status_of(ctx.store.reviews(b, iid))
        return (video_html(it, VIDEO_ID), timeline_html(it, VIDEO_ID),
                f'<div data-status="{esc(st)}" id="review-current-status">Status: <b>{esc(st)}</b></div>'
                + item_details_html(it),
                gr.update(choices=fields, value=fields[0] if fields else None),
                _fmt(current_value(it, fields[0])) if fields else "", history_html(review.history(ctx.store, b, iid)))

    @guarded(4, 3)
    def on_refresh(tok, b, sf, af):
        staff(tok)
        rows = queue_rows(ctx, b, sf, af or "")
        names = sorted({v.user for v in ctx.store.verifications(b)})
        ids = [r[0] for r in rows]
        return (table_html(["item", "kind", "status", "prefix", "verified by"], rows, "review-queue-table"),
                gr.update(choices=[(f"{r[0]} · {r[2]}", r[0]) for r in rows], value=ids[0] if ids else None),
                gr.update(choices=[("any", "")] + [(n, n) for n in names]), "")

    @guarded(7, 6)
    def on_item(tok, b, iid):
        staff(tok)
        if not iid:
            return (video_html(None, VIDEO_ID), timeline_html(None, VIDEO_ID), "", gr.update(choices=[], value=None),
                    "", "", "")
        return (*item_view(b, iid), "")

    @guarded(2, 1)
    def on_field(tok, b, iid, f):
        staff(tok)
        if not (iid and f):
            return "", ""
        return _fmt(current_value(current_item(ctx, b, iid), f)), ""

    @guarded(7, 6)
    def on_save(tok, b, iid, f, v, why):
        user = staff(tok)
        if not iid or not f:
            raise ValueError("choose an item and a field first")
        rec = review.edit(ctx.store, user, current_item(ctx, b, iid), f, v, why)
        _p, tl, det, _fields, _cur, h = item_view(b, iid)  # the player keeps its position
        return (tl, det, _fmt(rec.new_value), h, "", "",
                ok_html(f"{rec.field}: {_fmt(rec.old_value)} → {_fmt(rec.new_value)} (by {user.name})"))

    @guarded(4, 3)
    def on_status(tok, b, iid, s, c):
        user = staff(tok)
        if not iid:
            raise ValueError("choose an item first")
        review.set_status(ctx.store, user, ctx.item(b, iid), s, c)
        _p, _tl, det, _f, _c, h = item_view(b, iid)
        return det, h, "", ok_html(f"{iid}: status {s} (by {user.name})")

    @guarded(1, 0)
    def on_export(tok, b, f, name, only_verified):
        user = staff(tok)
        ds = review.apply_edits(ctx.dataset(b), ctx.store.reviews(b))
        if only_verified:
            ds = verification.verified_subset(ctx.store, ds)
        path = interchange.export(ds, f, export_root(ctx), (name or "").strip() or "review-export",
                                  ctx.store.responses(benchmark=b) if f in ("jsonl", "eaf", "vtt") else ())
        return ok_html(f"{user.name} exported {len(ds)} {b} item(s) as {f} to {path}")

    refresh_io = (on_refresh, [token, bench, status_f, annot_f], [queue, item, annot_f, msg])
    for trig in (refresh.click, bench.change, status_f.change, annot_f.change):
        trig(*refresh_io, api_name="review_queue" if trig == refresh.click else None,
             api_visibility="public" if trig == refresh.click else "private")
    item.change(on_item, [token, bench, item], [player, timeline, details, field, current, hist, msg],
                api_name="review_item")
    field.change(on_field, [token, bench, item, field], [current, msg], api_name="review_field")
    use_time.click(None, None, [value], js=f"() => String(window.ibPlayer ? window.ibPlayer.now('{VIDEO_ID}') : '')")
    save.click(on_save, [token, bench, item, field, value, reason],
               [timeline, details, current, hist, value, reason, msg], api_name="review_edit")
    set_status.click(on_status, [token, bench, item, status, comment], [details, hist, comment, msg],
                     api_name="review_status")
    do_export.click(on_export, [token, bench, fmt, out_name, verified_only], [export_msg], api_name="review_export")
    return refresh_io
