"""Compare tab: one item, any set of responders (each participant, each model run or live model sitting), an
interactive timeline with one lane per responder (a person and a model never share one) and every response coloured by its verdict under the benchmark's rules; clicking a point
seeks the video there. Links of the form ?view=compare&benchmark=..&responders=..&item=.. open it."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional, Sequence

import gradio as gr

from annotation.auth import STAFF
from ibench_ui.context import AppContext
from ibench_ui.guard import Events
from ibench_ui.render import esc, video_html
from ibench_ui.static_route import script_tags
from runners.report import (LABEL_COLORS, item_lanes, lane_counts, responders, timeline_figure, timeline_png,
                            _safe)

VIDEO_ID = "compare-video"
MAX_DEFAULT_LANES = 6

def responder_choices(ctx: AppContext, benchmark: str) -> list[tuple[str, str]]:
    ds = ctx.dataset(benchmark)
    return [(f"{r.label} ({len(r.item_ids)} items)", r.key) for r in responders(ctx.store, benchmark, ds, pooled=False)]


def item_choices(ctx: AppContext, benchmark: str) -> list[tuple[str, str]]:
    """Items, those some responder covers marked with the number of responders."""
    ds = ctx.dataset(benchmark)
    cover: dict[str, int] = {}
    for r in responders(ctx.store, benchmark, ds, pooled=False):
        for i in r.item_ids:
            cover[i] = cover.get(i, 0) + 1
    return [(f"{it.id} · {it.kind}" + (f" · {cover[it.id]} responder(s)" if it.id in cover else ""), it.id)
            for it in ds.items]


def default_selection(ctx: AppContext, benchmark: str, item_id: Optional[str] = None) -> tuple[Optional[str], list[str]]:
    """An item some human answered (else any covered item, else the first) and the responders covering it."""
    ds = ctx.dataset(benchmark)
    rs = responders(ctx.store, benchmark, ds, pooled=False)
    if item_id is None or item_id not in ds:
        human = [i for r in rs if r.kind == "human" for i in r.item_ids]
        anyone = [i for r in rs for i in r.item_ids]
        item_id = next((it.id for it in ds.items if it.id in set(human)), None) or \
            next((it.id for it in ds.items if it.id in set(anyone)), None) or (ds.items[0].id if ds.items else None)
    keys = [r.key for r in rs if item_id in r.item_ids][:MAX_DEFAULT_LANES]
    return item_id, keys


def lanes_html(ctx: AppContext, benchmark: str, lanes) -> str:
    """Legend-like summary under the plot: one row per lane with its verdict counts (coloured chips)."""
    if not lanes:
        return '<div id="compare-lanes"><p>Choose one or more responders.</p></div>'
    rows = []
    for ln, (label, counts) in zip(lanes, lane_counts(lanes, benchmark)):
        chips = " ".join(f'<span class="ib-chip" style="background:{LABEL_COLORS.get(k, "#888")}">'
                         f'{esc(k)}: {v}</span>' for k, v in counts.items()) or "<i>no responses</i>"
        if not ln.covered:
            chips = "<i>this responder did not cover this item</i>"
        else:
            chips += " " + " ".join(f'<span class="ib-lane-score" data-measure="{esc(k)}">{esc(k)} {esc(_fmt(v))}</span>'
                                    for k, v in ln.score if v is not None and not isinstance(v, (dict, list)))
        rows.append(f'<div class="ib-lane" data-responder="{esc(ln.responder.key)}" data-kind="{esc(ln.responder.kind)}">'
                    f'<b>{esc(label)}</b> <span class="ib-kind">({esc(ln.responder.kind)})</span> {chips}</div>')
    return '<div id="compare-lanes">' + "".join(rows) + "</div>"


def _fmt(v) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def render(ctx: AppContext, benchmark: str, item_id: Optional[str], keys: Sequence[str]):
    """(video html, plotly figure, lanes html) for the chosen item and responders."""
    ds = ctx.dataset(benchmark)
    if not item_id or item_id not in ds:
        return video_html(None, VIDEO_ID), None, lanes_html(ctx, benchmark, [])
    item = ds.get(item_id)
    lanes = item_lanes(ctx.store, ds, item_id, list(keys or []))
    return video_html(item, VIDEO_ID), timeline_figure(item, lanes), lanes_html(ctx, benchmark, lanes)


def export_timeline(ctx: AppContext, benchmark: str, item_id: Optional[str], keys: Sequence[str]) -> list[str]:
    """PNG and standalone HTML of the current timeline, written to a fresh temp folder for download."""
    ds = ctx.dataset(benchmark)
    if not item_id or item_id not in ds:
        raise gr.Error("Choose an item first.")
    item = ds.get(item_id)
    lanes = item_lanes(ctx.store, ds, item_id, list(keys or []))
    stem = Path(tempfile.mkdtemp(prefix="ibench-timeline-")) / f"{benchmark}__{_safe(item_id)}"
    html = stem.with_suffix(".html")
    timeline_figure(item, lanes).write_html(str(html), include_plotlyjs=True)
    return [str(timeline_png(item, lanes, stem.with_suffix(".png"))), str(html)]


def build_compare(ctx: AppContext, events: Events, demo: Optional[gr.Blocks] = None,
                  tabs: Optional[gr.Tabs] = None) -> None:
    """Lay out the Compare tab; with `demo` and `tabs`, a ?view=compare link opens and fills it. Responders,
    windows and reference text come only from role-checked events (each declares reviewers and
    admins), never from initial values, which anyone can read in /config."""
    first = ctx.benchmarks()[0]
    item0, keys0 = None, []
    with gr.Row():
        # locked until the page's load event has filled the tab (as in Browse): a benchmark chosen before the
        # load's reply would be left beside the first benchmark's items and responders
        bench = gr.Dropdown(ctx.benchmarks(), value=first, label="Benchmark", elem_id="compare-benchmark",
                            interactive=demo is None)
        item = gr.Dropdown([], value=item0, label="Item", elem_id="compare-item")
        refresh = gr.Button("Refresh", elem_id="compare-refresh", scale=0)
    who = gr.CheckboxGroup([], value=keys0, label="Responders (participants, model runs, live models)",
                           elem_id="compare-responders")
    video0, fig0, lanes0 = render(ctx, first, item0, keys0)
    with gr.Row():
        with gr.Column(scale=2):
            player = gr.HTML(video0, elem_id="compare-player", head=script_tags(["compare.js"]),
                             js_on_load="ibCompare.mount()")  # a click on a plotted response seeks the player
        with gr.Column(scale=3):
            lanes = gr.HTML(lanes0, elem_id="compare-lanes-box", js_on_load=None)
    plot = gr.Plot(fig0, elem_id="compare-plot", label="Timeline (click a response to seek the video)")
    with gr.Row():
        dl_btn = gr.Button("Download timeline (PNG + HTML)", elem_id="compare-export", scale=0)
        files = gr.File(label="Timeline files", file_count="multiple", elem_id="compare-files", interactive=False)

    def on_bench(b: str):
        iid, keys = default_selection(ctx, b)
        v, f, h = render(ctx, b, iid, keys)
        return (gr.update(choices=item_choices(ctx, b), value=iid),
                gr.update(choices=responder_choices(ctx, b), value=keys), v, f, h)

    def on_item(b: str, iid: str, keys: list[str]):
        return render(ctx, b, iid, keys)

    def on_refresh(b: str, iid: str, keys: list[str]):
        choices = responder_choices(ctx, b)
        valid = {k for _, k in choices}
        keys = [k for k in (keys or []) if k in valid]
        v, f, h = render(ctx, b, iid, keys)
        return gr.update(choices=item_choices(ctx, b), value=iid), gr.update(choices=choices, value=keys), v, f, h

    events.on(bench.input, on_bench, [bench], [item, who, player, plot, lanes], roles=STAFF)
    events.on(item.input, on_item, [bench, item, who], [player, plot, lanes], roles=STAFF)
    events.on(who.input, on_item, [bench, item, who], [player, plot, lanes], roles=STAFF)
    events.on(refresh.click, on_refresh, [bench, item, who], [item, who, player, plot, lanes], roles=STAFF)
    events.on(dl_btn.click, lambda b, i, k: export_timeline(ctx, b, i, k), [bench, item, who], [files], roles=STAFF)

    if demo is None:
        return

    def on_load(request: gr.Request):
        q = dict(request.query_params) if request is not None else {}
        b = q.get("benchmark")
        if q.get("view") != "compare" or b not in ctx.benchmarks():
            b0 = bench.value if isinstance(bench.value, str) else first
            iid, keys = default_selection(ctx, b0)
            v, f, h = render(ctx, b0, iid, keys)
            return (gr.update(interactive=True), gr.update(choices=item_choices(ctx, b0), value=iid),
                    gr.update(choices=responder_choices(ctx, b0), value=keys), v, f, h, gr.skip())
        choices = responder_choices(ctx, b)
        valid = {k for _, k in choices}
        keys = [k for k in (q.get("responders") or "").split(",") if k in valid]
        iid, default_keys = default_selection(ctx, b, q.get("item"))
        if not q.get("item"):
            ds = ctx.dataset(b)
            covered = {i for r in responders(ctx.store, b, ds, pooled=False) if r.key in keys for i in r.item_ids}
            iid = next((it.id for it in ds.items if it.id in covered), iid)
        keys = keys or default_keys
        v, f, h = render(ctx, b, iid, keys)
        return (gr.update(value=b, interactive=True), gr.update(choices=item_choices(ctx, b), value=iid),
                gr.update(choices=choices, value=keys), v, f, h,
                gr.Tabs(selected="compare") if tabs is not None else gr.skip())

    outs = [bench, item, who, player, plot, lanes] + ([tabs] if tabs is not None else [])
    def on_load_no_tabs(request: gr.Request):
        return on_load(request)[:-1]

    events.on(demo.load, on_load if tabs is not None else on_load_no_tabs, None, outs, roles=STAFF,
              api_visibility="private", show_progress="hidden")

    def on_sign_in(b: str, iid: str, keys: list[str]):
        """A sign-in unlocks the tab the load refused before it, keeping what is chosen (the benchmark's
        default item and responders when nothing is)."""
        return (gr.update(interactive=True), *(on_refresh(b, iid, keys) if iid else on_bench(b)))

    events.on(events.token.change, on_sign_in, [bench, item, who], [bench, item, who, player, plot, lanes],
              roles=STAFF, api_visibility="private", show_progress="hidden")
