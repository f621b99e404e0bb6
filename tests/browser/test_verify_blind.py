"""A full blind verification of a demo item in the browser: the annotator sees the request but no proposed
time, steps the player, marks, submits, and only then sees the comparison; then walks the silence prefix
one second at a time; agreement appears (own row for the annotator, the pair for a reviewer)."""
import pytest

from annotation import auth, verification
from annotation.loaders import load
from annotation.store import Store

pytestmark = pytest.mark.browser

ITEM = "is-t4-count"  # request at 9 s, first window opens at 12 s: a three-second prefix


def fill(page, elem_id, text):
    page.locator(f"#{elem_id} textarea, #{elem_id} input").first.fill(text)


def choose(page, elem_id, option_text):
    page.click(f"#{elem_id} input")
    page.locator("ul[role=listbox] li", has_text=option_text).first.click()


def sign_in(page, name, password):
    fill(page, "signin-name", name)
    fill(page, "signin-password", password)
    page.click("#signin-button")
    page.wait_for_selector(f'#signin-status[data-user="{name}"]', timeout=20000)


def test_full_blind_verification(app_server, page):
    store = Store(app_server.db)
    auth.create_user(store, "ana", "annotator", "ana-password")
    auth.create_user(store, "ben", "annotator", "ben-password")
    auth.create_user(store, "rex", "reviewer", "rex-password")
    item = load("interactscope").get(ITEM)
    verification.submit_mark(store, auth.User("ben", "annotator"), item, 0, 13.0, "second")

    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Annotation").click()
    sign_in(page, "ana", "ana-password")
    choose(page, "verify-benchmark", "interactscope")
    choose(page, "verify-item", ITEM)
    page.wait_for_function(f"() => {{ const v = document.querySelector('#verify-video');"
                           f" return v && v.dataset.item === '{ITEM}' && v.readyState >= 1; }}", timeout=30000)
    page.wait_for_selector("#verify-request-text", timeout=20000)
    assert "How many times does the counter change?" in page.inner_text("#verify-request-text")
    # blind: no proposed time anywhere in the Verify panel before the mark is submitted
    panel = page.inner_html("#tab-verify")
    assert "verify-video-targets" not in panel and 'data-targets=""' in panel
    assert page.locator("#verify-reveal-pending").count() == 1

    for _ in range(2):
        page.click("#verify-fwd-1s")  # 0 -> 2 s
    page.locator("body").press("ArrowRight")  # keyboard +1 s -> 3 s ... then seek near the event
    page.evaluate("() => window.ibPlayer.seek('verify-video', 12.3)")
    page.click("#verify-fwd-frame")
    page.click("#verify-use-time")
    page.wait_for_function("() => document.querySelector('#verify-mark textarea, #verify-mark input').value"
                           ".startsWith('12.')", timeout=10000)
    page.click("#verify-submit")
    page.wait_for_selector("#verify-reveal-result", timeout=20000)
    text = page.inner_text("#verify-reveal-result")
    assert "proposed: 12.000 s" in text and "Δ = +0.000 s" in text  # marked to the second: 12.3 -> 12
    marks = store.verifications("interactscope", ITEM, user="ana", kind="trigger")
    assert len(marks) == 1 and marks[0].value["t"] == 12.0

    # silence-prefix walk: 9-10, 10-11, 11-12, each clear
    page.click("#verify-prefix-start")
    for start in ("9.000", "10.000", "11.000"):
        page.wait_for_selector(f'#verify-prefix-current[data-start="{start}"]', timeout=20000)
        page.click("#verify-prefix-clear")
    page.wait_for_selector('#verify-prefix-result[data-status="pass"]', timeout=20000)
    assert verification.item_prefix_status(store, item) == "pass"

    page.get_by_role("tab", name="Agreement").click()
    page.click("#agreement-compute")
    page.wait_for_selector("#agreement-interactscope", timeout=20000)
    table = page.inner_text("#agreement-interactscope")
    assert "ana" in table and "ben" not in table

    page.click("#signout-button")
    page.wait_for_selector("#signin-status >> text=Signed out", timeout=20000)
    sign_in(page, "rex", "rex-password")
    page.click("#agreement-compute")
    page.wait_for_function("() => { const t = document.querySelector('#agreement-interactscope');"
                           " return t && t.innerText.includes('ben') && t.innerText.includes('ana'); }", timeout=20000)
    rows = page.locator("#agreement-interactscope tbody tr").all_inner_texts()
    pair = [r for r in rows if r.startswith("ana") and "ben" in r]
    assert pair and "1.000" in pair[0]  # |12 - 13| = 1 s
