"""InteractionBench loader: valid layouts, the legacy layout, and malformed inputs with precise messages."""
import json
from pathlib import Path

import pytest

from annotation.interactionbench import loader as ib
from annotation.loaders import load
from annotation.interactionbench.writer import pred_row, read_preds, write_preds


def write_video(root: Path, vid: str, items, domain="demo", duration=30.0, legacy=False, **extra):
    doc = {"video_id": vid, "domain": domain, "duration_s": duration, "items": items, **extra}
    path = root / ("results" if legacy else "annotations") / domain / (f"{vid}/annotation.json" if legacy else f"{vid}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


B_ITEM = {"capability": "PTR", "time_type": "B", "question": "Tell me when the ball appears.",
          "question_time_s": 0, "answers": [{"time_s": 5.0, "content": "The ball appeared."}]}
A_ITEM = {"capability": "LVM", "time_type": "A", "question": "What colour was the wall?", "question_time_s": 20.0,
          "answers": [{"time_s": 20.0, "content": "red", "evidence_time_s": 4.0}]}


def test_loads_items_with_ids_kinds_and_targets(tmp_path):
    write_video(tmp_path, "v2", [B_ITEM])
    write_video(tmp_path, "v1", [A_ITEM, {**B_ITEM, "is_negative": True}])
    ds = load("interactionbench", tmp_path, probe_media=False)
    assert not ds.errors
    assert [i.id for i in ds.items] == ["v1#0", "v1#1", "v2#0"]
    assert ds.kind_counts() == {"A_retro_qa": 1, "B_trigger": 1, "negative": 1}
    a = ds.get("v1#0")
    assert a.request.time == 20.0 and a.request.modality == "text"
    assert a.targets[0].anchor == 20.0 and a.targets[0].reference == "red"
    assert ds.get("v2#0").targets[0].anchor == 5.0


def test_annotations_folder_wins_over_legacy_results(tmp_path):
    """Reference load_benchmark: annotations/ when it exists, else results/ (the legacy tree)."""
    write_video(tmp_path, "v1", [B_ITEM])
    write_video(tmp_path, "old", [B_ITEM], legacy=True)
    assert [r["video_id"] for r in ib.load_rows(tmp_path)] == ["v1"]
    (tmp_path / "annotations" / "demo" / "v1.json").unlink()
    (tmp_path / "annotations" / "demo").rmdir()
    (tmp_path / "annotations").rmdir()
    assert [r["video_id"] for r in ib.load_rows(tmp_path)] == ["old"]


def test_files_anywhere_below_annotations_and_video_fields_as_the_reference_reads_them(tmp_path):
    """rglob: nested and flat files count; domain null -> category -> folder; duration_s "90" -> 90.0;
    a second file with the same video_id replaces the first one's items in their place."""
    def put(rel, doc):
        path = tmp_path / "annotations" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc), encoding="utf-8")
    put("x/sub/v1.json", {"video_id": "v1", "domain": "d", "duration_s": 30, "items": [B_ITEM]})
    put("x/sub/v2.json", {"video_id": "v2", "domain": None, "category": "kitchen", "duration_s": "90", "items": [B_ITEM]})
    put("v0.json", {"duration_s": 10, "items": [B_ITEM]})
    put("zz/v1.json", {"video_id": "v1", "domain": "zz", "duration_s": 5, "items": [A_ITEM]})
    rows = ib.load_rows(tmp_path)
    # file order (dir parts..., stem): annotations/v0, annotations/x/sub/v1, annotations/x/sub/v2, annotations/zz/v1
    assert [(r["video_id"], r["domain"], r["duration_s"], r["capability"]) for r in rows] == \
        [("v0", "annotations", 10.0, "PTR"), ("v1", "zz", 5.0, "LVM"), ("v2", "kitchen", 90.0, "PTR")]


def test_rows_are_reference_shaped_and_ordered(tmp_path):
    write_video(tmp_path, "b", [B_ITEM], domain="zeta")
    write_video(tmp_path, "a", [B_ITEM, A_ITEM], domain="alpha")
    rows = ib.load_rows(tmp_path)
    assert [(r["video_id"], r["item_index"], r["domain"]) for r in rows] == [("a", 0, "alpha"), ("a", 1, "alpha"), ("b", 0, "zeta")]
    assert rows[0]["duration_s"] == 30.0 and rows[0]["answers"] == B_ITEM["answers"]


def test_export_round_trips_unedited_dataset(tmp_path):
    src = tmp_path / "src"
    p = write_video(src, "v1", [A_ITEM, B_ITEM], video="videos/v1.mp4")
    ds = load("interactionbench", src, probe_media=False)
    out = tmp_path / "out"
    ib.export_dataset(ds, out)
    assert json.loads((out / "annotations/demo/v1.json").read_text()) == json.loads(p.read_text())


def test_preds_writer_reader_round_trip(tmp_path):
    rows = [pred_row("v1#0", [{"t": 5.0, "content": "now"}], model="m"), pred_row("v1#1", [])]
    path = write_preds(tmp_path / "preds.jsonl", rows)
    back, problems = read_preds(path)
    assert back == rows and not problems
    assert back[0] == {"video_id": "v1", "item_index": 0, "emissions": [{"t": 5.0, "content": "now"}], "model": "m"}


# --- malformed inputs: each message names the file, the item and the field ----------------------------

def _problems(tmp_path, items=None, raw=None, **extra):
    if raw is not None:
        path = tmp_path / "annotations" / "demo" / "v1.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
    else:
        write_video(tmp_path, "v1", items, **extra)
    return load("interactionbench", tmp_path, probe_media=False).problems


MALFORMED = [
    ("missing_answers", [{k: v for k, v in B_ITEM.items() if k != "answers"}], "v1#0", "answers", "missing"),
    ("answers_not_list", [{**B_ITEM, "answers": "soon"}], "v1#0", "answers", "expected a list"),
    ("non_numeric_time", [{**B_ITEM, "answers": [{"time_s": "five", "content": "x"}]}], "v1#0", "answers[0].time_s", "expected a number"),
    ("negative_time", [{**B_ITEM, "answers": [{"time_s": -2, "content": "x"}]}], "v1#0", "answers[0].time_s", "negative"),
    ("negative_question_time", [{**A_ITEM, "question_time_s": -1}], "v1#0", "question_time_s", "negative"),
    ("unknown_capability", [{**B_ITEM, "capability": "XYZ"}], "v1#0", "capability", "unknown capability"),
    ("content_wrong_type", [{**B_ITEM, "answers": [{"time_s": 1.0, "content": 7}]}], "v1#0", "answers[0].content", "expected text"),
    ("item_not_object", [B_ITEM, "oops"], "v1#1", None, "expected an object"),
    ("flag_wrong_type", [{**B_ITEM, "is_negative": "yes"}], "v1#0", "is_negative", "true or false"),
    ("answer_before_question", [{**A_ITEM, "answers": [{"time_s": 3.0, "content": "red"}]}], "v1#0", "answers[0].time_s", "before its question"),
    ("bad_time_type", [{**B_ITEM, "time_type": "D"}], "v1#0", "time_type", "not A, B or C"),
    ("no_timed_answer", [{**B_ITEM, "answers": [{"time_s": None, "content": "x"}]}], "v1#0", "answers", "not scoreable"),
]


@pytest.mark.parametrize("name,items,item,field,text", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_item_is_reported_precisely(tmp_path, name, items, item, field, text):
    probs = _problems(tmp_path, items)
    hits = [p for p in probs if p.item == item and p.field == field and text in p.message]
    assert hits, [str(p) for p in probs]
    assert hits[0].file == "annotations/demo/v1.json"
    assert "annotations/demo/v1.json" in str(hits[0]) and item in str(hits[0])


ANSWER_TIMES = [  # (answers' time_s in a type A item asked at 20 s in a 30 s video, the problems, in order)
    ([20, 20.0, 30, 25.5], []),  # int and float, at the question and at the very end: nothing to say
    ([None], []),  # an untimed answer: the item is not scoreable (reported once, below the answers)
    ([3.0], [("warning", "answers[0].time_s", "answer at 3.0s comes before its question at 20.0s")]),
    ([31], [("warning", "answers[0].time_s", "answer at 31s is after the video ends")]),
    ([-2], [("error", "answers[0].time_s", "negative time -2; expected seconds >= 0")]),
    ([float("nan")], [("error", "answers[0].time_s", "expected a number of seconds, got nan")]),
    ([float("inf")], [("error", "answers[0].time_s", "expected a number of seconds, got inf")]),
    ([True], [("error", "answers[0].time_s", "expected a number of seconds, got True")]),
    ([21, "21"], [("error", "answers[1].time_s", "expected a number of seconds, got '21'")]),
]


@pytest.mark.parametrize("times,expected", ANSWER_TIMES, ids=["inside", "untimed", "before_question", "after_end",
                                                                "negative", "nan", "inf", "bool", "text"])
def test_answer_times_are_checked_one_by_one(tmp_path, times, expected):
    """Each answer time: a number in [question, end] passes silently; the rest get exactly one problem each."""
    item = {**A_ITEM, "answers": [{"time_s": t, "content": "red"} for t in times]}
    probs = [p for p in _problems(tmp_path, [item]) if p.field != "answers"]
    assert [(p.severity, p.field, p.message.split(" (")[0]) for p in probs] == expected


def test_a_question_after_the_end_gets_both_timing_warnings(tmp_path):
    """Asked at 40 s in a 30 s video, an answer at 35 s is both before its question and after the end."""
    item = {**A_ITEM, "question_time_s": 40.0, "answers": [{"time_s": 35.0, "content": "red"}]}
    probs = _problems(tmp_path, [item])
    assert [(p.field, p.message.split(" (")[0]) for p in probs] == [
        ("answers[0].time_s", "answer at 35.0s comes before its question at 40.0s"),
        ("answers[0].time_s", "answer at 35.0s is after the video ends")]


@pytest.mark.parametrize("raw,text", [(b'{"video_id": "v1", "items": [', "invalid JSON at line 1"),
                                      (b'\xff\xfe{"video_id": 1}', "not UTF-8"),
                                      (b"", "empty"),
                                      (b"[1, 2]", "expected a JSON object")],
                         ids=["truncated_json", "non_utf8", "empty_file", "root_not_object"])
def test_unreadable_file_is_reported(tmp_path, raw, text):
    probs = _problems(tmp_path, raw=raw)
    assert any(p.file == "annotations/demo/v1.json" and text in p.message for p in probs), [str(p) for p in probs]


def test_duplicate_video_ids_are_reported(tmp_path):
    write_video(tmp_path, "v1", [B_ITEM], domain="a")
    write_video(tmp_path, "v1", [B_ITEM], domain="b")
    probs = load("interactionbench", tmp_path, probe_media=False).problems
    assert any(p.field == "video_id" and "duplicate" in p.message for p in probs)


def test_empty_dataset_and_missing_folder(tmp_path):
    assert "no annotation files" in str(load("interactionbench", tmp_path).problems[0])
    assert "not found" in str(load("interactionbench", tmp_path / "nope").problems[0])


def test_missing_and_corrupt_video_named(tmp_path):
    write_video(tmp_path, "v1", [B_ITEM], video="videos/v1.mp4")
    write_video(tmp_path, "v2", [B_ITEM], video="videos/v2.mp4")
    (tmp_path / "videos").mkdir()
    (tmp_path / "videos" / "v2.mp4").write_bytes(b"not a video at all" * 100)
    probs = [p for p in load("interactionbench", tmp_path).problems if p.field == "video"]
    assert any(p.file == "annotations/demo/v1.json" and "not found" in p.message for p in probs)
    assert any(p.file == "annotations/demo/v2.json" and "cannot be decoded" in p.message for p in probs)


def test_video_path_outside_root_is_refused(tmp_path):
    write_video(tmp_path, "v1", [B_ITEM], video="../../etc/passwd")
    probs = load("interactionbench", tmp_path).problems
    assert any(p.field == "video" and "outside the data root" in p.message for p in probs)


def test_every_problem_is_reported_not_only_the_first(tmp_path):
    write_video(tmp_path, "v1", [{**B_ITEM, "capability": "XYZ"}, {**B_ITEM, "answers": "x"}])
    write_video(tmp_path, "v2", [{**B_ITEM, "question_time_s": "soon"}])
    errors = load("interactionbench", tmp_path, probe_media=False).errors
    assert {p.item for p in errors} == {"v1#0", "v1#1", "v2#0"}


def test_rows_for_the_scorer_keep_items_the_reference_reads(tmp_path):
    """The validator flags an unknown capability, but the reference still scores the item (as a trigger)."""
    write_video(tmp_path, "v1", [{**B_ITEM, "capability": "XYZ"}])
    assert load("interactionbench", tmp_path, probe_media=False).errors
    assert [r["capability"] for r in ib.load_rows(tmp_path)] == ["XYZ"]
