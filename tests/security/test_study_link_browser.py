"""A study link in Chromium: it shows the session and nothing else, logs to its own session, and no URL
trick opens another participant's session (the token decides, not the page)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import ITEMS  # noqa: E402

from annotation.store import Store  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 900)]
# the browser tests' own Chromium fixture (Debian's chromium, one browser per module)
from tests.browser.conftest import browser, page  # noqa: E402,F401

VIDEO = "#session-player #stream-video"


def _ready(page, timeout=90000):
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}'); const b = document.querySelector('#start-btn');"
                           " return v && v.readyState >= 2 && b && !b.hidden; }", timeout=timeout)


def _sessions(server) -> dict[str, str]:
    st = Store(server.db)
    try:
        return {s.participant: s.id for s in st.sessions()}
    finally:
        st.close()


def test_a_study_link_shows_only_the_session_and_logs_to_it(server, page):
    page.goto(f"{server.url}/study/?t={server.tokens['alice']}")
    _ready(page)
    assert page.locator("[role=tab]").count() == 0                     # no studio tabs
    for sel in ("#runs-start", "#signin-name", "#compare-plot", "#browse-item", "#leaderboard-box"):
        assert page.locator(sel).count() == 0, sel
    assert page.locator("#session-setup").is_hidden()                  # no setup form, no model field in use
    assert "alice" in page.inner_text("#session-header")
    page.click("#start-btn")
    page.wait_for_function(f"() => document.querySelector('{VIDEO}').currentTime > 1.0", timeout=30000)
    page.click("#respond-btn")
    page.wait_for_function("() => /1 response/.test((document.querySelector('#session-timeline') || {}).innerText || '')",
                           timeout=20000)
    st = Store(server.db)
    try:
        rows = st.responses(session_id=_sessions(server)["alice"])
    finally:
        st.close()
    assert len(rows) == 1 and rows[0].responder == "human:alice" and rows[0].item_id == ITEMS["alice"][0]


def test_a_participant_cannot_open_another_participants_session(server, page):
    bob = _sessions(server)["bob"]
    # alice's link with bob's session id in the URL: still alice's session
    page.goto(f"{server.url}/study/?t={server.tokens['alice']}&session={bob}")
    _ready(page)
    assert "alice" in page.inner_text("#session-header") and "bob" not in page.inner_text("#session-header")
    # a made-up token opens nothing
    page.goto(f"{server.url}/study/?t={'x' * 43}")
    page.wait_for_function("() => /not valid/.test((document.querySelector('#session-message') || {}).innerText || '')",
                           timeout=60000)
    assert page.locator("#session-player").is_hidden()
    # the studio's session link with bob's id: accounts exist, so it asks for a sign-in and shows no player
    page.goto(f"{server.url}/?session={bob}")
    page.wait_for_function("() => /Sign in/.test((document.querySelector('#session-message') || {}).innerText || '')",
                           timeout=90000)
    assert page.locator("#session-player").is_hidden()
    st = Store(server.db)
    try:
        assert st.responses(session_id=bob) == []
    finally:
        st.close()
