"""Import/export: native round trips on every demo, CSV/JSONL/ELAN/WebVTT output, CSV re-import as
edits, inert markup, and export paths confined to the export root."""
import csv
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from annotation import interchange
from annotation.errors import PathEscapeError
from annotation.loaders import load
from annotation import registry
from annotation.model import Response

REPO = Path(__file__).resolve().parents[2]


def _json_tree(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(root.rglob("*.json"))}


@pytest.mark.parametrize("bench", registry.names())
def test_native_round_trip_on_demo(bench, tmp_path):
    ds = load(bench, probe_media=False)
    assert not ds.errors
    out = interchange.export(ds, "native", tmp_path, "native")
    src = _json_tree(Path(ds.root))
    got = _json_tree(out)
    for rel, doc in got.items():
        assert doc == src[rel], rel
    again = load(bench, out, probe_media=False)
    assert [i.id for i in again.items] == [i.id for i in ds.items]
    assert [i.targets for i in again.items] == [i.targets for i in ds.items]


@pytest.mark.parametrize("bench", registry.names())
def test_csv_jsonl_round_trip_gives_no_changes(bench, tmp_path):
    ds = load(bench, probe_media=False)
    for fmt in ("csv", "jsonl"):
        path = interchange.export(ds, fmt, tmp_path, f"t.{fmt}")
        rows = interchange.read_rows(path)
        assert len(rows) == sum(max(1, len(i.targets)) for i in ds.items)
        assert interchange.changes_from_rows(ds, rows) == []


def test_csv_edit_becomes_a_change(tmp_path):
    ds = load("interactscope", probe_media=False)
    path = interchange.export(ds, "csv", tmp_path, "t.csv")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    row = next(r for r in rows if r["item_id"] == "is-t2-blue")
    row["window_start"] = "10.5"
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=interchange.COLUMNS)
        w.writeheader()
        w.writerows(rows)
    assert interchange.changes_from_rows(ds, interchange.read_rows(path)) == [("is-t2-blue", "target.g1.window",
                                                                             [10.5, 13.0])]


def test_eaf_has_request_target_and_response_tiers_with_escaped_text(tmp_path):
    from pympi.Elan import Eaf
    ds = load("interactscope", probe_media=False)
    it = ds.get("is-t2-blue")
    evil = "<script>alert(1)</script> & \"q\""
    resp = [Response(id="r1", item_id=it.id, benchmark="interactscope", responder="human:ann", session_id="s",
                     t=11.2504, kind="text", text=evil)]
    path = interchange.write_eaf(it, tmp_path / "x.eaf", resp)
    xml = path.read_text(encoding="utf-8")
    assert "<script>" not in xml and "&lt;script&gt;" in xml
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "ANNOTATION_DOCUMENT"
    tiers = interchange.read_eaf(path)
    assert set(tiers) == {"request", "targets", "responses human:ann"}
    assert tiers["targets"][0][:2] == (10.0, 13.0)
    assert tiers["responses human:ann"][0] == (11.25, 11.75, evil)  # milliseconds, ELAN's unit
    eaf = Eaf(str(path))  # the library reads what we wrote, media link and item property included
    assert ("ibench:item", "interactscope/is-t2-blue") in eaf.properties
    assert [d["MEDIA_URL"] for d in eaf.media_descriptors][0].endswith(".mp4")


def test_eaf_written_by_pympi_reads_back(tmp_path):
    from pympi.Elan import Eaf, to_eaf
    eaf = Eaf(author="someone else")
    eaf.add_tier("marks ann")
    eaf.add_annotation("marks ann", 7291, 7791, "ball appears")
    eaf.add_annotation("marks ann", 12000, 12001, "second")
    to_eaf(str(tmp_path / "theirs.eaf"), eaf)
    tiers = interchange.read_eaf(tmp_path / "theirs.eaf")
    assert tiers["marks ann"] == [(7.291, 7.791, "ball appears"), (12.0, 12.001, "second")]
    assert tiers["default"] == []


def test_vtt_cues_are_ordered_and_inert(tmp_path):
    ds = load("proactivebench", probe_media=False)
    it = ds.get("pb-wr-blue")
    resp = [Response(id="r1", item_id=it.id, benchmark="proactivebench", responder="model:x", session_id="s", t=3.0,
                     kind="text", text="<b>bold</b>\n\n--> arrow")]
    text = interchange.vtt_text(it, resp)
    assert text.startswith("WEBVTT\n")
    assert "<b>" not in text and "&lt;b&gt;" in text and "\n\n--> arrow" not in text
    assert "00:00:03.000 --> 00:00:03.500" in text and "00:00:11.000 --> 00:00:14.000" in text
    (tmp_path / "x.vtt").write_text(text, encoding="utf-8")
    cues = interchange.read_vtt(tmp_path / "x.vtt")
    assert (3.0, 3.5, "model:x: <b>bold</b>\n--&gt; arrow".replace("--&gt;", "-->")) in cues
    assert cues == sorted(cues, key=lambda c: (c[0], c[1]))


def test_vtt_written_by_webvtt_py_reads_back(tmp_path):
    import webvtt
    doc = webvtt.WebVTT(captions=[webvtt.Caption("00:00:07.291", "00:00:07.791", "ann: ball &amp; cup"),
                                  webvtt.Caption("00:01:02.005", "00:01:03.000", "second line")])
    doc.save(str(tmp_path / "theirs.vtt"))
    assert interchange.read_vtt(tmp_path / "theirs.vtt") == [(7.291, 7.791, "ann: ball & cup"),
                                                             (62.005, 63.0, "second line")]


def test_eaf_and_vtt_files_per_item(tmp_path):
    ds = load("interactionbench", probe_media=False)
    out = interchange.export(ds, "eaf", tmp_path, "eaf")
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == len(ds) and all(n.endswith(".eaf") and "#" not in n for n in names)
    out = interchange.export(ds, "vtt", tmp_path, "vtt")
    assert len(list(out.glob("*.vtt"))) == len(ds)


@pytest.mark.parametrize("rel", ["../outside", "/etc/ibench", "a/../../b"])
def test_export_path_outside_the_root_is_refused(tmp_path, rel):
    ds = load("proactivebench", probe_media=False)
    with pytest.raises(PathEscapeError):
        interchange.export(ds, "csv", tmp_path / "exports", rel)
    assert not (tmp_path / "outside").exists()


def test_dataset_path_outside_the_data_root_is_refused(tmp_path):
    root = tmp_path / "ds"
    root.mkdir()
    doc = {"benchmark": "proactivebench", "version": 1,
           "items": [{"item_id": "x", "video": "../../etc/passwd", "subtask": "OR", "duration": 10,
                      "onset_second": 3}]}
    (root / "annotations.json").write_text(json.dumps(doc))
    ds = load("proactivebench", root)
    assert any(p.field == "video" and "outside" in p.message for p in ds.errors)
    assert len(ds) == 0


def test_cli_users_add_and_export_verified(tmp_path):
    db = tmp_path / "c.sqlite"
    env = {"IBENCH_PASSWORD": "cli-pass-123", "PATH": "/usr/bin:/bin"}
    run = lambda *a: subprocess.run([sys.executable, str(REPO / "app.py"), *a], cwd=tmp_path, env=env,  # noqa: E731
                                    capture_output=True, text=True)
    r = run("users", "add", "boss", "--role", "admin", "--db", str(db))
    assert r.returncode == 0, r.stderr
    r = run("users", "add", "x", "--role", "king", "--db", str(db))
    assert r.returncode != 0
    r = run("users", "list", "--db", str(db))
    assert "boss\tadmin\tactive" in r.stdout
    r = run("export", "verified", "--benchmark", "proactivebench", "--db", str(db), "--out", "v", "--include-unchecked")
    assert r.returncode == 0, r.stderr
    assert len(json.loads((tmp_path / "v" / "annotations.json").read_text())["items"]) == 6
    r = run("export", "dataset", "--benchmark", "interactscope", "--format", "csv", "--db", str(db), "--out", "d.csv")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "d.csv").is_file()
