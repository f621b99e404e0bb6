"""`export responses --format human-reference` (a study's sittings as the paper's annotation-tool export.json) and
`--human-reference` with the A-type shift measured from the sitting, else its study, else the paper's 2.48 s.
Every expected value is worked by hand from the demo annotations (assets/demo/interactionbench)."""
import json

import pytest

from annotation.loaders import demo_dir
from annotation.model import Response
from annotation.store import Store
from annotation.studies import create_study
from app import main
from scoring.interactionbench.human_shift import (first_answer_delay, measured_shift, measures_shift,
                                                  shift_emissions, shifted_time)

W0 = 1747040400.0  # 2025-05-12T09:00:00Z (date -u -d @1747040400)
# P1: two answered IVQA A items (ball_counter#2, q 27; whiteboard#2, q 13), an LVM A item and a PTR B item
P1 = {"ball_counter#2": [(26.5, "", 0.5), (28.25, "four", 2.25), (30.0, "4", 4.0)],
      "whiteboard#2": [(14.75, "blue", 10.125)],
      "color_scene#2": [(24.0, "red", 20.0)],
      "ball_counter#0": [(8.3, "", 30.0)]}
P2 = {"color_scene#2": [(25.0, "green", 40.0)], "whiteboard#1": []}  # no IVQA A item: the study's shift


@pytest.fixture
def study(tmp_path):
    db = tmp_path / "db.sqlite"
    store = Store(db)
    st, _ = create_study(store, "interactionbench", ["P1", "P2"], {"P1": list(P1), "P2": list(P2)},
                         data_dir=str(demo_dir("interactionbench")))
    sessions = {s.participant: s for s in store.sessions() if s.settings.get("study_id") == st.id}
    for who, sitting in (("P1", P1), ("P2", P2)):
        for iid, rows in sitting.items():
            for t, text, dw in rows:
                store.add_response(Response(id="", item_id=iid, benchmark="interactionbench", responder=f"human:{who}",
                                            session_id=sessions[who].id, t=t, kind="text" if text else "press",
                                            text=text, wall_time=W0 + dw))
    # a live model's row in P1's session is another responder: never exported as P1's
    store.add_response(Response(id="", item_id="ball_counter#2", benchmark="interactionbench",
                                responder=f"model:baseline:always@{sessions['P1'].id}", session_id=sessions["P1"].id,
                                t=27.1, kind="text", text="model says 4", wall_time=W0 + 1))
    walk_in = store.create_session("P3", "interactionbench", ["color_scene#2"],
                                   data_dir=str(demo_dir("interactionbench")))
    store.add_response(Response(id="", item_id="color_scene#2", benchmark="interactionbench", responder="human:P3",
                                session_id=walk_in.id, t=26.0, kind="text", text="grey", wall_time=W0 + 50))
    store.close()
    return db, st.id, sessions["P1"].id, sessions["P2"].id, walk_in.id


def test_shift_arithmetic_by_hand():
    # presses at 26.5 (before the question at 27), 28.25, 30.0: the first at or after 27 is 28.25 -> 1.25 s
    assert first_answer_delay(27.0, [30.0, 26.5, 28.25]) == 1.25
    assert first_answer_delay(27.0, [26.9]) is None
    assert measured_shift([1.25, 1.75]) == 1.5 and measured_shift([0.404, 3.0, 2.012]) == 2.01
    assert measured_shift([]) is None
    # t' = max(t - shift, q, 0) to 0.001: 30.0 - 1.5 = 28.5; 28.25 - 1.5 = 26.75 < 27 -> 27.0; 0.4 - 2.48 < 0 -> 0.0
    assert (shifted_time(30.0, 1.5, 27.0), shifted_time(28.25, 1.5, 27.0), shifted_time(0.4, 2.48, 0.0)) == \
        (28.5, 27.0, 0.0)
    assert shifted_time(10.0004, 2.0, 0.0) == 8.0
    assert shift_emissions([{"t": 29.0, "content": "b"}, {"t": 28.0, "content": "a"}], 1.5, 27.0) == \
        [{"t": 27.0, "content": "a", "t_orig": 28.0}, {"t": 27.5, "content": "b", "t_orig": 29.0}]
    assert measures_shift({"capability": "IVQA", "time_type": "A", "answers": [{"time_s": 3, "content": "x"}]})
    assert not measures_shift({"capability": "IVQA", "time_type": "A", "is_negative": True})
    assert not measures_shift({"capability": "LVM", "time_type": "A"})
    assert not measures_shift({"capability": "IVQA", "time_type": "B"})


def _item(iid, cap, tt, it, q, question, updates):
    vid = iid.split("#")[0]
    return {"item_id": iid, "video_id": vid, "capability": cap, "time_type": tt, "interaction_type": it,
            "question_time_s": q, "question": question, "updates": updates}


def _up(t, ms, answer, at):
    return {"video_time_s": t, "wall_ms_since_question": ms, "answer": answer, "at": at}


def test_tool_export_one_file_per_sitting(study, tmp_path, capsys):
    db, st, s1, s2, _ = study
    out = tmp_path / "hr"
    assert main(["export", "responses", "--db", str(db), "--study", st, "--format", "human-reference",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"session {s1} (P1), 4 items, 6 updates -> {out / s1 / 'export.json'}" in err
    p1 = json.loads((out / s1 / "export.json").read_text(encoding="utf-8"))
    # wall_ms_since_question = (video time - question time) in ms; a press is "(pressed)"; at = wall time in UTC
    assert p1["results"] == {
        "ball_counter#2": _item("ball_counter#2", "IVQA", "A", "QA", 27.0, "What number is the counter showing now?",
                                [_up(26.5, -500, "(pressed)", "2025-05-12T09:00:00.500Z"),
                                 _up(28.25, 1250, "four", "2025-05-12T09:00:02.250Z"),
                                 _up(30.0, 3000, "4", "2025-05-12T09:00:04.000Z")]),
        "whiteboard#2": _item("whiteboard#2", "IVQA", "A", "QA", 13.0, "What is six times seven?",
                              [_up(14.75, 1750, "blue", "2025-05-12T09:00:10.125Z")]),
        "color_scene#2": _item("color_scene#2", "LVM", "A", "QA", 23.0,
                               "What colour was the background at the start?",
                               [_up(24.0, 1000, "red", "2025-05-12T09:00:20.000Z")]),
        "ball_counter#0": _item("ball_counter#0", "PTR", "B", "INS", 1.0, "Tell me when the ball appears.",
                                [_up(8.3, 7300, "(pressed)", "2025-05-12T09:00:30.000Z")]),
    }
    assert list(p1["results"]) == list(P1)  # the session's item order
    assert (p1["participant"], p1["session"], p1["study"], p1["n_items"]) == ("P1", s1, st, 4)
    p2 = json.loads((out / s2 / "export.json").read_text(encoding="utf-8"))
    assert p2["results"]["whiteboard#1"]["updates"] == []  # unanswered: written, silent
    assert [u["answer"] for u in p2["results"]["color_scene#2"]["updates"]] == ["green"]


def test_tool_export_one_sitting_is_out_export_json(study, tmp_path):
    db, _, s1, _, _ = study
    assert main(["export", "responses", "--db", str(db), "--session", s1, "--format", "human-reference",
                 "--out", str(tmp_path / "one")]) == 0
    assert list(json.loads((tmp_path / "one" / "export.json").read_text())["results"]) == list(P1)


@pytest.mark.parametrize("flag", ["--human-reference", "--calibration-shift"])
def test_tool_export_refuses_a_shift_of_its_own(study, tmp_path, capsys, flag):
    db, st, _, _, _ = study
    assert main(["export", "responses", "--db", str(db), "--study", st, "--format", "human-reference", flag,
                 "--out", str(tmp_path / "x")]) == 2
    assert f"{flag}: expected no {flag} with --format human-reference" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_tool_export_refuses_another_benchmark(tmp_path, capsys):
    store = Store(tmp_path / "db.sqlite")
    s = store.create_session("P1", "proactivebench", ["pb-or-ball"], data_dir=str(demo_dir("proactivebench")))
    store.close()
    assert main(["export", "responses", "--db", str(tmp_path / "db.sqlite"), "--format", "human-reference",
                 "--out", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert f"{s.id}" in err and "--format: expected sessions of a benchmark that writes --format human-reference, " \
                                "found proactivebench" in err
    assert not (tmp_path / "x").exists()


def _preds(path):
    return {f"{r['video_id']}#{r['item_index']}": r for r in map(json.loads, path.read_text().splitlines())}


def test_human_reference_uses_the_measured_shift(study, tmp_path, capsys):
    db, st, s1, s2, walk_in = study
    out = tmp_path / "native"
    assert main(["export", "responses", "--db", str(db), "--study", st, "--format", "native", "--human-reference",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    # P1: delays 28.25 - 27 = 1.25 and 14.75 - 13 = 1.75 -> median 1.5
    assert f"session {s1} (P1): A-type shift 1.50 s: measured over 2 answered IVQA A item(s) of session {s1}" in err
    # P2 answered no IVQA A item: the study's (P1's two delays) -> 1.5
    assert (f"session {s2} (P2): A-type shift 1.50 s: measured over 2 answered IVQA A item(s) of study {st} "
            f"(session {s2} has none)") in err
    p1 = _preds(out / s1 / "preds.jsonl")
    # 26.5 -> max(25.0, 27) = 27.0; 28.25 -> 26.75 -> 27.0; 30.0 -> 28.5 (t_orig kept, stable order)
    assert p1["ball_counter#2"]["emissions"] == [{"t": 27.0, "content": "(pressed)", "t_orig": 26.5},
                                                 {"t": 27.0, "content": "four", "t_orig": 28.25},
                                                 {"t": 28.5, "content": "4", "t_orig": 30.0}]
    assert p1["ball_counter#2"]["shift_s"] == 1.5
    assert p1["whiteboard#2"]["emissions"] == [{"t": 13.25, "content": "blue", "t_orig": 14.75}]
    assert p1["color_scene#2"]["emissions"] == [{"t": 23.0, "content": "red", "t_orig": 24.0}]  # 22.5 < q 23
    assert p1["ball_counter#0"]["emissions"] == [{"t": 8.3, "content": "(pressed)"}]  # time type B: unshifted
    assert "shift_s" not in p1["ball_counter#0"]
    assert _preds(out / s2 / "preds.jsonl")["color_scene#2"]["emissions"] == \
        [{"t": 23.5, "content": "green", "t_orig": 25.0}]
    # outside any study and no IVQA A item: the paper's 2.48 s, said so; 26.0 - 2.48 = 23.52
    assert main(["export", "responses", "--db", str(db), "--session", walk_in, "--format", "native",
                 "--human-reference", "--out", str(tmp_path / "walk")]) == 0
    assert (f"session {walk_in} (P3): A-type shift 2.48 s: the paper's fixed value (no answered IVQA A item in the "
            "session or its study)") in capsys.readouterr().err
    assert _preds(tmp_path / "walk" / "preds.jsonl")["color_scene#2"]["emissions"] == \
        [{"t": 23.52, "content": "grey", "t_orig": 26.0}]


def test_native_without_human_reference_is_unshifted(study, tmp_path):
    db, _, s1, _, _ = study
    assert main(["export", "responses", "--db", str(db), "--session", s1, "--format", "native",
                 "--out", str(tmp_path / "plain")]) == 0
    assert _preds(tmp_path / "plain" / "preds.jsonl")["ball_counter#2"]["emissions"] == \
        [{"t": 26.5, "content": "(pressed)"}, {"t": 28.25, "content": "four"}, {"t": 30.0, "content": "4"}]
