"""The motion baseline responds within 1 s of each visual event on the demo clips (events.json), never before it."""
import json
from pathlib import Path

import pytest

from annotation.registry import DEMO_ROOT
from annotation.model import Item, Request, Stream
from runners.backends import load_backend
from runners.protocols import drive, get_protocol

EVENTS = json.loads((DEMO_ROOT / "events.json").read_text())["clips"]


@pytest.mark.parametrize("clip", EVENTS, ids=[c["clip_id"] for c in EVENTS])
def test_motion_baseline_answers_each_visual_event_within_a_second(clip):
    video = DEMO_ROOT / clip["copies"][0]
    item = Item(id=f"{clip['clip_id']}#probe", benchmark="interactionbench", kind="B_trigger",
                stream=Stream(id=clip["clip_id"], video_path=str(video), duration=clip["duration_s"], fps=clip["fps"]),
                request=Request("Tell me whenever something changes.", 0.0, "standing"), targets=(),
                native={"time_type": "B", "capability": "PTR", "question": "Tell me whenever something changes.",
                        "question_time_s": 0.0, "duration_s": clip["duration_s"], "answers": []})
    backend = load_backend("baseline:motion")
    trace = drive(item, get_protocol("sliding", **backend.protocol_hints), backend)
    times = [e.t for e in trace.emissions]
    assert trace.failed is None
    for ev in clip["visual_events"]:
        hits = [t for t in times if ev["t"] <= t <= ev["t"] + 1.0]
        assert hits, f"{clip['clip_id']}: no response within 1 s of {ev['id']} at {ev['t']} s (responses {times})"
    # every response answers a visual event or ongoing motion, none comes out of nowhere
    moving = [(m["start"], m["end"]) for m in clip.get("motion", [])] if clip.get("motion") else []
    for t in times:
        near_event = any(ev["t"] <= t <= ev["t"] + 1.0 for ev in clip["visual_events"])
        in_motion = any(s <= t <= e + 1.0 for s, e in moving)
        assert near_event or in_motion, f"{clip['clip_id']}: response at {t} s with no event near it"
