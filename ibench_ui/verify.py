"""Verify tab (every signed-in role) and Agreement tab.

Blind trigger: the page shows the recording and the request, never the proposed time; the mark is
stored first and only then compared. Prefix walk: one interval at a time (default 1 s) with that
interval's frames and a button that plays it (sound included); any interval that already satisfies
the request fails the item. Handlers act only as the token's user and read only their records."""
from __future__ import annotations

from typing import Optional

import gradio as gr

from annotation import auth, verification
from annotation.model import Item
from ibench_ui.auth_ui import guarded, ok_html
from ibench_ui.context import AppContext
from ibench_ui.player import build_controls, timeline_html
from ibench_ui.render import esc, fmt_time, table_html, video_html
from ibench_ui.review import current_item

VIDEO_ID = "verify-video"


def request_html(item: Optional[Item]) -> str:
    if item is None:
        return ""
    view = verification.blind_view(item)
    when = ("standing request (from the start)" if view["request_time"] is None
            else f"posed at {fmt_time(view['request_time'])} ({view['modality']})")
    return (f'<div id="verify-request-text" class="ib-request"><b>Request</b> — {esc(when)}:<br>'
            f'<span class="ib-request-body">{esc(view["request_text"])}</span></div>'
            '<p style="font-size:.9em">Mark the <b>earliest moment the requested event is unambiguously '
            'observable</b>. The proposed time is shown only after you submit.</p>')


def reveal_html(r: Optional[dict]) -> str:
    if r is None:
        return '<div id="verify-reveal-pending">Not submitted yet.</div>'
    return (f'<div id="verify-reveal-result" data-delta="{r["delta"]:.3f}"><b>Your mark:</b> {r["mark"]:.3f} s '
            f'({esc(r["unit"])}) · <b>proposed:</b> {r["proposed"]:.3f} s · <b>Δ = {r["delta"]:+.3f} s</b></div>')


def prefix_html(state: Optional[dict]) -> str:
    if state is None:
        return '<div id="verify-prefix-none">Start the walk after your blind mark.</div>'
    total, done = state["total"], state["done"]
    if state["status"] == "fail":
        hits = ", ".join(f"{h:g} s" for h in state["hits"])
        return (f'<div id="verify-prefix-result" data-status="fail"><b>Prefix fails</b>: the request is already '
                f'satisfied at {esc(hits)}; the item is flagged for exclusion.</div>')
    if state["status"] == "pass":
        return (f'<div id="verify-prefix-result" data-status="pass"><b>Prefix passes</b>: {total} interval(s) '
                'checked, none satisfies the request.</div>')
    s, e = state["next"]
    return (f'<div id="verify-prefix-current" data-start="{s:.3f}" data-end="{e:.3f}">Interval {done + 1} of {total}: '
            f'<b>{fmt_time(s)} – {fmt_time(e)}</b>. Does anything in this interval already satisfy the request?</div>')


def interval_frames(item: Item, start: float, end: float, n: int = 3) -> list:
    """A few frames spread over [start, end) for the still view (empty when the video cannot be read)."""
    if not item.stream.video_path:
        return []
    try:
        from runners.sampling import FrameSampler, SamplingError
    except ImportError:
        return []
    try:
        with FrameSampler(item.stream.video_path, max_long_side=320) as fs:
            out = []
            for k in range(n):
                t = start + (end - start) * (k + 0.5) / n
                ft, img = fs.frame_at(t)
                out.append((img, f"{ft:.2f} s"))
            return out
    except (SamplingError, OSError, ValueError):
        return []


def build_verify(ctx: AppContext, token: gr.State):
    """Lay out the Verify sub-tab; returns (fn, inputs, outputs) that refreshes it after sign-in."""
    benchmarks = ctx.benchmarks()
    with gr.Row():
        bench = gr.Dropdown(benchmarks, value=benchmarks[0], label="Benchmark", elem_id="verify-benchmark")
        item = gr.Dropdown([], value=None, label="Item", elem_id="verify-item", allow_custom_value=True)
        event = gr.Dropdown([], value=None, label="Event", elem_id="verify-event", allow_custom_value=True)
    msg = gr.HTML("", elem_id="verify-msg", js_on_load=None)
    with gr.Row():
        with gr.Column(scale=3):
            player = gr.HTML(video_html(None, VIDEO_ID), elem_id="verify-player", js_on_load=None)
            bar = gr.HTML(timeline_html(None, VIDEO_ID, show_targets=False), elem_id="verify-bar", js_on_load=None)
            build_controls(VIDEO_ID, with_targets=False)
        with gr.Column(scale=2):
            req = gr.HTML("", elem_id="verify-request", js_on_load=None)
            unit = gr.Radio(list(verification.UNITS), value="second", label="Mark to the", elem_id="verify-unit")
            with gr.Row():
                mark = gr.Textbox(label="Mark (seconds)", elem_id="verify-mark", scale=3)
                use_time = gr.Button("Use player time", size="sm", elem_id="verify-use-time", scale=1)
            submit = gr.Button("Submit blind mark", variant="primary", elem_id="verify-submit")
            reveal = gr.HTML(reveal_html(None), elem_id="verify-reveal", js_on_load=None)
    gr.Markdown("#### Silence-prefix walk")
    cur = gr.State(None)
    with gr.Row():
        start = gr.Button("Start / resume prefix walk", elem_id="verify-prefix-start")
        play = gr.Button("▶ Play this interval", elem_id="verify-prefix-play")
        clear = gr.Button("Not satisfied yet → next", elem_id="verify-prefix-clear")
        hit = gr.Button("Already satisfied here", variant="stop", elem_id="verify-prefix-hit")
    pstate = gr.HTML(prefix_html(None), elem_id="verify-prefix-state", js_on_load=None)
    frames = gr.Gallery(label="Frames of this interval", columns=3, height=200, elem_id="verify-prefix-frames")

    def who(tok):
        return auth.require(ctx.store, tok, auth.ANYONE)

    @guarded(2, 1)
    def on_refresh(tok, b):
        who(tok)
        ds = ctx.dataset(b)
        ids = [it.id for it in ds.items if verification.timed_targets(it)]
        return gr.update(choices=ids, value=ids[0] if ids else None), ""

    @guarded(8, 7)
    def on_item(tok, b, iid):
        user = who(tok)
        if not iid:
            return (video_html(None, VIDEO_ID), timeline_html(None, VIDEO_ID, False), "",
                    gr.update(choices=[], value=None), reveal_html(None), prefix_html(None), None, "")
        it = current_item(ctx, b, iid)
        events = [(label, k) for k, label in enumerate(verification.blind_view(it)["events"])]
        return (video_html(it, VIDEO_ID), timeline_html(it, VIDEO_ID, show_targets=False), request_html(it),
                gr.update(choices=events, value=0 if events else None),
                reveal_html(verification.reveal(ctx.store, user, it, 0) if events else None), prefix_html(None),
                None, "")

    @guarded(2, 1)
    def on_event(tok, b, iid, ev):
        user = who(tok)
        if not iid or ev is None:
            return reveal_html(None), ""
        return reveal_html(verification.reveal(ctx.store, user, current_item(ctx, b, iid), int(ev))), ""

    @guarded(2, 1)
    def on_submit(tok, b, iid, ev, t, u):
        user = who(tok)
        if not iid or ev is None:
            raise ValueError("choose an item and an event first")
        if t in (None, ""):
            raise ValueError("enter the mark in seconds (or press 'Use player time')")
        it = current_item(ctx, b, iid)
        v = verification.submit_mark(ctx.store, user, it, int(ev), float(t), u)
        return reveal_html(verification.reveal(ctx.store, user, it, int(ev))), ok_html(
            f"{user.name}: mark {v.value['t']:.3f} s stored for {iid} event {int(ev) + 1}.")

    def walk_view(it: Item, state: dict):
        nxt = state.get("next")
        pics = interval_frames(it, *nxt) if nxt else []
        return prefix_html(state), pics, (nxt[0] if nxt else None)

    @guarded(4, 3)
    def on_start(tok, b, iid):
        user = who(tok)
        if not iid:
            raise ValueError("choose an item first")
        it = current_item(ctx, b, iid)
        state = verification.start_prefix(ctx.store, user, it)
        if not state["total"] and state["status"] == "pass":
            return (prefix_html(state), [], None, ok_html("The response window opens at the request: there is no "
                                                          "prefix to check."))
        return (*walk_view(it, state), "")

    def on_mark(satisfied: bool):
        @guarded(4, 3)
        def handler(tok, b, iid, s):
            user = who(tok)
            if not iid or s is None:
                raise ValueError("start the prefix walk first")
            it = current_item(ctx, b, iid)
            state = verification.mark_interval(ctx.store, user, it, float(s), satisfied)
            return (*walk_view(it, state), "")
        return handler

    refresh_io = (on_refresh, [token, bench], [item, msg])
    bench.change(*refresh_io, api_visibility="private")
    item.change(on_item, [token, bench, item], [player, bar, req, event, reveal, pstate, cur, msg],
                api_name="verify_item")
    event.change(on_event, [token, bench, item, event], [reveal, msg], api_name="verify_reveal")
    use_time.click(None, None, [mark], js=f"() => String(window.ibPlayer ? window.ibPlayer.now('{VIDEO_ID}') : '')")
    submit.click(on_submit, [token, bench, item, event, mark, unit], [reveal, msg], api_name="verify_submit")
    start.click(on_start, [token, bench, item], [pstate, frames, cur, msg], api_name="prefix_start")
    clear.click(on_mark(False), [token, bench, item, cur], [pstate, frames, cur, msg], api_name="prefix_clear")
    hit.click(on_mark(True), [token, bench, item, cur], [pstate, frames, cur, msg], api_name="prefix_hit")
    play.click(None, None, None, js="() => { const el = document.getElementById('verify-prefix-current');"
               f" if (el && window.ibPlayer) window.ibPlayer.playRange('{VIDEO_ID}', parseFloat(el.dataset.start),"
               " parseFloat(el.dataset.end)); }")
    return refresh_io


def _f(x: Optional[float], pct: bool = False) -> str:
    if x is None:
        return "–"
    return f"{100 * x:.0f}%" if pct else f"{x:.3f}"


def agreement_html(reports) -> str:
    parts = []
    for rep in reports:
        head = ["rater", "vs", "n", "mean |Δ| s", "≤0 s", "≤1 s", "≤2 s", "Cohen κ", "Krippendorff α", "seconds"]
        rows = [(p.a, p.b, p.deltas.n, _f(p.deltas.mean_abs), _f(p.deltas.within0, True), _f(p.deltas.within1, True),
                 _f(p.deltas.within2, True), _f(p.kappa), _f(p.alpha), p.n_seconds) for p in rep.vs_proposed + rep.pairs]
        parts.append(f"<h4>{esc(rep.benchmark)}</h4>")
        parts.append(table_html(head, rows, f"agreement-{rep.benchmark}") if rows else "<p>No blind marks yet.</p>")
        if rep.alpha_all is not None:
            parts.append(f'<p>Krippendorff α over all annotators: <b id="agreement-alpha-{esc(rep.benchmark)}">'
                         f"{rep.alpha_all:.3f}</b></p>")
    return "".join(parts)


def build_agreement(ctx: AppContext, token: gr.State) -> None:
    """Agreement per benchmark and per annotator pair; annotators see only their own row."""
    with gr.Row():
        bench = gr.Dropdown(["all", *ctx.benchmarks()], value="all", label="Benchmark", elem_id="agreement-benchmark")
        go = gr.Button("Compute agreement", elem_id="agreement-compute")
    out = gr.HTML("", elem_id="agreement-table", js_on_load=None)
    msg = gr.HTML("", elem_id="agreement-msg", js_on_load=None)

    @guarded(2, 1)
    def on_go(tok, b):
        user = auth.require(ctx.store, tok, auth.ANYONE)
        names = ctx.benchmarks() if b == "all" else [b]
        reports = [verification.agreement_report(ctx.store, user, ctx.dataset(n)) for n in names]
        return agreement_html(reports), ""

    go.click(on_go, [token, bench], [out, msg], api_name="agreement")
