"""Review in the browser: an admin creates a reviewer in the Users tab; the reviewer signs in, steps the
player by a frame and to the next target, edits a trigger time with a reason, and the audit record
appears in the item's history (while markup in an edited answer stays inert)."""
import pytest

from annotation import auth
from annotation.store import Store

pytestmark = pytest.mark.browser


def fill(page, elem_id, text):
    box = page.locator(f"#{elem_id} textarea, #{elem_id} input").first
    box.fill(text)


def choose(page, elem_id, option_text):
    page.click(f"#{elem_id} input")
    page.locator("ul[role=listbox] li", has_text=option_text).first.click()


def sign_in(page, name, password):
    fill(page, "signin-name", name)
    fill(page, "signin-password", password)
    page.click("#signin-button")
    page.wait_for_selector(f'#signin-status[data-user="{name}"]', timeout=20000)


def test_review_edit_with_audit_record(app_server, page):
    auth.create_user(Store(app_server.db), "boss", "admin", "boss-password")
    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Annotation").click()
    sign_in(page, "boss", "boss-password")
    page.get_by_role("tab", name="Users").click()
    fill(page, "users-name", "rita")
    choose(page, "users-role", "reviewer")
    fill(page, "users-password", "rita-password")
    page.click("#users-add")
    page.wait_for_selector("#users-table >> text=rita", timeout=20000)

    page.click("#signout-button")
    page.wait_for_selector("#signin-status >> text=Signed out", timeout=20000)
    sign_in(page, "rita", "rita-password")
    page.get_by_role("tab", name="Review").click()
    choose(page, "review-benchmark", "interactscope")
    page.wait_for_selector("#review-queue-table >> text=is-t2-blue", timeout=20000)
    choose(page, "review-item", "is-t2-blue")
    page.wait_for_function("() => { const v = document.querySelector('#review-video');"
                           " return v && v.dataset.item === 'is-t2-blue' && v.readyState >= 1; }", timeout=30000)
    page.wait_for_selector("#review-video-targets", timeout=20000)

    # frame-accurate navigation: next target jumps to the window start (10 s), +1 frame adds 1/25 s
    page.click("#review-next-target")
    page.wait_for_function("() => Math.abs(document.querySelector('#review-video').currentTime - 10) < 0.02",
                           timeout=10000)
    page.click("#review-fwd-frame")
    page.wait_for_function("() => Math.abs(document.querySelector('#review-video').currentTime - 10.05) < 0.02",
                           timeout=10000)
    page.locator("body").press("ArrowRight")  # keyboard: +1 s
    page.wait_for_function("() => Math.abs(document.querySelector('#review-video').currentTime - 11.05) < 0.02",
                           timeout=10000)

    # edit the trigger (window start) to the player's time, with a reason
    choose(page, "review-field", "target.g1.anchor")
    page.click("#review-use-time")
    page.wait_for_function("() => { const b = document.querySelector('#review-value textarea, #review-value input');"
                           " return b && b.value.startsWith('11.0'); }", timeout=10000)
    fill(page, "review-reason", "blue fills the frame only at 11 s")
    page.click("#review-save")
    page.wait_for_selector("#review-history-table >> text=blue fills the frame only at 11 s", timeout=20000)
    row = page.locator("#review-history-table tbody tr").last.inner_text()
    assert "rita" in row and "target.g1.anchor" in row and "10" in row and "11.0" in row
    page.wait_for_selector("#review-video-targets >> text=00:11.0", timeout=10000)

    # an answer containing markup is stored as text and shown inert
    choose(page, "review-field", "target.g1.reference")
    fill(page, "review-value", '<img src=x onerror="window.__xss=1">')
    fill(page, "review-reason", "markup check")
    page.click("#review-save")
    page.wait_for_selector("#review-history-table >> text=markup check", timeout=20000)
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#review-details img, #review-history img").count() == 0

    recs = Store(app_server.db).reviews("interactscope", "is-t2-blue")
    assert [(r.user, r.field, r.old_value, r.new_value) for r in recs][0] == ("rita", "target.g1.anchor", 10.0, 11.05)
