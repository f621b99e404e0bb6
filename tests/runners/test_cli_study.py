"""`python app.py study create|status` and `export responses --study`: links that open one participant's
session each, every refusal before anything is written, and each participant's calibration in the export."""
import csv
import json
import time
from urllib.parse import parse_qs, urlparse

import pytest

from annotation.calibration import CalibrationError, summarize
from annotation.model import Response
from annotation.store import Store
from annotation.studies import get_study, list_studies, resolve_token
from app import main

ITEMS = ["moving_square#0", "color_scene#0"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "items.txt").write_text("# the study's items\n" + "\n".join(ITEMS) + "\n")
    (tmp_path / "people.txt").write_text("ann\nbob\n\ncarla\n")
    (tmp_path / "consent.md").write_text("# Consent\n\nYou agree to **take part**.\n")
    return tmp_path


def _create(tmp, *extra):
    return main(["study", "create", "--db", str(tmp / "db.sqlite"), "--benchmark", "interactionbench",
                 "--out", str(tmp / "links.csv"), *extra])


def test_create_writes_one_capability_link_per_participant(files, capsys):
    rc = _create(files, "--participants", str(files / "people.txt"), "--items", str(files / "items.txt"),
                 "--practice", "ball_counter#1", "--consent", str(files / "consent.md"), "--show-results",
                 "--completion-code", "PROLIFIC-42", "--base-url", "https://study.example.org/")
    assert rc == 0
    study_id = capsys.readouterr().out.strip()
    with open(files / "links.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["participant"] for r in rows] == ["ann", "bob", "carla"]
    assert list(rows[0]) == ["participant", "url"]
    store = Store(files / "db.sqlite")
    sessions = set()
    for r in rows:
        u = urlparse(r["url"])
        assert (u.scheme, u.netloc, u.path) == ("https", "study.example.org", "/study/")
        link = resolve_token(store, parse_qs(u.query)["t"][0])
        assert link.participant == r["participant"] and link.study_id == study_id
        assert list(link.item_ids) == ITEMS and link.settings["practice_item"] == "ball_counter#1"
        sessions.add(link.session_id)
    assert len(sessions) == 3
    st = get_study(store, study_id).settings
    assert st["consent"] == (files / "consent.md").read_text() and st["show_results"] is True
    assert st["completion_code"] == "PROLIFIC-42"
    assert (st["instructions"], st["calibrate"], st["countdown"]) == (True, True, 3)  # the participant flow
    assert main(["study", "status", "--db", str(files / "db.sqlite")]) == 0
    out = capsys.readouterr().out
    assert f"study {study_id}" in out and "0/3 done" in out
    for p in ("ann", "bob", "carla"):
        assert any(line.split()[:3] == [p, "0/2", "open"] for line in out.splitlines())


def test_n_random_items_and_counted_participants(files, capsys):
    assert _create(files, "--participants", "4", "--n", "3", "--seed", "s1", "--no-calibration", "--no-countdown") == 0
    with open(files / "links.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["participant"] for r in rows] == ["P001", "P002", "P003", "P004"]
    assert rows[0]["url"].startswith("http://127.0.0.1:7860/study/?t=")
    store = Store(files / "db.sqlite")
    links = [resolve_token(store, parse_qs(urlparse(r["url"]).query)["t"][0]) for r in rows]
    assert len({tuple(x.item_ids) for x in links}) == 1 and len(links[0].item_ids) == 3
    st = list_studies(store)[0].settings
    assert (st["calibrate"], st["countdown"]) == (False, 0)


@pytest.mark.parametrize("args, message", [
    (["--participants", "2", "--items", "{d}/bad_items.txt"], "bad_items.txt: line 2: item 'nosuch#9'"),
    (["--participants", "2", "--items", "{d}/items.txt", "--n", "2"], "exactly one of --items FILE or --n N"),
    (["--participants", "2", "--n", "999"], "--n: a count from 1 to"),
    (["--participants", "2", "--items", "{d}/items.txt", "--practice", "moving_square#0"], "also a study item"),
    (["--participants", "2", "--items", "{d}/items.txt", "--practice", "nosuch#1"], "--practice: item 'nosuch#1'"),
    (["--participants", "{d}/missing.txt", "--n", "2"], "missing.txt: participants file not found"),
    (["--participants", "{d}/dupes.txt", "--n", "2"], "listed twice"),
    (["--participants", "2", "--n", "2", "--consent", "{d}/latin1.md"], "latin1.md: consent file is not UTF-8"),
    (["--participants", "2", "--n", "2", "--base-url", "ftp://x"], "--base-url must start with http"),
])
def test_refusals_name_the_problem_and_write_nothing(files, capsys, args, message):
    (files / "bad_items.txt").write_text("moving_square#0\nnosuch#9\n")
    (files / "dupes.txt").write_text("ann\nann\n")
    (files / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    assert _create(files, *[a.replace("{d}", str(files)) for a in args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (files / "links.csv").exists()
    assert not list(files.glob(".links.csv.*"))
    if (files / "db.sqlite").exists():
        assert list_studies(Store(files / "db.sqlite")) == []


def test_existing_links_file_is_never_overwritten(files, capsys):
    (files / "links.csv").write_text("participant,url\nold,http://x/study/?t=keep\n")
    assert _create(files, "--participants", "2", "--n", "2") == 1
    assert "already exists" in capsys.readouterr().err
    assert "keep" in (files / "links.csv").read_text()


def test_export_study_carries_each_participants_calibration(files, capsys):
    assert _create(files, "--participants", "2", "--items", str(files / "items.txt")) == 0
    study_id = capsys.readouterr().out.strip()
    store = Store(files / "db.sqlite")
    other = store.create_session("walk-in", "interactionbench", ITEMS)  # not in the study: not exported
    sessions = [s for s in store.sessions() if s.settings.get("study_id") == study_id]
    # P001 measured 300/400/500 ms (median 0.4 s); P002 never calibrated
    store.update_session_settings(sessions[0].id, calibration=summarize(
        [{"cue": "visual", "latency_ms": 300}, {"cue": "audio", "latency_ms": 500}, {"cue": "visual", "latency_ms": 400}]))
    for s, t in ((sessions[0], 5.0), (sessions[1], 6.0), (other, 7.0)):
        store.add_response(Response(id="", item_id=ITEMS[0], benchmark="interactionbench", responder=f"human:{s.participant}",
                                    session_id=s.id, t=t, kind="press", wall_time=time.time()))
    out = files / "rows.jsonl"
    assert main(["export", "responses", "--db", str(files / "db.sqlite"), "--study", study_id,
                 "--calibration-shift", "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["participant"], r["t"], r["calibration_s"], r["t_shifted"]) for r in rows] == \
        [("P001", 5.0, 0.4, 4.6), ("P002", 6.0, None, 6.0)]
    assert main(["export", "responses", "--db", str(files / "db.sqlite"), "--study", "st_nope"]) == 1
    assert "--study: expected a study id of this store, found unknown study 'st_nope'" in capsys.readouterr().err


def test_calibration_median_over_valid_reactions_only():
    cal = summarize([{"cue": "visual", "latency_ms": 300}, {"cue": "audio", "latency_ms": 520},
                     {"cue": "visual", "latency_ms": 410}, {"cue": "audio", "latency_ms": 60},
                     {"cue": "visual", "latency_ms": None}, {"cue": "audio", "latency_ms": 2400}])
    assert cal["median_s"] == 0.41 and cal["n_valid"] == 3 and cal["n_trials"] == 6
    assert cal["by_cue"] == {"visual": 0.355, "audio": 0.52}
    assert [t["why"] for t in cal["trials"]] == ["", "", "", "anticipated", "missed", "missed"]
    with pytest.raises(CalibrationError, match="Only 2 of 3"):
        summarize([{"cue": "visual", "latency_ms": 300}, {"cue": "visual", "latency_ms": 50},
                   {"cue": "audio", "latency_ms": 400}])
    with pytest.raises(CalibrationError, match="cue must be"):
        summarize([{"cue": "smell", "latency_ms": 300}])
