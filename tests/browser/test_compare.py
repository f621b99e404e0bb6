"""Compare tab in Chromium: one lane per responder, coloured points, click-to-seek; the leaderboard lists
both responders, sorts, and links into Compare."""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.browser.conftest import AppServer
from tests.runners.test_report import populate_demo

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def compare_server(tmp_path_factory):
    db = tmp_path_factory.mktemp("compare") / "ibench.sqlite"
    ids = populate_demo(db, benchmarks=("interactionbench",))
    srv = AppServer(db).start()
    yield srv, ids["interactionbench"]
    srv.stop()


def _lanes(page) -> list[str]:
    return page.locator("#compare-lanes .ib-lane").evaluate_all("els => els.map(e => e.dataset.responder)")


def test_compare_link_shows_one_lane_per_responder_and_seeks(compare_server, page):
    srv, (sid, rid) = compare_server
    keys = ["human:alice", f"model:baseline:periodic@{rid}"]
    q = urlencode({"view": "compare", "benchmark": "interactionbench", "responders": ",".join(keys),
                   "item": "ball_counter#0"})
    page.goto(f"{srv.url}/?{q}")
    page.wait_for_function("n => document.querySelectorAll('#compare-lanes .ib-lane').length === n", arg=2,
                           timeout=60000)
    assert _lanes(page) == keys
    # the plot has one category per responder (plus the targets lane) and coloured points
    page.wait_for_selector("#compare-plot .js-plotly-plot .scatterlayer", timeout=90000)
    ticks = page.locator("#compare-plot .ytick text").evaluate_all("es => es.map(e => e.textContent)")
    assert len(ticks) == 3 and "targets" in ticks
    # lanes named who and when: the studio session by alice, the model's run
    assert any(t.startswith("alice · studio session · ") for t in ticks)
    assert any(t.startswith("baseline:periodic") for t in ticks)
    legend = page.locator("#compare-plot .legendtext").evaluate_all("es => es.map(e => e.textContent)")
    assert {"matched", "premature", "redundant"} <= set(legend)
    # clicking the human's matched point seeks the video to its time
    page.wait_for_function("() => { const v = document.querySelector('#compare-video'); return v && v.readyState >= 1; }",
                           timeout=90000)
    page.wait_for_function("() => { const g = document.querySelector('#compare-plot .js-plotly-plot');"
                           " return g && g.__ibSeek; }", timeout=90000)
    target = page.evaluate("""() => {
        const gd = document.querySelector('#compare-plot .js-plotly-plot');
        gd.scrollIntoView();
        const i = gd.data.findIndex(t => t.name === 'matched');
        const tr = gd.data[i]; const j = tr.y.findIndex(y => String(y).startsWith('alice · '));
        const pts = gd.querySelectorAll('.scatterlayer .trace')[i].querySelectorAll('.point');
        const r = pts[j].getBoundingClientRect();
        return {x: r.left + r.width / 2, y: r.top + r.height / 2, t: tr.x[j]};
    }""")
    page.mouse.move(target["x"], target["y"])
    page.wait_for_timeout(200)
    page.mouse.click(target["x"], target["y"])
    page.wait_for_function("t => Math.abs(document.querySelector('#compare-video').currentTime - t) < 0.05",
                           arg=target["t"], timeout=90000)


def test_compare_tab_choose_responders(compare_server, page):
    srv, (sid, rid) = compare_server
    page.goto(srv.url + "/")
    page.get_by_role("tab", name="Compare").click()
    page.wait_for_function("() => document.querySelectorAll('#compare-lanes .ib-lane').length === 2", timeout=60000)
    # untick the model run: one lane left
    page.locator("#compare-responders label", has_text="baseline:periodic").click()
    page.wait_for_function("() => document.querySelectorAll('#compare-lanes .ib-lane').length === 1", timeout=90000)
    assert _lanes(page) == ["human:alice"]


def test_leaderboard_sorts_and_links_into_compare(compare_server, page):
    srv, (sid, rid) = compare_server
    page.goto(srv.url + "/")
    page.get_by_role("tab", name="Leaderboard").click()
    page.wait_for_selector("#leaderboard-table tbody tr", timeout=60000)
    names = page.locator("#leaderboard-table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.name)")
    assert set(names) == {"human:alice", "baseline:periodic"}
    # the model's 5 items get an interval; the human's 4 get the figure, n and the reason there is none
    assert page.locator("#leaderboard-table tr[data-name='baseline:periodic'] td", has_text="[").count() == 1
    human = page.locator("#leaderboard-table tr[data-name='human:alice'] td").nth(2).inner_text()
    assert "[" not in human and "n=4" in human and "no interval: fewer than 5 items" in human
    page.locator("#leaderboard-table th[data-col='0']").click()
    first = page.locator("#leaderboard-table tbody tr").first.get_attribute("data-name")
    page.locator("#leaderboard-table th[data-col='0']").click()
    assert page.locator("#leaderboard-table tbody tr").first.get_attribute("data-name") != first
    link = page.locator("#leaderboard-table tr[data-name='human:alice'] a.ib-compare-link").first
    assert "view=compare" in link.get_attribute("href")
    link.click()
    page.wait_for_function("k => { const l = document.querySelectorAll('#compare-lanes .ib-lane');"
                           " return l.length === 1 && l[0].dataset.responder === k; }", arg="human:alice",
                           timeout=60000)
