"""Honest runs against a scripted OpenAI-compatible server process: failed calls are counted and scored under a
stated policy (never as silence), timing modes, format compliance, per-call progress and resume."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from annotation.loaders import demo_dir
from annotation.store import Store
from app import main
from runners.batch import BatchRunner, RunSpec

REPO = Path(__file__).resolve().parents[2]
# three short InteractionBench demo items (A questions): 4 + 5 + 6 ticks at the 1-s default interval
SHORT = ("color_scene#3", "moving_square#2", "ball_counter#2")
SHORT_TICKS = 4 + 5 + 6
SPEAK = "DECISION: SPEAK\nRESPONSE: The background turned blue."
WAIT = "DECISION: WAIT\nRESPONSE:"


def _items_file(tmp_path, ids=SHORT) -> str:
    p = tmp_path / "items.txt"
    p.write_text("\n".join(ids) + "\n")
    return str(p)


def _run(server, tmp_path, *extra, ids=SHORT, db="db.sqlite", out="out"):
    return main(["run", "--benchmark", "interactionbench", "--model", f"openai:scripted@{server.base_url}",
                 "--items", _items_file(tmp_path, ids), "--db", str(tmp_path / db), "--out", str(tmp_path / out),
                 *extra])


def _report(tmp_path, out="out") -> dict:
    return json.loads((tmp_path / out / "report.json").read_text())


def test_every_seventh_call_a_500_is_counted_excluded_and_printed(fake_server, tmp_path, capsys):
    fake_server.every(7, ("status", 500))
    assert _run(fake_server, tmp_path, "--backend-option", "retries=0") == 0
    seen = fake_server.state()["n"]
    assert seen == SHORT_TICKS  # retries=0: one request per tick
    h = _report(tmp_path)["run_health"]
    # dataset order: ball_counter#2 (requests 1-6), color_scene#3 (7-10), moving_square#2 (11-15); requests 7
    # and 14 failed: the first tick of color_scene#3 and the fourth of moving_square#2
    assert h["calls"] == SHORT_TICKS and h["errors"] == 2 and h["errors_by_kind"] == {"http_500": 2}
    assert h["ok"] == SHORT_TICKS - 2 and h["retries"] == 0
    assert sorted(h["excluded_items"]) == ["color_scene#3", "moving_square#2"]
    report = _report(tmp_path)
    assert report["run"]["n_scored"] == 1 and report["run"]["on_error"] == "exclude"
    out = capsys.readouterr().out
    assert "errors 2 (http_500 2)" in out and "excluded 2" in out and "timing: decision" in out
    # the failed ticks are marked in the stored calls and in the prediction file
    store = Store(tmp_path / "db.sqlite")
    calls = store.run_calls(store.runs()[0].id, "moving_square#2")
    assert [c["status"] for c in calls] == ["ok", "ok", "ok", "error", "ok"]
    assert calls[3]["error_kind"] == "http_500" and calls[3]["attempts"] == 1
    preds = {json.loads(x)["item_index"]: json.loads(x) for x in (tmp_path / "out" / "preds.jsonl").read_text().splitlines()}
    assert any(p.get("error_ticks") == [{"t": calls[3]["t"], "kind": "http_500"}] for p in preds.values())


def test_silence_policy_scores_every_item_and_fail_policy_refuses(fake_server, tmp_path, capsys):
    fake_server.every(7, ("status", 500))
    assert _run(fake_server, tmp_path, "--backend-option", "retries=0", "--on-error", "silence") == 0
    h = _report(tmp_path)["run_health"]
    assert h["errors"] == 2 and h["excluded_items"] == [] and _report(tmp_path)["run"]["n_scored"] == 3
    fake_server.reset()
    fake_server.every(7, ("status", 500))
    rc = _run(fake_server, tmp_path, "--backend-option", "retries=0", "--on-error", "fail", db="f.sqlite", out="f")
    err = capsys.readouterr().err
    assert rc == 1 and "--on-error is fail" in err and "http_500 2" in err
    assert not (tmp_path / "f" / "report.json").exists()
    assert Store(tmp_path / "f.sqlite").runs()[0].status == "failed"
    # the server recovers: running the same command again resumes that run and asks only the two failed ticks
    fake_server.reset()
    assert _run(fake_server, tmp_path, "--backend-option", "retries=0", "--on-error", "fail", db="f.sqlite",
                out="f") == 0
    assert fake_server.state()["n"] == 2
    runs = Store(tmp_path / "f.sqlite").runs()
    assert len(runs) == 1 and runs[0].status == "done"
    h = _report(tmp_path, "f")["run_health"]
    # the two items with a failed tick were driven again: their other 3 + 4 calls replayed from the store
    assert h["errors"] == 0 and h["calls"] == SHORT_TICKS and h["reused_calls"] == 3 + 4


def test_malformed_bodies_are_retried_and_counted(fake_server, tmp_path):
    fake_server.every(7, ("malformed",))
    assert _run(fake_server, tmp_path, "--backend-option", "retries=1", "--backend-option", "backoff=0.01") == 0
    h = _report(tmp_path)["run_health"]
    n = fake_server.state()["n"]
    # every 7th request is garbled and retried once: requests = ticks + garbled ones, none of them lost
    assert n == SHORT_TICKS + n // 7 and h["retries"] == n // 7 and h["errors"] == 0
    fake_server.reset()
    fake_server.every(3, ("no_choices",))
    assert _run(fake_server, tmp_path, "--backend-option", "retries=0", "--on-error", "silence", db="m.sqlite",
                out="m") == 0
    h = _report(tmp_path, "m")["run_health"]
    assert h["errors_by_kind"] == {"malformed": SHORT_TICKS // 3} and h["calls"] == SHORT_TICKS


def test_client_error_and_timeout_have_their_own_kinds(fake_server, tmp_path):
    # held calls are answered only after the client gave up: the two timeouts are certain, and the 2 s
    # limit leaves the answered calls of ticks 3-4 ample time on a loaded machine
    fake_server.reset(("status", 400), ("hold", SPEAK), ("hold", SPEAK))
    rc = _run(fake_server, tmp_path, "--backend-option", "retries=1", "--backend-option", "timeout=2",
              "--backend-option", "backoff=0.01", "--on-error", "silence", ids=("color_scene#3",))
    assert rc == 0
    h = _report(tmp_path)["run_health"]
    # tick 1: a 400 is not retried; tick 2: two timeouts (the call and its retry); ticks 3-4 answer
    assert h["errors_by_kind"] == {"http_400": 1, "timeout": 1} and h["retries"] == 1 and h["ok"] == 2


def test_429_honours_retry_after_and_says_it_is_waiting(fake_server, tmp_path):
    fake_server.reset(("status", 429, {"Retry-After": "0.2"}), ("status", 429, {"retry-after-ms": "300"}))
    store = Store(tmp_path / "db.sqlite")
    seen = []
    spec = RunSpec(benchmark="interactionbench", model=f"openai:scripted@{fake_server.base_url}",
                   data_dir=str(demo_dir("interactionbench")), protocol="sliding", items=("color_scene#3",),
                   backend_options={"retries": 3, "backoff": 5.0})
    runner = BatchRunner(store, spec, on_call_progress=lambda p: seen.append(dict(p)))
    report = runner.run()
    waits = [p["waiting"] for p in seen if p.get("waiting")]
    assert waits == ["http_429: waiting 0.2 s (Retry-After) before attempt 2",
                     "http_429: waiting 0.3 s (Retry-After) before attempt 3"]
    assert report["run_health"]["retries"] == 2 and report["run_health"]["errors"] == 0
    # per-call progress names the item and the media time, and counts every call
    calls = [(p["item"], p["t"], p["calls_done"]) for p in seen if not p.get("waiting")]
    assert calls == [("color_scene#3", t, k) for k, t in enumerate((27.0, 28.0, 29.0, 30.0), 1)]
    assert all(p["calls_total"] == 4 for p in seen)


def test_every_call_failing_is_one_error_line_without_traceback(fake_server, tmp_path):
    fake_server.every(1, ("status", 503))
    proc = subprocess.run([sys.executable, "app.py", "run", "--benchmark", "interactionbench", "--model",
                           f"openai:scripted@{fake_server.base_url}", "--items", _items_file(tmp_path),
                           "--backend-option", "retries=0", "--db", str(tmp_path / "db.sqlite"),
                           "--out", str(tmp_path / "out")], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1].split("\r")[-1]
    # three items, each stopped after 3 failed calls in a row
    assert last.startswith("error: run ") and "every model call failed (9 of 9: http_503 9)" in last
    assert not (tmp_path / "out" / "report.json").exists()


def test_format_compliance_is_measured_and_flagged(fake_server, tmp_path, capsys):
    fake_server.reset(reply="I think the colour changed.")  # never writes the DECISION line
    fake_server.every(3, ("text", WAIT))
    assert _run(fake_server, tmp_path) == 0
    report = _report(tmp_path)
    h = report["run_health"]
    compliant = SHORT_TICKS // 3  # every third reply follows the format
    assert h["compliant"] == compliant and h["ok"] == SHORT_TICKS
    assert h["compliance"] == round(compliant / SHORT_TICKS, 4) and h["compliance_flag"] is True
    out = capsys.readouterr()
    assert f"format compliance: {compliant}/{SHORT_TICKS} replies (33.3 %)  << FLAG" in out.out
    assert "below 90 %" in out.err
    # per item, requests 3, 6, 9, 12, 15 comply: ball_counter#2 (1-6) 2 of 6, color_scene#3 (7-10) 1 of 4,
    # moving_square#2 (11-15) 2 of 5
    per = h["per_item"]
    assert per["ball_counter#2"]["compliance"] == round(2 / 6, 4)
    assert per["color_scene#3"]["compliance"] == 0.25 and per["moving_square#2"]["compliance"] == 0.4
    fake_server.reset()
    assert _run(fake_server, tmp_path, db="ok.sqlite", out="ok") == 0
    assert _report(tmp_path, "ok")["run_health"]["compliance"] == 1.0
    assert "FLAG" not in capsys.readouterr().out


def test_arrival_timing_scores_a_slow_model_below_a_fast_one(fake_server, tmp_path):
    """color_scene#0: the background turns blue at 10 s; the scripted model reports it when asked at the 10-s
    tick, and waits at every other tick."""
    ids = ("color_scene#0",)
    results = {}
    for name, latency in (("fast", 0.0), ("slow", 2.0)):
        fake_server.reset(latency=latency, reply=WAIT)
        fake_server.after(10.0, SPEAK)
        fake_server.after(11.0, WAIT)
        assert _run(fake_server, tmp_path, "--timing", "arrival", ids=ids, db=f"{name}.sqlite", out=name) == 0
        results[name] = _report(tmp_path, name)
    fast, slow = results["fast"], results["slow"]
    assert fast["run_health"]["skipped_ticks"] == 0 and fast["run"]["timing"] == "arrival"
    # 2 s (and a little) per call at 1-s ticks: ticks 1, 4, 7, 10, ... are asked, the two after each come due
    # during the call and are skipped
    assert slow["run_health"]["skipped_ticks"] == 20 and slow["run_health"]["calls"] == 10
    store = Store(tmp_path / "slow.sqlite")
    calls = store.run_calls(store.runs()[0].id)
    assert [c["t"] for c in calls if c["status"] != "skipped"] == [float(t) for t in range(1, 31, 3)]
    (said,) = store.run_items(store.runs()[0].id)["color_scene#0"]["emissions"]
    assert said["decision_t"] == 10.0 and said["t"] == round(10.0 + calls[9]["latency_s"], 3) and said["t"] > 12.0
    assert fast["table"]["timing_accuracy"] > slow["table"]["timing_accuracy"]
    assert slow["table"]["total"] < fast["table"]["total"]


def test_resume_reuses_the_calls_of_an_unfinished_item(fake_server, tmp_path):
    ids = ("cooking_steps#0",)  # one item of 40 ticks
    store = Store(tmp_path / "db.sqlite")
    spec = RunSpec(benchmark="interactionbench", model=f"openai:scripted@{fake_server.base_url}",
                   data_dir=str(demo_dir("interactionbench")), protocol="sliding", items=ids,
                   backend_options={"retries": 1})
    first = BatchRunner(store, spec)
    first.on_call_progress = lambda p: first.cancel() if p["calls_done"] >= 12 else None
    assert first.run()["status"] == "cancelled"
    kept = [c for c in store.run_calls(first.run_id) if c["status"] == "ok"]
    assert len(kept) == 12 and store.run_items(first.run_id) == {}
    before = fake_server.state()["n"]
    # a different retry count does not change any answer: the same run resumes
    again = BatchRunner(store, RunSpec(**{**spec.__dict__, "backend_options": {"retries": 3, "timeout": 30}}))
    report = again.run()
    assert again.run_id == first.run_id and len(store.runs()) == 1
    assert fake_server.state()["n"] - before == 40 - 12  # only the calls not made yet
    assert report["run_health"]["reused_calls"] == 12 and report["run_health"]["calls"] == 40
    # the same answers as a run that was never interrupted
    whole = BatchRunner(Store(tmp_path / "whole.sqlite"), spec).run()
    assert whole["table"] == report["table"] and whole["per_item"] == report["per_item"]
    # a different protocol option changes answers: a new run
    other = BatchRunner(store, RunSpec(**{**spec.__dict__, "options": {"interval": 2.0}}))
    other.run()
    assert other.run_id != first.run_id
