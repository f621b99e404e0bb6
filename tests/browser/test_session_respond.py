"""Live session in Chromium: every response lands in the store at the media time the page saw at the
input event; quick presses are all kept; a reload resumes; bad input writes nothing."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
from session_helpers import PROBE_JS, VIDEO, center, open_ready, rows, start, study_url, wait_media
from annotation.store import Store
from tests.browser.conftest import new_context

pytestmark = pytest.mark.browser
ITEM = "moving_square#0"


@pytest.fixture
def probed(browser):
    ctx = new_context(browser, viewport={"width": 1280, "height": 1000})
    ctx.add_init_script(PROBE_JS)
    page = ctx.new_page()
    yield page
    ctx.close()


def test_button_key_and_text_times_match_the_page(app_server, probed):
    page = probed
    sid = open_ready(page, study_url(app_server.url, "P-times", [ITEM]))
    start(page)
    x, y = center(page, "#respond-btn")
    wait_media(page, 1.2); page.mouse.click(x, y)
    wait_media(page, 2.0); page.keyboard.press("Space")
    wait_media(page, 2.8); page.mouse.move(x, y); page.mouse.down(); page.wait_for_timeout(120); page.mouse.up()  # held press
    page.fill("#response-text", "the square moves")
    wait_media(page, 3.6); page.press("#response-text", "Enter")
    page.fill("#response-text", "now it stops")
    sx, sy = center(page, "#send-btn")
    wait_media(page, 4.4); page.mouse.click(sx, sy)
    wait_media(page, 5.0); page.keyboard.press("Space")
    got = rows(app_server.db, sid, 6)
    assert [r.kind for r in got] == ["press", "press", "press", "text", "text", "press"], got
    assert [r.text for r in got if r.kind == "text"] == ["the square moves", "now it stops"]
    probe = page.evaluate("() => window.__probe")
    inputs = [p for p in probe if (p["type"] == "pointerdown" and p["target"] in ("respond-btn", "send-btn"))
              or (p["type"] == "keydown" and p["key"] in (" ", "Enter") and p["target"] != "session-participant")]
    assert len(inputs) == 6, inputs
    page_id = got[0].page_id
    for r, p in zip(got, inputs):
        assert abs(r.t - p["ct"]) < 0.005, (r, p)          # captured at the input event, not at click
        assert r.frame_t is not None and abs(r.frame_t - r.t) < 0.25  # the frame on screen, within a few frames
        assert r.page_id == page_id and r.item_id == ITEM and r.responder == "human:P-times"
    assert got[2].meta["source"] == "button" and got[1].meta["source"] == "key:Space"
    assert got[3].meta["source"] == "enter" and got[4].meta["source"] == "send"
    # the live timeline lists what is logged, in a box of fixed height
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li').length === 6", timeout=60000)
    box = page.locator("#session-timeline").bounding_box()
    assert 150 <= box["height"] <= 200
    # no speech model configured: the mic control is off and says what to configure
    page.wait_for_function("() => /--asr-model PATH/.test(document.querySelector('#mic-status').textContent)",
                           timeout=90000)
    assert page.locator("#mic-btn").is_disabled()


def test_ten_quick_presses_give_ten_rows(app_server, probed):
    page = probed
    sid = open_ready(page, study_url(app_server.url, "P-quick", [ITEM]))
    start(page)
    x, y = center(page, "#respond-btn")
    for k in range(10):
        if k % 2:
            page.keyboard.press("Space")
        else:
            page.mouse.click(x, y)
        page.wait_for_timeout(120)
    got = rows(app_server.db, sid, 10)
    assert len(got) == 10 and len({r.id for r in got}) == 10
    # each press at its own media time, in the order pressed (press, key, press, ...)
    probe = [p for p in page.evaluate("() => window.__probe") if (p["type"] == "pointerdown" and p["target"] ==
             "respond-btn") or (p["type"] == "keydown" and p["key"] == " ")]
    assert len(probe) == 10
    for p, r in zip(probe, sorted(got, key=lambda r: r.t)):
        assert abs(r.t - p["ct"]) < 0.005, (p, r)  # captured at the input event
    assert [r.meta["source"] for r in sorted(got, key=lambda r: r.t)] == ["button", "key:Space"] * 5
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li').length === 10", timeout=90000)


def test_a_refused_route_falls_back_to_the_server_function(app_server, probed):
    """A page that cannot use the response route (here refused as a proxy that rewrites Host would be)
    sends through the session's server function instead: nothing is lost, the timeline still fills."""
    page = probed
    hits = []

    def refuse(route):
        hits.append(route.request.url)
        route.fulfill(status=403, body="Cross-site requests are not accepted here.")
    page.route("**/api/respond", refuse)
    sid = open_ready(page, study_url(app_server.url, "P-fallback", [ITEM]))
    start(page)
    x, y = center(page, "#respond-btn")
    page.mouse.click(x, y)
    page.wait_for_timeout(150)
    page.keyboard.press("Space")
    got = rows(app_server.db, sid, 2)
    assert [r.meta["source"] for r in sorted(got, key=lambda r: r.t)] == ["button", "key:Space"]
    assert len(hits) == 1 and hits[0] == f"{app_server.url}/api/respond"  # tried once, then the server function
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li').length === 2", timeout=90000)


def test_reload_mid_item_resumes_with_rows_kept(app_server, probed):
    page = probed
    url = study_url(app_server.url, "P-reload", [ITEM, "ball_counter#0"])
    sid = open_ready(page, url)
    start(page)
    for t in (1.0, 1.6, 2.2):
        wait_media(page, t); page.keyboard.press("Space")
    before = rows(app_server.db, sid, 3)
    assert len(before) == 3
    wait_media(page, 2.8)
    page.reload()
    assert open_ready(page, page.url) == sid
    assert "item 1 of 2" in page.inner_text("#session-header")
    assert page.locator("#session-timeline li").count() == 3
    assert page.inner_text("#start-btn") == "Resume"
    start(page)
    resumed_at = page.evaluate(f"() => document.querySelector('{VIDEO}').currentTime")
    assert resumed_at >= before[-1].t - 0.05            # no replay from 0, no jump ahead
    page.keyboard.press("Space")
    after = rows(app_server.db, sid, 4)
    assert [r.id for r in after[:3]] == [r.id for r in before] and after[3].t > before[-1].t
    # the same study link opened again in this browser continues the session rather than opening a new one
    page.goto(url)
    assert open_ready(page, url) == sid
    assert page.locator("#session-timeline li").count() == 4
    st = Store(app_server.db)
    try:
        assert [s.id for s in st.sessions(participant="P-reload")] == [sid]
    finally:
        st.close()


def test_item_end_shows_score_and_targets_then_next_item(app_server, probed):
    page = probed
    sid = open_ready(page, study_url(app_server.url, "P-end", [ITEM, "ball_counter#0"]))
    start(page)
    page.keyboard.press("Space")
    # play the rest fast (rate is not lookahead: the media clock still drives the timestamps)
    page.evaluate(f"() => {{ document.querySelector('{VIDEO}').playbackRate = 8; }}")
    page.wait_for_selector("#item-result #item-score", timeout=90000)
    assert page.locator("#item-result #result-timeline .ib-tl-win").count() >= 1
    assert page.locator("#item-result #result-timeline .ib-tl-mark").count() == 1
    assert "total_score" in page.inner_text("#item-score")
    page.click("#next-btn")
    page.wait_for_function("() => /item 2 of 2/.test(document.querySelector('#session-header').textContent)"
                           " && document.querySelector('#stream-video[data-item=\"ball_counter#0\"]')", timeout=90000)
    assert page.locator("#session-timeline li").count() == 0
    st = Store(app_server.db)
    try:
        assert st.get_session(sid).current_index == 1
    finally:
        st.close()


def test_bad_input_gives_a_message_and_writes_nothing(app_server, probed):
    page = probed
    page.goto(study_url(app_server.url, "P-bad", ["moving_square#0", "nosuch#7"]))
    page.wait_for_function("() => /Unknown item id/.test(document.querySelector('#session-message')?.textContent)",
                           timeout=60000)
    assert "nosuch#7" in page.inner_text("#session-message")
    assert page.locator("#session-player").is_hidden()
    page.goto(app_server.url + "/?participant=P-bad&benchmark=notabench&n=2")
    page.wait_for_function("() => /not loaded/.test(document.querySelector('#session-message')?.textContent)",
                           timeout=60000)
    st = Store(app_server.db)
    try:
        assert st.sessions(participant="P-bad") == []
    finally:
        st.close()
    # empty text: a message, no row
    sid = open_ready(page, study_url(app_server.url, "P-empty", [ITEM]))
    start(page)
    page.fill("#response-text", "   ")
    page.press("#response-text", "Enter")
    page.click("#send-btn")
    page.wait_for_function("() => /Type a response/.test(document.querySelector('#session-status').textContent)")
    page.wait_for_timeout(500)
    assert rows(app_server.db, sid) == []


def test_server_restart_loses_nothing(app_server, probed):
    """Presses made while the server is down wait in the page's outbox and land after the restart;
    rows committed before it are still there. (Last in the module: it restarts the shared server.)"""
    page = probed
    sid = open_ready(page, study_url(app_server.url, "P-restart", [ITEM]))
    start(page)
    wait_media(page, 1.0); page.keyboard.press("Space")
    assert len(rows(app_server.db, sid, 1)) == 1
    app_server.stop()
    wait_media(page, 1.8); page.keyboard.press("Space")
    wait_media(page, 2.4); page.keyboard.press("Space")
    waiting = page.evaluate("() => Object.keys(JSON.parse(localStorage.getItem('ibench.outbox') || '{}')).length")
    assert waiting == 2
    pressed = [p["ct"] for p in page.evaluate("() => window.__probe") if p["type"] == "keydown" and p["key"] == " "]
    app_server.start()
    page.reload()
    assert open_ready(page, page.url) == sid
    got = rows(app_server.db, sid, 3)
    assert len(got) == 3 and len({r.id for r in got}) == 3
    assert len(pressed) == 3
    for r, ct in zip(sorted(got, key=lambda r: r.t), pressed):
        assert abs(r.t - ct) < 0.005, (r.t, ct)         # re-sent with the time captured at the keydown
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li').length === 3", timeout=90000)
    assert page.evaluate("() => localStorage.getItem('ibench.outbox')") in ("{}", None)
