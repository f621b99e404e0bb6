"""What `export responses` writes (runners.export), every column checked by hand, on a store where sessions have more
than one responder. ProactiveBench's embedded demo (native file: one preds.jsonl line per item, `response_seconds` =
floor(t) + 1 in time order, `texts` the first text of each second) keeps the native figures easy to work by hand.

The store: study "pilot" with P1 (pb-or-ball, pb-dc-counter; calibration 0.5 s, platform id PROL-1) and P2
(pb-or-ball); a live model answers in P1's sitting (once under its old key `model:gpt-x`, once under
`model:gpt-x@<session>`); a studio session of S3 outside the study; P1's typed answer is corrected afterwards."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation.loaders import demo_dir, load
from annotation.model import Response
from annotation.store import Store
from annotation.studies import create_study
from runners.checks import USAGE, CliError
from runners.export import (JSONL_FIELDS, export_responses, input_kind, response_rows, sitting_responses,
                            study_of, study_predictions, study_sessions, tool_formats)

PB = "proactivebench"


def _r(sid: str, who: str, item: str, t: float, kind: str = "press", text: str = "", **kw) -> Response:
    return Response(id="", item_id=item, benchmark=PB, responder=who, session_id=sid, t=t, kind=kind, text=text,
                    frame_t=round(t - 0.04, 2), wall_time=1000.0 + t, page_id="pg-" + who.split(":")[0], **kw)


@pytest.fixture
def world(tmp_path):
    db = tmp_path / "db.sqlite"
    store = Store(db)
    study, _ = create_study(store, PB, ["P1", "P2"], {"P1": ["pb-or-ball", "pb-dc-counter"], "P2": ["pb-or-ball"]},
                            name="pilot", data_dir=str(demo_dir(PB)))
    s1, s2 = sorted(study_sessions(store, study.id), key=lambda s: s.participant)
    store.update_session_settings(s1.id, calibration={"median_s": 0.5}, platform_id="PROL-1")
    s1 = store.get_session(s1.id)  # as the store now holds it, with its calibration
    s3 = store.create_session("S3", PB, ["pb-wr-blue"])
    add = store.add_response
    add(_r(s3.id, "human:S3", "pb-wr-blue", 5.0))  # first in the log: a study filter must skip it, and go on
    typed = add(_r(s1.id, "human:P1", "pb-or-ball", 9.2, "text", "there", meta={"typing_started_t": 8.9}))
    add(_r(s1.id, "human:P1", "pb-or-ball", 8.6, meta={"source": "key:Space", "typing_started_t": 8.5}))
    add(_r(s1.id, "model:gpt-x", "pb-or-ball", 8.0, "text", "model says"))
    add(_r(s1.id, "human:P1", "pb-or-ball", 10.05, "speech", "stop", audio_path="audio/a1.wav"))
    add(_r(s1.id, "human:P1", "pb-dc-counter", 12.2, meta={"source": "button"}))
    add(_r(s1.id, f"model:gpt-x@{s1.id}", "pb-dc-counter", 13.5, "text", "three"))
    add(_r(s1.id, "human:P1", "pb-dc-counter", 16.1, meta={"source": "keyboard"}))
    add(_r(s2.id, "human:P2", "pb-or-ball", 9.5, "text", "ball"))
    store.correct_response(typed.id, "there it is", user="admin")
    return store, db, study, s1, s2, s3


def _view(row: dict) -> tuple:
    return tuple(row[k] for k in ("participant", "session", "item", "t", "kind", "text", "responder", "input",
                                  "typing_started_t", "platform_id", "calibration_s"))


def test_rows_of_a_study_name_each_responder_and_only_people_get_input_platform_and_calibration(world):
    """Log order; the correction replaces the text and keeps 9.2 s; the model's old key gets P1's session appended;
    the model's rows get no input kind, platform id or calibration; P2 has none measured; S3 is not in the study.
    Only a typed answer has a typing start (the press at 8.6 started typing at 8.5, then pressed instead)."""
    store, db, study, s1, s2, s3 = world
    rows = response_rows(store, study="pilot")
    m = f"model:gpt-x@{s1.id}"
    assert [_view(r) for r in rows] == [
        ("P1", s1.id, "pb-or-ball", 9.2, "text", "there it is", "human:P1", "text", 8.9, "PROL-1", 0.5),
        ("P1", s1.id, "pb-or-ball", 8.6, "press", "", "human:P1", "key", None, "PROL-1", 0.5),
        ("P1", s1.id, "pb-or-ball", 8.0, "text", "model says", m, None, None, None, None),
        ("P1", s1.id, "pb-or-ball", 10.05, "speech", "stop", "human:P1", "voice", None, "PROL-1", 0.5),
        ("P1", s1.id, "pb-dc-counter", 12.2, "press", "", "human:P1", "button", None, "PROL-1", 0.5),
        ("P1", s1.id, "pb-dc-counter", 13.5, "text", "three", m, None, None, None, None),
        ("P1", s1.id, "pb-dc-counter", 16.1, "press", "", "human:P1", "key", None, "PROL-1", 0.5),
        ("P2", s2.id, "pb-or-ball", 9.5, "text", "ball", "human:P2", "text", None, None, None),
    ]
    assert all("t_shifted" not in r for r in rows)
    assert response_rows(store, study=study.id) == rows


def test_a_row_carries_every_field(world):
    """P1's spoken answer: every key of a row, with its value."""
    store, db, study, s1, s2, s3 = world
    row = response_rows(store, session=s1.id)[3]
    assert row == {"participant": "P1", "session": s1.id, "benchmark": PB, "item": "pb-or-ball", "t": 10.05,
                   "frame_t": 10.01, "kind": "speech", "text": "stop", "wall_time": 1010.05, "responder": "human:P1",
                   "id": row["id"], "page_id": "pg-human", "audio_path": "audio/a1.wav", "input": "voice",
                   "typing_started_t": None, "platform_id": "PROL-1", "calibration_s": 0.5}
    assert row["id"].startswith("r") and set(JSONL_FIELDS) <= set(row)


def test_the_calibration_shift_moves_only_people(world):
    """P1's 0.5 s: 9.2 -> 8.7, 8.6 -> 8.1, 10.05 -> 9.55, 12.2 -> 11.7, 16.1 -> 15.6. The model's rows and P2 (no
    calibration) keep their time."""
    store, db, study, s1, s2, s3 = world
    rows = response_rows(store, study="pilot", calibration_shift=True)
    assert [(r["t"], r["t_shifted"]) for r in rows] == [(9.2, 8.7), (8.6, 8.1), (8.0, 8.0), (10.05, 9.55),
                                                         (12.2, 11.7), (13.5, 13.5), (16.1, 15.6), (9.5, 9.5)]


def test_rows_of_one_session_and_of_the_whole_store(world):
    store, db, study, s1, s2, s3 = world
    assert [(r["participant"], r["t"]) for r in response_rows(store, session=s3.id)] == [("S3", 5.0)]
    assert len(response_rows(store)) == 9  # 7 rows of P1's sitting, 1 of P2, 1 of S3 (the correction is no row)
    with pytest.raises(KeyError, match="no session 'nope'"):
        response_rows(store, session="nope")


def test_a_row_whose_session_is_gone_names_the_responder(world):
    """A row logged through the API for a session the store does not hold: participant from the responder key;
    a person still gets an input kind, but no platform id or calibration. Only the kind before the first colon is
    cut off (a lab-scoped id and an Ollama model spec keep theirs); a key without a kind is the participant."""
    store, db, *_ = world
    store.add_response(_r("s_gone", "human:lab:P9", "pb-or-ball", 3.0, meta={"source": "button"}))
    store.add_response(_r("s_gone", "model:ollama:llama3@s_gone", "pb-or-ball", 4.0))
    store.add_response(_r("s_gone", "anon", "pb-or-ball", 5.0, meta={"source": "key"}))
    rows = response_rows(store)[-3:]
    assert [_view(r) for r in rows] == [
        ("lab:P9", "s_gone", "pb-or-ball", 3.0, "press", "", "human:lab:P9", "button", None, None, None),
        ("ollama:llama3@s_gone", "s_gone", "pb-or-ball", 4.0, "press", "", "model:ollama:llama3@s_gone", None, None,
         None, None),
        ("anon", "s_gone", "pb-or-ball", 5.0, "press", "", "anon", "key", None, None, None)]


@pytest.mark.parametrize("kind, meta, expected", [
    ("text", {"source": "button"}, "text"), ("speech", {}, "voice"), ("press", {"source": "key"}, "key"),
    ("press", {"source": "keyup:Enter"}, "key"), ("press", {"source": "button"}, "button"),
    ("press", {"source": "buttons"}, None), ("press", {"source": "Key"}, None), ("press", {}, None),
    ("press", None, None), ("tool_call", {"source": "api"}, None)])
def test_how_a_person_gave_a_response(kind, meta, expected):
    r = Response(id="r1", item_id="i", benchmark=PB, responder="human:a", session_id="s", t=1.0, kind=kind,
                 meta=meta)
    assert input_kind(r) == expected


def test_jsonl_to_a_file_and_to_stdout(world, tmp_path, capsys):
    store, db, study, s1, s2, s3 = world
    out = tmp_path / "rows.jsonl"
    assert export_responses(str(db), study="pilot", out=str(out)) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["t"] for x in lines] == [9.2, 8.6, 8.0, 10.05, 12.2, 13.5, 16.1, 9.5]
    assert capsys.readouterr().err == f"wrote 8 responses to {out}\n"
    assert export_responses(str(db), session=s3.id, calibration_shift=True) == 0
    got = capsys.readouterr().out.splitlines()
    assert len(got) == 1 and json.loads(got[0])["t_shifted"] == 5.0 and json.loads(got[0])["participant"] == "S3"


def _preds(path: Path) -> dict:
    return {row["item_id"]: row for row in map(json.loads, path.read_text().splitlines())}


def test_native_export_of_a_study_writes_each_participants_own_responses(world, tmp_path, capsys):
    """Two sittings: OUT/<session>/preds.jsonl each. P1 on pb-or-ball: 8.6 -> second 9, 9.2 -> 10 (text "there it is",
    corrected), 10.05 -> 11 ("stop"); the model's 8.0 (second 9, "model says") is not P1's. pb-dc-counter: 12.2 -> 13,
    16.1 -> 17; the model's 13.5 (second 14) is left out. P2: 9.5 -> 10 ("ball")."""
    store, db, study, s1, s2, s3 = world
    out = tmp_path / "native"
    assert export_responses(str(db), study="pilot", fmt="native", out=str(out)) == 0
    assert _preds(out / s1.id / "preds.jsonl") == {
        "pb-or-ball": {"item_id": "pb-or-ball", "response_seconds": [9, 10, 11],
                       "texts": {"10": "there it is", "11": "stop"}},
        "pb-dc-counter": {"item_id": "pb-dc-counter", "response_seconds": [13, 17]}}
    assert _preds(out / s2.id / "preds.jsonl") == {
        "pb-or-ball": {"item_id": "pb-or-ball", "response_seconds": [10], "texts": {"10": "ball"}}}
    assert not (out / "preds.jsonl").exists()
    err = capsys.readouterr().err.splitlines()
    assert err == [f"{PB}: session {s1.id} (P1), 2 items -> {out / s1.id / 'preds.jsonl'}",
                   f"{PB}: session {s2.id} (P2), 1 items -> {out / s2.id / 'preds.jsonl'}"]


def test_native_export_of_one_session_with_the_calibration_shift(world, tmp_path):
    """One sitting: OUT/preds.jsonl. P1's times less 0.5 s: 8.1 -> 9, 8.7 -> 9 ("there it is", the first text of
    second 9), 9.55 -> 10 ("stop"); 11.7 -> 12, 15.6 -> 16."""
    store, db, study, s1, s2, s3 = world
    out = tmp_path / "one"
    assert export_responses(str(db), session=s1.id, fmt="native", out=str(out), calibration_shift=True) == 0
    assert _preds(out / "preds.jsonl") == {
        "pb-or-ball": {"item_id": "pb-or-ball", "response_seconds": [9, 10],
                       "texts": {"9": "there it is", "10": "stop"}},
        "pb-dc-counter": {"item_id": "pb-dc-counter", "response_seconds": [12, 16]}}


def test_native_export_gives_an_unanswered_item_its_line(world, tmp_path):
    """S3's session (no data folder stored: the embedded demo) has one press at 5.0 -> second 6; a second session of
    S3 on the same item answers nothing: its item still gets a line, with no second (scored as silent): S3's press in
    the first sitting is not this sitting's."""
    store, db, study, s1, s2, s3 = world
    quiet = store.create_session("S3", PB, ["pb-wr-blue"])
    out = tmp_path / "quiet"
    assert export_responses(str(db), session=quiet.id, fmt="native", out=str(out)) == 0
    assert _preds(out / "preds.jsonl") == {"pb-wr-blue": {"item_id": "pb-wr-blue", "response_seconds": []}}
    assert export_responses(str(db), session=s3.id, fmt="native", out=str(tmp_path / "s3")) == 0
    assert _preds(tmp_path / "s3" / "preds.jsonl")["pb-wr-blue"]["response_seconds"] == [6]


def test_sitting_responses_and_study_predictions(world):
    """P1's own rows per item, in log order (the model's left out); with the shift, times less 0.5 s. The study's
    predictions on ProactiveBench: one per sitting, P1's then P2's; none on another benchmark."""
    store, db, study, s1, s2, s3 = world
    ds = load(PB, None, probe_media=False)
    own = sitting_responses(store, s1, ds)
    assert {k: [(r.t, r.text) for r in v] for k, v in own.items()} == {
        "pb-or-ball": [(9.2, "there it is"), (8.6, ""), (10.05, "stop")], "pb-dc-counter": [(12.2, ""), (16.1, "")]}
    moved = sitting_responses(store, s1, ds, calibration_shift=True)
    assert [r.t for r in moved["pb-or-ball"] + moved["pb-dc-counter"]] == [8.7, 8.1, 9.55, 11.7, 15.6]
    preds = study_predictions(store, study.id, PB, ds)
    assert [{k: p["response_seconds"] for k, p in one.items()} for one in preds] == [
        {"pb-or-ball": [9, 10, 11], "pb-dc-counter": [13, 17]}, {"pb-or-ball": [10]}]
    assert [p["pb-or-ball"]["response_seconds"] for p in study_predictions(store, study.id, PB, ds, True)] == \
        [[9, 10], [10]]
    assert study_predictions(store, study.id, "interactionbench", ds) == []
    assert study_of(s1) == study.id and study_of(s3) is None


def test_an_item_missing_from_the_dataset_is_left_out_of_the_sitting(world):
    store, db, study, s1, s2, s3 = world
    odd = store.create_session("S4", PB, ["pb-or-ball", "not-an-item"])
    assert list(sitting_responses(store, odd, load(PB, None, probe_media=False))) == ["pb-or-ball"]


def _refusal(call) -> CliError:
    with pytest.raises(CliError) as e:
        call()
    return e.value


def test_refusals_name_the_flag_and_leave_no_sqlite_side_files(world, tmp_path):
    store, db, study, s1, s2, s3 = world
    store.close()
    e = _refusal(lambda: export_responses(str(db), session=s1.id, study="pilot"))
    assert (str(e), e.code) == ("--study: expected --session or --study, found both", USAGE)
    e = _refusal(lambda: export_responses(str(db), session="nope"))
    assert str(e) == f"{db} --session: expected a session id of this store, found unknown session 'nope'"
    e = _refusal(lambda: export_responses(str(db), study="nope", fmt="native", out=str(tmp_path / "o")))
    assert str(e) == f"{db} --study: expected a study id of this store, found unknown study 'nope'"
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    e = _refusal(lambda: export_responses(str(tmp_path / "missing.sqlite")))
    assert str(e).startswith(f"{tmp_path / 'missing.sqlite'} --db: ")
    e = _refusal(lambda: export_responses(str(db), fmt="native", out=str(tmp_path / "o"), data=str(tmp_path / "x")))
    assert str(e) == f"{tmp_path / 'x'} --data: expected an existing folder, found nothing"
    (tmp_path / "file").write_text("")
    e = _refusal(lambda: export_responses(str(db), fmt="native", out=str(tmp_path / "file")))
    assert "--out: expected a folder to write into" in str(e)
    e = _refusal(lambda: export_responses(str(db), out=str(tmp_path)))
    assert "--out: expected a file name to write, found an existing folder" in str(e)
    assert not (tmp_path / "o").exists()


def test_a_session_whose_dataset_is_gone_or_incomplete_is_refused(world, tmp_path):
    store, db, study, s1, s2, s3 = world
    gone = str(tmp_path / "moved-away")
    lost = store.create_session("S5", PB, ["pb-or-ball"], data_dir=gone)
    odd = store.create_session("S4", PB, ["pb-or-ball", "not-an-item"])
    e = _refusal(lambda: export_responses(str(db), session=lost.id, fmt="native", out=str(tmp_path / "o")))
    assert str(e) == f"{gone} {lost.id} data_dir: expected the session's dataset folder, found nothing (pass --data)"
    e = _refusal(lambda: export_responses(str(db), session=odd.id, fmt="native", out=str(tmp_path / "o")))
    assert str(e) == (f"{demo_dir(PB)} {odd.id} --data: expected every item of session {odd.id} in the dataset, "
                      "found 1 missing (e.g. not-an-item)")
    # --data overrides the folder the session stored
    assert export_responses(str(db), session=lost.id, fmt="native", out=str(tmp_path / "o"),
                            data=str(demo_dir(PB))) == 0
    assert _preds(tmp_path / "o" / "preds.jsonl") == {"pb-or-ball": {"item_id": "pb-or-ball", "response_seconds": []}}


@pytest.mark.parametrize("flag, kw", [("--human-reference", {"human_reference": True}),
                                      ("--calibration-shift", {"calibration_shift": True})])
def test_a_tool_format_refuses_a_shift_of_its_own(world, flag, kw, tmp_path):
    store, db, *_ = world
    assert "human-reference" in tool_formats()
    e = _refusal(lambda: export_responses(str(db), fmt="human-reference", out=str(tmp_path / "t"), **kw))
    assert e.code == USAGE and str(e) == (f"{flag}: expected no {flag} with --format human-reference (the paper's "
                                          "procedure measures and applies its own shift: analysis human_reference "
                                          "reaction-latency, shift-a)")


def test_a_tool_format_refuses_a_benchmark_that_does_not_write_it(world, tmp_path):
    store, db, study, s1, s2, s3 = world
    e = _refusal(lambda: export_responses(str(db), session=s3.id, fmt="human-reference", out=str(tmp_path / "t")))
    assert str(e) == (f"{db} {s3.id} --format: expected sessions of a benchmark that writes --format human-reference, "
                      f"found {PB}")
    assert not (tmp_path / "t").exists()


def test_a_tool_export_is_utf8_json_indented_by_one(tmp_path, capsys):
    """A studio sitting of InteractionBench (no study) with one typed answer in non-ASCII text: OUT/export.json keeps
    the characters as written (not \\u escapes), one space per level; one item, one update."""
    db = tmp_path / "db.sqlite"
    store = Store(db)
    s = store.create_session("P7", "interactionbench", ["ball_counter#2"])
    store.add_response(Response(id="", item_id="ball_counter#2", benchmark="interactionbench", responder="human:P7",
                                session_id=s.id, t=28.0, kind="text", text="vier – quatre ✓", wall_time=1.7e9))
    out = tmp_path / "hr"
    assert export_responses(str(db), session=s.id, fmt="human-reference", out=str(out)) == 0
    text = (out / "export.json").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[:2] == ["{", ' "participant": "P7",'] and text.endswith("}\n")
    assert '     "answer": "vier – quatre ✓",' in lines
    assert json.loads(text)["study"] is None
    assert capsys.readouterr().err == (f"interactionbench: session {s.id} (P7), 1 items, 1 updates -> "
                                       f"{out / 'export.json'}\n")


def test_jsonl_keeps_text_as_written_and_needs_no_dataset(world, tmp_path):
    """A typed answer in non-ASCII text is written as its characters (UTF-8), not \\u escapes. JSONL reads no dataset:
    a session whose data folder is gone still exports."""
    store, db, study, s1, s2, s3 = world
    lost = store.create_session("S5", PB, ["pb-or-ball"], data_dir=str(tmp_path / "moved-away"))
    store.add_response(_r(lost.id, "human:S5", "pb-or-ball", 7.0, "text", "là – ✓"))
    out = tmp_path / "rows.jsonl"
    assert export_responses(str(db), out=str(out)) == 0
    text = out.read_text(encoding="utf-8")
    assert '"text": "là – ✓"' in text and text.count("\n") == 10


def test_native_export_reads_the_sessions_own_dataset_folder(world, tmp_path):
    """A copy of the demo where pb-or-ball is called pb-copy-ball (its videos left behind: export reads no media). A
    session on pb-copy-ball with the copy as its folder exports from it: a press at 8.6 -> second 9."""
    store, db, *_ = world
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "annotations.json").write_text(
        (demo_dir(PB) / "annotations.json").read_text(encoding="utf-8").replace("pb-or-ball", "pb-copy-ball"),
        encoding="utf-8")
    s = store.create_session("C1", PB, ["pb-copy-ball"], data_dir=str(copy))
    store.add_response(_r(s.id, "human:C1", "pb-copy-ball", 8.6))
    assert export_responses(str(db), session=s.id, fmt="native", out=str(tmp_path / "o")) == 0
    assert _preds(tmp_path / "o" / "preds.jsonl") == {
        "pb-copy-ball": {"item_id": "pb-copy-ball", "response_seconds": [9]}}


def test_human_reference_is_ignored_for_a_benchmark_without_it(world, tmp_path):
    """--human-reference acts on InteractionBench only: P2's ProactiveBench file is the same with it (9.5 -> 10)."""
    store, db, study, s1, s2, s3 = world
    out = tmp_path / "hr"
    assert export_responses(str(db), session=s2.id, fmt="native", out=str(out), human_reference=True) == 0
    assert _preds(out / "preds.jsonl") == {
        "pb-or-ball": {"item_id": "pb-or-ball", "response_seconds": [10], "texts": {"10": "ball"}}}


def test_human_reference_measures_the_study_shift_on_calibrated_times(tmp_path, capsys):
    """InteractionBench study: P1 answers the IVQA A items ball_counter#2 (question at 27 s) at 28.25 and whiteboard#2
    (question at 13 s) at 14.75, and is calibrated at 0.25 s; P2 answers only color_scene#2 (LVM, question at 23 s) at
    25.0. With --calibration-shift, P2's shift comes from P1's calibrated times: delays 28.0 - 27 = 1.0 and
    14.5 - 13 = 1.5, median 1.25 s (not 1.5 from the raw times); P2's 25.0 moves to 23.75."""
    ib = "interactionbench"
    db = tmp_path / "db.sqlite"
    store = Store(db)
    st, _ = create_study(store, ib, ["P1", "P2"], {"P1": ["ball_counter#2", "whiteboard#2"], "P2": ["color_scene#2"]},
                         data_dir=str(demo_dir(ib)))
    sessions = {s.participant: s for s in study_sessions(store, st.id)}
    store.update_session_settings(sessions["P1"].id, calibration={"median_s": 0.25})
    for who, iid, t, text in (("P1", "ball_counter#2", 28.25, "four"), ("P1", "whiteboard#2", 14.75, "blue"),
                              ("P2", "color_scene#2", 25.0, "green")):
        store.add_response(Response(id="", item_id=iid, benchmark=ib, responder=f"human:{who}",
                                    session_id=sessions[who].id, t=t, kind="text", text=text, wall_time=1.7e9))
    store.close()
    s2 = sessions["P2"].id
    out = tmp_path / "native"
    assert export_responses(str(db), session=s2, fmt="native", out=str(out), human_reference=True,
                            calibration_shift=True) == 0
    assert (f"session {s2} (P2): A-type shift 1.25 s: measured over 2 answered IVQA A item(s) of study {st.id} "
            f"(session {s2} has none)") in capsys.readouterr().err
    row = json.loads((out / "preds.jsonl").read_text().splitlines()[0])
    assert row["emissions"] == [{"t": 23.75, "content": "green", "t_orig": 25.0}]
