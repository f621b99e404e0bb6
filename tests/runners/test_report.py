"""`python app.py report` on the demo after a human session and a baseline run: tables with intervals (none
below the minimum n), human - model differences, ranks, leaderboard and timeline figures, all with the
expected rows; and on every golden case the report's point estimates are the reference's figures."""
from __future__ import annotations

import csv
import subprocess
import sys
import time
from pathlib import Path

import pytest

from annotation.loaders import demo_dir, load
from annotation.model import Response
from annotation.store import Store
from runners.batch import BatchRunner, RunSpec

REPO = Path(__file__).resolve().parents[2]
HUMAN_ITEMS = ("ball_counter#0", "ball_counter#1", "color_scene#0", "moving_square#1")
MODELS = {"interactionbench": "baseline:periodic", "proactivebench": "baseline:periodic:3"}


def populate_demo(db: Path, benchmarks=("interactionbench", "proactivebench")) -> dict:
    """A human session (through Store.create_session/add_response) and a baseline:periodic run (through
    BatchRunner) per benchmark; returns {benchmark: (session id, run id)}."""
    store = Store(db)
    out = {}
    for bench in benchmarks:
        ds = load(bench, None, probe_media=False)
        ids = list(HUMAN_ITEMS) if bench == "interactionbench" else [it.id for it in ds.items[:3]]
        s = store.create_session("alice", bench, ids, data_dir=str(demo_dir(bench)))
        for iid in ids:
            it = ds.get(iid)
            anchor = next((t.anchor for t in it.targets if t.anchor is not None), 5.0)
            if bench == "proactivebench":
                anchor -= 1.0  # second k covers media [k-1, k)
            # one too early, one on time, one repeat
            for dt, text in ((-3.0, "is it there?"), (0.4, "there it is, 3"), (2.0, "still there")):
                store.add_response(Response(id="", item_id=iid, benchmark=bench, responder="human:alice",
                                            session_id=s.id, t=max(0.0, anchor + dt), kind="text", text=text,
                                            wall_time=time.time()))
        store.set_session_progress(s.id, len(ids), "done")
        model = MODELS[bench]
        from runners.protocols import DEFAULT_FOR_BENCHMARK
        report = BatchRunner(store, RunSpec(benchmark=bench, model=model, data_dir=str(demo_dir(bench)),
                                            protocol=DEFAULT_FOR_BENCHMARK[bench])).run()
        out[bench] = (s.id, report["run"]["id"])
    store.close()
    return out


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("report") / "ibench.sqlite"
    ids = populate_demo(db)
    return db, ids


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def report_dir(demo_store, tmp_path_factory):
    db, _ = demo_store
    out = tmp_path_factory.mktemp("out") / "report"
    proc = subprocess.run([sys.executable, "app.py", "report", "--db", str(db), "--out", str(out),
                           "--resamples", "300", "--seed", "3"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    return out


def test_tables_hold_human_and_model_rows(demo_store, report_dir):
    db, ids = demo_store
    store = Store(db)
    for bench, (sid, rid) in ids.items():
        rows = _rows(report_dir / f"{bench}_table.csv")
        by_key = {r["key"]: r for r in rows}
        model = MODELS[bench]
        human, run = by_key["human:alice"], by_key[f"model:{model}@{rid}"]
        assert set(by_key) == {"human:alice", f"model:{model}@{rid}"}
        assert human["kind"] == "human" and run["kind"] == "model"
        n_items = len(load(bench, None, probe_media=False).items)
        assert int(run["n_items"]) == n_items
        assert int(human["n_items"]) == (4 if bench == "interactionbench" else 3)
        head = {"interactionbench": "total", "proactivebench": "AVG"}[bench]
        # the model's point estimate is the number its own run report holds, to the last digit written
        stored = store.get_run(rid).report
        want = stored["aggregate"]["overall"]["total_score"] if bench == "interactionbench" else stored["aggregate"]["AVG"]
        assert float(run[head]) == pytest.approx(round(want, 4), abs=1e-12)
        assert run["source"] == "the run's own report"
        # the human answered fewer than 5 items: the figure alone, with n and the reason
        for c in (k[:-5] for k in human if k.endswith("_note")):
            assert human[c + "_low"] == "" and human[c + "_high"] == ""
            if human[c] != "":
                assert human[c + "_note"].startswith(("fewer than 5 items", "no items")), (c, human)
        for r in rows:
            cols = [k for k in r if k.endswith("_low")]
            assert cols
            for c in cols:
                base = c[:-4]
                if r[base] != "" and r[c] != "":
                    assert float(r[c]) - 1e-9 <= float(r[base]) <= float(r[base + "_high"]) + 1e-9
                    assert int(r[base + "_n"]) >= 5
    store.close()


def test_differences_ranks_breakdowns_and_leaderboard(demo_store, report_dir):
    _, ids = demo_store
    diffs = _rows(report_dir / "interactionbench_differences.csv")
    assert {d["column"] for d in diffs} == {"total", "accuracy", "timing_accuracy", "silence_compliance"}
    assert all(d["n_items"] == "4" for d in diffs)
    # 4 shared items: the differences come without an interval, and there is no rank table
    assert all(d["low"] == "" and d["note"] == "fewer than 5 items" for d in diffs if d["difference"] != "")
    assert _rows(report_dir / "interactionbench_ranks.csv") == []
    brk = _rows(report_dir / "interactionbench_breakdown.csv")
    assert {"capability_group", "time_type", "family"} <= {r["dimension"] for r in brk}
    pbk = _rows(report_dir / "proactivebench_breakdown.csv")
    assert {r["dimension"] for r in pbk} == {"outcome"}
    board = _rows(report_dir / "leaderboard.csv")
    assert {(r["name"], r["kind"]) for r in board} == {("human:alice", "human"), ("baseline:periodic", "model"),
                                                       ("baseline:periodic:3", "model")}
    md = (report_dir / "report.md").read_text(encoding="utf-8")
    assert "## interactionbench" in md and "## proactivebench" in md and "human − model" in md
    assert "rank stability" in md and "share 4 item(s), fewer than 5" in md and "## leaderboard" in md
    assert "n=4 (no interval: fewer than 5 items)" in md


def test_figures_for_human_items(report_dir):
    figs = report_dir / "figures"
    for iid in HUMAN_ITEMS:
        stem = "interactionbench__" + iid.replace("#", "_")
        png = figs / f"{stem}.png"
        html = figs / f"{stem}.html"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "plotly" in html.read_text(encoding="utf-8")
    assert (figs / "plotly.min.js").exists()
    assert len(list(figs.glob("proactivebench__*.png"))) == 3


def test_lanes_classify_the_human(demo_store):
    from runners.report import item_lanes, responders, timeline_figure
    db, ids = demo_store
    store = Store(db)
    ds = load("interactionbench", None, probe_media=False)
    sid, rid = ids["interactionbench"]
    lanes = item_lanes(store, ds, "ball_counter#0", ["human:alice", f"model:baseline:periodic@{rid}"])
    assert [ln.responder.kind for ln in lanes] == ["human", "model"]
    assert [v.label for v in lanes[0].verdicts] == ["premature", "matched", "redundant"]
    assert lanes[0].verdicts[1].delay == pytest.approx(0.4, abs=1e-6)
    assert lanes[0].verdicts[1].credit == pytest.approx(1 - 0.4 / 5.0)
    fig = timeline_figure(ds.get("ball_counter#0"), lanes)
    ys = {y for tr in fig.data for y in (tr.y or ())}
    assert {ln.responder.label for ln in lanes} <= ys
    assert any("credit" in h for tr in fig.data if tr.hovertext is not None and not isinstance(tr.hovertext, str)
               for h in tr.hovertext)
    store.close()


def test_report_is_deterministic_for_a_seed(demo_store, tmp_path):
    from runners.report import write_report
    db, _ = demo_store
    store = Store(db)
    dss = {"interactionbench": load("interactionbench", None, probe_media=False)}
    a = write_report(store, dss, tmp_path / "a", n_resamples=150, seed=11, figures=False)
    b = write_report(store, dss, tmp_path / "b", n_resamples=150, seed=11, figures=False)
    c = write_report(store, dss, tmp_path / "c", n_resamples=150, seed=12, figures=False)
    for name in ("interactionbench_table.csv", "interactionbench_differences.csv", "interactionbench_ranks.csv"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    assert (tmp_path / "a" / "interactionbench_table.csv").read_text() != \
        (tmp_path / "c" / "interactionbench_table.csv").read_text()
    assert len(a) == len(b) == len(c)
    store.close()


def test_report_cli_errors(tmp_path):
    from runners.cli import main
    assert main(["report", "--db", str(tmp_path / "missing.sqlite"), "--out", str(tmp_path / "o")]) == 1
    empty = tmp_path / "empty.sqlite"
    Store(empty).close()
    assert main(["report", "--db", str(empty), "--out", str(tmp_path / "o2"), "--benchmark", "interactscope"]) == 0
    assert "No human sessions or model runs" in (tmp_path / "o2" / "report.md").read_text()


def test_every_verdict_has_a_colour():
    from runners.report import LABEL_COLORS
    from scoring.classify import LABELS
    missing = [(b, lab) for b, labs in LABELS.items() for lab in labs if lab not in LABEL_COLORS]
    assert not missing
    # credited verdicts share one colour, penalised ones another
    assert len({LABEL_COLORS[k] for k in ("matched", "in_window", "correct", "core", "hit")}) == 1
    assert LABEL_COLORS["spurious"] == LABEL_COLORS["unmatched"] == LABEL_COLORS["wrong"] != LABEL_COLORS["matched"]
