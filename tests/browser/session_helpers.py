"""Shared steps for the Session tab browser tests: open a study link, start, read the store."""
from __future__ import annotations

import time
from urllib.parse import quote

from annotation.store import Store

VIDEO = "#session-player #stream-video"

# Installed before any page script: records every input event with the video's currentTime at that
# moment, independently of the app (window capture listeners run before the app's document ones).
PROBE_JS = """
window.__probe = [];
const rec = (ev) => {
  const v = document.querySelector('#session-player #stream-video');
  const t = ev.target || {};
  window.__probe.push({type: ev.type, key: ev.key || null, code: ev.code || null, target: t.id || t.tagName || '',
                       ts: ev.timeStamp, ct: v ? v.currentTime : null});
};
window.addEventListener('pointerdown', rec, true);
window.addEventListener('keydown', rec, true);
"""


# Installed before any page script: every state the model badge takes, with the page's time it took it (data-since).
STATES_JS = """
window.__states = [];
new MutationObserver((ms) => { for (const m of ms) if (m.target.id === 'model-state')
  window.__states.push({ state: m.target.dataset.state, since: Number(m.target.dataset.since) }); })
  .observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
"""


def state_gaps(page) -> tuple[list, list[float]]:
    """The badge's states so far and how long each stayed before the next (ms; errors and clearing excluded)."""
    shown = page.evaluate("() => window.__states")
    return shown, [b["since"] - a["since"] for a, b in zip(shown, shown[1:]) if b["state"] not in ("", "error")]


def study_url(base: str, participant: str, items: list[str] | None = None, **params) -> str:
    q = [f"participant={quote(participant)}", "benchmark=interactionbench"]
    if items:
        q.append("items=" + quote(",".join(items), safe=","))
    q += [f"{k}={quote(str(v))}" for k, v in params.items()]
    return base + "/?" + "&".join(q)


def open_ready(page, url: str, timeout: float = 60000) -> str:
    """Go to a study link and wait until the item is loaded and Start is shown; returns the session id."""
    page.goto(url)
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}');"
                           " const b = document.querySelector('#start-btn');"
                           " return v && v.readyState >= 2 && b && !b.hidden && /session=/.test(location.search); }",
                           timeout=timeout)
    return page.evaluate("() => new URLSearchParams(location.search).get('session')")


def start(page) -> None:
    page.click("#start-btn")
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}'); const b = document.querySelector('#start-btn');"
                           " return v && !v.paused && v.currentTime > 0.2 && b && b.hidden; }",
                           timeout=90000)


def wait_media(page, t: float, timeout: float = 40000) -> None:
    page.wait_for_function(f"() => document.querySelector('{VIDEO}').currentTime >= {t}", timeout=timeout)


def rows(db, session_id: str, n: int | None = None, timeout: float = 10.0):
    """Responses of a session from the store (a second connection, as another process would read it)."""
    deadline = time.time() + timeout
    while True:
        st = Store(db)
        try:
            got = st.responses(session_id=session_id)
        finally:
            st.close()
        if n is None or len(got) >= n or time.time() > deadline:
            return got
        time.sleep(0.1)


def center(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
