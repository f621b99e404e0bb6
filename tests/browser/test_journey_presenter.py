"""The presenter's first ten minutes at 1280x720 (issue 23), as a person walks them with keys and clicks: a model
demo opened from the studio link the README gives, switched to the presenter view with its button; Start; the
stream large with the lanes and a transcript beside it whose lines carry their media times; a state badge that
changes only when a state lasts; no operator message, microphone or idle human control on screen; the model's
result spoken of as the model's."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
from session_helpers import STATES_JS, VIDEO, rows, state_gaps, study_url

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 720)]
W, H = 1280, 720
ITEM = "ball_counter#0"
SPEC = "baseline:periodic:2"   # deterministic: says "Still watching." at media t = 1, 3, 5, ...
def box(page, sel):
    return page.locator(sel).bounding_box()


def in_view(b) -> bool:
    return b is not None and b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= W + 1 and b["y"] + b["height"] <= H + 1


def test_presenter_journey(app_server, page):
    page.context.add_init_script(STATES_JS)
    page.goto(study_url(app_server.url, "P-demo", [ITEM], model=SPEC, who="model"))
    page.wait_for_selector("#present-link:not([hidden])", timeout=60000)
    page.click("#present-link")                               # the presenter view's button
    page.wait_for_url(re.compile(r"view=present"), timeout=90000)
    page.wait_for_selector('#ib-session.ib-present #model-state[data-state="ready"]', timeout=60000)
    page.wait_for_selector("#start-btn:not([disabled])", timeout=90000)

    # nothing for the audience but the stream, its state and the transcript: no tabs, no microphone, no operator
    # message, no idle human control
    assert page.locator('[role="tablist"]:visible').count() == 0
    for sel in ("#mic-btn", "#mic-status", "#respond-btn", "#response-text", "#present-link"):
        assert page.locator(sel).is_hidden(), sel
    assert page.locator("#ib-session .ib-bad:visible").count() == 0
    assert "asr-model" not in page.inner_text("body")
    page.click("#start-btn")
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}'); return v && !v.paused; }}",
                           timeout=90000)

    # transcript lines appear beside the stream, newest first, each with its media time
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li.ib-tl-model').length >= 3",
                           timeout=60000)
    times = page.locator("#session-timeline li.ib-tl-model .ib-tl-t").all_inner_texts()
    assert times[-3:] == ["00:05.000", "00:03.000", "00:01.000"]
    assert all(t == "Still watching." for t in
               page.locator("#session-timeline li.ib-tl-model .ib-tl-text").all_inner_texts())
    video, side, cap = box(page, VIDEO), box(page, "#session-timeline"), box(page, "#model-caption")
    assert video["width"] >= 0.55 * W and in_view(video)                  # the stream large, in the window
    assert side["x"] >= video["x"] + video["width"] and in_view(side)      # the transcript and lanes beside it
    assert in_view(box(page, f'#session-timeline .ib-tl-lane[data-lane="model:{SPEC}"]'))
    assert cap["y"] >= video["y"] + video["height"] - 1 and in_view(cap)   # the caption under the frame
    assert page.inner_text("#model-caption") == "Still watching."
    assert re.fullmatch(rf"{re.escape(SPEC)}: (watching|spoke at 00:\d\d\.\d{{3}}|thinking \d+\.\d s)",
                        page.inner_text("#model-state"))

    # the status changes only when a state lasts (each shown state stayed >= 1.2 s, the page's hold)
    page.wait_for_function("() => window.__states.filter(s => s.state === 'spoke').length >= 2", timeout=60000)
    shown, gaps = state_gaps(page)
    assert gaps and min(gaps) >= 1200 - 0.1, shown  # data-since is written to 0.1 ms: the hold less that rounding

    # the end of the item: the result card speaks of the model
    page.evaluate(f"() => {{ document.querySelector('{VIDEO}').playbackRate = 4; }}")
    page.wait_for_selector("#item-result #item-score-model-plain", timeout=90000)
    sid = page.evaluate("() => window.ibenchSession.state.sess.id")
    n = len([r for r in rows(app_server.db, sid) if r.responder.startswith("model:")])
    card = page.inner_text("#item-score-model-plain")
    assert card.startswith(f"The model responded {n} times.") and "You " not in card
