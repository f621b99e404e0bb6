"""Adding a benchmark is one folder per layer plus one registry entry: a toy fifth benchmark, defined only here and
registered by this test, goes through loading, a session's server functions, a batch run with a baseline, `score`,
Compare and the Leaderboard, with no change to the product code.

The toy data (hand-made): two items on a 24 s demo video. "early": question at 0 s, target window [3.5, 5.5];
"timely": question at 3 s, window [4, 6]. An item is correct when the first press at or after its question lands
in its window."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from annotation import registry
from annotation.loaders import load
from annotation.store import Store
from ibench_ui.context import AppContext

REPO = Path(__file__).resolve().parents[2]
VIDEO = REPO / "assets" / "demo" / "proactivebench" / "videos" / "moving_square.mp4"
NAME = "toybench"
HOOKS = {"annotation": "tests.toybench.annotation_hooks", "scoring": "tests.toybench.scoring_hooks",
         "runners": "tests.toybench.runners_hooks", "ibench_ui": "tests.toybench.ui_hooks"}


@pytest.fixture
def toy(tmp_path):
    """The toy dataset on disk and the toy benchmark registered for the test's length."""
    data = tmp_path / "toy"
    (data / "videos").mkdir(parents=True)
    shutil.copy(VIDEO, data / "videos" / "square.mp4")
    (data / "toy.json").write_text(json.dumps({"items": [
        {"item_id": "early", "video": "videos/square.mp4", "question": "Press when the square stops.", "q": 0,
         "anchor": 3.5},
        {"item_id": "timely", "video": "videos/square.mp4", "question": "Press when it turns.", "q": 3,
         "anchor": 4}]}))
    assert NAME not in registry.names()
    registry.register(registry.BenchmarkSpec(name=NAME, title="Toy", hooks=HOOKS, demo=data,
                                             data={"default_protocol": "toy", "headline_column": "accuracy"}))
    yield data
    registry.unregister(NAME)


def test_loading(toy):
    ds = load(NAME)
    assert [it.id for it in ds.items] == ["early", "timely"] and ds.problems == []
    assert [(it.request.time, it.targets[0].window) for it in ds.items] == [(0.0, (3.5, 5.5)), (3.0, (4.0, 6.0))]
    assert ds.items[0].stream.duration == 24.0  # probed from the file


def test_a_session_through_its_server_functions(toy, tmp_path):
    from ibench_ui.session import SessionService
    svc = SessionService(AppContext(store=Store(tmp_path / "s.sqlite"), asr_model=str(tmp_path / "none")),
                         clock_slack=math.inf)
    res = svc.open_session({"participant": "P01", "benchmark": NAME, "items": "early,timely"})
    assert res["ok"] and res["item"]["id"] == "early" and "targets" not in json.dumps(res["item"])
    sid = res["session"]["id"]

    def press(index, t):
        out = svc.respond({"session_id": sid, "item_index": index, "kind": "press", "media_t": t, "frame_t": t,
                           "page_id": "pg1", "source": "key"})
        assert out["ok"], out

    press(0, 4.5)  # inside [3.5, 5.5]: correct
    fin = svc.finish_item({"session_id": sid, "item_index": 0})
    assert fin["ok"] and fin["has_next"] and "You pressed in the window." in fin["result_html"]
    press(1, 2.0)  # before the question at 3 s: not counted
    press(1, 7.0)  # after the window [4, 6]: late
    fin = svc.finish_item({"session_id": sid, "item_index": 1})
    assert fin["ok"] and not fin["has_next"] and "Your press missed the window." in fin["result_html"]
    assert [(r.item_id, r.t, r.responder) for r in svc.ctx.store.responses(session_id=sid)] == [
        ("early", 4.5, "human:P01"), ("timely", 2.0, "human:P01"), ("timely", 7.0, "human:P01")]


def test_a_batch_run_score_compare_and_leaderboard(toy, tmp_path, capsys):
    """`run` with baseline:periodic:3 on the toy protocol (decisions at 1, 2, 3 … s) speaks at 1, 4, 7 … s:
    "early" (question 0 s) first press 1 s < 3.5: early, wrong; "timely" (question 3 s) first press at or after
    3 s is 4 s, in [4, 6]: correct. Accuracy 50.0 over 2 items."""
    from runners.cli import main
    db, out = tmp_path / "r.sqlite", tmp_path / "run"
    assert main(["run", "--benchmark", NAME, "--model", "baseline:periodic:3", "--data", str(toy), "--db", str(db),
                 "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["table"] == {"n_items": 2, "accuracy": 50.0}
    preds = [json.loads(x) for x in (out / "preds.jsonl").read_text().splitlines()]
    every_3_s = [1.0, 4.0, 7.0, 10.0, 13.0, 16.0, 19.0, 22.0]  # decisions at 1 … 24 s on the 24 s video
    assert [(p["item_id"], p["presses"]) for p in preds] == [("early", every_3_s), ("timely", every_3_s)]

    # `score` reads the run's native predictions back and gives the same figure
    assert main(["score", NAME, "--data", str(toy), "--preds", str(out / "preds.jsonl"),
                 "--out", str(tmp_path / "score.json")]) == 0
    assert json.loads((tmp_path / "score.json").read_text())["table"] == {"n_items": 2, "accuracy": 50.0}
    assert "toybench  n=2  accuracy=50.0" in capsys.readouterr().out

    # a human session beside the run: "early" pressed at 4.5 s (correct)
    from ibench_ui.session import SessionService
    ctx = AppContext(store=Store(db), asr_model=str(tmp_path / "none"))
    svc = SessionService(ctx, clock_slack=math.inf)
    sid = svc.open_session({"participant": "P01", "benchmark": NAME, "items": "early"})["session"]["id"]
    assert svc.respond({"session_id": sid, "item_index": 0, "kind": "press", "media_t": 4.5, "page_id": "pg1"})["ok"]
    assert svc.finish_item({"session_id": sid, "item_index": 0})["ok"]

    # Compare: the run's and the human's lanes on "early", labelled by the toy's own verdicts
    from ibench_ui.compare import render
    from ibench_ui.compare_service import CompareService
    from runners.report import item_lanes
    keys = [k for _, k in CompareService(ctx).select("", NAME).responders]
    run_key = next(k for k in keys if k.startswith("model:"))
    assert "human:P01" in keys
    lanes = item_lanes(ctx.store, ctx.dataset(NAME), "early", [run_key, "human:P01"])
    assert [[(v.t, v.label) for v in ln.verdicts] for ln in lanes] == [
        [(1.0, "early"), (4.0, "hit")] + [(t, "late") for t in (7.0, 10.0, 13.0, 16.0, 19.0, 22.0)], [(4.5, "hit")]]
    _, figure, lanes_box = render(CompareService(ctx).view("", NAME, "early", [run_key, "human:P01"]))
    assert figure is not None
    run_lane, human_lane = lanes_box.split('<div class="ib-lane"')[1:]
    assert all(f">{chip}</span>" in run_lane for chip in ("hit: 1", "early: 1", "late: 6", "correct no"))
    assert all(f">{chip}</span>" in human_lane for chip in ("hit: 1", "correct yes"))

    # Leaderboard: the run at 50.0 and the human at 100.0 on the toy's headline column
    from ibench_ui.leaderboard import compute_tables, leaderboard_html
    tables = compute_tables(ctx, 200, 0)
    rows = {rs.responder.key: rs.columns["accuracy"].point for rs in tables[NAME].rows}
    assert rows[run_key] == 50.0 and rows["human:P01"] == 100.0
    assert f'<th data-col="2">{NAME} (accuracy) ' in leaderboard_html({NAME: tables[NAME]})
