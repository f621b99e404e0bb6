"""The participant's first ten minutes at 1280x720 (issue 23), as a person walks them with keys and clicks: a study
made with `study create` (README), opened from a crowd platform's link with its participant id; instructions that
promise only this study's steps; Start, a key press, a Respond click and a typed answer; the result in plain words
on the scorer's 0–100 scale; the completion code with the link back to the platform. No microphone control and no
error show when the server has no speech model. And a connection dropped mid-item: the page resumes where the study
left it after a reload, with every response logged once."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
from session_helpers import VIDEO, rows, wait_media
from annotation.store import Store
from app import main

pytestmark = [pytest.mark.browser, pytest.mark.viewport(1280, 720)]
W, H = 1280, 720
ITEM = "ball_counter#0"   # B_trigger: one event, the ball appears at 8.0 s (delta 5 s)
PID = "5f8e0c2a9b1d4e7f6a3c2b10"
BACK = "https://app.prolific.com/submissions/complete?cc=JOURNEY-1"


def study_link(db, tmp_path, *extra) -> str:
    """`python app.py study create …` for one participant and one item; the participant's link."""
    (tmp_path / "items.txt").write_text(ITEM + "\n")
    out = tmp_path / "links.csv"
    assert main(["study", "create", "--db", str(db), "--benchmark", "interactionbench", "--participants", "1",
                 "--items", str(tmp_path / "items.txt"), "--out", str(out), *extra]) == 0
    return out.read_text().splitlines()[1].split(",", 1)[1]


def in_view(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= H and box["x"] >= 0 \
        and box["x"] + box["width"] <= W


def wait_ready(page) -> None:
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}'); const b = document.querySelector('#start-btn');"
                           " return v && v.readyState >= 2 && b && !b.hidden && !b.disabled; }", timeout=60000)


def wait_status(page, pattern: str) -> None:
    page.wait_for_function(f"() => /{pattern}/.test(document.querySelector('#session-status').textContent)",
                           timeout=90000)


def outbox(page) -> dict:
    """The responses this page keeps until the server acknowledges them (session_transport.js)."""
    return page.evaluate("() => JSON.parse(localStorage.getItem('ibench.outbox') || '{}')")


def no_voice_and_no_error(page) -> None:
    assert page.locator("#mic-btn").is_hidden() and page.locator("#mic-handsfree").is_hidden()
    assert page.locator("#mic-status").is_hidden()
    assert page.locator("#session-player .ib-bad:visible").count() == 0


def test_participant_journey(app_server, page, tmp_path):
    link = study_link(app_server.db, tmp_path, "--show-results", "--no-calibration", "--completion-code", "JOURNEY-1",
                      "--completion-url", BACK, "--base-url", app_server.url)
    page.goto(f"{link}&PROLIFIC_PID={PID}")

    # instructions written from this study's steps: one video, no practice, no reaction test; agree in view
    page.wait_for_selector("#study-consent:not([hidden]) #consent-text h2", timeout=60000)
    text = page.inner_text("#consent-text")
    assert "You will watch 1 short video." in text and "countdown" in text
    assert "practice" not in text and "reaction test" not in text
    assert in_view(page, "#consent-agree") and in_view(page, "#consent-btn")
    page.click("#consent-agree")
    page.click("#consent-btn")

    # the item: video and Respond in view, no microphone (no speech model on this server) and no error
    wait_ready(page)
    assert in_view(page, VIDEO) and in_view(page, "#respond-btn") and in_view(page, "#start-btn")
    no_voice_and_no_error(page)
    page.click("#start-btn")
    page.wait_for_selector("#countdown:not([hidden])", timeout=90000)
    wait_media(page, 8.6)                      # the ball is on screen: respond with the key, then the button
    page.keyboard.press("Space")
    wait_status(page, "Logged press")
    page.click("#respond-btn")
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li').length === 2", timeout=90000)
    page.click("#response-text")
    page.keyboard.type("a red ball")
    page.click("#send-btn")
    wait_status(page, "Logged text")
    assert in_view(page, VIDEO) and in_view(page, "#session-status")
    no_voice_and_no_error(page)

    # the end of the stream (the test does not sit 23 more seconds), then the result in plain words
    page.evaluate(f"() => {{ document.querySelector('{VIDEO}').playbackRate = 8; }}")
    page.wait_for_selector("#item-result #item-plain", timeout=60000)
    got = sorted(rows(app_server.db, page.evaluate("() => window.ibenchSession.state.sess.id"), 3), key=lambda r: r.t)
    assert [(r.kind, r.meta.get("source")) for r in got] == [("press", "key:Space"), ("press", "button"),
                                                            ("text", "send")]
    # hand-worked from the scorer's rules: the key press matches the 8.0 s event, timing 100 * (1 - delay / 5);
    # the other two responses are redundant (2 violations for 1 event): silence compliance max(0, 1 - 2) = 0
    timing = round(round(100 * max(0.0, 1 - (got[0].t - 8.0) / 5.0), 1))
    plain = page.inner_text("#item-plain")
    assert "You responded 3 times." in plain
    assert f"Timing: {timing} out of 100" in plain
    assert "Staying quiet when nothing was asked: 0 out of 100" in plain
    assert not re.search(r"\d{3,} out of 100", plain.replace("100 out of 100", ""))
    assert in_view(page, "#item-plain") and in_view(page, "#next-btn")
    assert page.inner_text("#next-btn") == "Finish session"
    page.click("#next-btn")

    # the end: the completion code and the way back to the platform, in view
    page.wait_for_selector("#study-done:not([hidden]) #completion-code", timeout=90000)
    assert page.inner_text("#completion-code") == "JOURNEY-1"
    assert page.get_attribute("#completion-link", "href") == BACK
    assert "You have finished the video." in page.inner_text("#study-done")
    assert in_view(page, "#completion-code") and in_view(page, "#completion-link")
    st = Store(app_server.db)
    try:
        sess = st.get_session(got[0].session_id)
    finally:
        st.close()
    assert sess.settings["platform_id"] == PID


def test_a_dropped_connection_and_a_reload_mid_item_log_each_response_once(app_server, page, tmp_path):
    link = study_link(app_server.db, tmp_path, "--no-calibration", "--no-countdown", "--base-url", app_server.url)
    page.goto(link)
    page.wait_for_selector("#study-consent:not([hidden])", timeout=60000)
    page.click("#consent-agree")
    page.click("#consent-btn")
    wait_ready(page)
    page.click("#start-btn")
    wait_media(page, 1.0)
    page.keyboard.press("Space")
    wait_status(page, "Logged press")
    sid = page.evaluate("() => window.ibenchSession.state.sess.id")

    # the connection drops after the server took the next press: it is committed, its acknowledgement is lost
    dropped = []

    def lose_the_answer(route):
        dropped.append(route.fetch().status)
        route.abort("connectionreset")

    page.route("**/study/api/respond", lose_the_answer)
    wait_media(page, 2.5)
    page.keyboard.press("Space")
    wait_status(page, "Server unreachable: 1 response\\(s\\) kept in this browser")   # after three lost answers
    assert len(outbox(page)) == 1
    assert len(rows(app_server.db, sid, 2)) == 2      # the server has it...
    assert dropped and set(dropped) == {200}           # ...but the page never heard so, and keeps it to re-send

    # the participant reloads: the study resumes the open item at its last logged time, the kept press is re-sent
    # with its own id and counted once
    page.unroute("**/study/api/respond")
    page.reload()
    wait_ready(page)
    page.wait_for_function("() => (localStorage.getItem('ibench.outbox') || '{}') === '{}'", timeout=90000)
    assert page.inner_text("#start-btn") == "Resume"
    got = rows(app_server.db, sid)
    assert len(got) == 2 and len({r.id for r in got}) == 2
    # never before the last logged response (the page also keeps how far it had played)
    m = re.search(r"resuming at (\d\d):(\d\d\.\d{3})", page.inner_text("#session-header"))
    assert m and 60 * int(m[1]) + float(m[2]) >= max(r.t for r in got)
    assert page.evaluate(f"() => document.querySelector('{VIDEO}').currentTime") >= max(r.t for r in got)
    page.wait_for_function("() => document.querySelectorAll('#session-timeline li').length === 2", timeout=90000)
    page.click("#start-btn")
    page.wait_for_function(f"() => !document.querySelector('{VIDEO}').paused", timeout=90000)
    page.keyboard.press("Space")
    wait_status(page, "Logged press")
    assert len(rows(app_server.db, sid, 3)) == 3
