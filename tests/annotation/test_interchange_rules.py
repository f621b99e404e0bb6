"""Rule tests of import/export in other tools' formats (annotation/interchange.py) on a small hand-made dataset:
the exact CSV, JSONL and WebVTT files written out by hand, ELAN tiers with responses of more than one responder,
the edges of the span rules (points, open windows, zero-length spans, identical times on a tier), CSV/JSONL
read back as review edits (each field, the tolerance, refusals) and the file names of per-item exports."""
from __future__ import annotations

import locale

import pytest

from annotation import interchange
from annotation.dataset import Dataset
from annotation.model import Item, Request, Response, Stream, Target

REQ = "Count the balls, then say when it turns <blue> & stop"


def _item(iid, targets=(), request=Request(REQ, 2.0, "text"), duration=20.0, video=None, kind="qa", stream="s1"):
    return Item(id=iid, benchmark="toy", kind=kind, stream=Stream(id=stream, video_path=video, duration=duration),
                request=request, targets=tuple(targets), native=None)


CLIP = _item("clip#1", [Target("g1", "window", 10.0, (10.0, 13.0), True, "a ball", "first"),
                        Target("g2", "count", 6.5, None, True, {"count": 3, "b": "é"}, "-0.25"),
                        Target("g3", "open", None, (15.0, None), False, None, "")])
BARE = _item("clip/2", request=Request("=1+1", 0.0, "standing"), duration=None, kind="task", stream="s2")
R1 = Response("r1", "clip#1", "toy", "human:ann", "sess-a", 3.0, "press")
R2 = Response("r2", "clip#1", "toy", "model:m1", "sess-m", 11.25, "text", "café")
R3 = Response("r3", "clip#1", "toy", "human:bob", "sess-b", 3.0, "text", "two\n\nballs")


def _ds(*items) -> Dataset:
    return Dataset("toy", "/nowhere", list(items or (CLIP, BARE)))


@pytest.fixture
def c_locale():
    """The server's locale set to C (ASCII), as on a bare host: files must still be written as UTF-8."""
    old = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, old)


# -- CSV and JSONL: the files themselves -------------------------------------------------------------------------

CSV = ("benchmark,item_id,kind,stream,request_text,request_time,request_modality,target_id,target_kind,anchor,"
       "window_start,window_end,window_closed,label,reference\r\n"
       f'toy,clip#1,qa,s1,"{REQ}",2.0,text,g1,window,10.0,10.0,13.0,True,first,a ball\r\n'
       f'toy,clip#1,qa,s1,"{REQ}",2.0,text,g2,count,6.5,,,,-0.25,"{{""b"": ""é"", ""count"": 3}}"\r\n'
       f'toy,clip#1,qa,s1,"{REQ}",2.0,text,g3,open,,15.0,,False,,\r\n'
       "toy,clip/2,task,s2,'=1+1,0.0,standing,,,,,,,,\r\n")


def test_csv_is_one_row_per_target_with_formulas_made_inert(tmp_path, c_locale):
    """g2 has no window (three empty cells), g3 no anchor and an open end; clip/2 has no target: one row, target
    cells empty; its '=1+1' gets the apostrophe, the label '-0.25' is a number and stays. UTF-8 under a C locale,
    in a folder made with its parents."""
    path = interchange.write_csv(_ds(), tmp_path / "a" / "b" / "t.csv")
    assert path == tmp_path / "a" / "b" / "t.csv"
    assert path.read_bytes().decode("utf-8") == CSV


def test_csv_reads_back_as_strings_without_the_apostrophe_and_as_no_change(tmp_path):
    path = interchange.write_csv(_ds(), tmp_path / "t.csv")
    rows = interchange.read_rows(path)
    assert [(r["item_id"], r["target_id"], r["anchor"], r["window_end"], r["reference"]) for r in rows] == [
        ("clip#1", "g1", "10.0", "13.0", "a ball"), ("clip#1", "g2", "6.5", "", '{"b": "é", "count": 3}'),
        ("clip#1", "g3", "", "", ""), ("clip/2", "", "", "", "")]
    assert rows[3]["request_text"] == "=1+1" and rows[1]["label"] == "-0.25"
    assert interchange.changes_from_rows(_ds(), rows) == []


JSONL = (
    '{"record": "target", "benchmark": "toy", "item_id": "clip#1", "kind": "qa", "stream": "s1", '
    f'"request_text": "{REQ}", "request_time": 2.0, "request_modality": "text", "target_id": "g1", '
    '"target_kind": "window", "anchor": 10.0, "window_start": 10.0, "window_end": 13.0, "window_closed": true, '
    '"label": "first", "reference": "a ball"}\n'
    '{"record": "target", "benchmark": "toy", "item_id": "clip#1", "kind": "qa", "stream": "s1", '
    f'"request_text": "{REQ}", "request_time": 2.0, "request_modality": "text", "target_id": "g2", '
    '"target_kind": "count", "anchor": 6.5, "window_start": null, "window_end": null, "window_closed": null, '
    '"label": "-0.25", "reference": "{\\"b\\": \\"é\\", \\"count\\": 3}"}\n'
    '{"record": "target", "benchmark": "toy", "item_id": "clip#1", "kind": "qa", "stream": "s1", '
    f'"request_text": "{REQ}", "request_time": 2.0, "request_modality": "text", "target_id": "g3", '
    '"target_kind": "open", "anchor": null, "window_start": 15.0, "window_end": null, "window_closed": false, '
    '"label": "", "reference": ""}\n'
    '{"record": "target", "benchmark": "toy", "item_id": "clip/2", "kind": "task", "stream": "s2", '
    '"request_text": "=1+1", "request_time": 0.0, "request_modality": "standing", "target_id": "", '
    '"target_kind": "", "anchor": "", "window_start": "", "window_end": "", "window_closed": "", "label": "", '
    '"reference": ""}\n'
    '{"record": "response", "id": "r1", "benchmark": "toy", "item_id": "clip#1", "responder": "human:ann", '
    '"t": 3.0, "kind": "press", "text": ""}\n'
    '{"record": "response", "id": "r2", "benchmark": "toy", "item_id": "clip#1", "responder": "model:m1", '
    '"t": 11.25, "kind": "text", "text": "café"}\n')


def test_jsonl_has_target_rows_then_each_responders_rows(tmp_path, c_locale):
    path = interchange.write_jsonl(_ds(), tmp_path / "a" / "b" / "t.jsonl", [R1, R2])
    assert path == tmp_path / "a" / "b" / "t.jsonl"
    assert path.read_bytes().decode("utf-8") == JSONL
    assert interchange.write_jsonl(_ds(), tmp_path / "n.jsonl").read_bytes().decode("utf-8") == \
        "".join(JSONL.splitlines(True)[:4])


def test_jsonl_reads_back_the_target_rows_only(tmp_path):
    (tmp_path / "t.jsonl").write_text("\n" + JSONL.replace("\n", "\n  \n", 1), encoding="utf-8")
    rows = interchange.read_rows(tmp_path / "t.jsonl")
    assert [(r["item_id"], r["target_id"]) for r in rows] == [("clip#1", "g1"), ("clip#1", "g2"), ("clip#1", "g3"),
                                                              ("clip/2", "")]
    assert interchange.changes_from_rows(_ds(), rows) == []
    (tmp_path / "plain.jsonl").write_text('{"item_id": "clip/2", "request_time": 1}\n', encoding="utf-8")
    assert interchange.read_rows(tmp_path / "plain.jsonl") == [{"item_id": "clip/2", "request_time": 1}]


def test_jsonl_with_a_broken_line_names_the_file_and_line(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text(JSONL.splitlines()[0] + "\n\n{oops\n", encoding="utf-8")
    with pytest.raises(ValueError) as e:
        interchange.read_rows(p)
    assert str(e.value) == (f"{p}: line 3: invalid JSON (Expecting property name enclosed in double quotes)")


def test_a_csv_from_a_spreadsheet_with_a_bom_and_a_capital_suffix_is_read(tmp_path):
    p = tmp_path / "T.CSV"
    p.write_bytes(b"\xef\xbb\xbfitem_id,request_text\r\nclip/2,'=2+2\r\n")
    assert interchange.read_rows(p) == [{"item_id": "clip/2", "request_text": "=2+2"}]


# -- rows read back become review edits ---------------------------------------------------------------------------

def _row(**cells):
    return {"benchmark": "toy", "item_id": "clip#1", **cells}


def test_each_edited_cell_becomes_one_change_in_row_order():
    """request time 2.0 -> 2.5; request text -> "" (an emptied text is an edit); g1 anchor 10.0 -> 00:07 = 7.0 s;
    g1 window 10-13 -> 10.5 to an open end; g1 reference -> "a red ball"; g2 reference {"b": "é", "count": 3} ->
    JSON {"count": 4}; g3 anchor left empty (no edit), g3 window 15-open -> 15-18; in a row with an empty
    benchmark cell, g1's reference emptied (an edit, as for the text)."""
    table = [_row(request_time="2.5", request_text="", target_id="g1", anchor="00:07", window_start="10.5",
                  window_end="", reference="a red ball"),
             _row(request_time="2.5", request_text="", target_id="g2", anchor="6.5", reference='{"count": 4}'),
             _row(target_id="g3", anchor="", window_start="15", window_end="18", reference=""),
             _row(benchmark="", target_id="g1", reference="")]
    assert interchange.changes_from_rows(_ds(), table) == [
        ("clip#1", "request.time", 2.5), ("clip#1", "request.text", ""), ("clip#1", "target.g1.anchor", 7.0),
        ("clip#1", "target.g1.reference", "a red ball"), ("clip#1", "target.g1.window", [10.5, None]),
        ("clip#1", "request.time", 2.5), ("clip#1", "request.text", ""),
        ("clip#1", "target.g2.reference", {"count": 4}), ("clip#1", "target.g3.window", [15.0, 18.0]),
        ("clip#1", "target.g1.reference", "")]


def test_equal_values_in_other_spellings_are_no_change():
    """'2' = 2.0; '00:10' = 10.0; ' 10 , 13 ' = [10, 13]; the same JSON with its keys in another order and
    spacing; an empty reference where there is none; a window start alone for an open window."""
    table = [_row(request_time="2", request_text=REQ, target_id="g1", anchor="00:10", window_start=" 10 ",
                  window_end=" 13 ", reference="a ball"),
             _row(target_id="g2", anchor=6.5, reference='{"count":3,"b":"é"}'),
             _row(target_id="g3", window_start=15.0, window_end=None, reference="")]
    assert interchange.changes_from_rows(_ds(), table) == []


def test_a_time_within_a_millionth_of_a_second_is_no_change_and_one_beyond_is():
    """anchor 6.5000004 in the dataset; typed 6.5 -> |6.5 - 6.5000004| = 4e-7 < 1e-6: no change;
    typed 6.500002 -> 1.6e-6: a change. Anchor 0; typed 0.000001 -> exactly 1e-6, not below it: a change."""
    item = _item("p", [Target("t", "point", 6.5000004)])
    assert interchange.changes_from_rows(_ds(item), [{"item_id": "p", "target_id": "t", "anchor": "6.5"}]) == []
    assert interchange.changes_from_rows(_ds(item), [{"item_id": "p", "target_id": "t", "anchor": "6.500002"}]) == \
        [("p", "target.t.anchor", 6.500002)]
    item = _item("z", [Target("t", "point", 0.0)])
    assert interchange.changes_from_rows(_ds(item), [{"item_id": "z", "target_id": "t", "anchor": "0.000001"}]) == \
        [("z", "target.t.anchor", 0.000001)]


def test_a_window_end_is_compared_not_only_its_start():
    item = _item("w", [Target("t", "window", 1.0, (1.0, 2.0))])
    got = interchange.changes_from_rows(_ds(item), [{"item_id": "w", "target_id": "t", "window_start": "1",
                                                    "window_end": "2.5"}])
    assert got == [("w", "target.t.window", [1.0, 2.5])]
    got = interchange.changes_from_rows(_ds(item), [{"item_id": "w", "target_id": "t", "window_start": "1",
                                                    "window_end": ""}])
    assert got == [("w", "target.t.window", [1.0, None])]


def test_a_reference_that_changes_its_type_is_a_change():
    """None -> "3" (text); the count 3 -> the JSON text "3"; the list ["x"] -> the JSON text "x"; [1, 2] -> [1, 2.0]
    is no change (equal numbers, element by element)."""
    item = _item("n", [Target("t", "point", 1.0, reference=None), Target("c", "count", 1.0, reference=3),
                       Target("l", "list", 1.0, reference=["x"]), Target("m", "list", 1.0, reference=[1, 2])])
    got = interchange.changes_from_rows(_ds(item), [{"item_id": "n", "target_id": "t", "reference": "3"},
                                                   {"item_id": "n", "target_id": "c", "reference": '"3"'},
                                                   {"item_id": "n", "target_id": "l", "reference": '"x"'},
                                                   {"item_id": "n", "target_id": "m", "reference": "[1, 2.0]"}])
    assert got == [("n", "target.t.reference", "3"), ("n", "target.c.reference", "3"),
                   ("n", "target.l.reference", "x")]


@pytest.mark.parametrize("row,message", [
    ({"benchmark": "other", "item_id": "clip#1"}, "row 2: benchmark 'other' is not 'toy'"),
    ({"benchmark": "toy", "item_id": "clip#1", "target_id": "g9", "anchor": "1"}, "row 2: "),
    ({"item_id": "clip#1", "target_id": "g1", "anchor": "soon"},
     "row 2: toy/clip#1: target.g1.anchor: expected a time in seconds >= 0 (or MM:SS), got 'soon'"),
    ({"benchmark": "toy", "item_id": "clip#9", "request_time": "1"}, "row 2: item_id: no item 'clip#9' in toy"),
])
def test_a_row_that_cannot_apply_is_refused_naming_it(row, message):
    with pytest.raises(ValueError) as e:
        interchange.changes_from_rows(_ds(), [_row(), row])
    assert message in str(e.value)


def test_an_unknown_target_names_the_row_and_the_target():
    with pytest.raises(ValueError) as e:
        interchange.changes_from_rows(_ds(), [_row(target_id="g9", anchor="1")])
    assert str(e.value) == "row 1: toy/clip#1: no target 'g9' (targets: g1, g2, g3)"


def test_rows_without_a_benchmark_column_are_this_datasets():
    assert interchange.changes_from_rows(_ds(), [{"item_id": "clip/2", "request_time": "1"},
                                                 {"benchmark": None, "item_id": "clip/2", "request_time": "0"}]) == \
        [("clip/2", "request.time", 1.0)]


# -- ELAN: tiers, one per responder --------------------------------------------------------------------------------

def test_elan_tiers_hold_the_request_targets_and_each_responder(tmp_path):
    """request at 2.0 s, shown for 0.5 s; targets: g2 the point 6.5 (+0.5), g1 its window 10-13, g3 open from 15 to
    the stream's end (20); one tier per responder, each response 0.5 s, its text or else its kind."""
    path = interchange.write_eaf(CLIP, tmp_path / "a" / "b" / "c.eaf", [R1, R2, R3])
    assert path == tmp_path / "a" / "b" / "c.eaf"
    assert interchange.read_eaf(path) == {
        "request": [(2.0, 2.5, REQ)],
        "targets": [(6.5, 7.0, '[g2] {"b": "é", "count": 3}'), (10.0, 13.0, "[g1] a ball"), (15.0, 20.0, "[g3]")],
        "responses human:ann": [(3.0, 3.5, "press")], "responses model:m1": [(11.25, 11.75, "café")],
        "responses human:bob": [(3.0, 3.5, "two\n\nballs")]}


def test_an_elan_file_is_utf8_with_its_declaration_as_elan_writes_it(tmp_path):
    """The first line declares UTF-8 and the response 'café' is stored as its UTF-8 bytes, not as &#233;."""
    data = interchange.write_eaf(CLIP, tmp_path / "c.eaf", [R2]).read_bytes()
    assert data.split(b"\n", 1)[0].lower() == b"<?xml version='1.0' encoding='utf-8'?>"
    assert "café".encode("utf-8") in data and b"&#233;" not in data


def test_elan_span_edges_standing_request_zero_length_open_end_and_equal_times(tmp_path):
    """Standing request at 4 s -> from 0 to 0.5; window 5-5 (empty) -> 5-5.5; window 1-1.0004 -> 1000 ms to 1000 ms,
    so the end is the start + 1 ms; open window and no stream duration -> 8-8.5; a target with neither anchor nor
    window is left out (the ones after it are not); two presses of one responder at 3 s -> 3000-3500 and
    3000-3501 (ELAN forbids equal times)."""
    item = _item("edge", [Target("n1", "none", None), Target("w1", "window", 5.0, (5.0, 5.0)),
                          Target("w2", "window", 1.0, (1.0, 1.0004)), Target("w3", "window", 8.0, (8.0, None))],
                 request=Request("Say when", 4.0, "standing"), duration=None)
    presses = [Response(f"p{k}", "edge", "toy", "human:ann", "s", 3.0, "press") for k in (1, 2)]
    tiers = interchange.read_eaf(interchange.write_eaf(item, tmp_path / "e.eaf", presses))
    assert tiers == {"request": [(0.0, 0.5, "Say when")],
                     "targets": [(1.0, 1.001, "[w2]"), (5.0, 5.5, "[w1]"), (8.0, 8.5, "[w3]")],
                     "responses human:ann": [(3.0, 3.5, "press"), (3.0, 3.501, "press")]}


def test_elan_links_the_media_and_names_the_item(tmp_path):
    from pympi.Elan import Eaf
    video = tmp_path / "v.mp4"
    video.write_bytes(b"x")
    item = _item("clip#1", video=str(video))
    for url, want in ((None, video.resolve().as_uri()), ("/media/" + "0" * 32, "/media/" + "0" * 32)):
        eaf = Eaf(str(interchange.write_eaf(item, tmp_path / "m.eaf", media_url=url)))
        assert [(d["MEDIA_URL"], d["MIME_TYPE"]) for d in eaf.media_descriptors] == [(want, "video/mp4")]
        assert [p for p in eaf.properties if p[0].startswith("ibench")] == [("ibench:item", "toy/clip#1")]
        assert eaf.adocument["AUTHOR"] == "ibench-ui"
        assert sorted(eaf.get_tier_names()) == ["request", "targets"]  # pympi's empty 'default' tier removed
    eaf = Eaf(str(interchange.write_eaf(_item("novideo"), tmp_path / "n.eaf")))
    assert eaf.media_descriptors == []
    eaf = Eaf(str(interchange.write_eaf(_item("novideo"), tmp_path / "u.eaf", media_url="/media/x")))
    assert [d["MEDIA_URL"] for d in eaf.media_descriptors] == ["/media/x"]


# -- WebVTT --------------------------------------------------------------------------------------------------------

VTT = ("WEBVTT\n\nNOTE toy/clip#1\n\n"
       "1\n00:00:02.000 --> 00:00:02.500\nrequest: Count the balls, then say when it turns &lt;blue&gt; &amp; stop\n\n"
       "2\n00:00:03.000 --> 00:00:03.500\nhuman:ann: press\n\n"
       "3\n00:00:03.000 --> 00:00:03.500\nhuman:bob: two\nballs\n\n"
       '4\n00:00:06.500 --> 00:00:07.000\ntargets: [g2] {"b": "é", "count": 3}\n\n'
       "5\n00:00:10.000 --> 00:00:13.000\ntargets: [g1] a ball\n\n"
       "6\n00:00:11.250 --> 00:00:11.750\nmodel:m1: café\n\n"
       "7\n00:00:15.000 --> 00:00:20.000\ntargets: [g3]\n")


def test_vtt_is_every_cue_in_time_order_with_markup_escaped(tmp_path):
    """Cues by (start, end): the two 3 s responses keep their given order; the blank line inside bob's text
    is dropped (it would end the cue)."""
    assert interchange.vtt_text(CLIP, [R1, R2, R3]) == VTT
    bob_first = VTT.replace("human:ann: press", "@").replace("human:bob: two\nballs", "human:ann: press")
    assert interchange.vtt_text(CLIP, [R3, R1, R2]) == bob_first.replace("@", "human:bob: two\nballs")
    (tmp_path / "c.vtt").write_text(VTT, encoding="utf-8")
    assert interchange.read_vtt(tmp_path / "c.vtt") == [
        (2.0, 2.5, f"request: {REQ}"), (3.0, 3.5, "human:ann: press"), (3.0, 3.5, "human:bob: two\nballs"),
        (6.5, 7.0, 'targets: [g2] {"b": "é", "count": 3}'), (10.0, 13.0, "targets: [g1] a ball"),
        (11.25, 11.75, "model:m1: café"), (15.0, 20.0, "targets: [g3]")]


def test_vtt_cues_with_one_start_go_by_their_end():
    """Target z at 10 s (a point: 10-10.5) before g1's window 10-13, though '[g1]' sorts before '[z]' as text."""
    item = _item("s", [Target("g1", "window", 10.0, (10.0, 13.0)), Target("z", "point", 10.0)],
                 request=Request("go", 1.0, "text"))
    assert interchange.vtt_text(item) == ("WEBVTT\n\nNOTE toy/s\n\n1\n00:00:01.000 --> 00:00:01.500\nrequest: go\n\n"
                                          "2\n00:00:10.000 --> 00:00:10.500\ntargets: [z]\n\n"
                                          "3\n00:00:10.000 --> 00:00:13.000\ntargets: [g1]\n")


def test_vtt_times_carry_into_minutes_and_hours_and_read_back():
    """3725.5 s = 1 h 2 min 5.5 s; 59.9996 s rounds to 60000 ms = 1 min; an empty text is one space."""
    item = _item("long\u2192-->x", request=Request("", 3725.5, "text"), duration=None)
    late = Response("r", "long", "toy", "model:m", "s", 59.9996, "text", "a --> b")
    text = interchange.vtt_text(item, [late])
    assert text == ("WEBVTT\n\nNOTE toy/long\u2192->x\n\n"
                    "1\n00:01:00.000 --> 00:01:00.500\nmodel:m: a --&gt; b\n\n"
                    "2\n01:02:05.500 --> 01:02:06.000\nrequest: \n")
    assert interchange._vtt_seconds("01:02:05.500") == 3725.5 and interchange._vtt_seconds("02:05.250") == 125.25


# -- one entry point: formats, paths, file names -------------------------------------------------------------------

def test_per_item_files_get_distinct_names_and_only_their_responses(tmp_path):
    """'a#1', 'a/1' and 'A:1' all sanitise to a_1 (case aside): a_1, a_1-2, A_1-3; '..x#' -> 'x'; '###' -> 'item';
    'Xbox#' -> 'Xbox'. Exporting again into the same folder replaces the files (no .bak, no temporary file left)."""
    items = [_item(i) for i in ("a#1", "a/1", "A:1", "..x#", "###", "Xbox#")]
    resp = [Response("r", "a/1", "toy", "human:ann", "s", 3.0, "press")]
    for _ in range(2):
        out = interchange.export(_ds(*items), "eaf", tmp_path / "x" / "exports", "a/b/eaf", resp)
    assert out == (tmp_path / "x" / "exports" / "a" / "b" / "eaf").resolve()
    assert sorted(p.name for p in out.iterdir()) == ["A_1-3.eaf", "Xbox.eaf", "a_1-2.eaf", "a_1.eaf", "item.eaf",
                                                     "x.eaf"]
    assert "responses human:ann" in interchange.read_eaf(out / "a_1-2.eaf")
    assert set(interchange.read_eaf(out / "a_1.eaf")) == {"request", "targets"}
    out = interchange.export(_ds(*items), "vtt", tmp_path, "vtt", resp)
    assert sorted(p.name for p in out.iterdir()) == ["A_1-3.vtt", "Xbox.vtt", "a_1-2.vtt", "a_1.vtt", "item.vtt",
                                                     "x.vtt"]
    assert "human:ann: press" in (out / "a_1-2.vtt").read_text(encoding="utf-8")
    assert "human:ann" not in (out / "a_1.vtt").read_text(encoding="utf-8")


def test_export_writes_csv_jsonl_and_vtt_as_utf8_with_responses_where_asked(tmp_path, c_locale):
    root = tmp_path / "x" / "exports"
    assert interchange.export(_ds(), "csv", root, "d/t.csv") == (root / "d" / "t.csv").resolve()
    assert (root / "d" / "t.csv").read_bytes().decode("utf-8") == CSV
    interchange.export(_ds(), "jsonl", root, "t.jsonl", iter([R1, R2]))
    assert (root / "t.jsonl").read_bytes().decode("utf-8") == JSONL
    out = interchange.export(_ds(CLIP), "vtt", root, "vtt", [R1, R2, R3])
    assert (out / "clip_1.vtt").read_bytes().decode("utf-8") == VTT


@pytest.mark.parametrize("fmt,rel,message", [
    ("xlsx", "t.xlsx", "unknown export format 'xlsx'; expected one of: native, csv, jsonl, eaf, vtt"),
    ("csv", ".", "give a file or folder name inside"),
    ("eaf", "a/..", "give a file or folder name inside"),
])
def test_export_refuses_an_unknown_format_and_the_root_itself(tmp_path, fmt, rel, message):
    with pytest.raises(ValueError) as e:
        interchange.export(_ds(), fmt, tmp_path / "exports", rel)
    assert message in str(e.value)
    assert not any((tmp_path / "exports").glob("*.*"))
