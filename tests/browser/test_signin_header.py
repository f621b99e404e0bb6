"""Sign-in in the page header, at 1280x720 and 1440x900: a signed-out visitor reads what to do on the first tab;
the one-line form above the tabs signs in from any tab and then reads "Signed in as NAME (role) · Sign out"
with no Sign in button left; the header stays in view on every tab and across a reload (the cookie); an
annotator opening Compare or Leaderboard reads who the tab is for and who they are instead of an empty page."""
import pytest

from annotation import auth
from annotation.store import Store
from tests.browser.conftest import new_context, sign_in

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1440, 900)]
TABS = ("Browse", "Session", "Runs", "Compare", "Leaderboard", "Annotation")


@pytest.fixture(scope="module")
def accounts(app_server):
    auth.create_user(Store(app_server.db), "ann", "annotator", "ann-password")
    return app_server


def in_window(page, selector, width, height):
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    assert box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, \
        (selector, box, width, height)
    return box


@pytest.mark.parametrize("width,height", SIZES)
def test_header_sign_in_on_every_tab_kept_across_a_reload(accounts, browser, width, height):
    ctx = new_context(browser, viewport={"width": width, "height": height})
    page = ctx.new_page()
    try:
        page.goto(accounts.url + "/")
        # signed out, on the first tab: the header's form and a plain hint, not an empty "Choose an item."
        page.wait_for_selector("#browse-access .ib-tab-access", timeout=60000)
        assert page.inner_text("#signin-status").strip() == "Not signed in."
        assert page.inner_text("#browse-access").strip() == (
            "Browse is for every signed-in account (annotators, reviewers and admins). Sign in at the top of the "
            "page with the user name and password your admin gave you.")
        assert "Choose an item" not in page.inner_text("#browse-player")
        for sel in ("#signin-name", "#signin-password", "#signin-button"):
            in_window(page, sel, width, height)
        assert page.locator("#signout-button").is_hidden()
        # one line: the form sits in a header no taller than a button row, above the tabs
        header = in_window(page, "#ib-header", width, height)
        tabs_top = page.get_by_role("tab", name="Browse").bounding_box()["y"]
        assert header["height"] <= 56 and header["y"] + header["height"] <= tabs_top, (header, tabs_top)

        page.get_by_role("tab", name="Runs").click()  # signing in from another tab than Annotation
        sign_in(page, "ann", "ann-password")
        page.wait_for_function("() => document.querySelector('#signin-status').innerText.includes("
                               "'Signed in as ann (annotator)')", timeout=90000)
        page.wait_for_selector("#signin-button", state="hidden", timeout=90000)
        assert page.locator("#signin-name").is_hidden() and page.locator("#signin-password").is_hidden()
        assert page.locator("#signout-button").is_visible()

        for tab in TABS:  # the header tops every tab's page (Verify may scroll its workbench up after opening)
            page.get_by_role("tab", name=tab).click()
            for sel in ("#signin-status", "#signout-button"):
                assert page.locator(sel).is_visible(), (tab, sel)
                top = page.evaluate("(s) => document.querySelector(s).getBoundingClientRect().top + scrollY", sel)
                assert 0 <= top <= 56, (tab, sel, top)
        page.get_by_role("tab", name="Compare").click()
        page.wait_for_selector("#compare-access .ib-tab-access", timeout=90000)
        assert page.inner_text("#compare-access").strip() == \
            "Compare is for reviewers and admins. You are signed in as ann (annotator)."
        in_window(page, "#compare-access", width, height)
        for control in ("#compare-benchmark", "#compare-item", "#compare-responders"):  # the line alone, no controls
            page.wait_for_selector(control, state="hidden", timeout=90000)
        page.get_by_role("tab", name="Leaderboard").click()
        assert page.inner_text("#leaderboard-access").strip() == \
            "Leaderboard is for reviewers and admins. You are signed in as ann (annotator)."
        page.get_by_role("tab", name="Browse").click()
        assert page.locator("#browse-access .ib-tab-access").count() == 0  # a tab the role may use: no line
        page.wait_for_selector("#browse-benchmark", state="visible", timeout=90000)  # ... and its controls

        page.reload()  # the cookie keeps the sign-in
        page.wait_for_selector('#signin-status[data-user="ann"]', timeout=60000)
        page.wait_for_selector("#signin-button", state="hidden", timeout=90000)
        assert "Signed in as ann (annotator)" in page.inner_text("#signin-status")
        page.get_by_role("tab", name="Compare").click()
        page.wait_for_selector("#compare-access .ib-tab-access", timeout=90000)
        assert "You are signed in as ann (annotator)." in page.inner_text("#compare-access")
        page.click("#signout-button")
        page.wait_for_selector("#signin-status >> text=Signed out", timeout=90000)
        page.wait_for_selector("#signin-button", state="visible", timeout=90000)
        page.wait_for_function("() => (document.querySelector('#compare-access') || {}).innerText"
                               " && document.querySelector('#compare-access').innerText.includes('Sign in at the top')",
                               timeout=90000)
    finally:
        ctx.close()


def test_the_buttons_wait_for_their_script_and_a_sign_in_says_it_is_on_its_way(accounts, page):
    """Gradio adds the page's scripts without waiting for them: until static/signin.js listens, Sign in is
    disabled, so a click on a slow page is never lost. While the password is being checked the status says so,
    and a second click sends nothing more."""
    held, posts = [], []
    page.route("**/ib-static/signin.js*", lambda route: held.append(route))
    page.on("request", lambda r: posts.append(r.url) if r.url.endswith("/auth/signin") else None)
    page.goto(accounts.url + "/")
    page.wait_for_selector("#signin-button", state="visible")
    page.wait_for_function("() => document.querySelectorAll('#browse-access .ib-tab-access').length === 1")
    assert held, "the page asked for no sign-in script"
    assert page.locator("#signin-button").is_disabled()  # the header is drawn, its script is held back
    page.locator("#signin-name input, #signin-name textarea").first.fill("ann")
    page.locator("#signin-password input").first.fill("ann-password")
    answers = []
    page.route("**/auth/signin", lambda route: answers.append(route))  # the password check, held
    held[0].continue_()
    page.wait_for_function("() => !document.querySelector('#signin-button').disabled")
    page.click("#signin-button")
    page.wait_for_function("() => document.querySelector('#signin-status').innerText.trim() === 'Signing in…'")
    page.click("#signin-button")
    assert len(answers) == 1 and len(posts) == 1, (answers, posts)
    answers[0].continue_()
    page.wait_for_selector('#signin-status[data-user="ann"]', state="attached")
    assert len(posts) == 1
    assert "Signed in as ann (annotator)" in page.inner_text("#signin-status")
