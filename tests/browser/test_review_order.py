"""A benchmark chosen in Review while the sign-in's queue refresh is still being built (slowly, on a busy
server) ends with that benchmark's queue: the refreshes of one queue run in the order they were asked."""
import pytest
from playwright.sync_api import Error as PlaywrightError

from annotation import auth
from annotation.store import Store
from tests.browser.conftest import REPO, AppServer
from tests.browser.test_review_edit import choose, sign_in

pytestmark = pytest.mark.browser

# every queue the page draws, in order: the first item id of each
RECORD_QUEUES = """
window.__queues = [];
new MutationObserver(() => {
  const cell = document.querySelector('#review-queue-table tbody tr td');
  const first = cell ? cell.innerText.trim() : null;
  if (first && window.__queues[window.__queues.length - 1] !== first) window.__queues.push(first);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


# what the page holds: each tab and whether it is selected, the tab panels shown, the "who is this for" lines
STATE = """() => JSON.stringify({tabs: [...document.querySelectorAll('[role=tab]')].map(e => e.innerText + ':' +
  e.getAttribute('aria-selected')), review: !!document.querySelector('#review-benchmark'),
  access: [...document.querySelectorAll('.ib-access-box')].map(e => e.id + '=' + e.innerText.trim()),
  status: document.querySelector('#signin-status')?.outerHTML, panels: [...document.querySelectorAll('[role=tabpanel]')]
  .map(e => e.id + ':' + getComputedStyle(e).display)})"""


@pytest.fixture()
def slow_server(tmp_path):
    srv = AppServer(tmp_path / "ibench.sqlite", script=str(REPO / "tests" / "browser" / "slow_review_app.py")).start()
    yield srv
    srv.stop()


def test_a_benchmark_chosen_during_the_sign_in_refresh_keeps_its_queue(slow_server, page):
    auth.create_user(Store(slow_server.db), "rita", "reviewer", "rita-password")
    page.add_init_script(RECORD_QUEUES)
    page.goto(slow_server.url + "/")
    page.get_by_role("tab", name="Annotation").click()
    sign_in(page, "rita", "rita-password")  # its refresh draws InteractionBench's queue, in 3 s
    page.get_by_role("tab", name="Review").click()
    try:  # Gradio draws a tab's controls when it is first opened; say what the page held if they never came
        page.wait_for_selector("#review-benchmark input", state="attached")
    except PlaywrightError:
        raise AssertionError(f"Review's controls were never drawn: {page.evaluate(STATE)}") from None
    choose(page, "review-benchmark", "interactscope")
    # both queues reach the page, whatever the order; the slow one has returned on the server
    page.wait_for_function("() => window.__queues.some(q => q.startsWith('is-'))"
                           " && window.__queues.some(q => q.startsWith('ball_counter'))", timeout=60000)
    assert slow_server.db.with_suffix(".slow-done").exists()
    queues = page.evaluate("() => window.__queues")
    assert queues[-1].startswith("is-"), queues
    assert page.locator("#review-queue-table", has_text="is-t2-blue").count() == 1
