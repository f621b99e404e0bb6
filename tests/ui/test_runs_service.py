"""RunsService without a browser: the runs table, a report, the run and item/verdict choices and the drill-down
for reviewers and admins; starting and cancelling for admins only; every method refuses the other roles with
auth's own message, before it reads or does anything.

Hand-worked run (tests/ui/conftest.py studio_store): baseline:periodic:5 on InteractionBench's ball_counter#0
(32 s, the "sliding" protocol decides at 1, 2, …, 32 s) speaks at 1, 6, 11, 16, 21, 26 and 31 s and waits at the
other 25 decisions. The ball appears at 8 s (window open from 8 s, delta 5 s, tolerance 1 s): 1 and 6 s are
premature, 11 s is matched (3 s late: timing credit 1 - 3/5 = 40.0), 16 … 31 s are redundant; "Still watching."
is not the reference "The ball appeared.", so accuracy and total are 0.0."""
from __future__ import annotations

import re

import pytest

from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.run_inspect import FILTERS
from ibench_ui.runs_service import RunRow, RunsService

ITEM = "ball_counter#0"
NOT_SIGNED_IN = "not signed in (or the session expired): sign in first"
IB_VERDICTS = ["matched", "premature", "redundant", "spurious", "unscored"]


@pytest.fixture(scope="module")
def runs(studio_store):
    db, run_id, tokens = studio_store
    return RunsService(AppContext(store=Store(db))), run_id, tokens


def test_the_table_has_one_done_row_with_the_headline_and_the_health(runs):
    svc, run_id, tok = runs
    (row,) = svc.table(tok["reviewer"])
    assert row == RunRow(
        id=run_id, label=row.label, benchmark="interactionbench", model="baseline:periodic:5", protocol="sliding",
        status="done", pct=100.0, progress="1/1 items",
        # the paper table's figures on the Leaderboard's 0–100 scale, said so once
        result="total 0.0, accuracy 0.0, timing_accuracy 40.0, silence_compliance 0.0 (0–100) | calls 32, "
               "retries 0, errors 0, excluded 0, skipped ticks 0, compliance 100.0 %")
    assert row.label.split(" · ")[1:] == ["baseline:periodic:5", "interactionbench", "sliding", "timing=decision",
                                         "on_error=exclude", "1 listed items"]
    assert svc.table(tok["admin"]) == [row]


def test_report_choices_and_filters(runs):
    svc, run_id, tok = runs
    report = svc.report(tok["reviewer"], run_id)
    assert re.search(r"Overall\s+1\s+0\.0\s+0\.0\s+40\.0\s+0\.0\n", report)
    assert "calls 32, ok 32, retries 0, errors 0, skipped ticks 0" in report
    assert svc.report(tok["admin"], "run_nope") == "No run 'run_nope'."
    assert svc.report(tok["admin"], None) == "No run ''."
    (label, value), = svc.run_choices(tok["reviewer"])
    assert value == run_id and label.endswith(f" [{run_id}]")
    assert svc.run_filters(tok["reviewer"], run_id) == ([ITEM], [*FILTERS, *IB_VERDICTS])
    assert svc.run_filters(tok["admin"], "run_nope") == ([], ["all", "responded", "silent", "error"])
    assert svc.run_filters(tok["admin"], None) == ([], ["all", "responded", "silent", "error"])


def test_the_drill_down_shows_each_decision_with_its_verdict(runs):
    svc, run_id, tok = runs
    html = svc.drill(tok["reviewer"], run_id, ITEM, "all", "")
    assert "32 decision(s): matched 1, premature 2, redundant 4, silent 25" in html
    responded = svc.drill(tok["admin"], run_id, ITEM, "responded", "")
    spoke = re.findall(r'data-t="([\d.]+)" data-verdict="(\w+)"', responded)
    assert spoke == [("1.000", "premature"), ("6.000", "premature"), ("11.000", "matched"), ("16.000", "redundant"),
                     ("21.000", "redundant"), ("26.000", "redundant"), ("31.000", "redundant")]
    assert re.findall(r'data-verdict="(\w+)"', svc.drill(tok["admin"], run_id, ITEM, "matched", None)) == ["matched"]
    assert svc.drill(tok["admin"], run_id, None, "all", "") is None  # the tab asks to choose both
    assert svc.drill(tok["admin"], "", ITEM, "all", "") is None
    assert "has no item" in svc.drill(tok["admin"], run_id, "color_scene#0", "all", "")


def test_cancel_names_only_runs_of_this_app(runs):
    svc, run_id, tok = runs
    with pytest.raises(ValueError, match=f"^Run '{run_id}' is not running in this app$"):
        svc.cancel(tok["admin"], f" {run_id} ")
    with pytest.raises(ValueError, match="^Run '' is not running in this app$"):
        svc.cancel(tok["admin"], None)


@pytest.mark.parametrize("role", [None, "annotator", "reviewer", "admin"])
def test_every_method_refuses_the_roles_it_does_not_serve(runs, role):
    """Watching is for reviewers and admins, starting and cancelling for admins; a refusal is auth's message.
    An allowed call here goes on to its own input check (an unknown benchmark, a run not started here)."""
    svc, run_id, tok = runs
    t = tok[role]
    watch = {"table": (), "report": (run_id,), "run_choices": (), "run_filters": (run_id,),
             "drill": (run_id, ITEM, "all", "")}
    act = {"start": ("nope", "baseline:motion", "", 0, 1, ""), "cancel": (run_id,)}
    for roles, methods in ((("admin", "reviewer"), watch), (("admin",), act)):
        for name, args in methods.items():
            call = getattr(svc, name)
            if role in roles:
                try:
                    call(t, *args)
                except ValueError as exc:  # past the role check
                    assert name in act and ("is not loaded" in str(exc) or "not running" in str(exc))
                continue
            why = NOT_SIGNED_IN if role is None else \
                f"user '{role}' ({role}) may not do this; it needs one of: {', '.join(roles)}"
            with pytest.raises(PermissionError) as info:
                call(t, *args)
            assert str(info.value) == why, (name, role)
    assert [r.id for r in svc.ctx.store.runs()] == [run_id]  # nothing started


def test_an_admin_starts_a_run_watches_it_and_the_local_user_is_an_admin(tmp_path):
    """Without accounts on a loopback bind the one local user is an admin: an empty token starts a run."""
    svc = RunsService(AppContext(store=Store(tmp_path / "db.sqlite")))
    with pytest.raises(ValueError, match="^Limit must be a whole number from 0 to 1000000, got '1.5'$"):
        svc.start("", "interactionbench", "baseline:motion", "", 1.5, 1, "")
    with pytest.raises(ValueError, match="^Unknown protocol; choose one of .* or leave it empty.$"):
        svc.start("", "interactionbench", "baseline:motion", "nope", 1, 1, "")
    rid = svc.start("", "proactivebench", "baseline:periodic:5", "", 1, 1, "")
    runner = svc.registry.find(rid)
    assert runner is not None and svc.cancel("", rid) == rid
    runner.thread.join(60)
    (row,) = svc.table("")
    assert row.id == rid and row.benchmark == "proactivebench" and row.model == "baseline:periodic:5"
    assert row.status in ("done", "cancelled") and row.progress.endswith("/1 items")  # the item may be in flight
