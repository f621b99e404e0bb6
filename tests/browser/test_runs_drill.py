"""Runs tab drill-down of a baseline run: one row per model decision, with thumbnails of the frames it was
given (decoded on the server), the prompt, the raw reply, the parsed decision and the scorer's verdict; identical
decisions in a row are shown once, "×N"."""
import subprocess
import sys
from itertools import groupby

import pytest

from annotation.store import Store
from tests.browser.conftest import REPO

pytestmark = pytest.mark.browser
ITEM = "ball_counter#0"


@pytest.fixture(scope="module")
def baseline_run(app_server):
    ids = app_server.db.parent / "items.txt"
    ids.write_text(ITEM + "\n")
    out = subprocess.run([sys.executable, "app.py", "run", "--benchmark", "interactionbench", "--model",
                          "baseline:motion", "--items", str(ids), "--db", str(app_server.db)],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    st = Store(app_server.db)
    try:
        run = st.runs()[-1]
        return run.id, st.run_calls(run.id, ITEM)
    finally:
        st.close()


def pick(page, dropdown: str, text: str) -> None:
    page.locator(f"{dropdown} input").click()
    page.locator("ul[role=listbox] li", has_text=text).first.click()


def test_drill_down_shows_every_decision_with_frames_and_verdicts(app_server, page, baseline_run):
    run_id, calls = baseline_run
    spoke = [c for c in calls if c["decision"] == "speak"]
    assert len(calls) > 10 and spoke  # the motion baseline speaks on this item
    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Runs").click()
    page.wait_for_selector("#drill-run", timeout=90000)
    page.locator("#drill-run input").click()  # focus refreshes the list with the run made after start-up
    page.locator("ul[role=listbox] li", has_text=run_id).first.click()
    page.wait_for_function(f"() => (document.querySelector('#drill-item input') || {{}}).value === {ITEM!r}",
                           timeout=90000)
    page.click("#drill-show")
    page.wait_for_selector("#drill-table tr.ib-decision", timeout=60000)
    rows = page.locator("#drill-table tr.ib-decision")
    assert rows.count() == len(calls)
    ts = [float(x) for x in page.eval_on_selector_all("#drill-table tr.ib-decision", "rs => rs.map(r => r.dataset.t)")]
    assert ts == [round(c["t"], 3) for c in calls]
    # every decision shows the frames it was given, as decoded images (never a path)
    imgs = page.eval_on_selector_all("#drill-table img.ib-thumb",
                                     "is => is.map(i => [i.src.slice(0, 23), i.naturalWidth])")
    assert imgs and all(src == "data:image/jpeg;base64," and w > 0 for src, w in imgs)
    first = rows.first
    assert first.locator("img.ib-thumb").count() == min(4, len(calls[0]["frame_times"]))
    # spoken decisions carry the scorer's verdict; silent ones are silent
    verdicts = page.eval_on_selector_all("#drill-table tr.ib-decision", "rs => rs.map(r => r.dataset.verdict)")
    # parsed decisions and the raw reply as stored; identical decisions in a row are one row, "×N" (the rest of
    # the run is kept in the page, folded away)
    same = groupby([(c["decision"], c["text"], c["raw_reply"], v) for c, v in zip(calls, verdicts)])
    expected = [d + (f": “{t}”" if t else "") + (f" ×{n}" if n > 1 else "")
                for (d, t, _, _), n in ((k, len(list(g))) for k, g in same)]
    parsed = page.eval_on_selector_all("#drill-table tr.ib-decision:not(.ib-repeat) td.ib-parsed",
                                       "cs => cs.map(c => c.innerText)")
    assert parsed == expected and len(expected) < len(calls)
    assert page.locator("#drill-table tr.ib-repeat").first.is_hidden()
    assert calls[0]["raw_reply"] in first.inner_text()
    assert {v for c, v in zip(calls, verdicts) if c["decision"] == "silent"} == {"silent"}
    assert all(v in ("matched", "premature", "redundant", "spurious", "unscored")
               for c, v in zip(calls, verdicts) if c["decision"] == "speak")
    # the verdict filter keeps only what was said
    pick(page, "#drill-filter", "responded")
    page.click("#drill-show")
    page.wait_for_function(f"() => document.querySelector('#drill-table')?.dataset.n === '{len(spoke)}'",
                           timeout=90000)
    assert page.locator("#drill-table tr.ib-decision").count() == len(spoke)


def test_a_folded_run_of_decisions_unfolds_and_folds_again(app_server, page, baseline_run):
    """The "×N" of a run of identical decisions shows each of them (its own time and latency), then hides them."""
    run_id, _ = baseline_run
    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Runs").click()
    page.wait_for_selector("#drill-run", timeout=90000)
    page.locator("#drill-run input").click()
    page.locator("ul[role=listbox] li", has_text=run_id).first.click()
    page.wait_for_function(f"() => (document.querySelector('#drill-item input') || {{}}).value === {ITEM!r}",
                           timeout=90000)
    page.click("#drill-show")
    button = page.locator("#drill-table button.ib-times").first
    button.wait_for(timeout=60000)
    n = int(button.inner_text().lstrip("×"))
    group = button.get_attribute("data-group")
    folded = page.locator(f"#drill-table tr.ib-repeat[data-group='{group}']")
    assert n >= 2 and folded.count() == n - 1
    assert all(folded.nth(k).is_hidden() for k in range(n - 1))
    button.click()
    page.wait_for_function(f"() => [...document.querySelectorAll(\"#drill-table tr.ib-repeat[data-group='{group}']\")]"
                           ".every(r => r.offsetParent !== null)", timeout=90000)
    assert button.get_attribute("aria-expanded") == "true"
    assert "the same decision as above" in folded.first.inner_text()
    button.click()
    page.wait_for_function(f"() => [...document.querySelectorAll(\"#drill-table tr.ib-repeat[data-group='{group}']\")]"
                           ".every(r => r.offsetParent === null)", timeout=90000)
    assert button.get_attribute("aria-expanded") == "false"
