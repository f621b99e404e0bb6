"""ProactiveBench layout: loading, validation (every problem names file, item, field), prediction
round trips and dataset export."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from annotation.errors import DatasetError
from annotation.proactivebench import loader as pb
from annotation.model import Response
from annotation.proactivebench import writer as pbw

REPO = Path(__file__).resolve().parents[2]


def make_video(path: Path, seconds: float = 2.0, fps: int = 10) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (32, 32))
    for i in range(int(seconds * fps)):
        w.write(np.full((32, 32, 3), (i * 7) % 255, np.uint8))
    w.release()
    return path


def valid_items() -> list[dict]:
    return [
        {"item_id": "or1", "video": "videos/a.mp4", "subtask": "OR", "duration": 20, "onset_second": 8,
         "request": "Tell me when the kettle boils."},
        {"item_id": "wr1", "video": "videos/a.mp4", "subtask": "WR", "duration": 20, "window": [5, 9]},
        {"item_id": "aa1", "video": "videos/a.mp4", "subtask": "AA", "duration": 20, "window": [3, 4]},
        {"item_id": "ss1", "video": "videos/b.mp4", "subtask": "SS", "duration": 200, "window": [95, 110],
         "verified_silence_seconds": 93},
        {"item_id": "dc1", "video": "videos/b.mp4", "subtask": "DC", "duration": 30, "ref_count": 3},
        {"item_id": "es1", "video": "videos/b.mp4", "subtask": "ES", "duration": 30, "eval_start": 2,
         "alert_seconds": [10, 20], "silence_segments": [[2, 8], [12, 18], [22, 30]]},
    ]


def write_dataset(root: Path, items=None, header=None, videos=True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    doc = dict(header or {"benchmark": "proactivebench", "version": 1})
    doc["items"] = valid_items() if items is None else items
    (root / "annotations.json").write_text(json.dumps(doc), encoding="utf-8")
    if videos:
        make_video(root / "videos/a.mp4")
        make_video(root / "videos/b.mp4")
    return root


def find(ds, item, field):
    hits = [p for p in ds.problems if p.item == item and p.field == field]
    assert hits, f"no problem for item={item} field={field}; got {[str(p) for p in ds.problems]}"
    assert all(p.file == "annotations.json" for p in hits)
    return hits[0]


def test_valid_dataset_loads_with_targets_and_media(tmp_path):
    ds = pb.load(write_dataset(tmp_path / "pb"))
    assert ds.errors == [], [str(p) for p in ds.problems]
    assert [it.id for it in ds.items] == ["or1", "wr1", "aa1", "ss1", "dc1", "es1"]
    assert ds.kind_counts() == {"AA": 1, "DC": 1, "ES": 1, "OR": 1, "SS": 1, "WR": 1}
    or1 = ds.get("or1")
    assert or1.targets[0].window == (8.0, 10.0) and or1.targets[0].window_closed
    assert or1.request.text == "Tell me when the kettle boils." and or1.request.modality == "standing"
    assert or1.stream.fps == pytest.approx(10.0) and or1.stream.duration == pytest.approx(2.0)
    assert ds.get("wr1").targets[0].window == (5.0, 9.0)
    assert ds.get("dc1").targets[0].reference == 3
    es = ds.get("es1")
    assert [t.kind for t in es.targets] == ["alert", "alert", "silence", "silence", "silence"]
    assert es.targets[1].anchor == 20.0 and es.targets[4].window == (22.0, 30.0)
    assert ds.get("es1").native == valid_items()[5]


def test_duration_mismatch_and_window_past_end_warn(tmp_path):
    ds = pb.load(write_dataset(tmp_path / "pb"))
    assert find(ds, "or1", "duration").severity == "warning"  # 20 s annotated, 2 s video
    items = valid_items()[:1]
    items[0]["onset_second"] = 25
    ds = pb.load(write_dataset(tmp_path / "pb2", items), probe_media=False)
    assert find(ds, "or1", "onset_second").severity == "warning"


@pytest.mark.parametrize("mutate, item, field, words", [
    (lambda it: it[0].pop("item_id"), "#0", "item_id", "missing"),
    (lambda it: it[1].update(item_id="or1"), "or1", "item_id", "duplicate"),
    (lambda it: it[0].update(subtask="XX"), "or1", "subtask", "unknown subtask"),
    (lambda it: it[0].update(onset_second="eight"), "or1", "onset_second", "number"),
    (lambda it: it[1].update(window=[9, 5]), "wr1", "window", "after its end"),
    (lambda it: it[2].update(window=[-3, 4]), "aa1", "window[0]", "negative"),
    (lambda it: it[4].update(ref_count=2.5), "dc1", "ref_count", "integer"),
    (lambda it: it[4].pop("ref_count"), "dc1", "ref_count", "missing"),
    (lambda it: it[5].update(silence_segments=[[2, 8], "x"]), "es1", "silence_segments[1]", "[start, end]"),
    (lambda it: it[5].update(alert_seconds=[10, None]), "es1", "alert_seconds[1]", "number"),
    (lambda it: it[1].pop("duration"), "wr1", "duration", "missing"),
    (lambda it: it[1].update(video="../outside.mp4"), "wr1", "video", "outside"),
    (lambda it: it[1].update(video="videos/nope.mp4"), "wr1", "video", "not found"),
    (lambda it: it[1].update(eval_start=0), "wr1", "eval_start", ">= 1"),
])
def test_malformed_item_names_file_item_field(tmp_path, mutate, item, field, words):
    items = valid_items()
    mutate(items)
    ds = pb.load(write_dataset(tmp_path / "pb", items))
    p = find(ds, item, field)
    assert p.severity == "error" and words in p.message, str(p)
    assert words in str(p) and "annotations.json" in str(p)


def test_every_problem_is_reported_not_only_the_first(tmp_path):
    items = valid_items()
    items[0]["subtask"] = "??"
    items[1]["window"] = [9, 5]
    items[4]["ref_count"] = -1
    items[5]["alert_seconds"] = "10"
    ds = pb.load(write_dataset(tmp_path / "pb", items), probe_media=False)
    assert {(p.item, p.field) for p in ds.errors} >= {("or1", "subtask"), ("wr1", "window"),
                                                      ("dc1", "ref_count"), ("es1", "alert_seconds")}
    assert [it.id for it in ds.items] == ["aa1", "ss1"]
    with pytest.raises(DatasetError) as exc:
        ds.raise_if_errors()
    assert "wr1" in str(exc.value) and "window" in str(exc.value)


def test_ss_silence_outside_range_is_a_warning(tmp_path):
    items = [{"item_id": "ss2", "video": "videos/a.mp4", "subtask": "SS", "duration": 60, "window": [10, 20]}]
    ds = pb.load(write_dataset(tmp_path / "pb", items), probe_media=False)
    assert ds.errors == [] and find(ds, "ss2", "window").severity == "warning"


def test_file_level_problems(tmp_path):
    ds = pb.load(tmp_path / "absent")
    assert ds.errors and "root not found" in ds.errors[0].message

    root = tmp_path / "trunc"
    root.mkdir()
    (root / "annotations.json").write_text('{"benchmark": "proactivebench",\n "items": [ {"item_id": ')
    ds = pb.load(root)
    assert ds.errors[0].file == "annotations.json" and "line 2 column" in ds.errors[0].message

    root = tmp_path / "latin1"
    root.mkdir()
    (root / "annotations.json").write_bytes('{"items": ["café"]}'.encode("latin-1"))
    ds = pb.load(root)
    assert "not UTF-8" in ds.errors[0].message

    ds = pb.load(write_dataset(tmp_path / "empty", items=[], videos=False))
    assert any(p.field == "items" and "empty dataset" in p.message for p in ds.errors)

    ds = pb.load(write_dataset(tmp_path / "hdr", header={"benchmark": "interactscope", "version": 2}))
    assert {p.field for p in ds.errors} == {"benchmark", "version"}

    root = tmp_path / "nofile"
    root.mkdir()
    assert "file not found" in pb.load(root).errors[0].message


def test_corrupt_video_is_reported(tmp_path):
    root = write_dataset(tmp_path / "pb")
    (root / "videos/b.mp4").write_bytes(b"not a video" * 50)
    ds = pb.load(root)
    bad = [p for p in ds.errors if p.field == "video"]
    assert {p.item for p in bad} == {"ss1", "dc1", "es1"}
    assert "es1" in ds  # annotation is fine; the item is kept without media facts
    assert ds.get("es1").stream.duration is None


def test_predictions_round_trip(tmp_path):
    preds = [{"item_id": "or1", "response_seconds": [9, 14], "texts": {"9": "It boils."}},
             {"item_id": "dc1", "response_seconds": [], "predicted_count": 3}]
    path = pbw.write_predictions(tmp_path / "run", preds)
    assert path.name == "preds.jsonl" and len(path.read_text().splitlines()) == 2
    assert pbw.read_predictions(path) == {p["item_id"]: p for p in preds}
    # mapping input writes the same lines
    path2 = pbw.write_predictions(tmp_path / "b.jsonl", {p["item_id"]: p for p in preds})
    assert path2.read_text() == path.read_text()


def test_prediction_from_responses_uses_one_based_seconds():
    rs = [Response("r2", "or1", "proactivebench", "model:x", "s", 8.4, "speech", "again"),
          Response("r1", "or1", "proactivebench", "model:x", "s", 8.0, "speech", "boiling"),
          Response("r3", "or1", "proactivebench", "model:x", "s", 13.99, "press")]
    assert pbw.prediction_from_responses("or1", rs) == {
        "item_id": "or1", "response_seconds": [9, 14], "texts": {"9": "boiling"}}


def test_bad_predictions_are_all_reported(tmp_path):
    path = tmp_path / "preds.jsonl"
    path.write_text('{"item_id": "or1", "response_seconds": [0, 2.5]}\n'
                    '{"item_id": "or1", "response_seconds": []}\n'
                    '{"response_seconds": []}\n'
                    '{"item_id": "dc1", "response_seconds": [], "predicted_count": "3"}\n'
                    '{"item_id": "x", \n')
    preds, problems = pbw.check_predictions(path)
    fields = {(p.item, p.field) for p in problems}
    assert ("or1", "response_seconds[0]") in fields and ("or1", "response_seconds[1]") in fields
    assert ("line 3", "item_id") in fields and ("dc1", "predicted_count") in fields
    assert any(p.item == "line 5" and "invalid JSON" in p.message for p in problems)
    assert preds == {"or1": {"item_id": "or1", "response_seconds": []}}
    with pytest.raises(DatasetError):
        pbw.read_predictions(path)
    with pytest.raises(DatasetError):
        pbw.write_predictions(tmp_path / "w", [{"item_id": "a", "response_seconds": ["9"]}])


def test_predictions_checked_against_dataset(tmp_path):
    ds = pb.load(write_dataset(tmp_path / "pb", videos=False), probe_media=False)
    path = pbw.write_predictions(tmp_path, [{"item_id": "ghost", "response_seconds": [3]}])
    _, problems = pbw.check_predictions(path, ds)
    assert any(p.item == "ghost" and "no such item" in p.message for p in problems)
    assert sum("no prediction" in p.message for p in problems) == 6


def test_export_round_trip(tmp_path):
    src = write_dataset(tmp_path / "pb", header={"benchmark": "proactivebench", "version": 1, "note": "x"})
    ds = pb.load(src)
    out = tmp_path / "out"
    pb.export_dataset(ds, out)
    assert json.loads((out / "annotations.json").read_text()) == json.loads((src / "annotations.json").read_text())
    assert (out / "videos/a.mp4").read_bytes() == (src / "videos/a.mp4").read_bytes()
    again = pb.load(out)
    assert again.errors == [] and [it.native for it in again.items] == [it.native for it in ds.items]


def test_demo_data_loads():
    demo = REPO / "assets/demo/proactivebench"
    assert (demo / "annotations.json").is_file(), "the embedded demo is missing: python assets/make_demo.py"
    ds = pb.load(demo)
    assert ds.errors == [], [str(p) for p in ds.errors]
    assert [it.id for it in ds.items] == ["pb-or-ball", "pb-wr-blue", "pb-aa-triangle", "pb-ss-erase",
                                          "pb-dc-counter", "pb-es-steps"]
