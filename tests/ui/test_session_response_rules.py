"""The session's response path rule by rule (issue 17, mutation testing): which session and item a response
is for, the checks on its fields, what is stored and what the page is told. A real SessionService on a real
Store in a temp dir; every expected value is written out by hand from the request the test sends, never
computed by the code under test. Items used (demo InteractionBench): moving_square#0 (24.0 s) and
ball_counter#0 (32.0 s)."""
from __future__ import annotations

import math
from decimal import Decimal
import re
import time

import pytest

from annotation.model import Response, Session
from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.session import SessionService, humans_respond, lanes, model_of

IB = "interactionbench"
A, B = "moving_square#0", "ball_counter#0"
MODEL = "baseline:motion"
NOT_OPEN = "is not open for input in this session; nothing was logged."
SERVER = "The server could not handle this request; nothing was logged."
USED = "That response id is already used; nothing was logged."


def _service(tmp_path, name="s.sqlite", **kw) -> SessionService:
    return SessionService(AppContext(store=Store(tmp_path / name), asr_model=str(tmp_path / "none")), **kw)


def _session(svc, settings=None, session_id=None, participant="P01"):
    """A session on A then B, made in the store directly (settings a page could never choose, e.g. a model)."""
    return svc.ctx.store.create_session(participant, IB, [A, B], settings=settings or {}, session_id=session_id)


def _req(s, idx=0, **kw):
    return {"session_id": s.id, "item_index": idx, "kind": "press", "media_t": 2.0, **kw}


def _advance(svc, s):
    fin = svc.finish_item({"session_id": s.id, "item_index": 0})
    assert fin["ok"], fin


def _rows(svc, s=None, **kw):
    return svc.ctx.store.responses(session_id=s.id if s else None, **kw)


# -- which session --------------------------------------------------------------------------------

def test_a_session_id_of_64_characters_is_looked_up_and_one_of_65_is_not(svc):
    s64 = _session(svc, session_id="s" * 64)
    s65 = _session(svc, session_id="t" * 65)
    ok = svc.respond(_req(s64, media_t=1.5))
    assert ok["ok"] and ok["t"] == 1.5, ok
    out = svc.respond(_req(s65))
    assert out == {"ok": False, "error": "No session with that id; open a new one."}
    assert [r.session_id for r in _rows(svc)] == ["s" * 64]


@pytest.mark.parametrize("sid", [None, 7, ["s_x"], "s_unknown"])
def test_an_unknown_or_malformed_session_id_logs_nothing(svc, sid):
    _session(svc)
    out = svc.respond({"session_id": sid, "item_index": 0, "kind": "press", "media_t": 1.0})
    assert out == {"ok": False, "error": "No session with that id; open a new one."}
    assert _rows(svc) == []


def test_a_study_session_is_reached_only_by_the_participant_app_and_nothing_else_is(tmp_path):
    studio = _service(tmp_path, clock_slack=math.inf)
    app = SessionService(studio.ctx, clock_slack=math.inf, links=True)
    study = _session(studio, settings={"study_id": "st_1"})
    plain = _session(studio)
    assert studio.respond(_req(study)) == {
        "ok": False, "error": "This session belongs to a study: it opens only through its participant's link."}
    assert app.respond(_req(plain)) == {"ok": False, "error": "No session with that id; open a new one."}
    assert _rows(studio) == []
    assert app.respond(_req(study, media_t=3.0))["ok"]
    assert studio.respond(_req(plain, media_t=4.0))["ok"]
    assert [(r.session_id, r.t) for r in _rows(studio)] == [(study.id, 3.0), (plain.id, 4.0)]


# -- which item -----------------------------------------------------------------------------------

@pytest.mark.parametrize("idx", [None, True, False, 0.0, "", "x", "X0", "1.0", [0], Decimal(0)])
def test_an_item_index_that_is_not_a_whole_number_logs_nothing(svc, idx):
    """A JSON whole number or its text only: a bool, a float, a Decimal (whose text is digits) are refused."""
    s = _session(svc)
    out = svc.respond(_req(s, idx=idx))
    assert out == {"ok": False, "error": "item_index is missing or not a whole number."}
    assert _rows(svc) == []


def test_an_item_index_given_as_text_names_that_item(svc):
    s = _session(svc)
    out = svc.respond(_req(s, idx=" 0 ", media_t=1.25))
    assert out["ok"], out
    [r] = _rows(svc)
    assert (r.item_id, r.meta["item_index"]) == (A, 0)


@pytest.mark.parametrize("idx, shown", [(-1, 0), ("-1", 0), (1, 2), (2, 3), (5, 6)])
def test_only_the_open_item_takes_input(svc, idx, shown):
    s = _session(svc)
    out = svc.respond(_req(s, idx=idx))
    assert out == {"ok": False, "error": f"Item {shown} {NOT_OPEN}"}
    assert _rows(svc) == []


def test_an_earlier_items_response_is_refused_not_logged_under_the_current_item(svc):
    """Issue 17's named mutation of _item_of: after item 1 ends, a late press for it must not be logged under
    item 2 (or under item 1, whose targets may have been shown); a press for item 2 goes to item 2."""
    s = _session(svc)
    assert svc.respond(_req(s, media_t=1.0))["ok"]
    _advance(svc, s)
    late = svc.respond(_req(s, idx=0, item_id=A, media_t=5.0))
    assert late == {"ok": False, "error": f"Item 1 {NOT_OPEN}"}
    late2 = svc.respond(_req(s, idx=0, media_t=6.0))
    assert late2 == {"ok": False, "error": f"Item 1 {NOT_OPEN}"}
    now = svc.respond(_req(s, idx=1, item_id=B, media_t=7.0))
    assert now["ok"] and now["row"]["item_index"] == 1, now
    assert [(r.item_id, r.t, r.meta["item_index"]) for r in _rows(svc, s)] == [(A, 1.0, 0), (B, 7.0, 1)]


def test_an_item_id_that_is_not_the_indexed_item_logs_nothing(svc):
    s = _session(svc)
    _advance(svc, s)
    out = svc.respond(_req(s, idx=1, item_id=A))
    assert out == {"ok": False, "error": "That item is not item 2 of this session; nothing was logged."}
    assert _rows(svc) == []


def test_no_item_is_open_once_the_session_is_done(svc):
    s = _session(svc)
    _advance(svc, s)
    assert svc.finish_item({"session_id": s.id, "item_index": 1})["ok"]
    assert svc.respond(_req(s, idx=1)) == {"ok": False, "error": f"Item 2 {NOT_OPEN}"}
    assert svc.respond(_req(s, idx=2)) == {"ok": False, "error": f"Item 3 {NOT_OPEN}"}
    assert _rows(svc) == []


def test_a_benchmark_with_no_items_is_named_with_its_folder_and_first_three_problems(tmp_path):
    """Four unreadable annotation files: no items, and the refusal names the folder and the loader's first
    three problems (v1, v2, v3; not v4), joined by '; '."""
    root = tmp_path / "broken_ib"
    (root / "annotations" / "demo").mkdir(parents=True)
    for i in range(1, 5):
        (root / "annotations" / "demo" / f"v{i}.json").write_text("{bad", encoding="utf-8")
    svc = SessionService(AppContext(store=Store(tmp_path / "e.sqlite"), data_dirs={IB: root}), clock_slack=math.inf)
    s = _session(svc)
    out = svc.respond(_req(s))
    head = f"Benchmark 'interactionbench' has no items loaded from {root} ("
    assert not out["ok"] and out["error"].startswith(head) and out["error"].endswith(").")
    problems = out["error"][len(head):-2].split("; ")
    assert [p.split(": invalid JSON")[0] for p in problems] == [f"error: annotations/demo/v{i}.json" for i in (1, 2, 3)]
    assert _rows(svc) == []


def test_a_session_of_a_benchmark_that_is_not_loaded_logs_nothing(tmp_path):
    svc = _service(tmp_path, clock_slack=math.inf)
    s = svc.ctx.store.create_session("P01", "nosuchbench", ["x#0"])
    out = svc.respond(_req(s))
    assert not out["ok"] and out["error"].startswith("Benchmark 'nosuchbench' is not loaded in this app; loaded: ")
    assert "interactionbench, " in out["error"]
    assert _rows(svc) == []


# -- who responds ---------------------------------------------------------------------------------

def test_who_responds_and_the_timeline_lanes_by_hand():
    def sess(settings):
        return Session(id="s_1", participant="P", benchmark=IB, item_ids=(A,), created=0.0, settings=settings)
    human = sess({})
    both = sess({"model": MODEL, "responders": "both"})
    only = sess({"model": MODEL, "responders": "model"})
    odd = sess({"responders": "model"})  # no model: the human still responds
    none = sess(None)
    assert [model_of(x) for x in (human, both, only, odd, none)] == ["", MODEL, MODEL, "", ""]
    assert [humans_respond(x) for x in (human, both, only, odd, none)] == [True, True, False, True, True]
    assert lanes(human) == [] and lanes(odd) == [] and lanes(none) == []
    assert lanes(both) == ["human", "model:baseline:motion"]
    assert lanes(only) == ["model:baseline:motion"]


def test_a_model_only_session_takes_no_human_response(svc):
    s = _session(svc, settings={"model": MODEL, "responders": "model"})
    out = svc.respond(_req(s))
    assert out == {"ok": False, "error": "In this session only the model responds; nothing was logged."}
    assert _rows(svc) == []


@pytest.mark.parametrize("settings", [{"model": MODEL, "responders": "both"}, {"responders": "model"}])
def test_a_human_responds_in_a_both_session_and_in_one_without_a_model(svc, settings):
    s = _session(svc, settings=settings)
    out = svc.respond(_req(s, media_t=2.5))
    assert out["ok"] and out["t"] == 2.5, out
    assert out["row"]["lane"] == "human"
    whole = svc.open_session({"session_id": s.id})["timeline_html"]
    lane = 'data-lane="model:baseline:motion"'
    assert (lane in whole) == ("model" in settings)  # a model session's timeline has the model's lane
    assert [(r.responder, r.t) for r in _rows(svc)] == [("human:P01", 2.5)]


# -- the response's own fields --------------------------------------------------------------------

def test_every_stored_field_of_a_press_is_the_requests(svc):
    s = _session(svc, participant="P07")
    _advance(svc, s)  # item 2, so the item index and id are not the defaults 0 / the first item
    before = time.time()
    out = svc.respond(_req(s, idx=1, item_id=B, media_t=3.0, frame_t=2.96, rid="r_0123456789abcdef",
                           text="ignored for a press", page_id="page-A", source="key", paused=False, rate=1.5,
                           ready_state=4, client_wall_ms=1000.25, input_ts_wall_ms=999, typing_started_t="2.5",
                           other="not kept"))
    after = time.time()
    assert out["ok"], out
    [r] = _rows(svc)
    assert (r.id, r.item_id, r.benchmark, r.responder, r.session_id) == ("r_0123456789abcdef", B, IB, "human:P07", s.id)
    assert (r.t, r.kind, r.text, r.frame_t, r.page_id, r.audio_path) == (3.0, "press", "", 2.96, "page-A", None)
    assert before <= r.wall_time <= after
    assert r.meta == {"source": "key", "paused": False, "rate": 1.5, "ready_state": 4, "client_wall_ms": 1000.25,
                      "input_ts_wall_ms": 999, "typing_started_t": "2.5", "item_index": 1,
                      "server_recv": r.wall_time}
    assert {k: out[k] for k in ("ok", "rid", "t", "kind", "text", "duplicate")} == {
        "ok": True, "rid": "r_0123456789abcdef", "t": 3.0, "kind": "press", "text": "", "duplicate": False}
    # the acknowledgement carries the new row as the timeline draws it: B is 32.0 s long, so the mark sits at
    # 100 * 3.0 / 32.0 = 9.375 % of the track
    row = out["row"]
    assert {k: row[k] for k in ("rid", "item_index", "t", "lane")} == {
        "rid": "r_0123456789abcdef", "item_index": 1, "t": 3.0, "lane": "human"}
    assert 'data-rid="r_0123456789abcdef" style="left:9.375%"' in row["mark_html"] and "▲" in row["mark_html"]
    assert row["row_html"].startswith('<li data-rid="r_0123456789abcdef" data-t="3.000" data-kind="press">')
    assert "timeline_html" not in out


def test_page_fields_kept_with_a_response_are_short_plain_values(svc):
    s = _session(svc)
    out = svc.respond(_req(s, page_id="p" * 70, source="s" * 70, paused=True, rate=float("nan"),
                           ready_state=float("inf"), client_wall_ms=[1], input_ts_wall_ms={"a": 1},
                           typing_started_t=None))
    assert out["ok"], out
    [r] = _rows(svc)
    assert r.page_id == "p" * 64
    assert {k: v for k, v in r.meta.items() if k != "server_recv"} == {"source": "s" * 64, "paused": True,
                                                                       "item_index": 0}


@pytest.mark.parametrize("page_id", [None, 5, ["p"]])
def test_a_page_id_that_is_not_text_is_stored_empty(svc, page_id):
    s = _session(svc)
    assert svc.respond(_req(s, page_id=page_id))["ok"]
    assert _rows(svc)[0].page_id == ""


@pytest.mark.parametrize("rid", [None, "", "r_bad", "x_0123456789abcdef", "r_0123456789ABCDEF", 12345678901234])
def test_a_missing_or_malformed_response_id_is_replaced_by_a_new_one(svc, rid):
    s = _session(svc)
    out = svc.respond(_req(s, rid=rid))
    assert out["ok"], out
    assert re.fullmatch(r"r_[0-9a-f]{16}", out["rid"]), out["rid"]
    assert [r.id for r in _rows(svc)] == [out["rid"]]


@pytest.mark.parametrize("rid", ["r_" + "a" * 12, "r_" + "0" * 32])
def test_a_well_formed_response_id_from_the_page_is_kept(svc, rid):
    s = _session(svc)
    assert svc.respond(_req(s, rid=rid))["rid"] == rid
    assert [r.id for r in _rows(svc)] == [rid]


@pytest.mark.parametrize("patch, error", [
    ({"kind": None}, "kind must be one of press, text, got None."),
    ({"kind": "speech"}, "kind must be one of press, text, got 'speech'."),
    ({"kind": "text", "text": 5}, "text must be a string."),
    ({"kind": "press", "text": ["a"]}, "text must be a string."),
    ({"kind": "text"}, "Type a response before sending; nothing was logged."),
    ({"kind": "text", "text": " \n "}, "Type a response before sending; nothing was logged."),
    ({"kind": "text", "text": "x" * 501}, "A text response is at most 500 characters; nothing was logged."),
    ({"media_t": None}, "media_t must be a number of seconds, got None."),
    ({"media_t": "soon"}, "media_t must be a number of seconds, got 'soon'."),
    ({"media_t": [1]}, "media_t must be a number of seconds, got [1]."),
    ({"media_t": -0.001}, "media_t must be a finite time >= 0, got -0.001."),
    ({"media_t": float("inf")}, "media_t must be a finite time >= 0, got inf."),
    ({"media_t": "nan"}, "media_t must be a finite time >= 0, got 'nan'."),
    ({"media_t": 24.001}, "media_t 24.001 s is past the end of the item (24.000 s); nothing was logged."),
    ({"frame_t": "x"}, "frame_t must be a number of seconds, got 'x'."),
    ({"frame_t": -1}, "frame_t must be a finite time >= 0, got -1."),
    ({"media_t": 3.0, "frame_t": 5.001}, "frame_t is ahead of media_t; nothing was logged."),
])
def test_bad_fields_are_refused_with_their_reason_and_log_nothing(svc, patch, error):
    s = _session(svc)
    assert svc.respond(_req(s, **patch)) == {"ok": False, "error": error}
    assert _rows(svc) == []


@pytest.mark.parametrize("patch, t, frame_t, kind, text", [
    ({"media_t": 0}, 0.0, None, "press", ""),                         # the first frame: t = 0 is a time
    ({"media_t": "4.75"}, 4.75, None, "press", ""),
    ({"media_t": 24.0}, 24.0, None, "press", ""),                     # the item's last instant (24.0 s)
    ({"media_t": 3.0, "frame_t": 5.0}, 3.0, 5.0, "press", ""),        # frame_t up to 2 s ahead of media_t
    ({"media_t": 3.0, "frame_t": 4.0}, 3.0, 4.0, "press", ""),
    ({"media_t": 3.0, "frame_t": 0}, 3.0, 0.0, "press", ""),
    ({"kind": "text", "text": "  x" * 1 + "y" * 498 + " "}, 2.0, None, "text", "x" + "y" * 498),
    ({"kind": "text", "text": "z" * 500}, 2.0, None, "text", "z" * 500),   # the default max_text (studies.BOUNDS)
    ({"kind": "press", "text": None}, 2.0, None, "press", ""),
])
def test_edge_values_that_are_accepted(svc, patch, t, frame_t, kind, text):
    s = _session(svc)
    out = svc.respond(_req(s, **patch))
    assert out["ok"], out
    [r] = _rows(svc)
    assert (r.t, r.frame_t, r.kind, r.text) == (t, frame_t, kind, text)
    assert (out["t"], out["kind"], out["text"]) == (t, kind, text)


# -- the media clock bound -----------------------------------------------------------------------

def _opened_at(svc, s, idx, when):
    """Set when the store says item `idx` was first shown (a known start of the item's clock)."""
    with svc.ctx.store._lock:
        svc.ctx.store.db.execute("update sessions set item_opened = ?, item_opened_index = ? where id = ?",
                                 [when, idx, s.id])


def test_a_time_ahead_of_the_items_clock_is_refused(tmp_path):
    """The item 'opened' 1000 s in the future: no media time is playable yet, even with 2 s of slack."""
    svc = _service(tmp_path, clock_slack=2.0)
    s = _session(svc)
    _opened_at(svc, s, 0, time.time() + 1000.0)
    out = svc.respond(_req(s, media_t=0.0))
    assert not out["ok"] and out["error"].startswith("media_t 0.000 s is ahead of the item's clock (-"), out
    assert out["error"].endswith(" s since it opened); nothing was logged.")
    assert _rows(svc) == []


def test_the_clock_slack_lets_a_page_run_ahead_of_the_items_clock(tmp_path):
    """Opened just now with 1000 s of slack: 20 s of media time is accepted (it would be refused by a bound
    of elapsed - slack, or with no slack)."""
    svc = _service(tmp_path, clock_slack=1000.0)
    s = _session(svc)
    _opened_at(svc, s, 0, time.time())
    out = svc.respond(_req(s, media_t=20.0))
    assert out["ok"], out
    assert [r.t for r in _rows(svc)] == [20.0]


def test_time_played_since_the_item_opened_is_accepted_and_the_clock_is_the_items_own(tmp_path):
    """Item 1 opened 100 s ago, no slack: 23.5 s is accepted. Item 2's clock starts when item 2 is first
    reached, not at item 1's opening: set 1000 s in the future, 1.0 s on item 2 is refused."""
    svc = _service(tmp_path, clock_slack=0.0)
    s = _session(svc)
    _opened_at(svc, s, 0, time.time() - 100.0)
    assert svc.respond(_req(s, media_t=23.5))["ok"]
    _advance(svc, s)
    _opened_at(svc, s, 1, time.time() + 1000.0)
    out = svc.respond(_req(s, idx=1, media_t=1.0))
    assert not out["ok"] and "is ahead of the item's clock" in out["error"], out
    assert [r.t for r in _rows(svc)] == [23.5]


def test_a_time_exactly_at_the_clock_bound_is_accepted(tmp_path):
    """The bound is t <= elapsed + slack. Reaching it exactly without faking the clock: an item 'opened' at
    1e300 s has elapsed = now - 1e300 = -1e300 exactly (now, ~1.8e9, is far below the spacing of doubles
    there), and with slack 1e300 the bound is -1e300 + 1e300 = 0.0: t = 0.0 is accepted, 0.001 is not."""
    svc = _service(tmp_path, clock_slack=1e300)
    s = _session(svc)
    _opened_at(svc, s, 0, 1e300)
    assert svc.respond(_req(s, media_t=0.0))["ok"]
    out = svc.respond(_req(s, media_t=0.001))
    assert not out["ok"] and out["error"].startswith("media_t 0.001 s is ahead of the item's clock"), out
    assert [r.t for r in _rows(svc)] == [0.0]


def _tiny_benchmark(root):
    """An InteractionBench folder with two one-item videos: 'nodur', whose video file is missing (no duration
    known: None), and 'short', a real 0.5 s video (5 frames at 10 fps, made by ffmpeg: the test fails if
    ffmpeg is missing). The response path never plays either."""
    import json
    import subprocess
    ann = root / "annotations" / "demo"
    ann.mkdir(parents=True)
    (root / "videos").mkdir()
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=64x64:r=10:d=0.5",
                    "-pix_fmt", "yuv420p", str(root / "videos" / "short.mp4")], check=True, timeout=120)
    item = {"capability": "PTR", "time_type": "B", "interaction_type": "INS", "range_length": "0-1min",
            "sub_tag": None, "is_negative": False, "auto_number": False, "question": "Say when it moves.",
            "question_time_s": 0.0, "answers": [{"time_s": 0.25, "content": "now"}]}
    for vid in ("nodur", "short"):
        doc = {"video_id": vid, "domain": "demo", "video": f"videos/{vid}.mp4", "duration_s": 0.5, "items": [item]}
        (ann / f"{vid}.json").write_text(json.dumps(doc), encoding="utf-8")
    return root


def test_the_end_of_an_item_bounds_its_times_only_when_its_duration_is_known(tmp_path):
    """No known duration: 30.0 s is accepted. Duration 0.5 s: 0.5 is accepted, 0.75 is past the end."""
    ctx = AppContext(store=Store(tmp_path / "t.sqlite"), data_dirs={IB: _tiny_benchmark(tmp_path / "ib")})
    svc = SessionService(ctx, clock_slack=math.inf)
    assert [(i.id, i.stream.duration) for i in ctx.dataset(IB).items] == [("nodur#0", None), ("short#0", 0.5)]
    s = svc.ctx.store.create_session("P01", IB, ["nodur#0", "short#0"])
    first = svc.respond(_req(s, media_t=30.0))
    # no duration: the track's span depends on every row, so the reply carries the whole timeline instead
    assert first["ok"] and first["n_rows"] == 1 and "row" not in first, first
    assert first["timeline_html"].startswith('<div class="ib-tl" data-n="1" ')
    _advance(svc, s)
    last = svc.respond(_req(s, idx=1, media_t=0.5))
    assert last["ok"] and 'style="left:100.000%"' in last["row"]["mark_html"], last  # 100 * 0.5 / 0.5
    out = svc.respond(_req(s, idx=1, media_t=0.75))
    assert out == {"ok": False, "error": "media_t 0.750 s is past the end of the item (0.500 s); nothing was logged."}
    assert [(r.item_id, r.t) for r in _rows(svc)] == [("nodur#0", 30.0), ("short#0", 0.5)]


# -- retries and duplicate ids -------------------------------------------------------------------

def test_a_retried_id_answers_with_the_stored_response(svc):
    s = _session(svc)
    a, b = "r_" + "a" * 16, "r_" + "b" * 16
    assert svc.respond(_req(s, rid=a, media_t=3.0))["ok"]
    assert svc.respond(_req(s, rid=b, media_t=4.0))["ok"]
    again = svc.respond(_req(s, rid=a, media_t=5.0, kind="text", text="changed"))
    assert {k: again[k] for k in ("ok", "rid", "t", "kind", "text", "duplicate")} == {
        "ok": True, "rid": a, "t": 3.0, "kind": "press", "text": "", "duplicate": True}
    assert (again["row"]["rid"], again["row"]["t"]) == (a, 3.0)  # the stored row, not the retried one
    assert [(r.id, r.t) for r in _rows(svc)] == [(a, 3.0), (b, 4.0)]


def test_an_id_already_used_in_another_session_is_refused_and_overwrites_nothing(svc):
    s1, s2 = _session(svc), _session(svc, participant="P02")
    rid = "r_" + "c" * 16
    assert svc.respond(_req(s1, rid=rid, media_t=3.0))["ok"]
    assert svc.respond(_req(s2, rid=rid, media_t=9.0)) == {"ok": False, "error": USED}
    assert [(r.id, r.session_id, r.t) for r in _rows(svc)] == [(rid, s1.id, 3.0)]


def test_an_id_already_used_for_another_item_of_the_session_is_refused(svc):
    s = _session(svc)
    rid = "r_" + "5" * 16
    assert svc.respond(_req(s, rid=rid, media_t=3.0))["ok"]
    _advance(svc, s)
    assert svc.respond(_req(s, idx=1, rid=rid, media_t=9.0)) == {"ok": False, "error": USED}
    assert [(r.id, r.item_id, r.t) for r in _rows(svc)] == [(rid, A, 3.0)]


def test_the_page_sees_only_this_items_responses_of_this_session(svc):
    s1, s2 = _session(svc), _session(svc, participant="P02")
    for t in (1.0, 2.0):
        assert svc.respond(_req(s2, media_t=t))["ok"]
    for t in (1.5, 2.5, 3.5):
        assert svc.respond(_req(s1, media_t=t))["ok"]
    here = svc.open_session({"session_id": s1.id})  # a reload draws the item's whole timeline
    assert here["n_rows"] == 3 and here["timeline_html"].startswith('<div class="ib-tl" data-n="3" data-span="24.000">')
    assert here["resume_t"] == 3.5
    _advance(svc, s1)
    assert svc.respond(_req(s1, idx=1, media_t=0.5))["ok"]
    back = svc.open_session({"session_id": s1.id})
    assert back["resume_t"] == 0.5 and back["n_rows"] == 1
    assert back["timeline_html"].startswith('<div class="ib-tl" data-n="1" data-span="32.000">')


def test_resume_time_is_the_latest_response_and_zero_on_a_fresh_item(svc):
    s = _session(svc)
    assert svc.open_session({"session_id": s.id})["resume_t"] == 0.0
    for t in (4.0, 9.5, 6.0):
        assert svc.respond(_req(s, media_t=t))["ok"]
    back = svc.open_session({"session_id": s.id})
    assert back["resume_t"] == 9.5 and back["n_rows"] == 3


# -- corrections ---------------------------------------------------------------------------------

def test_a_correction_is_a_new_row_with_the_text_and_the_participant(svc):
    s = _session(svc, participant="P03")
    rid = "r_" + "d" * 16
    assert svc.respond(_req(s, rid=rid, kind="text", text="the bal", media_t=5.5))["ok"]
    assert svc.respond(_req(s, media_t=6.0))["ok"]
    out = svc.correct({"session_id": s.id, "rid": rid, "text": "  the ball  "})
    assert out["ok"] and out["n_rows"] == 2, out
    assert out["timeline_html"].startswith('<div class="ib-tl" data-n="2" ')
    raw = svc.ctx.store.responses(session_id=s.id, resolve_corrections=False)
    assert len(raw) == 3
    fix = raw[2]
    assert (fix.supersedes, fix.text, fix.t, fix.meta) == (rid, "the ball", 5.5, {"corrected_by": "P03"})
    assert [(r.id, r.text, r.t) for r in _rows(svc, s)][0] == (rid, "the ball", 5.5)


def test_a_long_correction_is_cut_to_the_text_limit(svc):
    s = _session(svc)
    rid = "r_" + "e" * 16
    assert svc.respond(_req(s, rid=rid, kind="text", text="a"))["ok"]
    assert svc.correct({"session_id": s.id, "rid": rid, "text": "b" * 2500})["ok"]
    assert _rows(svc, s)[0].text == "b" * 500  # the default max_text (annotation.studies.BOUNDS)


@pytest.mark.parametrize("patch, error", [
    ({"text": ""}, "A corrected transcript cannot be empty."),
    ({"text": "   "}, "A corrected transcript cannot be empty."),
    ({"text": 5}, "A corrected transcript cannot be empty."),
    ({"text": None}, "A corrected transcript cannot be empty."),
    ({"rid": None}, "That response is not one of this session's responses to the open item; nothing was changed."),
    ({"rid": 5}, "That response is not one of this session's responses to the open item; nothing was changed."),
    ({"rid": "r_" + "9" * 16}, "That response is not one of this session's responses to the open item; "
                               "nothing was changed."),
    ({"session_id": "s_nope"}, "No session with that id; open a new one."),
])
def test_bad_corrections_change_nothing(svc, patch, error):
    s = _session(svc)
    rid = "r_" + "f" * 16
    assert svc.respond(_req(s, rid=rid, kind="text", text="orig"))["ok"]
    assert svc.correct({"session_id": s.id, "rid": rid, "text": "new", **patch}) == {"ok": False, "error": error}
    assert [(r.id, r.text) for r in svc.ctx.store.responses(resolve_corrections=False)] == [(rid, "orig")]


def test_only_the_open_items_responses_of_this_session_can_be_corrected(svc):
    s, other = _session(svc), _session(svc, participant="P02")
    mine, theirs = "r_" + "1" * 16, "r_" + "2" * 16
    assert svc.respond(_req(s, rid=mine, kind="text", text="old"))["ok"]
    assert svc.respond(_req(other, rid=theirs, kind="text", text="theirs"))["ok"]
    refused = {"ok": False, "error": "That response is not one of this session's responses to the open item; "
                                     "nothing was changed."}
    assert svc.correct({"session_id": s.id, "rid": theirs, "text": "x"}) == refused
    _advance(svc, s)  # item 1 is closed: its response can no longer be changed
    assert svc.correct({"session_id": s.id, "rid": mine, "text": "x"}) == refused
    assert svc.finish_item({"session_id": s.id, "item_index": 1})["ok"]  # the session is done
    assert svc.correct({"session_id": s.id, "rid": mine, "text": "x"}) == refused
    assert [r.text for r in svc.ctx.store.responses(resolve_corrections=False)] == ["old", "theirs"]


# -- finishing an item ---------------------------------------------------------------------------

def test_finishing_items_advances_and_reports_each_items_own_responses(svc):
    s = _session(svc)
    ra, rb = "r_" + "a" * 16, "r_" + "b" * 16
    assert svc.respond(_req(s, rid=ra, media_t=3.0))["ok"]
    fin = svc.finish_item({"session_id": s.id, "item_index": 0, "item_id": A})
    assert fin["ok"] and fin["has_next"] is True
    assert fin["result_html"].startswith(f"<h3>Item 1 of 2 done: {A}</h3>")
    assert f'data-rid="{ra}"' in fin["result_html"]
    got = svc.ctx.store.get_session(s.id)
    assert (got.current_index, got.status) == (1, "open")
    assert svc.respond(_req(s, idx=1, rid=rb, media_t=4.0))["ok"]
    again = svc.finish_item({"session_id": s.id, "item_index": 0})  # an earlier item: shown again, no advance
    assert again["ok"] and again["has_next"] is True
    assert f'data-rid="{ra}"' in again["result_html"] and f'data-rid="{rb}"' not in again["result_html"]
    assert svc.ctx.store.get_session(s.id).current_index == 1
    last = svc.finish_item({"session_id": s.id, "item_index": 1})
    assert last["ok"] and last["has_next"] is False
    assert last["result_html"].startswith(f"<h3>Item 2 of 2 done: {B}</h3>")
    assert f'data-rid="{rb}"' in last["result_html"] and f'data-rid="{ra}"' not in last["result_html"]
    got = svc.ctx.store.get_session(s.id)
    assert (got.current_index, got.status) == (2, "done")


def test_an_item_not_yet_reached_cannot_be_finished(svc):
    s = _session(svc)
    out = svc.finish_item({"session_id": s.id, "item_index": 1})
    assert out == {"ok": False, "error": f"Item 2 {NOT_OPEN}"}
    got = svc.ctx.store.get_session(s.id)
    assert (got.current_index, got.status) == (0, "open")


def test_a_human_sessions_result_has_one_score_and_a_model_sessions_two(svc):
    human = _session(svc)
    fin = svc.finish_item({"session_id": human.id, "item_index": 0})
    assert fin["ok"] and 'id="item-score"' in fin["result_html"]
    assert "item-score-model" not in fin["result_html"] and "ib-score-who" not in fin["result_html"]
    both = _session(svc, settings={"model": MODEL, "responders": "both"}, participant="P05")
    fin = svc.finish_item({"session_id": both.id, "item_index": 0})
    assert fin["ok"], fin
    assert "You (P05): 0 responses" in fin["result_html"] and f"Model {MODEL}: 0 responses" in fin["result_html"]
    assert svc.ctx.store.get_session(both.id).current_index == 1



def test_an_items_result_shows_this_sessions_responses_only(svc):
    s1, s2 = _session(svc), _session(svc, participant="P02")
    r1, r2 = "r_" + "3" * 16, "r_" + "4" * 16
    assert svc.respond(_req(s1, rid=r1, media_t=3.0))["ok"]
    assert svc.respond(_req(s2, rid=r2, media_t=4.0))["ok"]
    fin = svc.finish_item({"session_id": s1.id, "item_index": 0})
    assert fin["ok"] and f'data-rid="{r1}"' in fin["result_html"] and f'data-rid="{r2}"' not in fin["result_html"]


def test_a_response_id_that_is_not_text_names_no_response(svc):
    """Even a stored response whose id is an odd placeholder text is not reached by a non-text rid."""
    s = _session(svc)
    odd = svc.ctx.store.add_response(Response(id="XXXX", item_id=A, benchmark=IB, responder="human:P01",
                                              session_id=s.id, t=1.0, kind="text", text="orig"))
    assert odd.id == "XXXX"
    out = svc.correct({"session_id": s.id, "rid": 5, "text": "new"})
    assert out == {"ok": False, "error": "That response is not one of this session's responses to the open item; "
                                         "nothing was changed."}
    assert [r.text for r in svc.ctx.store.responses(resolve_corrections=False)] == ["orig"]


def test_finishing_an_item_stops_its_live_model(svc):
    """A model session's worker, started by the page's clock, is stopped when the item ends (finish_item
    returns only after it has stopped), and a late clock report starts nothing."""
    res = svc.open_session({"participant": "P1", "benchmark": IB, "items": A, "model": "baseline:periodic:2",
                            "who": "both", "protocol": "blind"})
    assert res["ok"], res
    base = {"session_id": res["session"]["id"], "item_index": 0, "item_id": A, "page_id": "pgF"}
    assert svc.clock({**base, "media_t": 0.0, "paused": False, "rate": 1.0, "event": "playing"})["started"]
    assert svc.finish_item({"session_id": res["session"]["id"], "item_index": 0})["ok"]
    assert svc.hub.worker("pgF") is None
