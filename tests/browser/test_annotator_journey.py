"""The annotator's first minutes at 1280x720, keys and clicks only: a signed-out visitor reads how to start;
after signing in, Verify shows the video, the timeline, the mark and submit controls and the prefix walk
together in the window; `?` opens the key sheet over the page and Escape closes it; the annotator plays,
marks with `m`, submits with Enter and sees the mark on its own tier (and the proposed time only then); `j`
says what is left on the unfinished item and a second `j` opens the next one, blind again; Review tells the
annotator plainly that it is not theirs."""
import json

import pytest
from playwright.sync_api import expect

from annotation import auth
from annotation.store import Store
from tests.browser.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 720)]

WB = '.ib-wb[data-video="verify-video"]'
ON_SCREEN = ["#verify-video", "#verify-timeline-canvas", "#verify-use-time", "#verify-submit",
             "#verify-prefix-start", "#verify-prefix-state"]
# every element of ON_SCREEN lies inside the window
ALL_IN_VIEW = """(sels) => sels.every(s => { const el = document.querySelector(s); if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })"""
# the colour on the timeline canvas 3 px left of the caller's first mark (its dot has a 4 px radius), in the row of
# tier `key`: clear of the 2 px playhead, which a pause just after the mark leaves at the mark (2 px was not, and
# the playhead's antialiased edge darkened the pixel when the pause came within about 0.05 s of the mark)
# (rows of 16 px under the waveform, ticks 16 px above it, 4 px below the last row: static/timeline.js)
PIXEL_IN_TIER = """(key) => { const el = document.querySelector('.ib-wb[data-video="verify-video"]');
  const cv = el.querySelector('canvas'); const tiers = JSON.parse(el.dataset.tiers);
  const mark = JSON.parse(el.dataset.marks).find(m => m.tier === 'mine');
  const [v0, v1] = window.ibTimeline.view('verify-video'); const W = cv.clientWidth, H = cv.clientHeight;
  const i = tiers.findIndex(t => t[0] === key); const y = H - 4 - 16 * (tiers.length - i) + 8;
  const x = (mark.t - v0) / (v1 - v0) * W - 3, d = window.devicePixelRatio || 1;
  return Array.from(cv.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data); }"""


def blur(page):
    page.evaluate("() => document.activeElement && document.activeElement.blur()")


def in_view(page, selector):
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= 1280 and box["y"] + box["height"] <= 720, \
        (selector, box)


def item_open(page):
    page.wait_for_function(f"() => {{ const v = document.getElementById('verify-video');"
                           f" const wb = document.querySelector('{WB}');"
                           f" return v && wb && v.dataset.item === wb.dataset.item && v.readyState >= 2; }}",
                           timeout=90000)
    return page.locator(WB).get_attribute("data-item")


def tier_keys(page):
    return [t[0] for t in json.loads(page.locator(WB).get_attribute("data-tiers"))]


def test_annotator_verifies_an_item_with_keys_in_one_window(app_server, page):
    auth.create_user(Store(app_server.db), "ana", "annotator", "ana-password")
    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Annotation").click()
    # signed out: a plain hint, not an empty "Choose an item."
    page.wait_for_selector("#verify-signin-hint", state="visible", timeout=90000)
    assert "Sign in to verify items" in page.inner_text("#verify-signin-hint")
    assert "Sign in to verify items" in page.inner_text("#verify-player")

    sign_in(page, "ana", "ana-password")
    first = item_open(page)
    # the workbench in one window: video, timeline, mark and submit, the prefix walk
    page.wait_for_function(ALL_IN_VIEW, arg=ON_SCREEN, timeout=90000)
    for sel in ON_SCREEN:
        in_view(page, sel)
    # blind: no proposed time on the page, no targets tier; the own-marks tier is there
    assert page.locator(WB).get_attribute("data-targets") == "[]"
    assert tier_keys(page) == ["mine", "others"]

    # the key sheet: an overlay in view, with j's meaning; Escape closes it
    blur(page)
    page.keyboard.press("?")
    page.wait_for_selector("#verify-keys", state="visible", timeout=90000)
    in_view(page, "#verify-keys .ib-wb-keys-box")
    sheet = page.inner_text("#verify-keys")
    assert "next unverified item after this one" in sheet and "a second j leaves it" in sheet
    page.keyboard.press("Escape")
    page.wait_for_selector("#verify-keys", state="hidden", timeout=90000)

    # play from 5 s on (→ five times), mark with m while it plays, pause, submit with Enter
    page.evaluate("() => { document.getElementById('verify-video').muted = true; }")  # headless: no sound device
    blur(page)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.getElementById('verify-video').currentTime >= 4.9", timeout=90000)
    page.keyboard.press("k")
    page.wait_for_function("() => { const v = document.getElementById('verify-video');"
                           " return !v.paused && v.currentTime > 5.2; }", timeout=90000)
    page.keyboard.press("m")
    page.wait_for_function("() => (document.querySelector('#verify-mark textarea, #verify-mark input').value || '')"
                           ".length > 0", timeout=90000)
    page.keyboard.press("k")
    page.wait_for_function("() => document.getElementById('verify-video').paused", timeout=90000)
    blur(page)
    page.keyboard.press("Enter")
    page.wait_for_selector("#verify-reveal-result", timeout=90000)
    in_view(page, "#verify-reveal-result")
    # the mark on its own tier, drawn in blue; the proposed time has its tier only now
    page.wait_for_function(f"() => document.querySelector('{WB}').dataset.marks.includes('\"mine\"')",
                           timeout=90000)
    assert tier_keys(page) == ["targets", "mine", "others"]
    page.wait_for_function(f"() => {{ const p = ({PIXEL_IN_TIER})('mine');"
                           " return p[2] > 200 && p[0] < 80; }", timeout=90000)

    # j on the unfinished item (its prefix walk is not done): a warning that says what is left, no move
    blur(page)
    page.keyboard.press("j")
    page.wait_for_selector("#verify-skip-warning", state="visible", timeout=90000)
    assert "Press j again" in page.inner_text("#verify-skip-warning")
    assert page.locator(WB).get_attribute("data-item") == first
    # a second j leaves it: the next unverified item opens, blind (no targets tier, no marks)
    page.keyboard.press("j")
    page.wait_for_function(f"() => {{ const wb = document.querySelector('{WB}');"
                           f" return wb && wb.dataset.item !== '{first}'; }}", timeout=90000)
    item_open(page)
    assert tier_keys(page) == ["mine", "others"]
    assert page.locator(WB).get_attribute("data-targets") == "[]"
    assert page.locator(WB).get_attribute("data-marks") == "[]"
    assert f"Left {first} unfinished" in page.inner_text("#verify-msg")
    page.wait_for_function(ALL_IN_VIEW, arg=ON_SCREEN, timeout=90000)

    # Review is not for an annotator: a plain message says so and where their work is
    page.get_by_role("tab", name="Review").click()
    page.wait_for_selector("#review-access .ib-tab-access", state="visible", timeout=90000)
    assert page.inner_text("#review-access").strip() == ("Review is for reviewers and admins. You are signed in as "
                                                         "ana (annotator). Your own marks and prefix walks are in Verify.")
    expect(page.locator("#review-access")).to_be_in_viewport()
    page.wait_for_selector("#review-msg", state="hidden", timeout=90000)  # the line alone: no empty Review controls
