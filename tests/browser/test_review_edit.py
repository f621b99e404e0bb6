"""Review in the browser: an admin creates a reviewer in the Users tab; the reviewer signs in, steps the
player by a frame and to the next target, edits a trigger time with a reason, and the audit record
appears in the item's history (while markup in an edited answer stays inert)."""
import pytest

from annotation import auth
from annotation.store import Store
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.browser


def fill(page, elem_id, text):
    box = page.locator(f"#{elem_id} textarea, #{elem_id} input").first
    box.fill(text)


def choose(page, elem_id, option_text):
    page.click(f"#{elem_id} input")
    page.locator("ul[role=listbox] li", has_text=option_text).first.click()


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
    page.wait_for_selector("#users-table >> text=rita", timeout=90000)

    page.click("#signout-button")
    page.wait_for_selector("#signin-status >> text=Signed out", timeout=90000)
    sign_in(page, "rita", "rita-password")
    page.get_by_role("tab", name="Review").click()
    choose(page, "review-benchmark", "interactscope")
    page.wait_for_selector("#review-queue-table >> text=is-t2-blue", timeout=90000)
    choose(page, "review-item", "is-t2-blue")
    page.wait_for_function("() => { const v = document.querySelector('#review-video');"
                           " return v && v.dataset.item === 'is-t2-blue' && v.readyState >= 1; }", timeout=90000)
    page.wait_for_selector("#review-video-targets", timeout=90000)
    # the form opens on a field this item can change (its trigger time), not request.time
    page.wait_for_function("() => document.querySelector('#review-field input').value === 'target.g1.anchor'",
                           timeout=90000)

    # frame-accurate navigation: next target jumps to the window start (10 s), +1 frame adds 1/25 s
    page.click("#review-next-target")
    page.wait_for_function("() => Math.abs(document.querySelector('#review-video').currentTime - 10) < 0.02",
                           timeout=90000)
    page.click("#review-fwd-frame")
    page.wait_for_function("() => Math.abs(document.querySelector('#review-video').currentTime - 10.05) < 0.02",
                           timeout=90000)
    page.locator("body").press("ArrowRight")  # keyboard: +1 s
    page.wait_for_function("() => Math.abs(document.querySelector('#review-video').currentTime - 11.05) < 0.02",
                           timeout=90000)

    # edit the trigger (window start) to the player's time, with a reason
    choose(page, "review-field", "target.g1.anchor")
    page.click("#review-use-time")
    page.wait_for_function("() => { const b = document.querySelector('#review-value textarea, #review-value input');"
                           " return b && b.value.startsWith('11.0'); }", timeout=90000)
    fill(page, "review-reason", "blue fills the frame only at 11 s")
    page.click("#review-save")
    page.wait_for_selector("#review-history-table >> text=blue fills the frame only at 11 s", timeout=90000)
    row = page.locator("#review-history-table tbody tr").last.inner_text()
    assert "rita" in row and "target.g1.anchor" in row and "10" in row and "11.0" in row
    page.wait_for_selector("#review-video-targets >> text=00:11.0", timeout=90000)

    # an answer containing markup is stored as text and shown inert
    choose(page, "review-field", "target.g1.reference")
    fill(page, "review-value", '<img src=x onerror="window.__xss=1">')
    fill(page, "review-reason", "markup check")
    page.click("#review-save")
    page.wait_for_selector("#review-history-table >> text=markup check", timeout=90000)
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#review-details img, #review-history img").count() == 0

    recs = Store(app_server.db).reviews("interactscope", "is-t2-blue")
    assert [(r.user, r.field, r.old_value, r.new_value) for r in recs][0] == ("rita", "target.g1.anchor", 10.0, 11.05)


def test_drag_window_edge_undo_and_adjudicate(app_server, page):
    from annotation import verification
    from annotation.loaders import load
    store = Store(app_server.db)
    auth.create_user(store, "rob", "reviewer", "rob-password")
    blue = load("interactscope").get("is-t5-remind")
    ana, ben = auth.User("ana2", "annotator"), auth.User("ben2", "annotator")
    verification.submit_mark(store, ana, blue, 0, 29.2)
    verification.submit_mark(store, ben, blue, 0, 30.0)  # 0.8 s apart: beyond the 0.5 s threshold

    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Annotation").click()
    sign_in(page, "rob", "rob-password")
    page.get_by_role("tab", name="Review").click()
    choose(page, "review-benchmark", "interactscope")
    page.wait_for_selector("#review-queue-table >> text=is-t1-timer", timeout=90000)
    page.click('#review-queue-table tr[data-pick="is-t1-timer"]')  # clickable queue rows
    page.wait_for_function("() => { const v = document.querySelector('#review-video');"
                           " return v && v.dataset.item === 'is-t1-timer' && v.readyState >= 1; }", timeout=90000)
    wb = page.locator('.ib-wb[data-video="review-video"][data-item="is-t1-timer"]')
    wb.wait_for(timeout=90000)
    assert wb.get_attribute("data-editable") == "1"
    dur = float(wb.get_attribute("data-duration"))
    page.locator("#review-timeline-canvas").scroll_into_view_if_needed()
    box = page.locator("#review-timeline-canvas").bounding_box()
    x = lambda t: box["x"] + box["width"] * t / dur  # noqa: E731  (the view is the whole stream)
    y = box["y"] + box["height"] / 2
    # drag the window's start edge from 24 s to about 22.5 s
    page.mouse.move(x(24.0), y)
    page.mouse.down()
    page.mouse.move(x(23.2), y, steps=4)
    page.mouse.move(x(22.5), y, steps=4)
    page.mouse.up()
    page.wait_for_function("() => { const b = document.querySelector('#review-value textarea, #review-value input');"
                           " return b && b.value.startsWith('22.') && b.value.endsWith(', 28.000'); }", timeout=90000)
    assert page.locator("#review-field input").first.input_value() == "target.g1.window"
    fill(page, "review-reason", "the timer starts earlier")
    page.click("#review-save")
    page.wait_for_selector("#review-history-table >> text=the timer starts earlier", timeout=90000)
    recs = Store(app_server.db).reviews("interactscope", "is-t1-timer")
    assert [r.field for r in recs] == ["target.g1.window", "target.g1.anchor"]  # both fields the drag moved
    new_start = recs[0].new_value[0]
    assert 22.0 < new_start < 23.0 and recs[1].old_value == 24.0 and recs[1].new_value == new_start
    hist = page.inner_text("#review-history-table")
    assert "target.g1.anchor" in hist and "UTC" in hist  # readable times, not Unix seconds

    # undo the edit through the audit trail
    choose(page, "review-undo-pick", "target.g1.window")
    fill(page, "review-reason", "changed my mind")
    page.click("#review-undo")
    page.wait_for_selector("#review-history-table >> text=changed my mind", timeout=90000)
    from annotation import review as rv
    back = rv.edited_item(load("interactscope").get("is-t1-timer"), Store(app_server.db).reviews("interactscope",
                                                                                                   "is-t1-timer"))
    assert back.targets[0].window == (24.0, 28.0) and back.targets[0].anchor == 24.0

    # the disagreement is in the adjudication queue; the reviewer decides it with a reason
    page.wait_for_selector('#adjudication-table tr[data-pick="is-t5-remind|trigger|g1"]', timeout=90000)
    page.click('#adjudication-table tr[data-pick="is-t5-remind|trigger|g1"]')
    page.wait_for_function("() => { const v = document.querySelector('#review-video');"
                           " return v && v.dataset.item === 'is-t5-remind'; }", timeout=90000)
    fill(page, "adjudicate-decision", "29.5")
    fill(page, "adjudicate-reason", "the reminder is audible at 29.5 s")
    page.click("#adjudicate-resolve")
    page.wait_for_selector("#adjudication-table >> text=decided by rob", timeout=90000)
    (adj,) = Store(app_server.db).verifications("interactscope", "is-t5-remind", kind="adjudication")
    assert adj.user == "rob" and adj.value["t"] == 29.5 and adj.value["marks"] == {"ana2": 29.2, "ben2": 30.0}
    with pytest.raises(PermissionError, match="closed"):
        verification.withdraw_mark(Store(app_server.db), ana, blue, 0)
    page.wait_for_selector("#review-trail-table >> text=decided trigger", timeout=90000)
    # j: the next item in the (filtered) queue
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("j")
    page.wait_for_function("() => { const v = document.querySelector('#review-video');"
                           " return v && v.dataset.item === 'is-t6-wave'; }", timeout=90000)
