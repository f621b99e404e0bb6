"""Leaderboard tab: every responder across benchmarks (each participant, the pooled humans, each model), the
scorer's headline figure with n and its bootstrap interval (none below the minimum n, with the reason),
sortable by any column, each cell linking into the Compare tab; the paper tables with breakdowns,
differences and rank stability below; the full report as a download."""
from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr

from annotation.auth import STAFF
from ibench_ui.context import AppContext
from ibench_ui.downloads import download_html
from ibench_ui.guard import Events
from ibench_ui.render import esc
from ibench_ui.static_route import script_tags
from runners.report import (HEADLINE, BenchmarkTables, benchmark_tables, compare_link, leaderboard,
                            markdown_section, responders, write_report, zip_dir, POOLED_HUMANS)
from scoring.bootstrap import DEFAULT_MIN_N

def compute_tables(ctx: AppContext, n_resamples: int, seed: int,
                   min_n: int = DEFAULT_MIN_N) -> dict[str, BenchmarkTables]:
    """Tables of every loaded benchmark that has at least one responder."""
    out = {}
    for b in ctx.benchmarks():
        ds = ctx.dataset(b)
        if responders(ctx.store, b, ds):
            out[b] = benchmark_tables(ctx.store, ds, n_resamples=n_resamples, seed=seed, min_n=min_n)
    return out


def leaderboard_html(tables: dict[str, BenchmarkTables]) -> str:
    """The sortable cross-benchmark table; cells link to Compare with that responder."""
    if not tables:
        return '<div id="leaderboard"><p>No human sessions or model runs yet.</p></div>'
    benches = list(tables)
    head = ['<th data-col="0">name</th>', '<th data-col="1">kind</th>']
    for j, b in enumerate(benches):
        keys = [rs.responder.key for rs in tables[b].rows if not rs.responder.pooled]
        head.append(f'<th data-col="{j + 2}">{esc(b)} ({esc(HEADLINE[b])}) '
                    f'<a href="{esc(compare_link(b, keys))}" title="compare all">⇄</a></th>')
    body = []
    for row in leaderboard(tables):
        cells = [f'<td data-sort="{esc(row.name)}">{esc(row.name)}</td>',
                 f'<td data-sort="{esc(row.kind)}">{esc(row.kind)}</td>']
        for b in benches:
            if b not in row.cells or row.cells[b][0] is None:
                cells.append('<td data-sort="">–</td>')
                continue
            iv, key, n = row.cells[b]
            sort = "" if iv.point is None else f"{iv.point:.6f}"
            value = esc(iv.fmt(1, n=False))
            if key != POOLED_HUMANS:  # the pooled humans have no lane of their own in Compare
                value = f'<a class="ib-compare-link" href="{esc(compare_link(b, [key]))}">{value}</a>'
            note = (f' <small class="ib-no-interval" title="{esc(iv.reason)}">no interval: {esc(iv.reason)}</small>'
                    if iv.point is not None and not iv.has_interval and iv.reason else "")
            cells.append(f'<td data-sort="{sort}" data-n="{iv.n_items}">{value} <small class="ib-n">n={iv.n_items}'
                         f'</small>{note}</td>')
        body.append(f'<tr data-name="{esc(row.name)}" data-kind="{esc(row.kind)}">' + "".join(cells) + "</tr>")
    return ('<div id="leaderboard"><table class="ib-table" id="leaderboard-table"><thead><tr>' + "".join(head) +
            "</tr></thead><tbody>" + "".join(body) + "</tbody></table>"
            "<p><small>Click a column header to sort; click a score to open it in Compare. "
            "Figures are the scorers' own; intervals: 95% bootstrap over items, n = items counted, "
            "none below the minimum n.</small></p></div>")


def report_zip(ctx: AppContext, n_resamples: int, seed: int, min_n: int) -> Path:
    """The report (Markdown, CSV, figures) over every benchmark, zipped in a fresh temporary folder."""
    out = Path(tempfile.mkdtemp(prefix="ibench-report-"))
    datasets = {b: ctx.dataset(b) for b in ctx.benchmarks()}
    write_report(ctx.store, datasets, out / "report", n_resamples=n_resamples, seed=seed, min_n=min_n)
    z = out / "ibench-report.zip"
    z.write_bytes(zip_dir(out / "report"))
    return z


def build_leaderboard(ctx: AppContext, events: Events, tab=None) -> None:
    """Lay out the Leaderboard tab (everyone's figures: reviewers and admins); with `tab`, it refreshes
    whenever the tab is selected."""
    with gr.Row():
        resamples = gr.Number(1000, label="Bootstrap resamples", precision=0, minimum=10, maximum=100000,
                              elem_id="leaderboard-resamples")
        seed = gr.Number(0, label="Seed", precision=0, elem_id="leaderboard-seed")
        min_n = gr.Number(DEFAULT_MIN_N, label="Minimum n for an interval", precision=0, minimum=1,
                          elem_id="leaderboard-min-n")
        refresh = gr.Button("Refresh", elem_id="leaderboard-refresh", scale=0)
    board = gr.HTML('<div id="leaderboard"><p>Press Refresh to compute.</p></div>', elem_id="leaderboard-box",
                    head=script_tags(["leaderboard.js"]), js_on_load="ibLeaderboard.sortable(element)")
    tables_md = gr.Markdown("", elem_id="leaderboard-tables")
    with gr.Row():
        report_btn = gr.Button("Build report (Markdown, CSV, figures) as zip", elem_id="leaderboard-report", scale=0)
        report_file = gr.HTML("", elem_id="leaderboard-report-file", js_on_load=None)  # a link carrying the zip

    def on_refresh(n, s, k):
        n, s, k = int(n or 1000), int(s or 0), int(k or DEFAULT_MIN_N)
        if n < 10:
            raise gr.Error("Use at least 10 bootstrap resamples.")
        if k < 1:
            raise gr.Error("The minimum n for an interval is at least 1.")
        tables = compute_tables(ctx, n, s, k)
        return {board: leaderboard_html(tables),
                tables_md: "\n\n".join(markdown_section(tb) for tb in tables.values())}

    def on_report(n, s, k):
        z = report_zip(ctx, int(n or 1000), int(s or 0), max(1, int(k or DEFAULT_MIN_N)))
        return download_html([z], "Report", remove=z.parent)

    events.on(refresh.click, on_refresh, [resamples, seed, min_n], [board, tables_md], roles=STAFF)
    events.on(report_btn.click, on_report, [resamples, seed, min_n], [report_file], roles=STAFF)
    if tab is not None:
        events.on(tab.select, on_refresh, [resamples, seed, min_n], [board, tables_md], roles=STAFF)
