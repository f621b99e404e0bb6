"""Leaderboard tab: every responder across benchmarks (each study participant, studio session, the pooled study
participants, each model; all or one study's humans), the scorer's headline figure with n and its bootstrap
interval (none below the minimum n, with the reason; such rows listed after the better-supported ones, marked), on
request the paper's own interval beside it (each labelled), each human row's human-reference allowances,
sortable by any column, each cell opening the Compare tab in this page; the paper tables with breakdowns,
differences and rank stability below; the full report as a download."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable, Optional

import gradio as gr

from ibench_ui.context import AppContext
from ibench_ui.downloads import download_html
from ibench_ui.guard import Events
from ibench_ui.render import esc
from ibench_ui.static_route import script_tags
from runners.report import (CI_CHOICES, HEADLINE, BenchmarkTables, benchmark_tables, compare_link, leaderboard,
                            markdown_section, paper_text, responders, write_report, zip_dir, POOLED_HUMANS)
from scoring.bootstrap import DEFAULT_MIN_N

CI_LABELS = {"ours": "ours: item bootstrap",
             "paper": "paper: its seeded procedure over the rows in order, beside ours"}


def compute_tables(ctx: AppContext, n_resamples: int, seed: int, min_n: int = DEFAULT_MIN_N, ci: str = "ours",
                   study: str = "", pool_studio: bool = False) -> dict[str, BenchmarkTables]:
    """Tables of every loaded benchmark that has at least one responder (ci="paper": with the paper's intervals;
    `study`: an id, only its participants as humans; `pool_studio`: studio sittings pooled too)."""
    out = {}
    for b in ctx.benchmarks():
        ds = ctx.dataset(b)
        if responders(ctx.store, b, ds, study=study or None):
            out[b] = benchmark_tables(ctx.store, ds, n_resamples=n_resamples, seed=seed, min_n=min_n, ci=ci,
                                      study=study or None, pool_studio=pool_studio)
    return out


def _extras(tb: BenchmarkTables, key: str) -> str:
    """What a cell adds to our figure: the paper's interval (labelled) and a human row's allowances."""
    out = ""
    if tb.paper:
        text = paper_text(tb.paper.get(key))
        out += f' <small class="ib-paper-ci" title="{esc(tb.paper_note)}">paper CI: {esc(text)}</small>'
    if key in tb.allowances:
        out += f' <small class="ib-allowances">allowances: {esc(tb.allowances[key])}</small>'
    return out


def leaderboard_html(tables: dict[str, BenchmarkTables], study: str = "") -> str:
    """The sortable cross-benchmark table; cells open Compare with that responder (and the study filter)."""
    if not tables:
        return '<div id="leaderboard"><p>No human sessions or model runs yet.</p></div>'
    benches = list(tables)
    head = ['<th data-col="0">name</th>', '<th data-col="1">kind</th>']
    for j, b in enumerate(benches):
        keys = [rs.responder.key for rs in tables[b].rows if not rs.responder.pooled]
        head.append(f'<th data-col="{j + 2}">{esc(b)} ({esc(HEADLINE[b])}) '
                    f'<a class="ib-compare-link" href="{esc(compare_link(b, keys, study=study))}" '
                    f'title="compare all">⇄</a></th>')
    body = []
    for row in leaderboard(tables):
        mark = (' <small class="ib-under-n" title="a figure below the minimum n: listed after better-supported '
                'rows">below minimum n</small>' if row.under_n else "")
        cells = [f'<td data-sort="{esc(row.name)}">{esc(row.name)}{mark}</td>',
                 f'<td data-sort="{esc(row.kind_label)}">{esc(row.kind_label)}</td>']
        for b in benches:
            if b not in row.cells or row.cells[b][0] is None:
                cells.append('<td data-sort="">–</td>')
                continue
            iv, key, n = row.cells[b]
            sort = "" if iv.point is None else f"{iv.point:.6f}"
            value = esc(iv.fmt(1, n=False))
            if key != POOLED_HUMANS:  # the pooled humans have no lane of their own in Compare
                value = f'<a class="ib-compare-link" href="{esc(compare_link(b, [key], study=study))}">{value}</a>'
            note = (f' <small class="ib-no-interval" title="{esc(iv.reason)}">no interval: {esc(iv.reason)}</small>'
                    if iv.point is not None and not iv.has_interval and iv.reason else "")
            ours = ' <small class="ib-ours-ci">ours</small>' if tables[b].paper else ""
            cells.append(f'<td data-sort="{sort}" data-n="{iv.n_items}">{value}{ours} <small class="ib-n">'
                         f'n={iv.n_items}</small>{note}{_extras(tables[b], key)}</td>')
        body.append(f'<tr data-name="{esc(row.name)}" data-kind="{esc(row.kind)}" data-origin="{esc(row.origin)}"'
                    f' data-under-n="{str(row.under_n).lower()}">' + "".join(cells) + "</tr>")
    return ('<div id="leaderboard"><table class="ib-table" id="leaderboard-table"><thead><tr>' + "".join(head) +
            "</tr></thead><tbody>" + "".join(body) + "</tbody></table>"
            "<p><small>Click a column header to sort; click a score to open it in Compare. Ranked by the mean "
            "headline; rows with a figure below the minimum n come after every better-supported row. Pooled humans "
            "are study participants only. "
            "Figures are the scorers' own; intervals (ours): 95% bootstrap over items, n = items counted, "
            "none below the minimum n." + "".join(f" {esc(b)}: {esc(tables[b].paper_note)}." for b in benches
                                                   if tables[b].paper) + "</small></p></div>")


def report_zip(ctx: AppContext, n_resamples: int, seed: int, min_n: int, ci: str = "ours", study: str = "") -> Path:
    """The report (Markdown, CSV, figures) over every benchmark, zipped in a fresh temporary folder."""
    out = Path(tempfile.mkdtemp(prefix="ibench-report-"))
    datasets = {b: ctx.dataset(b) for b in ctx.benchmarks()}
    write_report(ctx.store, datasets, out / "report", n_resamples=n_resamples, seed=seed, min_n=min_n, ci=ci,
                 study=study or None)
    z = out / "ibench-report.zip"
    z.write_bytes(zip_dir(out / "report"))
    return z


def build_leaderboard(ctx: AppContext, events: Events, tab=None,
                      open_compare: Optional[Callable[[gr.Textbox], None]] = None) -> None:
    """Lay out the Leaderboard tab (everyone's figures: reviewers and admins); with `tab`, it refreshes
    whenever the tab is selected; with `open_compare` (build_compare's opener), a clicked score opens Compare in
    this page through the hidden #leaderboard-open box (leaderboard.js)."""
    with gr.Row():
        resamples = gr.Number(1000, label="Bootstrap resamples", precision=0, minimum=10, maximum=100000,
                              elem_id="leaderboard-resamples")
        seed = gr.Number(0, label="Seed", precision=0, elem_id="leaderboard-seed")
        min_n = gr.Number(DEFAULT_MIN_N, label="Minimum n for an interval", precision=0, minimum=1,
                          elem_id="leaderboard-min-n")
        ci = gr.Dropdown([(CI_LABELS[c], c) for c in CI_CHOICES], value="ours", label="Intervals",
                         elem_id="leaderboard-ci")
        # filled on refresh (role-checked), never from initial values anyone can read in /config
        study = gr.Dropdown([("every study", "")], value="", label="Study (humans from one study only)",
                            elem_id="leaderboard-study")
        refresh = gr.Button("Refresh", elem_id="leaderboard-refresh", scale=0)
    board = gr.HTML('<div id="leaderboard"><p>Press Refresh to compute.</p></div>', elem_id="leaderboard-box",
                    head=script_tags(["inpage.js", "leaderboard.js"]), js_on_load="ibLeaderboard.sortable(element)")
    tables_md = gr.Markdown("", elem_id="leaderboard-tables")
    if open_compare is not None:
        open_compare(gr.Textbox("", visible="hidden", elem_id="leaderboard-open"))
    with gr.Row():
        report_btn = gr.Button("Build report (Markdown, CSV, figures) as zip", elem_id="leaderboard-report", scale=0)
        report_file = gr.HTML("", elem_id="leaderboard-report-file", js_on_load=None)  # a link carrying the zip

    def on_refresh(n, s, k, c, st):
        n, s, k = int(n or 1000), int(s or 0), int(k or DEFAULT_MIN_N)
        if n < 10:
            raise gr.Error("Use at least 10 bootstrap resamples.")
        if k < 1:
            raise gr.Error("The minimum n for an interval is at least 1.")
        if c not in CI_CHOICES:
            raise gr.Error("Choose ours or paper intervals.")
        studies = study_choices(ctx)
        st = st if st in {v for _, v in studies} else ""
        tables = compute_tables(ctx, n, s, k, c, study=st)
        return {board: leaderboard_html(tables, st), study: gr.update(choices=studies, value=st),
                tables_md: "\n\n".join(markdown_section(tb) for tb in tables.values())}

    def on_report(n, s, k, c, st):
        z = report_zip(ctx, int(n or 1000), int(s or 0), max(1, int(k or DEFAULT_MIN_N)),
                       c if c in CI_CHOICES else "ours", st if st in {v for _, v in study_choices(ctx)} else "")
        return download_html([z], "Report", remove=z.parent)

    inputs = [resamples, seed, min_n, ci, study]
    events.on(refresh.click, on_refresh, inputs, [board, study, tables_md])
    events.on(study.input, on_refresh, inputs, [board, study, tables_md])
    events.on(report_btn.click, on_report, inputs, [report_file])
    if tab is not None:
        events.on(tab.select, on_refresh, inputs, [board, study, tables_md])


def study_choices(ctx: AppContext) -> list[tuple[str, str]]:
    """The study filter's (label, id) choices: every study's humans, or one study's participants."""
    from annotation.studies import list_studies
    return [("every study", "")] + [(f"{st.name or st.id} ({st.benchmark}, {st.id})", st.id)
                                    for st in list_studies(ctx.store)]
