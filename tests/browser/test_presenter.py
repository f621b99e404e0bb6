"""Presenter mode at 1280x720 for a live model demo: the model's latest words as a caption in a band under the
frame (never over the picture), its state on the video, changing only when a state lasts, tall lanes with a playhead, no idle human controls when only the model responds,
and a connection check that keeps Start closed for a model that cannot be reached."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
from session_helpers import STATES_JS, VIDEO, open_ready, rows, start, state_gaps, study_url
from tests.browser.conftest import AppServer, new_context

pytestmark = pytest.mark.browser
ITEM = "moving_square#0"


@pytest.fixture
def small(browser):
    ctx = new_context(browser, viewport={"width": 1280, "height": 720})
    ctx.add_init_script(STATES_JS)
    pg = ctx.new_page()
    yield pg
    ctx.close()


def box(page, sel):
    return page.locator(sel).bounding_box()


def inside(a, b) -> bool:
    return a["x"] >= b["x"] - 1 and a["y"] >= b["y"] - 1 and a["x"] + a["width"] <= b["x"] + b["width"] + 1 \
        and a["y"] + a["height"] <= b["y"] + b["height"] + 1


def test_scripted_model_caption_on_the_video(app_server, small):
    page = small
    spec = "baseline:periodic:2"   # scripted: says "Still watching." at t = 1, 3, 5, ...
    sid = open_ready(page, study_url(app_server.url, "P-show", [ITEM], model=spec, who="model"))
    page.wait_for_selector('#model-state[data-state="ready"]', timeout=90000)   # reached before Start
    assert page.locator(".ib-controls").is_hidden() and page.locator("#respond-btn").is_hidden()
    start(page)
    page.wait_for_selector("#model-caption:not([hidden])", timeout=90000)
    assert page.inner_text("#model-caption") == "Still watching."
    first = rows(app_server.db, sid, 1)[0]
    assert page.get_attribute("#model-caption", "data-rid") == first.id
    # the state sits on the video; the caption under the frame (it never covers the picture), both in the window
    video, cap = box(page, VIDEO), box(page, "#model-caption")
    assert inside(box(page, "#model-state"), video)
    assert cap["y"] >= video["y"] + video["height"] - 1 and cap["y"] + cap["height"] <= 720
    assert video["y"] >= 0 and video["y"] + video["height"] <= 720
    assert page.get_attribute("#model-state", "data-state") in ("spoke", "thinking", "watching")
    # the badge changes only when a state lasts: every shown state stayed at least 1.2 s (the page's HOLD_MS)
    # before the next replaced it, whatever the model's call rhythm (a call every 0.5 s of a few ms each)
    page.wait_for_function("() => window.__states.filter(s => s.state === 'spoke').length >= 2", timeout=90000)
    shown, gaps = state_gaps(page)
    assert gaps and min(gaps) >= 1200 - 0.1, shown  # data-since is written to 0.1 ms: the hold less that rounding
    # lanes readable from the back of the room, with a playhead that follows the video
    lane = box(page, f'#session-timeline .ib-tl-lane[data-lane="model:{spec}"]')
    assert lane["height"] >= 40
    x0 = page.evaluate("() => parseFloat(document.querySelector('#session-timeline .ib-tl-playhead').style.left)")
    page.wait_for_function(f"() => parseFloat(document.querySelector('#session-timeline .ib-tl-playhead').style.left) > {x0}",
                           timeout=90000)
    # a newer utterance replaces the caption
    page.wait_for_function(f"() => document.querySelector('#model-caption').dataset.rid !== {first.id!r}", timeout=90000)
    assert page.inner_text("#model-caption") == "Still watching."


def test_unreachable_model_keeps_start_closed(tmp_path, browser):
    reg = tmp_path / "models.toml"
    reg.write_text('allowed_base_urls = ["http://127.0.0.1:9/v1"]\n[models]\n"down" = "openai:m@http://127.0.0.1:9/v1"\n')
    srv = AppServer(tmp_path / "ibench.sqlite", ["--models", str(reg)]).start()
    ctx = new_context(browser, viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    try:
        page.goto(study_url(srv.url, "P-down", [ITEM], model="down", who="model"))
        page.wait_for_selector('#model-state[data-state="error"]', timeout=60000)
        assert page.locator("#start-btn").is_disabled()
        assert "not reachable" in page.inner_text("#model-status")
        assert "127.0.0.1:9" in page.inner_text("#model-status")
    finally:
        ctx.close()
        srv.stop()
