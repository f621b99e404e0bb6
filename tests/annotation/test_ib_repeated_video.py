"""A video_id given by two annotation files: the loaders agree with the reference (the later file's items win,
in the earlier items' place) and report the repeat as a warning naming both files (issue 11)."""
import json

from annotation.interactionbench import loader as ib
from annotation.loaders import load
from app import main

B_ITEM = {"capability": "PTR", "time_type": "B", "question": "Tell me when the ball appears.",
          "question_time_s": 0, "answers": [{"time_s": 5.0, "content": "The ball appeared."}]}
A_ITEM = {"capability": "LVM", "time_type": "A", "question": "What colour was the wall?", "question_time_s": 20.0,
          "answers": [{"time_s": 20.0, "content": "red", "evidence_time_s": 4.0}]}


def _put(root, rel, doc):
    path = root / "annotations" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def _two_files(root):
    """File order is (folders..., stem): annotations/a/v1.json is read before annotations/b/v1.json."""
    _put(root, "a/v1.json", {"video_id": "v1", "domain": "a", "duration_s": 30, "items": [B_ITEM, B_ITEM]})
    _put(root, "a/v2.json", {"video_id": "v2", "domain": "a", "duration_s": 30, "items": [B_ITEM]})
    _put(root, "b/v1.json", {"video_id": "v1", "domain": "b", "duration_s": 40, "items": [A_ITEM]})


def test_load_keeps_the_later_file_and_warns_naming_both(tmp_path):
    _two_files(tmp_path)
    ds = load("interactionbench", tmp_path, probe_media=False)
    # v1#0 comes from b/v1.json (later), in its first place; v1#1 exists only in the earlier file
    assert [(i.id, i.kind, i.source_file) for i in ds.items] == [
        ("v1#0", "A_retro_qa", "annotations/b/v1.json"), ("v1#1", "B_trigger", "annotations/a/v1.json"),
        ("v2#0", "B_trigger", "annotations/a/v2.json")]
    assert ds.get("v1#0").meta["domain"] == "b" and ds.get("v1#0").native["duration_s"] == 40.0
    assert ds.errors == []
    repeats = [p for p in ds.problems if p.field == "video_id"]
    assert len(repeats) == 1 and repeats[0].severity == "warning"
    assert repeats[0].file == "annotations/b/v1.json" and "annotations/a/v1.json" in repeats[0].message


def test_load_agrees_with_the_scorer_rows(tmp_path):
    _two_files(tmp_path)
    ds = load("interactionbench", tmp_path, probe_media=False)
    assert [i.native for i in ds.items] == ib.load_rows(tmp_path)
    rows, problems, item_file = ib.scan(tmp_path)
    assert [p.severity for p in problems if p.field == "video_id"] == ["warning"]
    assert item_file["v1#0"] == "annotations/b/v1.json"


def test_validate_reports_the_repeat_as_a_warning_and_exits_0(tmp_path, capsys):
    _two_files(tmp_path)
    assert main(["validate", "interactionbench", str(tmp_path), "--no-media"]) == 0
    out = capsys.readouterr().out
    assert "0 error(s), 1 warning(s)" in out
    assert "annotations/b/v1.json" in out and "annotations/a/v1.json" in out
    assert main(["validate", "interactionbench", str(tmp_path), "--no-media", "--strict"]) == 1


def test_score_accepts_the_repeat_and_scores_the_later_files_item(tmp_path, capsys):
    """v1#0 is the later file's A item (question at 20 s, answer "red"): an answer "red" at 21 s scores it; the
    earlier file's B item at that id is gone, and the repeat is no refusal."""
    _two_files(tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(line) + "\n" for line in (
        {"video_id": "v1", "item_index": 0, "emissions": [{"t": 21.0, "content": "red"}]},
        {"video_id": "v1", "item_index": 1, "emissions": []},
        {"video_id": "v2", "item_index": 0, "emissions": []})))
    out = tmp_path / "o.json"
    assert main(["score", "interactionbench", "--data", str(tmp_path), "--preds", str(preds),
                 "--out", str(out)]) == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert sorted(report["per_item"]) == ["v1#0", "v1#1", "v2#0"]
    assert report["per_item"]["v1#0"]["family"] == "A_retro_qa"
    assert report["per_item"]["v1#0"]["accuracy"] == 100.0
