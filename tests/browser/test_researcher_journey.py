"""The researcher's first ten minutes (issue 23), in Chromium at 1280×720, keys and clicks only: sign in as a
reviewer, read the Leaderboard (models and a study's pooled participants; the study filter), click a score and land
in Compare in the same page with that responder ticked and named (who, when), switch items and watch the ticks
follow who sat each, then open Runs, click a run and read its report on one 0–100 scale, its repeated decisions
folded ("×N").

Store: the embedded InteractionBench demo with a studio session by alice (4 items) and a baseline:periodic run
(tests/runners/test_report.populate_demo), and study "pilot": P001 on ball_counter#0, color_scene#0 and
moving_square#1, P002 on ball_counter#1, color_scene#0 and moving_square#1 (their sittings dated 2026-11-30 14:02
UTC): the pool is P001 and P002 (6 observations), never alice's studio session."""
from __future__ import annotations

import calendar
import re
import time

import pytest
from playwright.sync_api import expect

from annotation import auth
from annotation.model import Response
from annotation.store import Store
from annotation.studies import create_study
from tests.browser.conftest import AppServer, sign_in
from tests.runners.test_report import populate_demo

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 720)]
IB = "interactionbench"
AT = calendar.timegm((2026, 11, 30, 14, 2, 0, 0, 0, 0))
PILOT = {"P001": ["ball_counter#0", "color_scene#0", "moving_square#1"],
         "P002": ["ball_counter#1", "color_scene#0", "moving_square#1"]}
DEADLINE = 60000  # ms: generous waits for a state, never a threshold


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    db = tmp_path_factory.mktemp("researcher") / "ibench.sqlite"
    (_, run_id) = populate_demo(db, benchmarks=(IB,))[IB]
    store = Store(db)
    study, _ = create_study(store, IB, list(PILOT), PILOT, name="pilot")
    for s in store.sessions(benchmark=IB):
        if (s.settings or {}).get("study_id") != study.id:
            continue
        for iid in s.item_ids:
            store.add_response(Response(id="", item_id=iid, benchmark=IB, responder=f"human:{s.participant}",
                                        session_id=s.id, t=9.0, kind="text", text="there it is",
                                        wall_time=time.time()))
        store.set_session_progress(s.id, len(s.item_ids), "done")
        store.db["sessions"].update(s.id, {"created": AT})
    auth.create_user(store, "rev", "reviewer", "rev-password")
    store.close()
    srv = AppServer(db).start()
    yield srv, study.id, run_id
    srv.stop()


def pick(page, dropdown: str, text: str) -> None:
    """Open a dropdown with a click and choose the option showing `text`."""
    page.locator(f"{dropdown} input").click()
    page.locator("ul[role=listbox] li", has_text=text).first.click()


def ticked(page) -> list[str]:
    """The labels of the responders ticked in Compare, in their order."""
    return page.eval_on_selector_all("#compare-responders input:checked",
                                     "is => is.map(i => i.closest('label').innerText.trim())")


def wait_ticked(page, prefixes: list[str]) -> None:
    """Wait until exactly the responders whose labels start with `prefixes` (in order) are ticked."""
    page.wait_for_function(
        "ps => { const t = [...document.querySelectorAll('#compare-responders input:checked')]"
        ".map(i => i.closest('label').innerText.trim());"
        " return t.length === ps.length && ps.every((p, k) => t[k].startsWith(p)); }", arg=prefixes,
        timeout=DEADLINE)


def test_researcher_journey(studio, page):
    srv, study_id, run_id = studio
    page.goto(srv.url + "/")
    sign_in(page, "rev", "rev-password")

    # the Leaderboard: models and the study's pooled participants; alice's studio session is a row of its own
    page.get_by_role("tab", name="Leaderboard").click()
    page.wait_for_selector("#leaderboard-table tbody tr", timeout=DEADLINE)
    kinds = dict(page.eval_on_selector_all("#leaderboard-table tbody tr",
                                           "rs => rs.map(r => [r.dataset.name, r.children[1].innerText])"))
    assert kinds == {"baseline:periodic": "model", "humans (pooled)": "pooled study participants",
                     "human:alice": "studio session", f"human:P001@{study_id}": "study participant",
                     f"human:P002@{study_id}": "study participant"}
    # the two rows on enough items come first; every row below the minimum n after them, marked
    order = page.eval_on_selector_all("#leaderboard-table tbody tr", "rs => rs.map(r => r.dataset.underN)")
    assert order[:2] == ["false", "false"] and set(order[2:]) == {"true"}
    expect(page.locator("#leaderboard-table tr[data-under-n='true'] .ib-under-n").first).to_have_text(
        "below minimum n")
    # the study filter: only the pilot's participants are humans
    pick(page, "#leaderboard-study", "pilot")
    page.wait_for_function("() => !document.querySelector('#leaderboard-table tr[data-name=\"human:alice\"]')"
                           " && !!document.querySelector('#leaderboard-table tr[data-name=\"humans (pooled)\"]')",
                           timeout=DEADLINE)
    pooled = page.locator("#leaderboard-table tr[data-name='humans (pooled)']")
    expect(pooled).to_be_in_viewport()
    expect(pooled).to_contain_text("n=6")

    # a click on P001's score opens Compare in this page: same address, still signed in, P001 ticked and named
    url = page.url
    page.locator(f"#leaderboard-table tr[data-name='human:P001@{study_id}'] a.ib-compare-link").first.click()
    expect(page.get_by_role("tab", name="Compare")).to_have_attribute("aria-selected", "true", timeout=DEADLINE)
    wait_ticked(page, ["P001 · study pilot · 2026-11-30 14:02"])
    assert page.url == url
    assert page.locator('#signin-status[data-user="rev"]').count() == 1
    # the study filter came along: P001 and the model run sat ball_counter#0 (alice's studio session is not shown)
    expect(page.locator("#compare-item input")).to_have_value("ball_counter#0 · B_trigger · 2 responder(s)")
    lane = page.locator("#compare-lanes .ib-lane").first
    lane.scroll_into_view_if_needed()
    expect(lane).to_be_in_viewport()
    expect(lane).to_contain_text("P001 · study pilot · 2026-11-30 14:02")

    # another item: exactly who sat it is ticked (the study's participants and the model run; never alice)
    pick(page, "#compare-item", "ball_counter#1")
    wait_ticked(page, ["P002 · study pilot · 2026-11-30 14:02", "baseline:periodic · "])
    pick(page, "#compare-item", "moving_square#1")
    wait_ticked(page, ["P001 · study pilot", "P002 · study pilot", "baseline:periodic · "])
    assert not any(t.startswith("alice") for t in ticked(page))

    # Runs: click the run, read its report on 0–100, and its decisions with repeats folded
    page.get_by_role("tab", name="Runs").click()
    row = page.locator(f"#runs-table tr[data-run='{run_id}']")
    row.wait_for(timeout=DEADLINE)
    expect(row.locator("td").last).to_contain_text("(0–100)")
    row.click()
    report = page.locator("#runs-report-text")
    expect(report).to_contain_text("Figures (0–100; 95% bootstrap intervals over items", timeout=DEADLINE)
    report.scroll_into_view_if_needed()
    expect(report).to_be_in_viewport()
    assert "-0.0" not in report.inner_text()
    expect(page.locator("#drill-run input")).to_have_value(re.compile(re.escape(f"[{run_id}]")))  # chosen below too
    page.wait_for_function("() => (document.querySelector('#drill-item input') || {}).value !== ''",
                           timeout=DEADLINE)
    page.click("#drill-show")
    folded = page.locator("#drill-table tr.ib-decision:not(.ib-repeat) .ib-times").first
    folded.wait_for(timeout=DEADLINE)
    folded.scroll_into_view_if_needed()
    expect(folded).to_be_in_viewport()
    expect(folded).to_have_text(re.compile(r"^×([2-9]|\d\d+)$"))  # a run of two or more identical decisions
