"""A study link at 1280x720, as a participant sits it: consent, practice (nothing recorded), reaction test
(calibration stored with the session), countdown, the items with Respond and the video in view, plain-words
results, and the end screen with the completion code. Space before Start only says "press Start"; Space
after a typed answer responds."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
from session_helpers import PROBE_JS, VIDEO, rows, wait_media
from annotation.store import Store
from tests.browser.conftest import new_context
from annotation.studies import create_study, participant_url, resolve_token

pytestmark = pytest.mark.browser
W, H = 1280, 720
ITEMS = ["moving_square#0", "color_scene#0"]
PRACTICE = "ball_counter#1"
CONSENT = "# Colour study\n\nPlease **watch closely**.\n\n<script>window.__pwned = 1</script>\n"


@pytest.fixture
def probed(browser):
    ctx = new_context(browser, viewport={"width": W, "height": H})
    ctx.add_init_script(PROBE_JS)
    page = ctx.new_page()
    yield page
    ctx.close()


def make_study(db, base_url: str, participant: str, **settings) -> tuple[str, str]:
    """A one-participant study through annotation.studies (what `study create` writes): (session id, link)."""
    st = Store(db)
    try:
        _, tokens = create_study(st, "interactionbench", [participant], ITEMS,
                                 {"practice_item": PRACTICE, "show_results": True, "consent": CONSENT,
                                  "calibrate": True, "countdown": 3, **settings})
        return resolve_token(st, tokens[participant]).session_id, participant_url(base_url, tokens[participant])
    finally:
        st.close()


def session_settings(db, sid: str) -> dict:
    st = Store(db)
    try:
        return st.get_session(sid).settings
    finally:
        st.close()


def in_view(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= H and box["x"] >= 0 \
        and box["x"] + box["width"] <= W


def wait_ready(page, item: str) -> None:
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}'); const b = document.querySelector('#start-btn');"
                           f" return v && v.dataset.item === {item!r} && v.readyState >= 2 && b && !b.hidden && !b.disabled; }}",
                           timeout=90000)


def wait_playing(page) -> None:
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}'); return v && !v.paused && v.currentTime > 0.2; }}",
                           timeout=90000)


def fast_forward(page) -> None:
    page.evaluate(f"() => {{ document.querySelector('{VIDEO}').playbackRate = 8; }}")


def test_study_link_consent_practice_calibration_items_code(app_server, probed):
    page = probed
    sid, link = make_study(app_server.db, app_server.url, "P-flow", completion_code="C0DE-123")
    page.goto(link)

    # consent: the study's Markdown, its raw HTML shown as text and never run
    page.wait_for_selector("#study-consent:not([hidden]) #consent-text h1", timeout=60000)
    assert page.inner_text("#consent-text h1") == "Colour study"
    assert "<script>" in page.inner_text("#consent-text")
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("#session-player").is_hidden()
    page.click("#consent-btn")  # not ticked: refused with a message
    page.wait_for_function("() => /Tick the box/.test(document.querySelector('#session-message').textContent)")
    page.check("#consent-agree")
    page.click("#consent-btn")

    # practice: Space before Start says what to do and neither scrolls nor logs; presses are confirmed locally
    wait_ready(page, PRACTICE)
    assert "Practice" in page.inner_text("#session-header")
    y0 = page.evaluate("() => window.scrollY")
    page.keyboard.press("Space")
    page.wait_for_selector("#start-hint:not([hidden])")
    assert "Press Start" in page.inner_text("#start-hint")
    assert page.evaluate("() => window.scrollY") == y0
    page.click("#start-btn")
    wait_playing(page)
    page.keyboard.press("Space")
    page.wait_for_function("() => /Practice: response seen/.test(document.querySelector('#session-status').textContent)")
    fast_forward(page)
    page.wait_for_selector("#practice-done", timeout=90000)
    assert rows(app_server.db, sid) == []  # practice is not recorded
    page.click("#next-btn")

    # reaction test: 8 cues (visual and audio); the "participant" reacts 250 ms after each cue is on
    page.wait_for_selector("#calibration:not([hidden]) #cal-start-btn:not([hidden])", timeout=90000)
    page.click("#cal-start-btn")
    for _ in range(8):
        page.wait_for_selector('#cal-cue[data-on="1"]', timeout=90000)
        page.wait_for_timeout(250)
        page.keyboard.press("Space")
        page.wait_for_selector('#cal-cue[data-on="0"]', timeout=60000)
    wait_ready(page, ITEMS[0])
    cal = session_settings(app_server.db, sid)["calibration"]
    assert cal["n_trials"] == 8 and cal["n_valid"] == 8
    assert cal["median_s"] >= 0.25          # each reaction came at least 250 ms after its cue
    assert {t["cue"] for t in cal["trials"]} <= {"visual", "audio"}

    # item 1: video and Respond in view at 1280x720; countdown; typed answer then Space both log
    assert in_view(page, VIDEO) and in_view(page, "#respond-btn")
    page.click("#start-btn")
    page.wait_for_selector("#countdown:not([hidden])")
    wait_playing(page)
    assert page.locator("#countdown").is_hidden()
    assert in_view(page, VIDEO) and in_view(page, "#respond-btn") and in_view(page, "#session-status")
    page.click("#response-text")
    page.keyboard.type("a square")
    page.keyboard.press("Enter")
    wait_media(page, 1.5)
    page.keyboard.press("Space")
    got = rows(app_server.db, sid, 2)
    assert [r.kind for r in got] == ["text", "press"] and got[0].text == "a square"
    assert got[1].meta["source"] == "key:Space"
    page.wait_for_function("() => /Logged press/.test(document.querySelector('#session-status').textContent)")
    fast_forward(page)
    page.wait_for_selector("#item-result #item-plain", timeout=90000)
    plain = page.inner_text("#item-plain")
    assert "You responded 2 times." in plain and "total_score" not in page.inner_text("#item-result")
    assert in_view(page, "#item-plain") and in_view(page, "#next-btn")

    # item 2: Next puts the player back at the top with the video and Respond in view
    page.click("#next-btn")
    wait_ready(page, ITEMS[1])
    assert in_view(page, VIDEO) and in_view(page, "#respond-btn")
    page.click("#start-btn")
    wait_playing(page)
    assert in_view(page, VIDEO) and in_view(page, "#respond-btn")
    page.keyboard.press("Space")
    assert len(rows(app_server.db, sid, 3)) == 3
    fast_forward(page)
    page.wait_for_selector("#item-result #item-plain", timeout=60000)
    assert page.inner_text("#next-btn") == "Finish session"
    page.click("#next-btn")

    # the end screen: thanks and the study's completion code; the player is gone
    page.wait_for_selector("#study-done:not([hidden]) #completion-code", timeout=90000)
    assert page.inner_text("#completion-code") == "C0DE-123"
    assert page.locator("#session-player").is_hidden()
    assert page.evaluate(f"() => document.querySelector('{VIDEO}').getAttribute('src')") is None
    assert "Video 1:" in page.inner_text("#study-recap")


def test_operator_messages_and_keys_stay_out_of_a_study(app_server, probed):
    """A participant never reads the operator's flags (tests/ui/test_study_steps.py covers the no-speech-model
    wording at the service); with no consent
    text the default instructions show; results stay hidden unless the study shows them; a session
    code is drawn when the study has none."""
    page = probed
    sid, link = make_study(app_server.db, app_server.url, "P-quiet", show_results=False, consent="",
                           instructions=True, practice_item=None, calibrate=False, countdown=0)
    page.goto(link)
    page.wait_for_selector("#study-consent:not([hidden]) #consent-text h2", timeout=60000)
    assert "Instructions" in page.inner_text("#consent-text")
    page.check("#consent-agree")
    page.click("#consent-btn")
    wait_ready(page, ITEMS[0])
    html = page.content()
    assert "asr-model" not in html and "IBENCH_WHISPER_MODEL" not in html
    page.click("#start-btn")
    wait_playing(page)
    page.keyboard.press("Space")
    assert len(rows(app_server.db, sid, 1)) == 1
    fast_forward(page)
    page.wait_for_selector("#item-result #item-saved", timeout=90000)
    assert page.locator("#item-result #item-plain").count() == 0
    page.click("#next-btn")
    wait_ready(page, ITEMS[1])
    page.click("#start-btn")
    wait_playing(page)
    fast_forward(page)
    page.wait_for_selector("#item-result #item-saved", timeout=60000)
    page.click("#next-btn")
    page.wait_for_selector("#completion-code", timeout=90000)
    code = page.inner_text("#completion-code")
    assert code.startswith("IB-") and len(code) == 11
    assert session_settings(app_server.db, sid)["session_code"] == code
    assert page.locator("#study-recap").count() == 0
