"""OmniInteract layout: loading the published tree, validation (file, item, field named), slot
geometry against the reference's golden outputs, transcript writer/reader round trips and export."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from annotation.errors import DatasetError
from annotation.omniinteract import loader as om
from annotation.loaders._common import parse_time
from annotation.model import Response
from annotation.omniinteract import writer as omw

REPO = Path(__file__).resolve().parents[2]


def make_video(path: Path, seconds: float = 2.0, fps: int = 10) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (32, 32))
    for i in range(int(seconds * fps)):
        w.write(np.full((32, 32, 3), (i * 7) % 255, np.uint8))
    w.release()
    return path


def row(q, a, qt="realtime", qtext="Q?", atext="A.", **more):
    return {"question_time": q, "question_text": qtext, "answer_time": a, "answer_text": atext,
            "question_type": qt, "is_interrupted": False, **more}


def tree() -> dict:
    """{relative path: JSON content} of a small valid OmniInteract data folder."""
    return {
        "data/1q1a/video_json_map.json": {"total": 2, "entries": [
            {"video": "videos/0001.mp4", "annotation": "annotations/0001.json", "scene_type": "multi_turn"},
            {"video": "videos/0002.mp4", "annotation": "annotations/0002.json", "scene_type": "nested"}]},
        "data/1q1a/annotations/0001.json": [
            row("00:40", "00:45", qtext="What colour is the cup?"),
            row("00:05", "00:08", qtext="How many apples?", atext="Three."),
            row("01:20", "01:35", qt="proactive", is_interrupted="yes")],
        "data/1q1a/annotations/0002.json": [
            row("00:10", "00:50", qt="proactive"), row("00:20", "00:30"),
            row("01:00", "01:40", qt="proactive"), row("01:10", "01:20")],
        "data/1q1a_math/video_json_map.json": {"total": 1, "entries": [
            {"video": "videos/0001.mp4", "annotation": "annotations/0001.json", "scene_type": "multi_turn"}]},
        "data/1q1a_math/annotations/0001.json": [
            row("question time", "answer time", qtext="template"), row("00:03.5", "0:00:09", qtext="2+2?")],
        "data/1qna/annotations/captaincook4d/Omelette-3_7.json": {
            "inferred_knowledge": "1. Crack. 2. Whisk.",
            "conversations": [{"from": "user", "timestamp": 3.0, "value": "Guide me."},
                              {"from": "assistant", "timestamp": 30.0, "value": "Whisk.", "label": "Feedback"},
                              {"from": "assistant", "timestamp": 12.5, "value": "Crack.", "interrupted": True}]},
        "data/1qna/annotations/egoper/coffee_u2_a3.json": {
            "question_text": "Coffee?", "question_time": "00:02",
            "answers": [{"answer_time": "8.5", "answer_text": "Grind.", "label": "Instruction"},
                        {"answer_time": 20, "answer_text": "Boil.", "interrupted": "true", "is_interrupted": False}]},
    }


VIDEOS = ["data/1q1a/videos/0001.mp4", "data/1q1a/videos/0002.mp4", "data/1q1a_math/videos/0001.mp4",
          "data/1qna/videos_bench/captaincook4d/Omelette-3_7.mp4", "data/1qna/videos_bench/egoper/coffee_u2_a3.mp4"]


def materialise(root: Path, files: dict, videos=VIDEOS) -> Path:
    for rel, doc in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    for rel in videos:
        make_video(root / rel)
    return root


def find(ds, file, item, field):
    hits = [p for p in ds.problems if p.item == item and p.field == field]
    assert hits, f"no problem for item={item} field={field}; got {[str(p) for p in ds.problems]}"
    assert hits[0].file == file, str(hits[0])
    return hits[0]


def test_valid_tree_loads_with_reference_slots(tmp_path):
    ds = om.load(materialise(tmp_path / "oi", tree()))
    assert ds.errors == [], [str(p) for p in ds.errors]
    assert sorted(it.id for it in ds.items) == sorted([
        "1q1a__videos__0001", "1q1a__videos__0002", "1q1a_math__videos__0001",
        "1qna__captaincook4d__Omelette-3_7", "1qna__egoper__coffee_u2_a3"])
    assert ds.kind_counts() == {"1QnA": 2, "multi_turn": 2, "nested": 1}

    mt = ds.get("1q1a__videos__0001")
    assert [(t.window, t.anchor, t.label) for t in mt.targets] == [
        ((5.0, 40.0), 8.0, "realtime"), ((40.0, 80.0), 45.0, "realtime"), ((80.0, 155.0), 95.0, "proactive")]
    assert not mt.targets[0].window_closed
    assert mt.targets[0].reference == "Three." and mt.meta["slots"][2]["is_interrupted"] is True
    assert mt.request.text == "How many apples?" and mt.request.time == 5.0 and mt.request.modality == "audio"
    assert mt.stream.fps == pytest.approx(10.0)

    nested = ds.get("1q1a__videos__0002")
    assert [(t.kind, t.window, t.anchor) for t in nested.targets] == [
        ("outer", (10.0, 60.0), 50.0), ("inner", (20.0, 50.0), 30.0),
        ("outer", (60.0, 160.0), 100.0), ("inner", (70.0, 100.0), 80.0)]

    math = ds.get("1q1a_math__videos__0001")  # template row dropped with a warning, H:MM:SS parsed
    assert [(t.window, t.anchor) for t in math.targets] == [((3.5, 69.0), 9.0)]
    assert find(ds, "data/1q1a_math/annotations/0001.json", "1q1a_math__videos__0001",
                "[0].question_time").severity == "warning"

    conv = ds.get("1qna__captaincook4d__Omelette-3_7")
    assert conv.request.text == "1. Crack. 2. Whisk.\n\nGuide me." and conv.request.time == 3.0
    assert [(t.window, t.anchor, t.label, t.kind) for t in conv.targets] == [
        ((3.0, 30.0), 12.5, "step", "step"), ((30.0, 90.0), 30.0, "feedback", "step")]
    assert conv.meta["slots"][0]["is_interrupted"] is True and conv.meta["slots"][0]["boundary_type"] == "Soft"
    flat = ds.get("1qna__egoper__coffee_u2_a3")
    assert [(t.window, t.anchor) for t in flat.targets] == [((2.0, 20.0), 8.5), ((20.0, 80.0), 20.0)]
    assert flat.meta["slots"][1]["is_interrupted"] is True  # "interrupted" wins over "is_interrupted"
    assert flat.native == tree()["data/1qna/annotations/egoper/coffee_u2_a3.json"]


def test_root_may_be_the_data_folder_itself(tmp_path):
    materialise(tmp_path / "oi", tree(), videos=[])
    ds = om.load(tmp_path / "oi" / "data", probe_media=False)
    assert len(ds) == 5 and ds.errors == []
    assert ds.get("1q1a__videos__0001").source_file == "1q1a/annotations/0001.json"


def test_parse_time_forms():
    assert parse_time("00:09.5") == 9.5 and parse_time("0:00:05") == 5.0 and parse_time("25") == 25.0
    assert parse_time(8) == 8.0 and parse_time("1:02:03") == 3723.0
    assert parse_time("around 5") is None and parse_time("1:2:3:4") is None and parse_time(None) is None


A = "data/1q1a/annotations/0001.json"
M = "data/1q1a/video_json_map.json"
S1 = "1q1a__videos__0001"


@pytest.mark.parametrize("mutate, file, item, field, words, severity", [
    (lambda t: t[A][0].update(question_time=[1, 2]), A, S1, "[0].question_time", "expected \"MM:SS\"", "error"),
    (lambda t: t[A][0].update(answer_time="-00:05"), A, S1, "[0].answer_time", "negative", "error"),
    (lambda t: t[A][1].update(question_type="sometimes"), A, S1, "[1].question_type", "unknown question_type", "error"),
    (lambda t: t[A][1].update(answer_time="00:01"), A, S1, "[1].answer_time", "before its question", "warning"),
    (lambda t: t[A][2].pop("answer_text"), A, S1, "[2].answer_text", "missing", "error"),
    (lambda t: t[A][2].pop("question_type"), A, S1, "[2].question_type", "unknown", "warning"),
    (lambda t: t[A].append("row"), A, S1, "[3]", "expected an object", "error"),
    (lambda t: t[M]["entries"][0].update(scene_type="chain"), M, "videos/0001.mp4", "scene_type",
     "unknown scene_type", "error"),
    (lambda t: t[M]["entries"].append(dict(t[M]["entries"][0])), M, "videos/0001.mp4", "video", "duplicate", "error"),
    (lambda t: t[M]["entries"][1].update(annotation="annotations/0009.json"),
     "data/1q1a/annotations/0009.json", None, None, "file not found", "error"),
    (lambda t: t.update({A: {"rows": []}}), A, S1, None, "expected a JSON list", "error"),
    (lambda t: t["data/1qna/annotations/egoper/coffee_u2_a3.json"].update(answers={"a": 1}),
     "data/1qna/annotations/egoper/coffee_u2_a3.json", "1qna__egoper__coffee_u2_a3", "answers", "expected a list",
     "error"),
    (lambda t: t.update({"data/1qna/annotations/egoper/coffee_u2_a3.json": [1]}),
     "data/1qna/annotations/egoper/coffee_u2_a3.json", "1qna__egoper__coffee_u2_a3", None, "expected a JSON object",
     "error"),
    (lambda t: t["data/1qna/annotations/captaincook4d/Omelette-3_7.json"].pop("conversations"),
     "data/1qna/annotations/captaincook4d/Omelette-3_7.json", "1qna__captaincook4d__Omelette-3_7", "conversations",
     "neither", "error"),
    (lambda t: t["data/1qna/annotations/captaincook4d/Omelette-3_7.json"]["conversations"][1].update(**{"from": "bot"}),
     "data/1qna/annotations/captaincook4d/Omelette-3_7.json", "1qna__captaincook4d__Omelette-3_7",
     "conversations[1].from", "expected \"user\" or \"assistant\"", "error"),
])
def test_malformed_names_file_item_field(tmp_path, mutate, file, item, field, words, severity):
    files = tree()
    mutate(files)
    ds = om.load(materialise(tmp_path / "oi", files, videos=[]), probe_media=False)
    p = find(ds, file, item, field)
    assert p.severity == severity and words in p.message, str(p)


def test_item_with_errors_is_left_out_and_all_problems_listed(tmp_path):
    files = tree()
    files[A][0]["question_time"] = {"m": 1}
    files[A][1]["question_type"] = "?"
    files["data/1q1a/annotations/0002.json"][0]["answer_time"] = "-1"
    ds = om.load(materialise(tmp_path / "oi", files, videos=[]), probe_media=False)
    assert {(p.item, p.field) for p in ds.errors} == {
        (S1, "[0].question_time"), (S1, "[1].question_type"), ("1q1a__videos__0002", "[0].answer_time")}
    assert S1 not in ds and "1q1a__videos__0002" not in ds and len(ds) == 3
    with pytest.raises(DatasetError):
        ds.raise_if_errors()


def test_nested_pairing_failure_is_kept_as_unscorable(tmp_path):
    files = tree()
    files["data/1q1a/annotations/0002.json"] = [row("00:10", "00:50"), row("01:00", "01:40")]
    ds = om.load(materialise(tmp_path / "oi", files, videos=[]), probe_media=False)
    it = ds.get("1q1a__videos__0002")
    assert it.meta["scorable"] is False and "no inner row" in it.meta["slot_error"]
    assert find(ds, "data/1q1a/annotations/0002.json", it.id, None).severity == "warning"


def test_unlisted_annotation_and_file_level_problems(tmp_path):
    files = tree()
    files["data/1q1a/annotations/0003.json"] = [row(1, 2)]
    root = materialise(tmp_path / "oi", files, videos=[])
    (root / "data/1q1a_math/annotations/0001.json").write_text('[{"question_time": "00:01",\n  "answer_time": }]')
    (root / "data/1q1a/annotations/0002.json").write_bytes(b'[{"question_text": "caf\xe9"}]')
    ds = om.load(root, probe_media=False)
    assert ds.get("1q1a__videos__0003").kind == "multi_turn"
    assert find(ds, "data/1q1a/annotations/0003.json", "1q1a__videos__0003", None).severity == "warning"
    bad_json = [p for p in ds.errors if p.file == "data/1q1a_math/annotations/0001.json"]
    assert bad_json and "line 2 column" in bad_json[0].message
    assert any(p.file == "data/1q1a/annotations/0002.json" and "not UTF-8" in p.message for p in ds.errors)

    assert "root not found" in om.load(tmp_path / "nothing").errors[0].message
    (tmp_path / "bare").mkdir()
    assert "no OmniInteract subset" in om.load(tmp_path / "bare").errors[0].message
    (tmp_path / "emptyset/data/1q1a/annotations").mkdir(parents=True)
    (tmp_path / "emptyset/data/1q1a/video_json_map.json").write_text('{"total": 0, "entries": []}')
    assert any("empty dataset" in p.message for p in om.load(tmp_path / "emptyset").errors)


def test_missing_and_corrupt_video(tmp_path):
    root = materialise(tmp_path / "oi", tree(), videos=VIDEOS[1:])
    (root / VIDEOS[2]).write_bytes(b"\x00junk" * 100)
    ds = om.load(root)
    missing = find(ds, A, S1, "video")
    assert "not found" in missing.message and missing.severity == "error"
    corrupt = find(ds, "data/1q1a_math/annotations/0001.json", "1q1a_math__videos__0001", "video")
    assert "decoded" in corrupt.message
    assert ds.get(S1).stream.duration is None


def test_export_round_trip(tmp_path):
    files = tree()
    src = materialise(tmp_path / "oi", files)
    ds = om.load(src)
    out = tmp_path / "out"
    om.export_dataset(ds, out)
    for rel, doc in files.items():
        assert json.loads((out / rel).read_text(encoding="utf-8")) == doc, rel
    for rel in VIDEOS:
        assert (out / rel).read_bytes() == (src / rel).read_bytes()
    again = om.load(out)
    assert [it.native for it in again.items] == [it.native for it in ds.items]


def test_transcript_writer_reader_round_trip(tmp_path):
    ds = om.load(materialise(tmp_path / "oi", tree(), videos=[]), probe_media=False)
    plain = {"text": "Three apples", "chunks": [{"text": "Three apples", "timestamp": [8.0, 9.2]}]}
    aligned = {"text": "Crack", "chunks": [{"text": "Crack", "timestamp": [12.5, 13.0],
                                            "aligned_words": [{"text": "Crack", "start": 12.5, "end": 12.9}]}]}
    preds = {S1: plain, "1qna__captaincook4d__Omelette-3_7": aligned, "1q1a__videos__0002": None}
    outputs = tmp_path / "repo/outputs"
    summary = omw.write_predictions(outputs, "synth", preds, ds)
    doc = json.loads(summary.read_text())
    assert doc["total"] == 3 and doc["success"] == 2 and doc["incomplete"] == 1
    assert doc["results"][0] == {"video": "data/1q1a/videos/0001.mp4",
                                 "output_dir": "outputs/synth/1q1a/videos__0001", "status": "ok"}
    assert doc["results"][1]["output_dir"] == "outputs/synth/1qna/captaincook4d__Omelette-3_7"
    sample = outputs / "synth/1qna/captaincook4d__Omelette-3_7"
    assert "aligned_words" not in json.loads((sample / "wav_transcript.json").read_text())["chunks"][0]
    assert json.loads((sample / "precise_truncation.json").read_text()) == aligned
    assert omw.read_predictions(outputs / "synth", ds) == {k: v for k, v in preds.items() if v is not None}
    # the wav transcript alone is what the reference reads when precise_truncation is not requested
    assert omw.read_predictions(outputs / "synth", model_json_name="wav_transcript.json")[
        "1qna__captaincook4d__Omelette-3_7"]["chunks"][0] == {"text": "Crack", "timestamp": [12.5, 13.0]}
    with pytest.raises(DatasetError):
        omw.write_predictions(outputs, "bad", {S1: {"text": "x", "chunks": "nope"}}, ds)


def test_transcript_from_responses():
    rs = [Response("b", S1, "omniinteract", "model:m", "s", 41.0, "speech", "Red.", meta={"end": 42.0}),
          Response("a", S1, "omniinteract", "model:m", "s", 8.0, "speech", "Three.")]
    assert omw.transcript_from_responses(rs) == {"text": "Three. Red.", "chunks": [
        {"text": "Three.", "timestamp": [8.0, 8.0]}, {"text": "Red.", "timestamp": [41.0, 42.0]}]}


def _golden_cases(golden: Path):
    path = golden / "omniinteract" / "cases.json"
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


def _materialise_case(root: Path, case: dict) -> None:
    for rel, doc in {**case["annotations"], **case["model_outputs"]}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".jsonl"):
            p.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in doc), encoding="utf-8")
        elif isinstance(doc, str) and not rel.endswith(".json"):
            p.write_text(doc, encoding="utf-8")
        else:
            p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")


def test_golden_slot_geometry_and_transcript_choice(tmp_path, golden):
    """Every scored golden sample: our targets equal the reference's slots, our reader picks its file."""
    n_slots = 0
    for case in _golden_cases(golden):
        root = tmp_path / case["case_id"]
        _materialise_case(root, case)
        ds = om.load(root, probe_media=False)
        assert ds.errors == [], (case["case_id"], [str(p) for p in ds.errors])
        preds, _ = omw.check_predictions(root / "outputs/synth", ds)
        for s in case["expected"]["samples"]:
            if s["item_kind"] != "summarized":
                continue
            it = ds.get(s["sample_id"])
            assert it.kind == s["scene_type"]
            got = [(m["slot_id"], m["start"], m["t_a"], m["end"], m["nested_role"], m["question_type"],
                    m["is_interrupted"], m["boundary_type"]) for m in it.meta["slots"]]
            want = [(m["slot_id"], m["start"], m["t_a"], m["end"], m["nested_role"], m["question_type"],
                     m["is_interrupted"], m["boundary_type"]) for m in s["slots"]]
            assert got == want, (case["case_id"], s["sample_id"])
            n_slots += len(want)
            assert preds[s["sample_id"]] == json.loads((root / s["model_json"]).read_text(encoding="utf-8"))
        out = tmp_path / "export" / case["case_id"]
        om.export_dataset(ds, out)
        for rel, doc in case["annotations"].items():
            assert json.loads((out / rel).read_text(encoding="utf-8")) == doc
    assert n_slots > 200


def test_demo_data_loads():
    demo = REPO / "assets/demo/omniinteract"
    assert demo.is_dir(), "the embedded demo is missing: python assets/make_demo.py"
    ds = om.load(demo)
    assert ds.errors == [], [str(p) for p in ds.errors]
    assert sorted(it.id for it in ds.items) == ["1q1a__videos__0001", "1q1a__videos__0002", "1q1a__videos__0003",
                                                "1q1a_math__videos__0001", "1qna__captaincook4d__Eggs-1_1",
                                                "1qna__egoper__eggs_u1_a1"]
