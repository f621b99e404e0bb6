"""Open the app, choose a demo item, press play and see the player's currentTime advance."""
import pytest

pytestmark = pytest.mark.browser


def test_browse_plays_demo_item(app_server, page):
    page.goto(app_server.url + "/")
    page.wait_for_selector("#browse-item", timeout=60000)
    # choose the second InteractionBench item through the dropdown
    page.click("#browse-item input")
    options = page.locator("ul[role=listbox] li")
    options.nth(1).wait_for(timeout=10000)
    chosen = options.nth(1).inner_text().split(" · ")[0]
    options.nth(1).click()
    page.wait_for_function("id => { const v = document.querySelector('#stream-video');"
                           " return v && v.dataset.item === id && v.readyState >= 2; }", arg=chosen, timeout=30000)
    page.evaluate("() => { const v = document.querySelector('#stream-video'); v.muted = true; return v.play(); }")
    t0 = page.evaluate("() => document.querySelector('#stream-video').currentTime")
    page.wait_for_timeout(1500)
    t1 = page.evaluate("() => document.querySelector('#stream-video').currentTime")
    assert t1 > t0 + 0.5, (t0, t1)
    # the request and targets of that item are listed with their times
    assert page.locator("#item-targets").count() == 1


def test_player_id_stays_unique_once_the_session_tab_is_open(app_server, page):
    page.goto(app_server.url + "/")
    page.wait_for_selector("video[data-ib-player=browse]", timeout=60000)
    assert page.evaluate("() => document.querySelectorAll('#stream-video').length") == 1
    page.get_by_role("tab", name="Session").click()
    page.wait_for_selector("#session-player video", state="attached", timeout=30000)
    page.wait_for_function("() => document.querySelectorAll('#stream-video').length === 1"
                           " && !!document.querySelector('#session-player #stream-video')", timeout=10000)
    page.get_by_role("tab", name="Browse").click()
    assert page.locator("#browse-video").count() == 1
