"""Review tab (reviewers and admins): a filtered, clickable queue with per-annotator progress, the item on
the workbench timeline (windows and anchors draggable: a drag fills the edit form), edits of times/windows/
answers with a reason (every field an edit moves is recorded), undo through the audit trail, a status
with a comment, the verifications' audit trail, the adjudication queue, and export of the edited dataset.
The tab draws and wires; its queries and actions are ReviewService's, which re-checks the role each time."""
from __future__ import annotations

import datetime as _dt
import json
from types import SimpleNamespace
from typing import Callable

import gradio as gr

from annotation import interchange, review, verification
from annotation.model import Item
from ibench_ui.context import AppContext
from ibench_ui.guard import Events
from ibench_ui.handlers import IN_ORDER, ok_html, reports_to
from ibench_ui.render import esc, fmt_time, item_details_html, table_html, video_html
from ibench_ui.review_service import STATUS_FILTERS, ReviewItem, ReviewService, export_root
from ibench_ui.workbench_timeline import (build_controls, hidden_picker, pick_table, picked, picked_item_update,
                                          workbench_html)

VIDEO_ID = "review-video"
REVIEW_TIERS = [("targets", "targets"), ("marks", "verifiers' marks"), ("responses", "responses")]
SIGN_IN_HINT = "Sign in as a reviewer or admin to review items (User and Password above, then Sign in)."
# the player time for a box: the fresh capture (a key press) if any, else the playhead
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




def targets_table(it: Item) -> str:
    rows = []
    for t in it.targets:
        win = "–" if t.window is None else f"[{fmt_time(t.window[0])}, {fmt_time(t.window[1])}" \
                                             f"{']' if t.window_closed else ')'}"
        ref = t.reference if isinstance(t.reference, str) or t.reference is None else json.dumps(t.reference)
        rows.append((t.id, t.kind, fmt_time(t.anchor), win, ref))
    return table_html(["target", "kind", "time", "window", "reference answer"], rows, "review-video-targets")


def details_html(view: ReviewItem) -> str:
    """The item's status and prefix check, its request and targets."""
    return (f'<div data-status="{esc(view.status)}" id="review-current-status">Status: <b>{esc(view.status)}</b> · '
            f'prefix: <b>{esc(view.prefix)}</b></div>' + item_details_html(view.item) + targets_table(view.item))


def undo_choices(view: ReviewItem) -> list[tuple[str, str]]:
    def short(v):  # dropdown labels stay plain: times shown, text answers only named
        return _fmt(v) if isinstance(v, (int, float, list)) or v is None else "(text)"
    return [(f"{when(r.created)} {r.field}: {short(r.old_value)} → {short(r.new_value)} by {r.user}", r.id)
            for r in view.undoable]


def timeline_html(view: ReviewItem) -> str:
    return workbench_html(view.item, VIDEO_ID, editable_fields=view.fields, marks=view.marks, tiers=REVIEW_TIERS)


def build_review(ctx: AppContext, events: Events) -> Callable[[Callable], None]:
    """Lay out the Review sub-tab over a ReviewService; returns `refresh_on(trigger)`, which refreshes the
    queue on one more trigger (the sign-in)."""
    svc = ReviewService(ctx)
    ui = SimpleNamespace(token=events.token)
    _queue_panel(ctx, ui)
    with gr.Row():
        with gr.Column(scale=3):
            ui.player = gr.HTML(f'<div class="ib-novideo" id="{VIDEO_ID}-empty">{SIGN_IN_HINT}</div>',
                                elem_id="review-player", js_on_load=None)
            ui.timeline = gr.HTML(workbench_html(None, VIDEO_ID), elem_id="review-timeline", js_on_load=None)
            build_controls(VIDEO_ID, with_targets=True)
        with gr.Column(scale=2):
            _edit_panel(ui)
    gr.Markdown("#### History of this item")
    ui.hist = gr.HTML("", elem_id="review-history", js_on_load=None)
    gr.Markdown("#### Verification audit trail")
    ui.trail = gr.HTML("", elem_id="review-trail", js_on_load=None)
    _adjudication_panel(ui)
    with gr.Accordion("Progress per annotator", open=False):
        ui.progress = gr.HTML("", elem_id="review-progress", js_on_load=None)
    _export_panel(ui)
    refresh_on = _wire_queue(events, svc, ui)
    _wire_edits(events, svc, ui)
    _wire_adjudication(events, svc, ui)
    return refresh_on


def _queue_panel(ctx: AppContext, ui) -> None:
    benchmarks = ctx.benchmarks()
    with gr.Row():
        ui.bench = gr.Dropdown(benchmarks, value=benchmarks[0], label="Benchmark", elem_id="review-benchmark")
        ui.status_f = gr.Dropdown(STATUS_FILTERS, value="all", label="Status", elem_id="review-status-filter")
        ui.annot_f = gr.Dropdown([("any", "")], value="", label="Verified by", elem_id="review-annotator-filter",
                                 allow_custom_value=True)
        ui.refresh = gr.Button("Refresh queue", elem_id="review-refresh")
    ui.queue = gr.HTML("", elem_id="review-queue", js_on_load=None)
    ui.pick = hidden_picker("review")
    with gr.Row():
        ui.item = gr.Dropdown([], value=None, label="Item", elem_id="review-item", allow_custom_value=True, scale=4)
        ui.nxt = gr.Button("Next in queue (j)", size="sm", elem_id="review-next", scale=1)
    ui.msg = gr.HTML(f'<div class="ib-warn" id="review-signin-hint" role="status">{SIGN_IN_HINT}</div>',
                     elem_id="review-msg", js_on_load=None)


def _edit_panel(ui) -> None:
    ui.details = gr.HTML("", elem_id="review-details", js_on_load=None)
    ui.field = gr.Dropdown([], value=None, label="Field", elem_id="review-field", allow_custom_value=True)
    ui.current = gr.Textbox(label="Current value", interactive=False, elem_id="review-current")
    with gr.Row():
        ui.value = gr.Textbox(label="New value (seconds, MM:SS, 'start, end', or text)", elem_id="review-value",
                              scale=3)
        ui.use_time = gr.Button("Use player time", size="sm", elem_id="review-use-time", scale=1)
    ui.drag = gr.Textbox(elem_id="review-drag-box", elem_classes=["ib-hidden"], show_label=False, container=False)
    ui.drag_apply = gr.Button("drag", elem_id="review-drag-apply", elem_classes=["ib-hidden"])
    ui.reason = gr.Textbox(label="Reason", elem_id="review-reason")
    ui.save = gr.Button("Save edit", variant="primary", elem_id="review-save")
    with gr.Row():
        ui.undo_pick = gr.Dropdown([], value=None, label="Undo an edit", elem_id="review-undo-pick", scale=3)
        ui.undo = gr.Button("Undo edit", size="sm", elem_id="review-undo", scale=1)
    ui.status = gr.Radio(list(review.STATUSES), label="Status", elem_id="review-status")
    ui.comment = gr.Textbox(label="Comment", elem_id="review-comment")
    ui.set_status = gr.Button("Set status", elem_id="review-set-status")


def _adjudication_panel(ui) -> None:
    with gr.Accordion("Adjudication queue (marks > 0.5 s apart, any prefix disagreement)", open=True,
                      elem_id="adjudication-box"):
        ui.adj_queue = gr.HTML("", elem_id="adjudication-queue", js_on_load=None)
        ui.adj_pick = hidden_picker("adjudicate")
        with gr.Row():
            ui.dispute = gr.Dropdown([], value=None, label="Dispute", elem_id="adjudicate-dispute", scale=3)
            ui.decision = gr.Textbox(label="Decision (seconds for an event; pass / fail for a prefix)",
                                     elem_id="adjudicate-decision", scale=2)
            ui.adj_time = gr.Button("Use player time", size="sm", elem_id="adjudicate-use-time", scale=1)
        ui.adj_reason = gr.Textbox(label="Reason for the decision", elem_id="adjudicate-reason")
        with gr.Row():
            ui.resolve = gr.Button("Decide (final)", variant="primary", elem_id="adjudicate-resolve")
            ui.reopen = gr.Button("Reopen the decision", elem_id="adjudicate-reopen")


def _export_panel(ui) -> None:
    with gr.Accordion("Export (with review edits)", open=False):
        with gr.Row():
            ui.fmt = gr.Dropdown(list(interchange.FORMATS), value="native", label="Format",
                                 elem_id="review-export-format")
            ui.out_name = gr.Textbox(label="Name (inside the exports folder)", value="review-export",
                                     elem_id="review-export-name")
            ui.verified_only = gr.Checkbox(label="Prefix-verified items only", elem_id="review-export-verified")
            ui.do_export = gr.Button("Export", elem_id="review-export-button")
        ui.export_msg = gr.HTML("", elem_id="review-export-msg", js_on_load=None)


def _disputes_out(ui, d) -> dict:
    return {ui.adj_queue: disputes_html(d.queue, d.selected or ""),
            ui.dispute: gr.update(choices=d.choices, value=d.selected)}


def _wire_queue(events: Events, svc: ReviewService, ui) -> Callable[[Callable], None]:
    """The queue's refresh (on its filters, and on `refresh_on`'s trigger), next and a clicked row."""
    @reports_to(ui.msg)
    def on_refresh(tok, b, sf, af):
        q = svc.queue(tok, b, sf, af)
        ids = [r[0] for r in q.rows]
        return {ui.queue: pick_table(["item", "kind", "status", "prefix", "open disputes", "verified by"],
                                     [(r[0], *r) for r in q.rows], "review-queue-table", "review-pick-apply"),
                ui.item: gr.update(choices=[(f"{r[0]} · {r[2]}", r[0]) for r in q.rows], value=ids[0] if ids else None),
                ui.annot_f: gr.update(choices=[("any", "")] + [(n, n) for n in q.annotators]), ui.msg: "",
                **_disputes_out(ui, q.disputes), ui.progress: progress_html(q.progress)}

    @reports_to(ui.msg)
    def on_next(tok, b, sf, af, iid):
        nid = svc.next_item(tok, b, sf, af, iid)
        if nid is None:
            return {ui.msg: ok_html("The queue is empty for these filters.")}
        return {ui.item: gr.update(value=nid), ui.msg: ""}

    @reports_to(ui.msg)
    def on_pick(tok, b, value):
        svc.staff(tok)
        return {ui.item: picked_item_update(svc.ctx, b, value), ui.msg: ""}

    inputs = [ui.token, ui.bench, ui.status_f, ui.annot_f]
    outputs = [ui.queue, ui.item, ui.annot_f, ui.msg, ui.adj_queue, ui.dispute, ui.progress]

    def refresh_on(trigger, **kw):
        events.on(trigger, on_refresh, inputs, outputs, **IN_ORDER["review"], **kw)

    refresh_on(ui.refresh.click, api_name="review_queue", api_visibility="public")
    for trigger in (ui.bench.change, ui.status_f.change, ui.annot_f.change):
        refresh_on(trigger, api_name=None, api_visibility="private")
    events.on(ui.pick.change, on_pick, [ui.token, ui.bench, ui.pick], [ui.item, ui.msg],
              api_visibility="private")
    events.on(ui.nxt.click, on_next, [*inputs, ui.item], [ui.item, ui.msg], api_name="review_next")
    return lambda trigger: refresh_on(trigger, api_visibility="private")


def _wire_edits(events: Events, svc: ReviewService, ui) -> None:
    """The item's view, a field's value, a timeline drag, save, undo and the status."""
    def item_out(view: ReviewItem) -> dict:  # after a change: the player keeps its position
        return {ui.timeline: timeline_html(view), ui.details: details_html(view),
                ui.hist: history_html(view.history), ui.trail: trail_html(view.trail),
                ui.undo_pick: gr.update(choices=undo_choices(view), value=None)}

    @reports_to(ui.msg)
    def on_item(tok, b, iid):
        if not iid:
            svc.staff(tok)
            return {ui.player: video_html(None, VIDEO_ID), ui.timeline: workbench_html(None, VIDEO_ID),
                    ui.details: "", ui.field: gr.update(choices=[], value=None), ui.current: "", ui.hist: "",
                    ui.trail: "", ui.undo_pick: gr.update(choices=[], value=None), ui.msg: ""}
        view = svc.item(tok, b, iid)
        return {**item_out(view), ui.player: video_html(view.item, VIDEO_ID),
                ui.field: gr.update(choices=view.fields, value=view.field),
                ui.current: _fmt(view.value) if view.field else "", ui.msg: ""}

    @reports_to(ui.msg)
    def on_field(tok, b, iid, f):
        if not (iid and f):
            svc.staff(tok)
            return {ui.current: "", ui.msg: ""}
        return {ui.current: _fmt(svc.field_value(tok, b, iid, f)), ui.msg: ""}

    @reports_to(ui.msg)
    def on_drag(tok, b, iid, payload):
        if not (iid and payload):
            svc.staff(tok)
            return {ui.msg: ""}
        f, cur, v = svc.drag(tok, b, iid, payload)
        return {ui.field: gr.update(value=f), ui.current: _fmt(cur), ui.value: v,
                ui.msg: ok_html(f"{f} → {v}: give a reason and save (or press Esc and pick again)")}

    @reports_to(ui.msg)
    def on_save(tok, b, iid, f, v, why):
        done = svc.edit(tok, b, iid, f, v, why)
        rec = done.record
        return {**item_out(done.view), ui.current: _fmt(rec.new_value), ui.value: "", ui.reason: "",
                ui.msg: ok_html(f"{rec.field}: {_fmt(rec.old_value)} → {_fmt(rec.new_value)} (by {done.user.name})")}

    @reports_to(ui.msg)
    def on_undo(tok, b, iid, rid, why):
        done = svc.undo(tok, b, iid, rid, why)
        return {**item_out(done.view), ui.reason: "",
                ui.msg: ok_html(f"undone: {done.record.field} back to {_fmt(done.record.new_value)} "
                                f"(by {done.user.name})")}

    @reports_to(ui.msg)
    def on_status(tok, b, iid, s, c):
        done = svc.set_status(tok, b, iid, s, c)
        return {ui.details: details_html(done.view), ui.hist: history_html(done.view.history), ui.comment: "",
                ui.msg: ok_html(f"{iid}: status {s} (by {done.user.name})")}

    at = [ui.token, ui.bench, ui.item]
    changed = [ui.timeline, ui.details, ui.hist, ui.trail, ui.undo_pick]
    events.on(ui.item.change, on_item, at, [ui.player, *changed, ui.field, ui.current, ui.msg],
              api_name="review_item")
    events.on(ui.field.input, on_field, [*at, ui.field], [ui.current, ui.msg],
              api_name="review_field")
    ui.use_time.click(None, None, [ui.value], js=f"() => window.ibTimeline.useTime('{VIDEO_ID}')")
    ui.adj_time.click(None, None, [ui.decision], js=f"() => window.ibTimeline.useTime('{VIDEO_ID}')")
    ui.drag_apply.click(None, None, [ui.drag],
                        js=f"() => window.ibTimeline.take('{VIDEO_ID}', 'drag')")
    events.on(ui.drag.change, on_drag, [*at, ui.drag], [ui.field, ui.current, ui.value, ui.msg],
              api_visibility="private")
    events.on(ui.save.click, on_save, [*at, ui.field, ui.value, ui.reason],
              [*changed, ui.current, ui.value, ui.reason, ui.msg], api_name="review_edit")
    events.on(ui.undo.click, on_undo, [*at, ui.undo_pick, ui.reason], [*changed, ui.reason, ui.msg],
              api_name="review_undo")
    events.on(ui.set_status.click, on_status, [*at, ui.status, ui.comment], [ui.details, ui.hist, ui.comment, ui.msg],
              api_name="review_status")


def _wire_adjudication(events: Events, svc: ReviewService, ui) -> None:
    """A clicked dispute, deciding and reopening it, and the export."""
    def decided_out(d, verb: str) -> dict:
        return {**_disputes_out(ui, d.disputes), ui.decision: "", ui.adj_reason: "",
                ui.trail: trail_html(d.trail), ui.progress: progress_html(d.progress),
                ui.msg: ok_html(f"{d.item_id}: {d.kind} {verb} by {d.user.name}")}

    @reports_to(ui.msg)
    def on_adj_pick(tok, b, value):
        key = picked(value)
        if not key:
            svc.staff(tok)
            return {ui.msg: ""}
        shown = svc.disputes(tok, b, key)
        return {**_disputes_out(ui, shown), ui.item: picked_item_update(svc.ctx, b, value), ui.msg: ""}

    @reports_to(ui.msg)
    def on_resolve(tok, b, key, dec, why):
        return decided_out(svc.adjudicate(tok, b, key, dec, why), "decided")

    @reports_to(ui.msg)
    def on_reopen(tok, b, key, why):
        return decided_out(svc.reopen(tok, b, key, why), "reopened")

    @reports_to(ui.export_msg)
    def on_export(tok, b, f, name, only_verified):
        user, n, path = svc.export(tok, b, f, name, only_verified)
        shown = path.relative_to(export_root(svc.ctx).parent).as_posix()  # no absolute server path on a page
        return {ui.export_msg: ok_html(f"{user.name} exported {n} {b} item(s) as {f} to {shown} "
                                       "(beside the store)")}

    decided = [ui.adj_queue, ui.dispute, ui.decision, ui.adj_reason, ui.trail, ui.progress, ui.msg]
    events.on(ui.adj_pick.change, on_adj_pick, [ui.token, ui.bench, ui.adj_pick],
              [ui.adj_queue, ui.dispute, ui.item, ui.msg], api_visibility="private")
    events.on(ui.resolve.click, on_resolve, [ui.token, ui.bench, ui.dispute, ui.decision, ui.adj_reason], decided,
              api_name="review_adjudicate")
    events.on(ui.reopen.click, on_reopen, [ui.token, ui.bench, ui.dispute, ui.adj_reason], decided,
              api_name="review_reopen")
    events.on(ui.do_export.click, on_export, [ui.token, ui.bench, ui.fmt, ui.out_name, ui.verified_only],
              [ui.export_msg], api_name="review_export")
