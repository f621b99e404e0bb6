"""Runs tab: start a batch evaluation in the background, watch its progress in a list that follows the store (a
light poll, redrawn only when a run changes), read a run's report by clicking its row (figures on 0–100), and
inspect a run decision by decision (identical decisions in a row folded into one, "×N"). The tab draws and
wires; RunsService acts, checking the caller's role."""
from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from ibench_ui.context import AppContext
from ibench_ui.guard import Events
from ibench_ui.handlers import raises_shown
from ibench_ui.render import esc
from ibench_ui.run_inspect import FILTERS
from ibench_ui.runs_service import RunRow, RunsService
from ibench_ui.static_route import script_tags

POLL_S = 2.0  # how often the list asks whether a run changed (it is redrawn only when one did)


def runs_table_html(rows: list[RunRow]) -> str:
    """Every run with a progress bar, its status and its headline figures."""
    if not rows:
        return '<p id="runs-empty">No runs yet.</p>'
    body = "".join(
        f'<tr data-run="{esc(r.id)}" class="ib-run-row" title="click to show its report">'
        f"<td><code>{esc(r.id)}</code><br><small class=\"ib-run-label\">{esc(r.label)}</small></td>"
        f"<td>{esc(r.benchmark)}</td><td>{esc(r.model)}</td><td>{esc(r.protocol)}</td>"
        f"<td class=\"ib-run-status\">{esc(r.status)}</td><td>{_bar(r)}</td><td>{esc(r.result)}</td></tr>"
        for r in rows)
    head = "".join(f"<th>{h}</th>" for h in ("run (date and settings)", "benchmark", "model", "protocol", "status",
                                             "progress", "result"))
    return (f'<table class="ib-table" id="runs-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            '<p><small>Click a run to show its report below.</small></p>')


def _bar(r: RunRow) -> str:
    return (f'<div class="ib-progress" data-run="{esc(r.id)}" title="{esc(r.progress)}">'
            f'<div style="width:{r.pct:.1f}%"></div></div><span class="ib-progress-label">{esc(r.progress)}</span>')


def report_html(text: str) -> str:
    """A run's printed report in a monospace block, so its table keeps its columns."""
    return f'<pre class="ib-report" id="runs-report-text">{esc(text)}</pre>'


def build_runs(ctx: AppContext, events: Events) -> None:
    """Lay out the Runs tab over a RunsService: admins start and cancel runs of registry models; reviewers
    watch. Its events take the tab's roles (reviewers and admins); the service checks the finer ones."""
    svc = RunsService(ctx)
    ui = SimpleNamespace(token=events.token)
    _start_row(ctx, ui)
    _run_row(ui)
    _drill_panel(ui)
    ui.timer = gr.Timer(POLL_S)
    _wire_runs(events, svc, ui)
    _wire_drill(events, svc, ui)
    _wire_table(events, svc, ui)


def _start_row(ctx: AppContext, ui) -> None:
    names = ctx.models.names()
    with gr.Row():
        ui.bench = gr.Dropdown(ctx.benchmarks(), value=ctx.benchmarks()[0], label="Benchmark",
                               elem_id="runs-benchmark")
        ui.model = gr.Dropdown(names, value=names[0], allow_custom_value=False,
                               label="Model (configured on the server)", elem_id="runs-model")
        ui.protocol = gr.Textbox(label="Protocol (empty: the paper protocol)", elem_id="runs-protocol")
    with gr.Row():
        ui.limit = gr.Number(label="Limit (items, 0 = all)", value=0, precision=0, elem_id="runs-limit")
        ui.conc = gr.Number(label="Concurrency", value=1, precision=0, elem_id="runs-concurrency")
        ui.judge = gr.Dropdown([""] + ctx.models.judge_names(), value="", allow_custom_value=False,
                               label="Judge (empty: reference default)", elem_id="runs-judge")
        ui.start = gr.Button("Start run", variant="primary", elem_id="runs-start")


def _run_row(ui) -> None:
    ui.status = gr.Markdown(elem_id="runs-status")
    ui.table = gr.HTML("", elem_id="runs-list", head=script_tags(["inpage.js", "runs.js"]),
                       js_on_load="ibRuns.mount(element)")  # a clicked row shows its report (#runs-open)
    ui.open = gr.Textbox("", visible="hidden", elem_id="runs-open")
    ui.shown = gr.State("")  # the list as last drawn: a poll redraws it only when a run changed
    with gr.Row():
        ui.run_id = gr.Textbox(label="Run id", elem_id="runs-id")
        ui.cancel = gr.Button("Cancel run", elem_id="runs-cancel")
        ui.show = gr.Button("Show report", elem_id="runs-show")
    ui.report = gr.HTML("", elem_id="runs-report")  # monospace <pre>: the printed table keeps its alignment


def _drill_panel(ui) -> None:
    """The drill-down's choosers start empty: the runs (ids, models, options) are listed only to reviewers and
    admins, when the chooser is opened (on_runs_focus), never in the page's config, which anyone can read."""
    gr.Markdown("### Inspect a run, decision by decision")
    with gr.Row():
        ui.d_run = gr.Dropdown([], label="Run", elem_id="drill-run", allow_custom_value=False)
        ui.d_item = gr.Dropdown([], label="Item", elem_id="drill-item", allow_custom_value=False)
        ui.d_filter = gr.Dropdown(list(FILTERS), value="all", label="Verdict", elem_id="drill-filter",
                                  allow_custom_value=False)
        ui.d_other = gr.Dropdown([("(none)", "")], value="", label="Side by side with run",
                                 elem_id="drill-other", allow_custom_value=False)
        ui.d_show = gr.Button("Show decisions", elem_id="drill-show")
    ui.drill = gr.HTML("", elem_id="drill-out")


def _wire_runs(events: Events, svc: RunsService, ui) -> None:
    """Start and cancel (admins) and the report (reviewers and admins)."""
    @raises_shown
    def on_start(tok, b, m, p, lim, c, j):
        rid = svc.start(tok, b, m, p, lim, c, j)
        return {ui.status: f"Started run `{rid}` in the background.", ui.run_id: rid,
                ui.table: runs_table_html(svc.table(tok))}

    @raises_shown
    def on_cancel(tok, rid):
        rid = svc.cancel(tok, rid)
        return {ui.status: f"Cancelling `{rid}`; it stops after the items in flight.",
                ui.table: runs_table_html(svc.table(tok))}

    @raises_shown
    def on_show(tok, rid):
        return report_html(svc.report(tok, rid))

    @raises_shown
    def on_open(tok, rid):
        """A clicked run: its id, its report, and it chosen in the drill-down below (its items follow)."""
        rid = (rid or "").split("#")[0]
        runs = svc.run_choices(tok)
        chosen = rid if rid in {v for _, v in runs} else None
        items, verdicts = svc.run_filters(tok, chosen)
        return {ui.run_id: rid, ui.report: report_html(svc.report(tok, rid)),
                ui.d_run: gr.Dropdown(choices=runs, value=chosen),
                ui.d_item: gr.Dropdown(choices=items, value=items[0] if items else None),
                ui.d_filter: gr.Dropdown(choices=verdicts, value="all")}

    events.on(ui.start.click, on_start, [ui.token, ui.bench, ui.model, ui.protocol, ui.limit, ui.conc, ui.judge],
              [ui.status, ui.run_id, ui.table])
    events.on(ui.cancel.click, on_cancel, [ui.token, ui.run_id], [ui.status, ui.table])
    events.on(ui.show.click, on_show, [ui.token, ui.run_id], [ui.report])
    events.on(ui.open.change, on_open, [ui.token, ui.open], [ui.run_id, ui.report, ui.d_run, ui.d_item, ui.d_filter],
              api_visibility="private", show_progress="hidden")


def _wire_drill(events: Events, svc: RunsService, ui) -> None:
    """The drill-down: the runs to choose from, a run's items and verdict filters, one item's decisions."""
    @raises_shown
    def on_runs_focus(tok):
        runs = svc.run_choices(tok)
        return {ui.d_run: gr.Dropdown(choices=runs), ui.d_other: gr.Dropdown(choices=[("(none)", "")] + runs)}

    @raises_shown
    def on_run(tok, rid):
        items, verdicts = svc.run_filters(tok, rid)
        return {ui.d_item: gr.Dropdown(choices=items, value=items[0] if items else None),
                ui.d_filter: gr.Dropdown(choices=verdicts, value="all")}

    @raises_shown
    def on_drill(tok, rid, iid, flt, other):
        shown = svc.drill(tok, rid, iid, flt, other)
        return '<p id="drill-error">Choose a run and an item.</p>' if shown is None else shown

    events.on(ui.d_run.focus, on_runs_focus, [ui.token], [ui.d_run, ui.d_other],
              show_progress="hidden")
    events.on(ui.d_run.change, on_run, [ui.token, ui.d_run], [ui.d_item, ui.d_filter],
              show_progress="hidden")
    events.on(ui.d_show.click, on_drill, [ui.token, ui.d_run, ui.d_item, ui.d_filter, ui.d_other], [ui.drill])


def _wire_table(events: Events, svc: RunsService, ui) -> None:
    """The runs table for reviewers and admins (silently empty for anyone else): asked for every POLL_S, redrawn
    only when it changed (a run started, progressed or finished)."""
    def on_tick(tok, shown):
        try:
            html = runs_table_html(svc.table(tok))
        except PermissionError:
            html = ""
        return (gr.skip(), gr.skip()) if html == shown else (html, html)

    events.on(ui.timer.tick, on_tick, [ui.token, ui.shown], [ui.table, ui.shown],
              show_progress="hidden")
