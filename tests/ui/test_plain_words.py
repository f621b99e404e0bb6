"""Results in plain words (issue 23): one formatter for the scorers' 0–100 figures, counts in the right number,
"the model" on a model's lane, and built-in instructions that promise only the study's own steps. Every expected
sentence is worked out by hand from the scorer's rules (docs/scoring.md), never by the code under test."""
from __future__ import annotations

import math
import time

import pytest

from annotation.model import Response
from annotation.store import Store
from annotation.studies import create_study, resolve_token
from ibench_ui import study_flow
from ibench_ui.context import AppContext
from ibench_ui.interactionbench.hooks import plain_result as ib_words
from ibench_ui.plain_words import counted, out_of_100
from ibench_ui.session import SessionService

IB = "interactionbench"
TRIGGER = "ball_counter#0"   # B_trigger: one event, the ball at 8.0 s; delta 5 s


@pytest.mark.parametrize("value, words", [(48.0, "48 out of 100"), (0.0, "0 out of 100"), (100, "100 out of 100"),
                                          (66.7, "67 out of 100"), (None, None), (True, None), ("48", None)])
def test_one_formatter_reads_the_scorers_own_scale(value, words):
    assert out_of_100(value) == words


def test_counts_in_the_right_number():
    assert [counted(1, "video"), counted(2, "video"), counted(0, "moment")] == ["1 video", "2 videos", "0 moments"]


def test_interactionbench_sentences_from_a_headline():
    said = [object()]
    assert ib_words({"timing_accuracy": 48.0, "silence_compliance": 50.0, "accuracy": 75.0}, said, "You") == [
        "Timing: 48 out of 100 (how close you came to the right moment).",
        "Staying quiet when nothing was asked: 50 out of 100 (you responded at a wrong moment).",
        "Answer: 75 out of 100."]
    assert ib_words({"timing_accuracy": 0.0, "silence_compliance": 100.0}, [], "The model") == [
        "Timing: 0 out of 100 (how close the model came to the right moment).",
        "The model never responded at a wrong moment.",
        "A press carries no answer, so the answer itself is not checked here."]


@pytest.fixture
def svc(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "no-such-model"))
    return SessionService(ctx, clock_slack=math.inf, links=True)


def _press(svc, sid, who, t):
    svc.ctx.store.add_response(Response(id="", item_id=TRIGGER, benchmark=IB, responder=who, session_id=sid, t=t,
                                        kind="press", wall_time=time.time()))


def test_a_participants_result_through_the_real_scorer(svc):
    # presses at 10.4 s and 12.0 s: the first matches the 8.0 s event (delay 2.4 s: 100 * (1 - 2.4/5) = 52), the
    # second is redundant (1 violation of 1 event: silence compliance 100 * (1 - 1/1) = 0)
    _, tokens = create_study(svc.ctx.store, IB, ["p1"], [TRIGGER], {"show_results": True})
    sid = resolve_token(svc.ctx.store, tokens["p1"]).session_id
    _press(svc, sid, "human:p1", 10.4)
    _press(svc, sid, "human:p1", 12.0)
    html = svc.finish_item({"session_id": sid, "item_index": 0, "item_id": TRIGGER})["result_html"]
    assert ("<li>You responded 2 times.</li><li>Timing: 52 out of 100 (how close you came to the right moment).</li>"
            "<li>Staying quiet when nothing was asked: 0 out of 100 (you responded at a wrong moment).</li>") in html
    end = svc.open_session({"session_id": sid})["end_html"]
    assert "You have finished the video." in end and "all 1 videos" not in end


def test_the_models_card_speaks_of_the_model(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "m.sqlite"), asr_model=str(tmp_path / "no-such-model"))
    staff = SessionService(ctx, clock_slack=math.inf)
    spec = "baseline:periodic:2"
    res = staff.open_session({"participant": "demo", "benchmark": IB, "items": TRIGGER, "model": spec,
                              "who": "model"})
    sid = res["session"]["id"]
    # one model response at 8.0 s exactly: delay 0, timing 100; one response, no violation: never out of turn
    _press(staff, sid, f"model:{spec}@{sid}", 8.0)
    html = staff.finish_item({"session_id": sid, "item_index": 0, "item_id": TRIGGER})["result_html"]
    assert "<li>The model responded 1 time.</li><li>Timing: 100 out of 100 (how close the model came" in html
    assert "The model never responded at a wrong moment." in html and "You responded" not in html


@pytest.mark.parametrize("steps, promised, not_promised", [
    ({"practice_item": "ball_counter#1", "calibrate": True, "countdown": 3},
     ["one **practice** video", "a short **reaction test**", "3-2-1"], []),
    ({"practice_item": None, "calibrate": False, "countdown": 0},
     ["when you press **Start**"], ["practice", "reaction test", "3-2-1"]),
    ({"practice_item": None, "calibrate": True, "countdown": 3, "respond_key": "KeyJ"},
     ["First comes a short **reaction test**.", "the **J** key"], ["practice"]),
])
def test_instructions_promise_only_the_studys_steps(steps, promised, not_promised):
    text = study_flow.instructions({"study_id": "st", **steps}, 1)
    assert "You will watch 1 short video." in text
    assert all(p in text for p in promised), text
    assert not any(p in text for p in not_promised), text
