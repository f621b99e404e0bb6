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
    assert report is not None


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
