"""Runs tab: a baseline run starts in the background, the page stays responsive, progress reaches the end."""
import pytest

pytestmark = pytest.mark.browser


def test_start_a_baseline_run_and_watch_it_finish(app_server, page):
    page.goto(app_server.url + "/")
    page.get_by_role("tab", name="Runs").click()
    page.wait_for_selector("#runs-start", timeout=90000)
    page.locator("#runs-benchmark input").click()
    page.locator("ul[role=listbox] li", has_text="proactivebench").first.click()
    page.click("#runs-start")
    page.wait_for_function("() => { const s = document.querySelector('#runs-status');"
                           " return s && s.innerText.includes('Started run'); }", timeout=60000)
    # while it runs the other tabs still answer
    page.get_by_role("tab", name="Browse").click()
    page.wait_for_selector("#browse-item", timeout=90000)
    page.get_by_role("tab", name="Runs").click()
    page.wait_for_function("() => { const t = document.querySelector('#runs-table');"
                           " return t && /proactivebench[\\s\\S]*done[\\s\\S]*6\\/6/.test(t.innerText); }", timeout=90000)
    page.click("#runs-show")
    page.wait_for_function("() => (document.querySelector('#runs-report') || {}).innerText?.includes('AVG')",
                           timeout=90000)
