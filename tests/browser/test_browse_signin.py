"""A shared studio (accounts exist): Browse and Compare stay locked for a visitor who has not signed in, and a
sign-in unlocks and fills them without reloading the page (their load was refused before it)."""
import pytest

from annotation import auth
from annotation.store import Store
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.browser


def test_sign_in_unlocks_browse_and_compare(app_server, page):
    auth.create_user(Store(app_server.db), "rev", "reviewer", "rev-password")
    page.goto(app_server.url + "/")
    page.wait_for_selector("#browse-item input", state="attached", timeout=60000)
    # the visitor's load is refused without a message: nothing drawn, pickers locked
    page.wait_for_function("() => document.querySelector('#browse-problems') !== null", timeout=90000)
    assert page.locator("#browse-item input").is_disabled()
    assert page.locator("#browse-benchmark input").is_disabled()
    assert page.locator("#browse-player #stream-video").count() == 0
    sign_in(page, "rev", "rev-password")
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_function("() => !document.querySelector('#browse-item input').disabled", timeout=90000)
    page.wait_for_function("() => { const v = document.querySelector('#stream-video');"
                           " return v && v.dataset.item === 'ball_counter#0'; }", timeout=90000)
    # a reviewer sees the target times
    page.wait_for_selector("#browse-details #item-targets", timeout=90000)
    page.get_by_role("tab", name="Compare").click()
    page.wait_for_function("() => !document.querySelector('#compare-benchmark input').disabled", timeout=90000)
    page.wait_for_function("() => document.querySelector('#compare-item input').value !== ''", timeout=90000)
    assert page.locator(".toast-body").count() == 0  # no "Not allowed" on the way


def test_the_sign_in_is_an_httponly_cookie_no_page_holds_and_a_reload_keeps(app_server, page):
    auth.create_user(Store(app_server.db), "ria", "reviewer", "ria-password")
    page.goto(app_server.url + "/")
    page.wait_for_selector("#browse-item input", state="attached", timeout=60000)
    sign_in(page, "ria", "ria-password")
    [cookie] = [c for c in page.context.cookies() if c["name"] == "ib_session"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and len(cookie["value"]) >= 40
    assert page.evaluate("() => document.cookie") == ""  # scripts cannot read it
    assert cookie["value"] not in page.content() and "data-token" not in page.content()
    assert page.locator("#signin-password input").first.input_value() == ""
    page.reload()
    page.wait_for_selector('#signin-status[data-user="ria"]', timeout=60000)  # the load reads the cookie
    page.click("#signout-button")
    page.wait_for_selector("#signin-status >> text=Signed out", timeout=90000)
    assert not [c for c in page.context.cookies() if c["name"] == "ib_session"]
