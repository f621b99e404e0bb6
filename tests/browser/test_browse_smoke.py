"""Open the app, choose a demo item, press play and see the player's currentTime advance."""
import pytest

pytestmark = pytest.mark.browser


def test_browse_plays_demo_item(app_server, page):
    page.goto(app_server.url + "/")
    page.wait_for_selector("#browse-item", timeout=60000)
    # choose the second InteractionBench item through the dropdown
    page.click("#browse-item input")
    options = page.locator("ul[role=listbox] li")
    options.nth(1).wait_for(timeout=90000)
    chosen = options.nth(1).inner_text().split(" · ")[0]
    options.nth(1).click()
    page.wait_for_function("id => { const v = document.querySelector('#stream-video');"
                           " return v && v.dataset.item === id && v.readyState >= 2; }", arg=chosen, timeout=90000)
    page.evaluate("() => { const v = document.querySelector('#stream-video'); v.muted = true; return v.play(); }")
    t0 = page.evaluate("() => document.querySelector('#stream-video').currentTime")
    # plays: waits for the state, never for a wall-clock figure
    page.wait_for_function("t0 => document.querySelector('#stream-video').currentTime > t0 + 0.5", arg=t0,
                           timeout=90000)
    # the request and targets of that item are listed with their times
    assert page.locator("#item-targets").count() == 1


# Holds back the page's Browse load event (the one that draws the player) by 3 s, as a busy
# server would, so a choice made as soon as the page shows meets a load reply still on its way.
HOLD_BROWSE_LOAD = """
window.__browseLoadReplied = false;
const realFetch = window.fetch;
window.fetch = async function (url, opts) {
  if (String(url).includes('/queue/join') && opts && typeof opts.body === 'string') {
    const cfg = window.gradio_config;
    const body = JSON.parse(opts.body);
    const ids = new Set(cfg.components.filter(c => c.props && c.props.elem_id === 'browse-player').map(c => c.id));
    const dep = cfg.dependencies.find(d => d.id === body.fn_index);
    if (dep && dep.targets.some(t => t[1] === 'load') && dep.outputs.some(o => ids.has(o) )) {
      await new Promise(r => setTimeout(r, 3000));
    }
  }
  return realFetch.apply(this, arguments);
};
"""


def test_a_choice_made_before_the_page_finished_loading_is_kept(app_server, page):
    page.add_init_script(HOLD_BROWSE_LOAD)
    page.goto(app_server.url + "/")
    page.wait_for_selector("#browse-item input", state="attached", timeout=60000)
    # locked until the load's reply has drawn the first item; Playwright's click waits for it to unlock
    assert page.locator("#browse-item input").is_disabled()
    page.click("#browse-item input", timeout=60000)
    options = page.locator("ul[role=listbox] li")
    options.nth(1).wait_for(timeout=90000)
    chosen = options.nth(1).inner_text().split(" · ")[0]
    options.nth(1).click()
    # the load's own output (the problems line) has landed, and the player still shows the chosen item
    # (while pending the box shows Gradio's timer; the load writes "N items, no problems found" or "N problem(s)")
    page.wait_for_function("() => document.querySelector('#browse-problems').innerText.includes('problem')",
                           timeout=60000)
    page.wait_for_function("id => { const v = document.querySelector('#stream-video');"
                           " return v && v.dataset.item === id; }", arg=chosen, timeout=90000)
    assert page.locator("#browse-item input").input_value().startswith(chosen)


def test_player_id_stays_unique_once_the_session_tab_is_open(app_server, page):
    page.goto(app_server.url + "/")
    page.wait_for_selector("video[data-ib-player=browse]", timeout=60000)
    assert page.evaluate("() => document.querySelectorAll('#stream-video').length") == 1
    page.get_by_role("tab", name="Session").click()
    page.wait_for_selector("#session-player video", state="attached", timeout=90000)
    page.wait_for_function("() => document.querySelectorAll('#stream-video').length === 1"
                           " && !!document.querySelector('#session-player #stream-video')", timeout=90000)
    page.get_by_role("tab", name="Browse").click()
    assert page.locator("#browse-video").count() == 1
