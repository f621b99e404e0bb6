"""Compare tab: one item, any set of responders (each participant, each model run or live model sitting), an
interactive timeline with one lane per responder (a person and a model never share one) and every response coloured by its verdict under the benchmark's rules; clicking a point
seeks the video there. Links of the form ?view=compare&benchmark=..&responders=..&item=.. open it, as a new page or,
clicked in the Leaderboard, inside this page (leaderboard.js writes the link's query into a hidden box of the
Leaderboard, which build_compare's opener wires to this tab).
A study filter keeps one study's participants; choosing an item ticks exactly the responders who sat it. The tab
draws and wires; CompareService chooses and queries, checking the caller's role."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Optional
from urllib.parse import parse_qsl

import gradio as gr

from ibench_ui.compare_service import CompareService, Selection, View
from ibench_ui.context import AppContext
from ibench_ui.downloads import download_html
from ibench_ui.guard import Events
from ibench_ui.handlers import raises_shown
from ibench_ui.render import esc, figure_cells, video_html
from ibench_ui.static_route import script_tags
from runners.report import LABEL_COLORS, lane_counts, timeline_figure

VIDEO_ID = "compare-video"


def lanes_html(benchmark: str, lanes) -> str:
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
            chips += " " + " ".join(f'<span class="ib-lane-score" data-measure="{esc(k)}">{esc(k)} {esc(v)}</span>'
                                    for k, v in figure_cells(dict(ln.score)))
        rows.append(f'<div class="ib-lane" data-responder="{esc(ln.responder.key)}" data-kind="{esc(ln.responder.kind)}">'
                    f'<b>{esc(label)}</b> <span class="ib-kind">({esc(ln.responder.kind)})</span> {chips}</div>')
    return '<div id="compare-lanes">' + "".join(rows) + "</div>"


def render(view: View):
    """(video html, plotly figure or None, lanes html) of a view."""
    if view.item is None:
        return video_html(None, VIDEO_ID), None, lanes_html(view.benchmark, [])
    return (video_html(view.item, VIDEO_ID), timeline_figure(view.item, view.lanes),
            lanes_html(view.benchmark, view.lanes))


def build_compare(ctx: AppContext, events: Events, demo: Optional[gr.Blocks] = None,
                  tabs: Optional[gr.Tabs] = None) -> Callable[[gr.Textbox], None]:
    """Lay out the Compare tab over a CompareService; with `demo` and `tabs`, a ?view=compare link opens and
    fills it. Responders, windows and reference text come only from role-checked events (each declares
    reviewers and admins), never from initial values, which anyone can read in /config. Returns the opener:
    given a (hidden) textbox of another tab, a ?view=compare query written into it opens this tab in the page."""
    svc = CompareService(ctx)
    ui = SimpleNamespace(token=events.token, tabs=tabs)
    _choosers(ctx, ui, locked=demo is not None)
    _panels(ui, View(ctx.benchmarks()[0], None, []))
    _wire_choices(events, svc, ui)
    if demo is not None:
        _wire_opening(events, svc, ui, demo)
    return lambda box: _wire_in_page(events, svc, ui, box)


def _choosers(ctx: AppContext, ui, locked: bool) -> None:
    benchmarks = ctx.benchmarks()
    with gr.Row():
        # locked until the page's load event has filled the tab (as in Browse): a benchmark chosen before the
        # load's reply would be left beside the first benchmark's items and responders
        ui.bench = gr.Dropdown(benchmarks, value=benchmarks[0], label="Benchmark", elem_id="compare-benchmark",
                               interactive=not locked)
        ui.item = gr.Dropdown([], value=None, label="Item", elem_id="compare-item")
        ui.study = gr.Dropdown([("every responder", "")], value="", label="Study (humans from one study only)",
                               elem_id="compare-study")
        ui.refresh = gr.Button("Refresh", elem_id="compare-refresh", scale=0)
    ui.who = gr.CheckboxGroup([], value=[], label="Responders (participants, model runs, live models)",
                              elem_id="compare-responders")


def _panels(ui, empty: View) -> None:
    video0, fig0, lanes0 = render(empty)
    with gr.Row():
        with gr.Column(scale=2):
            ui.player = gr.HTML(video0, elem_id="compare-player", head=script_tags(["compare.js"]),
                                js_on_load="ibCompare.mount()")  # a click on a plotted response seeks the player
        with gr.Column(scale=3):
            ui.lanes = gr.HTML(lanes0, elem_id="compare-lanes-box", js_on_load=None)
    ui.plot = gr.Plot(fig0, elem_id="compare-plot", label="Timeline (click a response to seek the video)")
    with gr.Row():
        ui.export = gr.Button("Download timeline (PNG + HTML)", elem_id="compare-export", scale=0)
        ui.files = gr.HTML("", elem_id="compare-files", js_on_load=None)  # links carrying the files


def _shown(ui, view: View) -> dict:
    video, fig, lanes = render(view)
    return {ui.player: video, ui.plot: fig, ui.lanes: lanes}


def _selected(svc: CompareService, ui, tok: str, b: str, sel: Selection, study: str = "") -> dict:
    """The tab filled from a selection: the choosers, the player, the plot and the lanes."""
    return {ui.item: gr.update(choices=sel.items, value=sel.item_id),
            ui.who: gr.update(choices=sel.responders, value=sel.keys),
            ui.study: gr.update(choices=svc.studies(tok, b), value=study),
            **_shown(ui, svc.view(tok, b, sel.item_id, sel.keys))}


def _opened(svc: CompareService, ui, tok: str, q: dict) -> Optional[dict]:
    """The tab opened on a ?view=compare query (benchmark, responders, item, study), or None if it is none."""
    b = q.get("benchmark")
    if q.get("view") != "compare" or b not in svc.ctx.benchmarks():
        return None
    study = q.get("study") or ""
    sel = svc.select(tok, b, q.get("item") or None, (q.get("responders") or "").split(","), study)
    opened = {ui.bench: gr.update(value=b, interactive=True), **_selected(svc, ui, tok, b, sel, study)}
    return opened if ui.tabs is None else {**opened, ui.tabs: gr.Tabs(selected="compare")}


def _wire_choices(events: Events, svc: CompareService, ui) -> None:
    """A benchmark, an item or responders chosen, the choices refreshed, the timeline exported."""
    def on_bench(tok, b: str):
        return _selected(svc, ui, tok, b, svc.select(tok, b))

    def on_item(tok, b: str, iid: str, study: str):
        keys = svc.sitters(tok, b, iid, study)
        return {ui.who: gr.update(value=keys), **_shown(ui, svc.view(tok, b, iid, keys))}

    def on_who(tok, b: str, iid: str, keys: list[str]):
        return _shown(ui, svc.view(tok, b, iid, keys))

    def on_study(tok, b: str, iid: str, study: str):
        return _selected(svc, ui, tok, b, svc.select(tok, b, iid or None, None, study), study)

    def on_refresh(tok, b: str, iid: str, keys: list[str], study: str):
        return _selected(svc, ui, tok, b, svc.refresh(tok, b, iid, keys, study), study)

    chosen = [ui.token, ui.bench, ui.item, ui.who]
    shown = [ui.player, ui.plot, ui.lanes]
    filled = [ui.item, ui.who, ui.study, *shown]
    events.on(ui.bench.input, on_bench, [ui.token, ui.bench], filled)
    events.on(ui.item.input, on_item, [ui.token, ui.bench, ui.item, ui.study], [ui.who, *shown])
    events.on(ui.who.input, on_who, chosen, shown)
    events.on(ui.study.input, on_study, [ui.token, ui.bench, ui.item, ui.study], filled)
    events.on(ui.refresh.click, on_refresh, chosen + [ui.study], filled)
    # a lambda, as it always was: its event's api_name is "lambda", its parameters b, i, k
    events.on(ui.export.click, raises_shown(lambda tok, b, i, k: _links(svc.export(tok, b, i, k))), chosen,
              [ui.files])


def _links(files: list[str]) -> str:
    """The exported files as download links; their temporary folder is removed."""
    return download_html([Path(f) for f in files], "Timeline files", remove=Path(files[0]).parent)


def _wire_in_page(events: Events, svc: CompareService, ui, box: gr.Textbox) -> None:
    """A link's query written into `box` (a Leaderboard click) opens Compare in this page, signed in. The box
    lives in the tab clicked in: a tab not yet shown has no elements for a script to write into."""
    def on_open(tok, query: str):
        opened = _opened(svc, ui, tok, dict(parse_qsl((query or "").split("#")[0].lstrip("?"))))
        return opened if opened is not None else gr.skip()

    outs = [ui.bench, ui.item, ui.who, ui.study, ui.player, ui.plot, ui.lanes]
    events.on(box.change, on_open, [ui.token, box], outs + ([ui.tabs] if ui.tabs is not None else []),
              api_visibility="private", show_progress="hidden")


def _wire_opening(events: Events, svc: CompareService, ui, demo: gr.Blocks) -> None:
    """The page's load fills (and unlocks) the tab, from a ?view=compare link if it is one (then selecting the
    tab); a sign-in unlocks the tab the load refused before it, keeping what is chosen."""
    benchmarks = svc.ctx.benchmarks()

    def on_load(tok, request: gr.Request):
        opened = _opened(svc, ui, tok, dict(request.query_params) if request is not None else {})
        if opened is not None:
            return opened
        b = benchmarks[0]
        return {ui.bench: gr.update(interactive=True), **_selected(svc, ui, tok, b, svc.select(tok, b))}

    def on_sign_in(tok, b: str, iid: str, keys: list[str], study: str):
        sel = svc.refresh(tok, b, iid, keys, study) if iid else svc.select(tok, b, None, None, study)
        return {ui.bench: gr.update(interactive=True), **_selected(svc, ui, tok, b, sel, study)}

    shown = [ui.bench, ui.item, ui.who, ui.study, ui.player, ui.plot, ui.lanes]
    events.on(demo.load, on_load, [ui.token], shown + ([ui.tabs] if ui.tabs is not None else []),
              api_visibility="private", show_progress="hidden")
    events.on(ui.token.change, on_sign_in, [ui.token, ui.bench, ui.item, ui.who, ui.study], shown,
              api_visibility="private", show_progress="hidden")
