"""The Leaderboard's interval choice: "paper" shows the paper's seeded interval of the InteractionBench total beside
ours, each labelled (the numbers of the golden bootstrap case for the same runs in the same order), and a human row
says which human-reference allowances its figure used."""
from __future__ import annotations

import csv
import html
import re
import time

from annotation.model import Response
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.leaderboard import compute_tables, leaderboard_html
from runners.report import write_report
from tests.runners.test_report_paper_ci import _case, _store_runs

IB = "interactionbench"


def _cell(page: str, name: str) -> str:
    row = re.search(rf'<tr data-name="{re.escape(name)}"[^>]*>(.*?)</tr>', page, re.S)
    assert row, page
    return html.unescape(re.sub(r"<[^>]+>", " ", row.group(1)))


def test_paper_intervals_labelled_beside_ours(tmp_path):
    db, data = _store_runs(tmp_path, _case("sh_boot_three_runs"))
    ctx = AppContext(store=Store(db), data_dirs={IB: data})
    page = leaderboard_html(compute_tables(ctx, 20, 0, 5, "paper"))
    # golden sh_boot_three_runs/expected/out/ci_overall.csv: r_good 66.09 [51.22, 79.49], r_slow 43.85 [30.82, 56.68],
    # r_chatty 44.58 [33.61, 55.27], n = 23 each
    for name, want in (("r_good", "paper CI: 66.09 [51.22, 79.49] n=23"),
                       ("r_slow", "paper CI: 43.85 [30.82, 56.68] n=23"),
                       ("r_chatty", "paper CI: 44.58 [33.61, 55.27] n=23")):
        cell = _cell(page, f"plugin:golden:{name}")
        assert want in cell and " ours " in cell, cell
    assert 'class="ib-paper-ci"' in page and "seeded 20260923" in page and "intervals (ours)" in page
    plain = leaderboard_html(compute_tables(ctx, 20, 0, 5))
    assert "paper CI" not in plain and 'class="ib-ours-ci"' not in plain
    ctx.store.close()


def test_human_row_says_its_allowances(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    s = store.create_session("P1", IB, ["ball_counter#2", "whiteboard#2"])
    for iid, t, text in (("ball_counter#2", 26.5, ""), ("ball_counter#2", 28.25, "4"), ("whiteboard#2", 14.75, "42")):
        store.add_response(Response(id="", item_id=iid, benchmark=IB, responder="human:P1", session_id=s.id, t=t,
                                    kind="text" if text else "press", text=text, wall_time=time.time()))
    ctx = AppContext(store=store)
    cell = _cell(leaderboard_html(compute_tables(ctx, 20, 0, 5, "paper")), "human:P1")
    # delays 28.25 - 27 = 1.25 and 14.75 - 13 = 1.75 -> median 1.50; no answer key; the systems' tolerance 1 s
    assert ("allowances: A-type shift not applied (measured 1.50 s over 2 answered IVQA A item(s)); MCQ not by option "
            "text (judged against the annotated answer); pre-anchor tolerance 1 s") in cell, cell
    assert "paper CI:" in cell
    # the report says the same in its table (CSV column and Markdown column)
    write_report(store, {IB: ctx.dataset(IB)}, tmp_path / "rep", n_resamples=20, figures=False, ci="paper")
    with open(tmp_path / "rep" / f"{IB}_table.csv", newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["allowances"].startswith("A-type shift not applied (measured 1.50 s over 2 answered IVQA A item(s))")
    assert row["total_paper_n"] == "2" and "allowances (human rows)" in (tmp_path / "rep" / "report.md").read_text()
    store.close()
