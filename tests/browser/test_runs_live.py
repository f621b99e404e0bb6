"""The Runs list follows the store by itself (issue 23): a run started in the background (here by the `run` command
on the app's own store, so nothing the page does can redraw the list) appears and reaches "done" in the open page,
with no reload, while the run the user chose stays chosen, its report stays shown and the page stays where the user
scrolled it."""
from __future__ import annotations

import subprocess
import sys

import pytest
from playwright.sync_api import expect

from annotation.store import Store
from tests.browser.conftest import REPO, AppServer

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 720)]
ITEMS = ("ball_counter#0", "color_scene#0")
DEADLINE = 180000  # ms: generous waits for a state, never a threshold


def run_cmd(db, items_file, *extra) -> list[str]:
    return [sys.executable, "app.py", "run", "--benchmark", "interactionbench", "--model", "baseline:periodic",
            "--items", str(items_file), "--db", str(db), *extra]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """An app over a store holding one finished run (the one the user will choose)."""
    d = tmp_path_factory.mktemp("runs-live")
    db = d / "ibench.sqlite"
    (d / "first.txt").write_text(ITEMS[0] + "\n")
    (d / "both.txt").write_text("\n".join(ITEMS) + "\n")
    done = subprocess.run(run_cmd(db, d / "first.txt"), cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    st = Store(db)
    first = st.runs()[-1].id
    st.close()
    srv = AppServer(db).start()
    yield srv, first, d / "both.txt"
    srv.stop()


def test_a_background_run_reaches_done_in_the_open_list(served, page):
    srv, first, items = served
    page.goto(srv.url + "/")
    page.get_by_role("tab", name="Runs").click()
    row = page.locator(f"#runs-table tr[data-run='{first}']")
    row.wait_for(timeout=DEADLINE)
    row.click()
    expect(page.locator("#runs-report-text")).to_contain_text("Figures (0–100", timeout=DEADLINE)
    expect(row).to_have_class("ib-run-row ib-run-chosen")
    # the user scrolls the list to the top of the window; a marker tells a reload apart from a redraw
    page.evaluate("() => { window.ibNoReload = true;"
                  " window.scrollTo(0, window.scrollY + document.querySelector('#runs-list').getBoundingClientRect().top); }")
    page.wait_for_function("() => window.scrollY > 0", timeout=DEADLINE)
    scrolled = page.evaluate("() => window.scrollY")
    report = page.locator("#runs-report-text").inner_text()

    proc = subprocess.Popen(run_cmd(srv.db, items), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        page.wait_for_function(
            "first => [...document.querySelectorAll('#runs-table tr[data-run]')].some(r => r.dataset.run !== first"
            " && r.querySelector('.ib-run-status').innerText.trim() === 'done'"
            " && r.querySelector('.ib-progress-label').innerText.trim() === '2/2 items')", arg=first, timeout=DEADLINE)
    finally:
        _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    assert page.evaluate("() => window.ibNoReload === true")  # redrawn in place, never reloaded
    rows = page.eval_on_selector_all("#runs-table tr[data-run]", "rs => rs.map(r => [r.dataset.run, r.className])")
    assert len(rows) == 2 and rows[1] == [first, "ib-run-row ib-run-chosen"]  # newest first; the choice kept
    assert page.locator("#runs-report-text").inner_text() == report
    assert page.evaluate("() => window.scrollY") == scrolled
    expect(page.locator(f"#runs-table tr[data-run='{first}']")).to_be_in_viewport()
