"""Batch runs: durable per-item results, resume after SIGKILL without duplicates, cancel, outputs."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from annotation.loaders import demo_dir
from annotation.store import Store
from runners.batch import BatchRunner, RunSpec

REPO = Path(__file__).resolve().parents[2]
PLUGIN = f"plugin:{REPO / 'tests' / 'runners' / 'slow_plugin.py'}:SlowMotionlessTalker"


def spec(model="baseline:motion", benchmark="interactionbench", **kw):
    from runners.protocols import DEFAULT_FOR_BENCHMARK
    return RunSpec(benchmark=benchmark, model=model, data_dir=str(demo_dir(benchmark)),
                   protocol=kw.pop("protocol", DEFAULT_FOR_BENCHMARK[benchmark]), **kw)


@pytest.mark.parametrize("bench", ["interactionbench", "proactivebench", "interactscope", "omniinteract"])
def test_run_scores_every_demo_item_and_writes_native_outputs(tmp_path, bench):
    store = Store(tmp_path / "db.sqlite")
    seen = []
    runner = BatchRunner(store, spec(benchmark=bench), out_dir=tmp_path / "out",
                         on_progress=lambda d, n: seen.append((d, n)))
    report = runner.run()
    run = store.get_run(runner.run_id)
    assert run.status == "done" and run.n_done == run.n_total == seen[-1][1] > 0
    assert seen[-1][0] == run.n_total
    assert json.loads((tmp_path / "out" / "report.json").read_text())["run"]["id"] == run.id
    assert run.report["run"]["model"] == "baseline:motion"
    native = {"interactionbench": "preds.jsonl", "proactivebench": "preds.jsonl",
              "interactscope": "responses.jsonl", "omniinteract": "outputs/baseline_motion/batch_summary.json"}
    assert (tmp_path / "out" / native[bench]).is_file()
    ids = {"interactionbench": 15, "proactivebench": 6, "interactscope": 10}  # demo items (assets/demo/README.md)
    if bench in ids:  # one native line per demo item, every item in the report
        assert len((tmp_path / "out" / native[bench]).read_text().splitlines()) == ids[bench] == run.n_total
        assert len(report["per_item"]) == ids[bench]
    key = "summary" if bench == "omniinteract" else "table"
    assert json.loads(json.dumps(report[key])) == json.loads((tmp_path / "out" / "report.json").read_text())[key]


def test_motion_baseline_beats_silent_on_alert_items(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    alert = tuple(i for i in ("ball_counter#0", "color_scene#0", "whiteboard#3"))
    motion = BatchRunner(store, spec(items=alert, options={"interval": 0.5, "sample_fps": 4.0})).run()
    silent = BatchRunner(store, spec(model="baseline:silent", items=alert)).run()
    assert motion["table"]["timing_accuracy"] > silent["table"]["timing_accuracy"]
    assert motion["table"]["total"] > silent["table"]["total"]


def test_cancel_stops_and_a_rerun_resumes(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    s = spec(model=PLUGIN)
    runner = BatchRunner(store, s)
    runner.on_progress = lambda done, total: runner.cancel() if done >= 2 else None
    out = runner.run()
    assert out["status"] == "cancelled" and store.get_run(runner.run_id).status == "cancelled"
    done_before = len(store.run_items(runner.run_id))
    assert 2 <= done_before < out["n_total"]
    again = BatchRunner(store, s)
    again.run()
    assert again.run_id == runner.run_id
    assert store.get_run(runner.run_id).status == "done"
    assert len(store.run_items(runner.run_id)) == out["n_total"]


def _run_cli(db: Path, out: Path) -> subprocess.Popen:
    """The CLI in a subprocess; its output goes to files next to the db (a pipe nobody reads would block it)."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "app.py", "run", "--benchmark", "interactionbench", "--model", PLUGIN,
                             "--db", str(db), "--out", str(out)], cwd=REPO, env=env,
                            stdout=open(db.with_suffix(".out"), "wb"), stderr=open(db.with_suffix(".err"), "wb"))
    proc.stderr = _Log(db.with_suffix(".err"))
    return proc


class _Log:
    def __init__(self, path: Path):
        self.path = path

    def read(self) -> bytes:
        return self.path.read_bytes()


def _count_items(db: Path) -> int:
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("select count(*) from run_items").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_sigkill_midway_then_resume_gives_identical_report_and_no_duplicates(tmp_path):
    ref = _run_cli(tmp_path / "ref.sqlite", tmp_path / "ref")
    assert ref.wait(240) == 0, ref.stderr.read().decode()[-2000:]
    proc = _run_cli(tmp_path / "k.sqlite", tmp_path / "k")
    deadline = time.time() + 120
    while _count_items(tmp_path / "k.sqlite") < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = _count_items(tmp_path / "k.sqlite")
    total = len(Store(tmp_path / "ref.sqlite").run_items(Store(tmp_path / "ref.sqlite").runs()[0].id))
    assert 3 <= killed_at < total
    resumed = _run_cli(tmp_path / "k.sqlite", tmp_path / "k")
    assert resumed.wait(240) == 0, resumed.stderr.read().decode()[-2000:]
    store = Store(tmp_path / "k.sqlite")
    runs = store.runs()
    assert len(runs) == 1 and runs[0].status == "done"
    con = sqlite3.connect(tmp_path / "k.sqlite")
    rows = con.execute("select item_id, count(*) from run_items group by item_id").fetchall()
    assert len(rows) == total and all(n == 1 for _, n in rows)
    # wall-clock latency diagnostics differ between any two runs; every score and count must not
    a = _without_wallclock(json.loads((tmp_path / "ref" / "report.json").read_text()))
    b = _without_wallclock(json.loads((tmp_path / "k" / "report.json").read_text()))
    assert a["table"] == b["table"] and a["per_item"] == b["per_item"]
    assert a == b
    pa = [_without_wallclock(json.loads(x)) for x in (tmp_path / "ref" / "preds.jsonl").read_text().splitlines()]
    pb = [_without_wallclock(json.loads(x)) for x in (tmp_path / "k" / "preds.jsonl").read_text().splitlines()]
    assert sorted(pa, key=str) == sorted(pb, key=str)


WALLCLOCK = {"run", "config", "poll_latency_mean", "poll_latency_max", "realtime_factor", "latency_s",
             "poll_latencies", "latency_p50", "latency_p95", "latency_max", "latencies",
             "reused_calls"}  # a resumed run replays the calls it had made: counted, never re-asked


def _without_wallclock(v):
    if isinstance(v, dict):
        return {k: _without_wallclock(x) for k, x in v.items() if k not in WALLCLOCK}
    if isinstance(v, list):
        return [_without_wallclock(x) for x in v]
    return v


# ---- baseline runs on the demo, scored by hand (assets/demo/README.md gives every item's times; ../shared/specs the
# rules). Nothing below is computed by the scorer under test.
IB_ITEMS = ["ball_counter#0", "ball_counter#1", "ball_counter#2", "color_scene#0", "color_scene#1", "color_scene#2",
            "color_scene#3", "cooking_steps#0", "moving_square#0", "moving_square#1", "moving_square#2",
            "whiteboard#0", "whiteboard#1", "whiteboard#2", "whiteboard#3"]
IB_NEGATIVE = {"whiteboard#0", "whiteboard#1"}  # is_negative / every answer silent
IB_DURATION = {"ball_counter": 32, "color_scene": 30, "cooking_steps": 40, "moving_square": 24, "whiteboard": 40}
IB_A_QUESTION = {"ball_counter#2": 27, "color_scene#2": 23, "color_scene#3": 27, "moving_square#2": 20,
                 "whiteboard#2": 13}  # type-A items are driven from their question time q to min(end, q + 10 s)
PB_ITEMS = ["pb-or-ball", "pb-wr-blue", "pb-aa-triangle", "pb-ss-erase", "pb-dc-counter", "pb-es-steps"]
IS_ITEMS = ["is-t1-timer", "is-t2-blue", "is-t3-hot", "is-t4-count", "is-t5-remind", "is-t6-wave", "is-t7-narrate",
            "is-t8a-math", "is-t8b-colour", "is-t8c-eggs"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_silent_baseline_on_the_demo_scores_as_worked_by_hand(tmp_path):
    """Silence: every positive InteractionBench item scores 0 with SC undefined (anti-gaming), both silence items
    100; every ProactiveBench window item is missed; no InteractScope target is met."""
    store = Store(tmp_path / "db.sqlite")
    ib = BatchRunner(store, spec(model="baseline:silent"), out_dir=tmp_path / "ib").run()
    # total = (2 x 100 + 13 x 0)/15 = 13.33 -> 13.3; Acc and TA over the 13 positives = 0; SC only on the two
    # negatives (positives with no emission have SC None) = 100.
    assert ib["table"] == {"n_items": 15, "total": 13.3, "accuracy": 0.0, "timing_accuracy": 0.0,
                           "silence_compliance": 100.0}
    want = {i: ((100.0, 100.0) if i in IB_NEGATIVE else (0.0, None)) for i in IB_ITEMS}
    assert {i: (r["total_score"], r["silence_compliance"]) for i, r in ib["per_item"].items()} == want
    rows = _lines(tmp_path / "ib" / "preds.jsonl")  # one line per item, no emission, the model named
    assert sorted(f"{r['video_id']}#{r['item_index']}" for r in rows) == IB_ITEMS
    assert all(r["emissions"] == [] and r["model"] == "baseline:silent" for r in rows)

    pb = BatchRunner(store, spec(model="baseline:silent", benchmark="proactivebench"), out_dir=tmp_path / "pb").run()
    # no response: window items missed, DC count 0 != 4, ES R = 0 -> S_ES = 0; AVG 0.
    assert pb["table"] == {"ES": 0.0, "OR": 0.0, "WR": 0.0, "AA": 0.0, "SS": 0.0, "DC": 0.0, "AVG": 0.0}
    assert {i: pb["per_item"][i]["outcome"] for i in PB_ITEMS[:4]} == dict.fromkeys(PB_ITEMS[:4], "missed")
    assert pb["per_item"]["pb-dc-counter"]["predicted_count"] == 0
    assert [(r["item_id"], r["response_seconds"]) for r in _lines(tmp_path / "pb" / "preds.jsonl")] == \
        [(i, []) for i in PB_ITEMS]

    isc = BatchRunner(store, spec(model="baseline:silent", benchmark="interactscope"), out_dir=tmp_path / "is").run()
    assert isc["table"] == {"T1": 0.0, "T2": 0.0, "T3": 0.0, "T4": 0.0, "T5": 0.0, "T6": 0.0, "T7": 0.0, "Avg": 0.0,
                            "T8": 0.0, "Complete T8-C": "0 / 1"}  # is-t8c-eggs is the one T8-C interaction
    assert [(r["interaction_id"], r["responses"]) for r in _lines(tmp_path / "is" / "responses.jsonl")] == \
        [(i, []) for i in IS_ITEMS]


def test_always_baseline_on_the_demo_scores_as_worked_by_hand(tmp_path):
    """baseline:always says "Something is happening." at every media second from 1 s to the clip's end (a type-A
    item: from its question time q to min(end, q + 10 s), e.g. whiteboard#2 13..23)."""
    store = Store(tmp_path / "db.sqlite")
    ib = BatchRunner(store, spec(model="baseline:always"), out_dir=tmp_path / "ib").run()
    rows = {f"{r['video_id']}#{r['item_index']}": r for r in _lines(tmp_path / "ib" / "preds.jsonl")}
    for item_id, row in rows.items():
        video = item_id.split("#")[0]
        start = IB_A_QUESTION.get(item_id, 1)
        end = min(IB_DURATION[video], start + 10) if item_id in IB_A_QUESTION else IB_DURATION[video]
        assert [e["t"] for e in row["emissions"]] == [float(t) for t in range(start, end + 1)], item_id
        assert {e["content"] for e in row["emissions"]} == {"Something is happening."}
    # Timing (tau = 1): each event r* gets the emission at r* - 1 (a = r*, d = 0) or, for type A, the one at the
    # question time -> TA 100 on every positive item; every item has more emissions than events -> SC 0 everywhere.
    # So trigger/counting/A items total hmean(100, 0) = 0 with Acc 0 ("something is happening" shares no token,
    # and no number, with their references). LCG/BRC total = segment accuracy, lexical token F1 per segment:
    #  color_scene#1 (events 6, 10, 20; 30 s): [6,10) 4 emissions = 12 tokens vs "background is red" (3): overlap
    #   "is" -> F1 = 2(1/12)(1/3)/(1/12+1/3) = 2/15; [10,20) 30 tokens vs "now background is blue" (4): 1/17;
    #   [20,30] vs "scene changed to green field with yellow house": 0. Acc = 100(2/15 + 1/17)/3 = 6.41 -> 6.4.
    #  moving_square#0 (events 3, 6, 14, 18): [3,6) 9 tokens vs "blue square is resting on left" (6): F1
    #   = 2(1/9)(1/6)/(1/9+1/6) = 2/15; the other three references hold no "is"/"something"/"happening": 0.
    #   Acc = 100(2/15)/4 = 3.33 -> 3.3.
    want = {i: (0.0, 100.0 if i not in IB_NEGATIVE else None, 0.0) for i in IB_ITEMS}
    want["color_scene#1"], want["moving_square#0"] = (6.4, 100.0, 0.0), (3.3, 100.0, 0.0)
    got = {i: (r["total_score"], r.get("timing_accuracy"), r["silence_compliance"]) for i, r in ib["per_item"].items()}
    assert got == want
    # total (6.4 + 3.3)/15 = 0.65 -> 0.6; Acc (6.4 + 3.3)/13 = 0.75 -> 0.7; TA 100; SC 0.
    assert ib["table"] == {"n_items": 15, "total": 0.6, "accuracy": 0.7, "timing_accuracy": 100.0,
                           "silence_compliance": 0.0}

    pb = BatchRunner(store, spec(model="baseline:always", benchmark="proactivebench"), out_dir=tmp_path / "pb").run()
    # A response at every scored second eval_start..N (N = the clip's length in seconds).
    n = {"pb-or-ball": (2, 32), "pb-wr-blue": (2, 30), "pb-aa-triangle": (12, 24), "pb-ss-erase": (2, 40),
         "pb-dc-counter": (10, 32), "pb-es-steps": (5, 40)}
    assert {r["item_id"]: r["response_seconds"] for r in _lines(tmp_path / "pb" / "preds.jsonl")} == \
        {i: list(range(a, b + 1)) for i, (a, b) in n.items()}
    # the first response (eval_start) precedes every window -> early; DC counts seconds 10..32 = 23 != 4;
    # ES: all 4 alerts hit (R = 1) but every silence segment broken (Q = 0) -> S_ES = 0. AVG 0.
    assert {i: (pb["per_item"][i]["first_response"], pb["per_item"][i]["outcome"]) for i in PB_ITEMS[:4]} == \
        {"pb-or-ball": (2, "early"), "pb-wr-blue": (2, "early"), "pb-aa-triangle": (12, "early"),
         "pb-ss-erase": (2, "early")}
    assert pb["per_item"]["pb-dc-counter"]["predicted_count"] == 23
    es = pb["per_item"]["pb-es-steps"]
    assert (es["hits"], es["alerts"], es["clean_segments"], es["segments"]) == (4, 4, 0, 5)
    assert pb["table"] == {"ES": 0.0, "OR": 0.0, "WR": 0.0, "AA": 0.0, "SS": 0.0, "DC": 0.0, "AVG": 0.0}
