"""Session tab server logic without a browser: item sets, validation, logging, speech, scoring, resume."""
from __future__ import annotations

import math
import base64
import json

import numpy as np
import pytest

from annotation.loaders import load
from annotation.model import Response, Target
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.session import SessionInputError, SessionService, item_sets, media_at, select_items
from ibench_ui.timeline import timeline_html

IB = "interactionbench"


@pytest.fixture(scope="module")
def ib_ds():
    return load(IB)


def _open(svc, **kw):
    req = {"participant": "P01", "benchmark": IB, "items": "moving_square#0,ball_counter#0", **kw}
    res = svc.open_session(req)
    assert res["ok"], res
    return res


def _press(svc, res, t, **kw):
    return svc.respond({"session_id": res["session"]["id"], "item_index": res["item"]["index"],
                        "item_id": res["item"]["id"], "kind": "press", "media_t": t, "frame_t": t - 0.04,
                        "page_id": "pg1", "source": "button", **kw})


# -- item sets ---------------------------------------------------------------------------------

def test_item_sets_and_selection(ib_ds):
    sets = item_sets(ib_ds)
    assert "all" in sets and "demo_all" in sets and any(k.startswith("kind:") for k in sets)
    assert set(sets["demo_all"]) <= set(sets["all"])
    assert select_items(ib_ds, "ball_counter#0, color_scene#1") == ["ball_counter#0", "color_scene#1"]
    a = select_items(ib_ds, n=3, seed=7)
    assert len(a) == 3 and len(set(a)) == 3 and a == select_items(ib_ds, n=3, seed=7)
    assert select_items(ib_ds, split="demo_all") == sets["demo_all"]
    with pytest.raises(SessionInputError, match="Unknown item id.*nope#9"):
        select_items(ib_ds, ["ball_counter#0", "nope#9"])
    with pytest.raises(SessionInputError, match="between 1 and"):
        select_items(ib_ds, n=999)
    with pytest.raises(SessionInputError, match="Unknown item set"):
        select_items(ib_ds, split="nosuch")


def test_media_at_maps_samples_through_chunk_times():
    # 1000-sample chunks at 1 kHz while playing from 10.0 s, then paused at 12.0 s
    chunks = [[1000, 11.0], [2000, 12.0], [3000, 12.0]]
    assert media_at(500, 1000, 10.0, chunks) == pytest.approx(10.5)
    assert media_at(1500, 1000, 10.0, chunks) == pytest.approx(11.5)
    assert media_at(2500, 1000, 10.0, chunks) == pytest.approx(12.0)
    assert media_at(3500, 1000, 10.0, chunks) == pytest.approx(12.5)  # past the map: extrapolate
    assert media_at(250, 1000, 3.0, []) == pytest.approx(3.25)


# -- opening sessions and bad input ---------------------------------------------------------------

def test_open_session_creates_and_resumes(svc):
    res = _open(svc, pause="1", key="KeyJ")
    s = res["session"]
    assert s["participant"] == "P01" and s["n_items"] == 2 and s["index"] == 0
    assert s["settings"] == {"pause_allowed": True, "respond_key": "KeyJ"}
    item = res["item"]
    assert item["id"] == "moving_square#0" and item["video_url"].startswith("/media/")  # an opaque id, never a path (issue 10)
    assert "targets" not in json.dumps(item)  # no lookahead: targets stay on the server until item end
    again = svc.open_session({"session_id": s["id"]})
    assert again["ok"] and again["session"]["id"] == s["id"] and again["notice"] == "resumed"


@pytest.mark.parametrize("req, msg", [
    ({"participant": "P01", "benchmark": IB, "items": "ball_counter#0,nope#3"}, "Unknown item id"),
    ({"participant": "P01", "benchmark": "nosuchbench", "n": "2"}, "is not loaded"),
    ({"participant": "", "benchmark": IB, "n": "2"}, "participant id"),
    ({"participant": "P 01", "benchmark": IB, "n": "2"}, "participant id"),
    ({"participant": "P01", "benchmark": IB, "n": "zero"}, "whole number"),
    ({"participant": "P01", "benchmark": IB, "n": "2", "key": "Sp ace"}, "respond key"),
    ({"session_id": "s_doesnotexist"}, "No session"),
])
def test_bad_open_requests_write_nothing(svc, req, msg):
    res = svc.open_session(req)
    assert not res["ok"] and msg in res["error"]
    assert svc.ctx.store.sessions() == []


# -- responses -------------------------------------------------------------------------------------

def test_press_and_text_are_committed_with_browser_times(svc):
    res = _open(svc)
    r1 = _press(svc, res, 3.217, rid="r_" + "a" * 16)
    assert r1["ok"] and r1["t"] == 3.217 and r1["row"]["rid"] == "r_" + "a" * 16 and r1["row"]["item_index"] == 0
    assert "▲" in r1["row"]["mark_html"] and 'data-t="3.217"' in r1["row"]["row_html"]
    assert "timeline_html" not in r1  # the acknowledgement carries the new row alone, never the whole log
    r2 = svc.respond({"session_id": res["session"]["id"], "item_index": 0, "kind": "text", "media_t": 4.5,
                      "text": "  the square moves <b>left</b> ", "source": "enter"})
    assert r2["ok"] and r2["text"] == "the square moves <b>left</b>"
    assert "<b>left</b>" not in r2["row"]["row_html"] and "&lt;b&gt;left" in r2["row"]["row_html"]  # escaped
    # the page inserts exactly what the server draws when it renders the item's timeline whole (a reload)
    whole = svc.open_session({"session_id": res["session"]["id"]})["timeline_html"]
    for r in (r1, r2):
        assert r["row"]["row_html"] in whole and r["row"]["mark_html"] in whole
    rows = svc.ctx.store.responses(session_id=res["session"]["id"])
    assert [(r.kind, r.t, r.responder) for r in rows] == [("press", 3.217, "human:P01"), ("text", 4.5, "human:P01")]
    assert rows[0].id == "r_" + "a" * 16 and rows[0].frame_t == pytest.approx(3.177) and rows[0].page_id == "pg1"
    assert rows[0].meta["source"] == "button" and rows[0].wall_time > 0
    # a retried response (same id) is acknowledged but not stored twice
    again = _press(svc, res, 3.217, rid="r_" + "a" * 16)
    assert again["ok"] and again["duplicate"] and len(svc.ctx.store.responses(session_id=res["session"]["id"])) == 2


@pytest.mark.parametrize("patch, msg", [
    ({"kind": "text", "text": "   "}, "Type a response"),
    ({"kind": "shout"}, "kind must be"),
    ({"media_t": "NaN"}, "finite"),
    ({"media_t": -1}, "finite"),
    ({"item_index": 1}, "not open"),          # the next item is not open yet: no lookahead
    ({"item_id": "ball_counter#0"}, "is not item 1"),
    ({"session_id": "s_nope"}, "No session"),
])
def test_bad_responses_write_nothing(svc, patch, msg):
    res = _open(svc)
    out = _press(svc, res, 2.0, **patch)
    assert not out["ok"] and msg in out["error"]
    assert svc.ctx.store.responses() == []


def _clip(rate=16000, onset=0.8, length=2.0):
    x = np.zeros(int(rate * length), dtype=np.float32)
    rng = np.random.default_rng(0)
    i = int(rate * onset)
    x[i:i + int(rate * 0.6)] = 0.3 * np.sin(np.arange(int(rate * 0.6)) * 2 * np.pi * 300 / rate) \
        + 0.05 * rng.standard_normal(int(rate * 0.6))
    return base64.b64encode((x * 32767).astype("<i2").tobytes()).decode()


def test_speech_is_logged_at_onset_even_without_a_model(svc):
    res = _open(svc)
    sid = res["session"]["id"]
    out = svc.speak({"session_id": sid, "item_index": 0, "sample_rate": 16000, "pcm_b64": _clip(),
                     "start_media_t": 5.0, "chunk_ends": [[16000, 6.0], [32000, 7.0]], "source": "ptt"})
    assert out["ok"], out
    assert out["t"] == pytest.approx(5.8, abs=0.03)
    assert "without a transcript" in out["warning"]  # the model path does not exist: logged, text fixable
    row = svc.ctx.store.responses(session_id=sid)[0]
    assert row.kind == "speech" and row.audio_path and row.meta["asr_error"]
    import soundfile as sf
    audio, rate = sf.read(row.audio_path)
    assert rate == 16000 and len(audio) == 32000
    # correcting the transcript keeps the time
    fixed = svc.correct({"session_id": sid, "rid": row.id, "text": "the ball"})
    assert fixed["ok"]
    [after] = svc.ctx.store.responses(session_id=sid)
    assert after.text == "the ball" and after.t == row.t and after.id == row.id
    assert not svc.correct({"session_id": sid, "rid": row.id, "text": " "})["ok"]


def test_silent_or_broken_clips_are_rejected(svc):
    res = _open(svc)
    sid = res["session"]["id"]
    silent = base64.b64encode(np.zeros(16000, dtype="<i2").tobytes()).decode()
    base = {"session_id": sid, "item_index": 0, "sample_rate": 16000, "start_media_t": 1.0}
    assert "No speech" in svc.speak({**base, "pcm_b64": silent})["error"]
    assert "base64" in svc.speak({**base, "pcm_b64": "%%%"})["error"]
    assert "too short" in svc.speak({**base, "pcm_b64": base64.b64encode(b"\0\0" * 100).decode()})["error"]
    assert svc.ctx.store.responses() == []


def test_asr_gate_names_the_option_to_configure(tmp_path):
    svc = SessionService(AppContext(store=Store(tmp_path / "a.sqlite"), asr_model=str(tmp_path / "missing")))
    svc.asr._load()
    st = svc.asr.state()
    assert st["status"] == "error" and "--asr-model PATH" in st["message"]


# -- item end, scoring, resume ---------------------------------------------------------------------

def test_finish_item_scores_shows_targets_and_advances(svc):
    """moving_square#0 is a segments item: GT at 3, 6, 14 and 18 s ('A blue square is resting on the left.',
    ...), segments [3, 6), [6, 14), [14, 18), [18, 24 + 1e-6). The first GT sentence typed at 3.1 s scores 1.0
    in segment 1; presses (content '(pressed)', no word in common with the GT) at 6.2 and 14.05 score 0 in
    segments 2 and 3; segment 4 is empty: 0. Accuracy = total = 100 * (1 + 0 + 0 + 0) / 4 = 25.0."""
    res = _open(svc)
    sid = res["session"]["id"]
    assert svc.respond({"session_id": sid, "item_index": 0, "kind": "text", "media_t": 3.1,
                        "text": "A blue square is resting on the left."})["ok"]
    for t in (6.2, 14.05):
        assert _press(svc, res, t)["ok"]
    fin = svc.finish_item({"session_id": sid, "item_index": 0, "item_id": "moving_square#0"})
    assert fin["ok"] and fin["has_next"]
    html = fin["result_html"]
    assert 'id="item-score"' in html and 'id="result-timeline"' in html and "ib-tl-win" in html
    # the InteractionBench headline from scoring.live, its values as the page shows them (3 places)
    assert "<td>family</td><td>C_segments</td>" in html
    assert "<td>total_score</td><td>25.0</td>" in html and "<td>accuracy</td><td>25.0</td>" in html
    nxt = svc.open_session({"session_id": sid})
    assert nxt["item"]["id"] == "ball_counter#0" and nxt["session"]["index"] == 1 and nxt["n_rows"] == 0
    # finishing again is harmless; the last item ends the session
    assert svc.finish_item({"session_id": sid, "item_index": 0})["ok"]
    assert svc.open_session({"session_id": sid})["session"]["index"] == 1
    assert svc.finish_item({"session_id": sid, "item_index": 1})["has_next"] is False
    done = svc.open_session({"session_id": sid})
    assert done["done"] and 'id="session-summary"' in done["summary_html"]
    assert svc.ctx.store.get_session(sid).status == "done"


def test_scorer_failure_is_shown_not_hidden(tmp_path):
    def broken(item, rows):
        raise RuntimeError("judge offline")
    svc = SessionService(AppContext(store=Store(tmp_path / "b.sqlite")), scorer=broken)
    res = _open(svc)
    fin = svc.finish_item({"session_id": res["session"]["id"], "item_index": 0})
    assert fin["ok"] and "Could not score this item: RuntimeError: judge offline" in fin["result_html"]


def test_server_restart_loses_nothing(tmp_path):
    db = tmp_path / "r.sqlite"
    svc = SessionService(AppContext(store=Store(db)), clock_slack=math.inf)
    res = _open(svc)
    sid = res["session"]["id"]
    for t in (1.0, 2.5, 4.25):
        _press(svc, res, t)
    svc.ctx.store.close()
    svc2 = SessionService(AppContext(store=Store(db)))
    back = svc2.open_session({"session_id": sid})
    assert back["ok"] and back["item"]["id"] == "moving_square#0" and back["n_rows"] == 3
    assert back["resume_t"] == pytest.approx(4.25)


def test_timeline_is_escaped_and_shows_targets_only_when_asked():
    rows = [Response(id="r_1", item_id="x", benchmark=IB, responder="human:P", session_id="s", t=2.0,
                     kind="speech", text="<img src=x onerror=alert(1)>")]
    targets = [Target(id="0", kind="event", anchor=5.0, window=(5.0, 8.0), reference="<script>")]
    live = timeline_html(rows, 10.0, targets)
    assert "ib-tl-win" not in live and "<img" not in live and "&lt;img" in live and 'data-rid="r_1"' in live
    after = timeline_html(rows, 10.0, targets, show_targets=True)
    assert "ib-tl-win" in after and "<script>" not in after and "left:50.000%" in after


@pytest.mark.parametrize("bench", ["interactionbench", "proactivebench", "interactscope", "omniinteract"])
def test_every_demo_benchmark_runs_a_session_to_its_score(svc, bench):
    res = svc.open_session({"participant": "P9", "benchmark": bench, "n": "1", "seed": "3"})
    assert res["ok"], res
    assert res["item"]["request"]["modality"] in ("text", "standing", "audio")
    assert _press(svc, res, 2.0)["ok"]
    fin = svc.finish_item({"session_id": res["session"]["id"], "item_index": 0})
    assert fin["ok"] and 'id="item-score"' in fin["result_html"], fin
    assert "Could not score" not in fin["result_html"], fin["result_html"]


@pytest.mark.parametrize("fn", ["model_stop", "hear", "respond", "clock"])
def test_every_server_function_answers_a_body_that_is_not_an_object(svc, fn):
    """Each one is guarded: a list, a string or nothing gets an error reply, never an exception (an HTTP 500)."""
    for body in ([1, 2], "page", None):
        res = getattr(svc, fn)(body)  # (clock also carries the server's wall clock)
        assert (res["ok"], res["error"]) == (False, "The request must be a JSON object."), (fn, body)
