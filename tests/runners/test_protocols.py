import numpy as np
import pytest

from tests.runners.conftest import ib_item, is_item, oi_item, pb_item, read_code
from recorder import Recorder
from runners.backends import load_backend
from runners.interactscope.prediction import timed_responses
from runners.omniinteract.prediction import transcript_of
from runners.proactivebench.prediction import compact_trace
from runners.protocols import PROTOCOLS, drive, even_subsample, get_protocol, tick_range

RECORDER = "plugin:" + __import__("recorder").__file__ + ":Recorder"


def test_ticks_follow_the_spec(clip):
    p = get_protocol("sliding")
    assert p.ticks(ib_item(clip, "B")) == [float(k) for k in range(1, 13)]
    assert p.ticks(ib_item(clip, "A", q=4.5)) == [4.5 + k for k in range(0, 8)]  # up to min(12, 14.5)
    assert get_protocol("sliding", a_window=2.0).ticks(ib_item(clip, "A", q=4.5)) == [4.5, 5.5, 6.5]
    assert get_protocol("sliding", interval=0.5).ticks(ib_item(clip, "C"))[:3] == [0.5, 1.0, 1.5]
    assert tick_range(0.1, 0.3, 0.1) == [0.1, 0.2, 0.3]
    assert get_protocol("proactive").ticks(pb_item(clip)) == [float(k) for k in range(2, 13)]
    assert get_protocol("proactive").ticks(pb_item(clip, eval_start=5))[0] == 5.0
    assert get_protocol("interactscope").ticks(is_item(clip))[0] == 1.0
    assert get_protocol("offline").ticks(ib_item(clip)) == [12.0]


def test_even_subsample_keeps_last():
    assert even_subsample(5, 16) == [0, 1, 2, 3, 4]
    assert even_subsample(24, 4) == [0, 8, 15, 23]
    assert even_subsample(10, 1) == [9]


def _run(name, item, replies=None, **options):
    backend = load_backend(RECORDER, replies=replies)
    trace = drive(item, get_protocol(name, **options), backend)
    return trace, backend.obj.decisions


def test_sliding_and_cumulative_frames(clip):
    _, ds = _run("sliding", ib_item(clip, "B"))
    d = ds[9]  # t = 10
    assert d.t == 10.0 and [f.t for f in d.frames] == [2.25 + 0.5 * i for i in range(16)]
    assert d.messages[0]["role"] == "system" and "Standing request" in d.prompt and "DECISION:" in d.prompt
    assert ds[0].frames[0].t == 0.25 and len(ds[0].frames) == 2
    _, dc = _run("cumulative", ib_item(clip, "B"), max_frames=4)
    stamps = [0.25 + 0.5 * i for i in range(24)]  # 24 visible at t=12
    assert [f.t for f in dc[-1].frames] == [stamps[i] for i in (0, 8, 15, 23)]
    for d in ds + dc:  # the image really is the video frame on screen at the stamp
        for f in d.frames:
            assert read_code(f.image) == int(f.t * clip.fps)


def test_a_item_question_only_from_q_and_first_frame_fallback(clip):
    _, ds = _run("sliding", ib_item(clip, "A", q=4.0, question="What colour is it?"))
    assert ds[0].t == 4.0 and "just asked" in ds[0].prompt and "What colour" in ds[0].prompt
    _, d0 = _run("sliding", ib_item(clip, "A", q=0.0), a_window=0.0)
    assert d0[0].t == 0.0 and [f.t for f in d0[0].frames] == [0.0]  # the frame at 0, not one stamped 0.25
    _, blind = _run("blind", ib_item(clip, "B"))
    assert all(not d.frames for d in blind) and all(p["type"] == "text" for d in blind for m in d.messages for p in m["content"])


def test_interleaved_keeps_replies_and_caps_images(clip):
    replies = {2.0: "DECISION: SPEAK\nRESPONSE: blue now", 5.0: "DECISION: SPEAK\nRESPONSE: red"}
    trace, ds = _run("interleaved", ib_item(clip, "B"), replies=replies, max_frames=5, max_new_per_turn=2)
    assert [(e.t, e.content) for e in trace.emissions] == [(2.0, "blue now"), (5.0, "red")]
    last = ds[-1]
    roles = [m["role"] for m in last.messages]
    assert roles[0] == "system" and roles.count("user") == 12 and roles.count("assistant") == 11
    assert any(m["role"] == "assistant" and m["content"][0]["text"].endswith("blue now") for m in last.messages)
    assert [f.t for f in last.frames] == [9.75, 10.25, 10.75, 11.25, 11.75]  # oldest dropped first
    assert [f.t for f in ds[3].frames][-2:] == [3.25, 3.75]  # new frames in (3, 4]
    assert "not repeat" in last.messages[0]["content"][0]["text"]


def test_offline_timed_lines_and_a_retiming(clip):
    trace, ds = _run("offline", ib_item(clip, "B"), replies={12.0: "[t=3.4] blue\n[t=6.8] red"})
    assert len(ds) == 1 and len(ds[0].frames) == 16 and ds[0].expects == "offline"
    assert [(e.t, e.content) for e in trace.emissions] == [(3.4, "blue"), (6.8, "red")] and trace.hindsight
    trace, _ = _run("offline", ib_item(clip, "A", q=7.0), replies={12.0: "[t=3.4] blue\n[t=6.8] red"})
    assert [(e.t, e.content) for e in trace.emissions] == [(7.0, "blue")]


def test_proactive_context_is_30s_strictly_before_k(clip):
    trace, ds = _run("proactive", pb_item(clip), replies={4.0: "DECISION: SPEAK\nRESPONSE: it changed"},
                     context_s=3.0)
    assert ds[0].t == 2.0 and [f.t for f in ds[0].frames] == [0.5, 1.5]
    assert [f.t for f in ds[5].frames] == [4.5, 5.5, 6.5]  # k=7: [4, 7)
    assert compact_trace(trace) == {"response_seconds": [4], "texts": {"4": "it changed"}}
    assert "You already said" in ds[3].prompt


def test_two_replies_in_one_second_give_that_second_once_with_the_first_text():
    """Emissions at 5.0 s, 5.2 s (both second 5) and 7.0 s: seconds [5, 7], not [5, 5, 7]; second 5 keeps "first"."""
    from runners.protocols.base import Emission, Trace
    trace = Trace("pb1", "proactive", "test", emissions=[Emission(5.0, "first"), Emission(5.2, "second"), Emission(7.0, "third")])
    assert compact_trace(trace) == {"response_seconds": [5, 7], "texts": {"5": "first", "7": "third"}}


def test_interactscope_tool_calls(clip):
    replies = {4.0: '{"tool": "set_timer", "args": {"seconds": 30}}', 6.0: "DECISION: SPEAK\nRESPONSE: done"}
    trace, ds = _run("interactscope", is_item(clip, query_time=2.0), replies=replies)
    assert "set_timer" not in ds[0].prompt or "asked" not in ds[0].prompt
    assert "asked (at 2.0 s)" in ds[1].prompt and ds[1].tools and "set_timer" in ds[1].prompt
    rows = timed_responses(trace)
    assert rows[0]["kind"] == "tool_call" and rows[0]["tool"] == {"name": "set_timer", "args": {"seconds": 30}}
    assert rows[0]["t"] == 4.0 and rows[1] == {"id": "r2", "t": 6.0, "kind": "speech", "text": "done"}


def test_duplex_audio_and_frames_per_second(clip):
    trace, ds = _run("duplex", oi_item(clip), replies={3.0: "DECISION: SPEAK\nRESPONSE: I hear a beep"})
    d = ds[2]  # t = 3
    assert d.t == 3.0
    user = d.messages[-1]["content"]
    audio = [p["chunk"] for p in user if p["type"] == "audio"][0]
    assert (audio.t0, audio.t1, len(audio.samples)) == (2.0, 3.0, 16000)
    assert np.abs(audio.samples).max() > 0.1  # the tone is in [2.0, 2.5)
    assert [p["frame"].t for p in user if p["type"] == "image"] == [2.5]
    assert len(ds[-1].audio) == 8 and len(ds[-1].frames) == 8
    assert [(e.t, e.content) for e in trace.emissions] == [(3.0, "I hear a beep")]
    from dataclasses import replace
    from annotation.model import Request
    spoken = replace(oi_item(clip), request=Request("What was that beep?", 3.0, "audio"))
    _, ds = _run("duplex", spoken)
    shown = [d.t for d in ds if "What was that beep?" in d.prompt]
    assert shown == [3.0]  # the spoken request's transcript, once, from its time on
    oi = transcript_of(trace.emissions)
    assert oi["chunks"][0]["timestamp"][0] == 3.0 and oi["text"] == "I hear a beep"


def test_unknown_protocol_and_option():
    with pytest.raises(ValueError, match="unknown protocol"):
        get_protocol("nope")
    with pytest.raises(ValueError, match="unknown protocol option"):
        get_protocol("sliding", max_framez=3)


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_no_lookahead_in_any_protocol(clip, name):
    if name in ("proactive",):
        item = pb_item(clip)
    elif name == "interactscope":
        item = is_item(clip)
    elif name == "duplex":
        item = oi_item(clip)
    else:
        item = ib_item(clip, "A", q=3.0)
    trace, ds = _run(name, item)
    assert ds
    for d in ds:
        for f in d.frames:
            assert f.source_t <= f.t <= d.t + 1e-9, (name, d.t, f.t)
            assert read_code(f.image) / clip.fps <= d.t + 1e-9
        for chunk in d.audio:
            assert chunk.t1 <= d.t + 1e-9
    for t, stamps, sources in trace.shown:
        assert all(s <= t + 1e-9 for s in stamps) and all(s <= t + 1e-9 for s in sources)
