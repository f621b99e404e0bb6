"""Issue 25, end to end: a study sat in Chromium, exported with `export responses --format human-reference`, and
carried through the paper's whole human-reference chain (`python app.py analysis human_reference convert ->
reaction-latency -> shift-a -> score -> compare`). The shift the chain measures is the one `export --human-reference`
measures and applies.

Completed at merge time: the `human_reference` drop-in (runners/interactionbench/analysis/human_reference.py) is
built on the parallel branch of issue 25 point 1; on a branch without it the chain's first command fails."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session_helpers beside this file (importlib mode)
from session_helpers import PROBE_JS, VIDEO, rows, wait_media
from annotation.loaders import demo_dir
from annotation.store import Store
from tests.browser.conftest import new_context
from annotation.studies import create_study, participant_url, resolve_token
from app import main

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[2]
ITEMS = ["whiteboard#2", "ball_counter#0"]  # IVQA A, question at 13 s ("What is six times seven?"); PTR B
Q = 13.0


def _ready(page, item: str) -> None:
    page.wait_for_function(f"() => {{ const v = document.querySelector('{VIDEO}');"
                           " const b = document.querySelector('#start-btn');"
                           f" return v && v.dataset.item === {item!r} && v.readyState >= 2 && b && !b.hidden"
                           " && !b.disabled; }", timeout=90000)


def _play_to_end(page) -> None:
    page.evaluate(f"() => {{ document.querySelector('{VIDEO}').playbackRate = 8; }}")
    page.wait_for_selector("#item-result #item-saved", timeout=60000)


def _chain(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUTF8="1", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, str(REPO / "app.py"), "analysis", "human_reference", *argv], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv[0]}: {done.stderr[-3000:]}"
    return done


def test_study_sat_in_the_browser_goes_through_the_human_reference_chain(app_server, browser, tmp_path):
    st = Store(app_server.db)
    study, tokens = create_study(st, "interactionbench", ["P-hr"], ITEMS,
                                 {"show_results": False, "consent": "", "instructions": True, "practice_item": None,
                                  "calibrate": False, "countdown": 0})
    sid = resolve_token(st, tokens["P-hr"]).session_id
    st.close()
    ctx = new_context(browser, viewport={"width": 1280, "height": 720})
    ctx.add_init_script(PROBE_JS)
    page = ctx.new_page()
    try:
        page.goto(participant_url(app_server.url, tokens["P-hr"]))
        page.wait_for_selector("#study-consent:not([hidden])", timeout=60000)
        page.check("#consent-agree")
        page.click("#consent-btn")
        # item 1: the answer typed after the question (13 s) while the stream plays in real time
        _ready(page, ITEMS[0])
        page.click("#start-btn")
        wait_media(page, Q + 0.6)
        page.click("#response-text")
        page.keyboard.type("42")
        page.keyboard.press("Enter")
        assert [r.text for r in rows(app_server.db, sid, 1)] == ["42"]
        _play_to_end(page)
        page.click("#next-btn")
        # item 2: a press when the ball appears (8 s)
        _ready(page, ITEMS[1])
        page.click("#start-btn")
        wait_media(page, 8.4)
        page.keyboard.press("Space")
        assert len(rows(app_server.db, sid, 2)) == 2
        _play_to_end(page)
        page.click("#next-btn")
        page.wait_for_selector("#completion-code", timeout=90000)
    finally:
        ctx.close()
    typed, pressed = rows(app_server.db, sid)
    assert (typed.item_id, typed.kind, pressed.item_id, pressed.kind) == (ITEMS[0], "text", ITEMS[1], "press")
    assert typed.t >= Q

    # one export command: the sitting as the annotation tool's export.json
    work = tmp_path / "chain"
    work.mkdir()
    assert main(["export", "responses", "--db", str(app_server.db), "--study", study.id, "--format", "human-reference",
                 "--out", str(work)]) == 0
    export = json.loads((work / "export.json").read_text(encoding="utf-8"))
    assert list(export["results"]) == ITEMS
    (up,) = export["results"][ITEMS[0]]["updates"]
    assert (up["video_time_s"], up["answer"]) == (round(typed.t, 3), "42")
    assert export["results"][ITEMS[1]]["updates"][0]["answer"] == "(pressed)"

    # the chain, as the paper ran it, on the demo data (its answer key is <data>/mcq/mcq_key_v4.jsonl)
    data = str(demo_dir("interactionbench"))
    common = ["--runs-root", "runs", "--data", data, "--out", "out"]
    (work / "verdicts.jsonl").write_text('{"k": "00000000000000000000000000000000", "s": 0}\n')  # misses score 0
    _chain(work, "convert", "export.json", *common)
    _chain(work, "reaction-latency", "--raw", "export.json", *common)
    _chain(work, "shift-a", *common)
    _chain(work, "score", "runs/human_reference/preds_shiftedA.jsonl", "--judge", "cache:verdicts.jsonl",
           "--pre-tol", "1.0", "--eval-name", "eval_judge", *common)
    _chain(work, "compare", "--eval-name", "eval_judge", *common)

    # the chain measured the shift from this one answer: its delay after the question, to 0.01 s
    shift = round(round(typed.t, 3) - Q, 2)
    offset = json.loads((work / "out" / "reaction_offset.json").read_text(encoding="utf-8"))
    assert offset["shift_s_used"] == shift
    shifted = {f"{p['video_id']}#{p['item_index']}": p for p in
               map(json.loads, (work / "runs/human_reference/preds_shiftedA.jsonl").read_text().splitlines())}
    assert shifted[ITEMS[0]]["emissions"] == [{"t": round(max(round(typed.t, 3) - shift, Q, 0.0), 3),
                                                "content": "42", "t_orig": round(typed.t, 3)}]
    records = (work / "runs/human_reference/eval_judge/records.jsonl").read_text().splitlines()
    assert sorted(json.loads(x)["item_id"] for x in records) == sorted(ITEMS)
    compared = json.loads((work / "out" / "human_first300.json").read_text(encoding="utf-8"))
    assert compared["n_items"] == 2 and compared["human"]["eval_judge"]["overall"]["n_items"] == 2

    # `export --human-reference` measures and applies the same shift, and says so
    done = subprocess.run([sys.executable, str(REPO / "app.py"), "export", "responses", "--db", str(app_server.db),
                           "--study", study.id, "--format", "native", "--human-reference", "--out",
                           str(tmp_path / "native")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    said = re.search(r"A-type shift ([0-9.]+) s: measured over 1 answered IVQA A item\(s\) of session", done.stderr)
    assert said and float(said.group(1)) == shift, done.stderr
