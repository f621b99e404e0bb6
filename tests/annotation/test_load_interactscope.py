"""Omni-InteractScope layout: loading, validation (every problem names file, item, field), response
file round trips and dataset export."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from annotation.errors import DatasetError
from annotation.interactscope import loader as isc
from annotation.model import Response
from annotation.interactscope import writer as isw

REPO = Path(__file__).resolve().parents[2]


def make_video(path: Path, seconds: float = 2.0, fps: int = 10) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (32, 32))
    for i in range(int(seconds * fps)):
        w.write(np.full((32, 32, 3), (i * 7) % 255, np.uint8))
    w.release()
    return path


def valid_interactions() -> list[dict]:
    return [
        {"interaction_id": "i1", "video": "videos/a.mp4", "task": "T1", "query_time": 1.0,
         "query_text": "Set a timer when the pasta goes in.",
         "targets": [{"id": "g1", "window": [1.2, 1.8], "reference": {"tool": "set_timer", "args": {"min": 9}}}]},
        {"interaction_id": "i2", "video": "videos/a.mp4", "task": "T5", "query_time": 0.5,
         "targets": [{"id": "g1", "query_time": 0.5, "window_rel": [0.5, 1.0]},
                     {"id": "g2", "window_rel": [1.0, 1.2]}]},
        {"interaction_id": "i3", "video": "videos/b.mp4", "task": "T8", "subtype": "C",
         "targets": [{"id": "g1", "window": [0.0, 1.0], "reference": "Turn off the stove."},
                     {"id": "g2", "window": [1.0, 1.9]}]},
        {"interaction_id": "i4", "video": "videos/b.mp4", "task": "T7",
         "targets": [{"id": "g1", "window": [0.1, 0.9]}, {"id": "g2", "window": [0.5, 1.5]}]},
    ]


def write_dataset(root: Path, interactions=None, header=None, videos=True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    doc = dict(header or {"benchmark": "interactscope", "version": 1})
    doc["interactions"] = valid_interactions() if interactions is None else interactions
    (root / "interactions.json").write_text(json.dumps(doc), encoding="utf-8")
    if videos:
        make_video(root / "videos/a.mp4")
        make_video(root / "videos/b.mp4")
    return root


def find(ds, item, field):
    hits = [p for p in ds.problems if p.item == item and p.field == field]
    assert hits, f"no problem for item={item} field={field}; got {[str(p) for p in ds.problems]}"
    assert all(p.file == "interactions.json" for p in hits)
    return hits[0]


def test_valid_dataset_loads(tmp_path):
    ds = isc.load(write_dataset(tmp_path / "is"))
    assert ds.problems == [], [str(p) for p in ds.problems]
    assert ds.kind_counts() == {"T1": 1, "T5": 1, "T7": 1, "T8": 1}
    i1 = ds.get("i1")
    assert i1.request.text.startswith("Set a timer") and i1.request.time == 1.0 and i1.request.modality == "audio"
    assert i1.targets[0].reference == {"tool": "set_timer", "args": {"min": 9}}
    assert i1.stream.duration == pytest.approx(2.0)
    i2 = ds.get("i2")  # T5 windows resolved to absolute, the second one from the interaction's query_time
    assert [t.window for t in i2.targets] == [(1.0, 1.5), (1.5, 1.7)]
    assert all(t.window_closed for t in i2.targets)
    i3 = ds.get("i3")
    assert i3.meta["subtype"] == "C" and i3.request.modality == "standing"
    assert [t.id for t in ds.get("i4").targets] == ["g1", "g2"]
    assert i3.native == valid_interactions()[2]


def test_window_past_video_end_warns(tmp_path):
    items = valid_interactions()
    items[3]["targets"][1]["window"] = [0.5, 30.0]
    ds = isc.load(write_dataset(tmp_path / "is", items))
    assert ds.errors == [] and find(ds, "i4", "targets.g2.window").severity == "warning"


@pytest.mark.parametrize("mutate, item, field, words", [
    (lambda it: it[0].pop("interaction_id"), "#0", "interaction_id", "missing"),
    (lambda it: it[1].update(interaction_id="i1"), "i1", "interaction_id", "duplicate"),
    (lambda it: it[0].update(task="T9"), "i1", "task", "unknown task"),
    (lambda it: it[2].pop("subtype"), "i3", "subtype", "missing"),
    (lambda it: it[2].update(subtype="D"), "i3", "subtype", "unknown T8 subtype"),
    (lambda it: it[0].update(query_time="00:01"), "i1", "query_time", "number"),
    (lambda it: it[0].update(query_time=-2), "i1", "query_time", "negative"),
    (lambda it: it[3]["targets"][0].update(window=[0.9, 0.1]), "i4", "targets[0].window", "after its end"),
    (lambda it: it[3]["targets"][1].update(id="g1"), "i4", "targets[1].id", "duplicate target id"),
    (lambda it: it[3]["targets"][1].pop("window"), "i4", "targets[1].window", "missing"),
    (lambda it: it[3].update(targets=[]), "i4", "targets", "at least one"),
    (lambda it: it[1].pop("query_time"), "i2", "targets[1].query_time", "needs a query_time"),
    (lambda it: it[1]["targets"][0].update(window_rel=[-5, 1]), "i2", "targets[0].window_rel", "before the stream"),
    (lambda it: it[0].pop("video"), "i1", "video", "missing"),
    (lambda it: it[0].update(video="/etc/passwd"), "i1", "video", "relative"),
    (lambda it: it[3].update(video="videos/gone.mp4"), "i4", "video", "not found"),
])
def test_malformed_interaction_names_file_item_field(tmp_path, mutate, item, field, words):
    items = valid_interactions()
    mutate(items)
    ds = isc.load(write_dataset(tmp_path / "is", items))
    p = find(ds, item, field)
    assert p.severity == "error" and words in p.message, str(p)


def test_every_problem_is_reported(tmp_path):
    items = valid_interactions()
    items[0]["task"] = "T0"
    items[2]["subtype"] = "Z"
    items[3]["targets"][0]["window"] = ["a", 1]
    items.append("not an object")
    ds = isc.load(write_dataset(tmp_path / "is", items), probe_media=False)
    got = {(p.item, p.field) for p in ds.errors}
    assert got >= {("i1", "task"), ("i3", "subtype"), ("i4", "targets[0].window[0]"), ("#4", None)}
    assert [it.id for it in ds.items] == ["i2"]


def test_file_level_problems(tmp_path):
    assert "root not found" in isc.load(tmp_path / "missing").errors[0].message
    root = tmp_path / "bad"
    root.mkdir()
    (root / "interactions.json").write_text('{"benchmark": "interactscope", "version": 1,\n'
                                            '  "interactions": [\n    {"interaction_id": "x",, }\n  ]}')
    p = isc.load(root).errors[0]
    assert p.file == "interactions.json" and "line 3 column" in p.message
    (root / "interactions.json").write_bytes(b'{"interactions": [\xff]}')
    assert "not UTF-8" in isc.load(root).errors[0].message
    ds = isc.load(write_dataset(tmp_path / "empty", interactions=[], videos=False))
    assert any("empty dataset" in p.message for p in ds.errors)
    (root / "interactions.json").write_text('[1, 2]')
    assert "expected a JSON object" in isc.load(root).errors[0].message


def test_responses_round_trip(tmp_path):
    rows = [{"interaction_id": "i1", "responses": [
                {"id": "r1", "t": 1.3, "end": 1.5, "kind": "tool_call",
                 "tool": {"name": "set_timer", "args": {"min": 9}}, "verdicts": {"g1": True}}]},
            {"interaction_id": "i4", "responses": [
                {"id": "r1", "t": 0.2, "kind": "speech", "text": "Careful.", "verdicts": {"g1": True, "g2": False}},
                {"id": "r2", "t": 0.6, "kind": "speech", "text": "Now."}]}]
    path = isw.write_predictions(tmp_path / "run", rows)
    assert path.name == "responses.jsonl"
    assert isw.read_predictions(path) == {r["interaction_id"]: r["responses"] for r in rows}
    path2 = isw.write_predictions(tmp_path / "x.jsonl", {r["interaction_id"]: r["responses"] for r in rows})
    assert path2.read_text() == path.read_text()


def test_responses_to_native():
    rs = [Response("r2", "i1", "interactscope", "model:m", "s", 2.0, "tool_call",
                   meta={"tool": {"name": "f", "args": {}}, "verdicts": {"g1": True}}),
          Response("r1", "i1", "interactscope", "model:m", "s", 1.0, "speech", "hi", meta={"end": 1.4})]
    assert isw.responses_to_native(rs) == [
        {"id": "r1", "t": 1.0, "end": 1.4, "kind": "speech", "text": "hi"},
        {"id": "r2", "t": 2.0, "kind": "tool_call", "tool": {"name": "f", "args": {}}, "verdicts": {"g1": True}}]


def test_bad_responses_are_all_reported(tmp_path):
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps({"interaction_id": "i1", "responses": [
        {"id": "r1", "t": -1, "kind": "speech"},
        {"id": "r1", "t": 2, "end": 1, "kind": "shout"},
        {"id": "r3", "t": 2, "kind": "tool_call"},
        {"id": "r4", "t": 2, "kind": "speech", "verdicts": {"g1": "yes"}}]}) + "\n"
        + '{"interaction_id": "i2"}\n')
    _, problems = isw.check_predictions(path)
    fields = {(p.item, p.field) for p in problems}
    assert fields >= {("i1", "responses[0].t"), ("i1", "responses[1].id"), ("i1", "responses[1].end"),
                      ("i1", "responses[1].kind"), ("i1", "responses[2].tool"),
                      ("i1", "responses[3].verdicts.g1"), ("i2", "responses")}
    with pytest.raises(DatasetError):
        isw.read_predictions(path)


def test_responses_checked_against_dataset(tmp_path):
    ds = isc.load(write_dataset(tmp_path / "is", videos=False), probe_media=False)
    path = isw.write_predictions(tmp_path, {"i1": [{"id": "r", "t": 1.0, "kind": "speech", "verdicts": {"g9": True}}]})
    _, problems = isw.check_predictions(path, ds)
    assert any(p.field == "responses[0].verdicts.g9" for p in problems)
    assert sum("no responses" in p.message for p in problems) == 3


def test_export_round_trip(tmp_path):
    src = write_dataset(tmp_path / "is")
    ds = isc.load(src)
    out = tmp_path / "out"
    isc.export_dataset(ds, out)
    assert json.loads((out / "interactions.json").read_text()) == json.loads((src / "interactions.json").read_text())
    assert (out / "videos/b.mp4").is_file()
    assert isc.load(out).problems == []


def test_demo_data_loads():
    demo = REPO / "assets/demo/interactscope"
    assert (demo / "interactions.json").is_file(), "the embedded demo is missing: python assets/make_demo.py"
    ds = isc.load(demo)
    assert ds.errors == [], [str(p) for p in ds.errors]
    assert [it.id for it in ds.items] == ["is-t1-timer", "is-t2-blue", "is-t3-hot", "is-t4-count", "is-t5-remind",
                                          "is-t6-wave", "is-t7-narrate", "is-t8a-math", "is-t8b-colour",
                                          "is-t8c-eggs"]
