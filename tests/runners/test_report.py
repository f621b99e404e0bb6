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
    from runners.report import item_lanes, timeline_figure
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


def test_min_n_is_configurable(demo_store, tmp_path):
    db, ids = demo_store
    out = tmp_path / "r"
    from runners.cli import main
    assert main(["report", "--db", str(db), "--out", str(out), "--benchmark", "interactionbench", "--no-figures",
                 "--resamples", "100", "--min-n", "3"]) == 0
    human = {r["key"]: r for r in _rows(out / "interactionbench_table.csv")}["human:alice"]
    assert human["total_n"] == "4" and human["total_note"] == "" and human["total_low"] != ""
    ranks = _rows(out / "interactionbench_ranks.csv")
    assert len(ranks) == 2 and all(r["n_items"] == "4" for r in ranks)


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
    assert main(["report", "--db", str(empty), "--out", str(tmp_path / "o3"), "--min-n", "0"]) == 2  # usage error
    assert not (tmp_path / "o3").exists()
    assert main(["report", "--db", str(empty), "--out", str(tmp_path / "o2"), "--benchmark", "interactscope"]) == 0
    assert "No human sessions or model runs" in (tmp_path / "o2" / "report.md").read_text()


def test_every_verdict_has_a_colour():
    from runners.report import LABEL_COLORS
    from annotation import registry
    from scoring.classify import labels
    missing = [(b, lab) for b in registry.names() for lab in labels(b) if lab not in LABEL_COLORS]
    assert not missing
    # credited verdicts share one colour, penalised ones another
    assert len({LABEL_COLORS[k] for k in ("matched", "in_window", "correct", "core", "hit")}) == 1
    assert LABEL_COLORS["spurious"] == LABEL_COLORS["unmatched"] == LABEL_COLORS["wrong"] != LABEL_COLORS["matched"]


# ---------------------------------------------------------------- golden: report figures = the reference's

from tests.golden_cases import case_id, load_cases, oi_verdicts_file, write_ib_case, write_oi_case  # noqa: E402


def _golden(bench: str) -> list[tuple[str, dict]]:
    """(id, case) for every case of every `*cases.json` of a benchmark (cases, fuzz cases, any added later)."""
    return [(case_id(stem, c), c) for stem, c in load_cases(bench)]


IB_GOLDEN = _golden("interactionbench")
OI_GOLDEN = _golden("omniinteract")
PB_GOLDEN = [(i, c) for i, c in _golden("proactivebench") if c["level"] in ("item", "subtask")]
IS_GOLDEN = [(i, c) for i, c in _golden("interactscope") if c["level"] in ("target", "task", "t8")]


def _params(cases):
    return pytest.mark.parametrize("case", [c for _, c in cases], ids=[i for i, _ in cases])


def _report_points(bench: str, report: dict) -> tuple[dict, dict]:
    """The report's point estimates for a scorer report: paper columns and breakdown groups."""
    from runners.report import figures
    _, cols, groups = figures(bench, report, n_resamples=40, seed=0)
    return ({c: iv.point for c, iv in cols.items()},
            {(dim, g): iv.point for dim, entries in groups.items() for g, iv in entries})


def _near(got, want, tol=1e-9) -> bool:
    return (got is None and want is None) or (got is not None and want is not None and abs(got - want) <= tol)


def _ib_figures(report: dict) -> dict:
    """What a paper table and its breakdowns say, read off an InteractionBench report (ours or the reference's)."""
    agg = report["aggregate"]
    out = {col: agg["overall"].get(fld) for col, fld in (
        ("total", "total_score"), ("accuracy", "accuracy"), ("timing_accuracy", "timing_accuracy"),
        ("silence_compliance", "silence_compliance"))}
    out.update({(dim, g): row.get("total_score") for dim in ("capability_group", "time_type", "family")
                for g, row in agg[f"by_{dim}"].items()})
    return out


def _oi_figures(report: dict) -> dict:
    """The same for an OmniInteract summary: paper columns, per-category breakdowns, IDS and NCCS."""
    summary = report["summary"]
    pm = summary["paper_metrics"]
    out = {col: (100 * pm["exp_f1"][cat]["IA_QTF1"] if pm["exp_f1"][cat] else None) for col, cat in (
        ("Realtime", "realtime"), ("Proactive", "proactive"), ("Nested", "nested"), ("1Q1A", "one_q1a_global"),
        ("1QnA", "one_qna"), ("All", "all_global"))}
    for dim in ("by_scene_type", "by_question_type", "nested_by_role"):
        out.update({(dim, g): 100 * r["IA_QTF1"] for g, r in (summary.get(dim) or {}).items()})
    intr, nested = pm["exp_interruption"], pm["exp_nested"]
    dim = "interruption and nested chain"
    out.update({(dim, "NOR"): 100 * intr["NOR"], (dim, "PAQ"): 100 * intr["PAQ"], (dim, "CSM-SR"): 100 * intr["CSM_SR"],
                (dim, "CSM-AS (s)"): intr["CSM_AS_seconds"], (dim, "NCCS"): 100 * nested["NCCS"]})
    return out


def _check_figures(bench: str, report: dict, ours: dict, reference: dict) -> None:
    """The report's points are `score`'s own figures, and those are the reference's (a mismatch in the second
    step alone is a scorer parity gap, reported as such)."""
    cols, groups = _report_points(bench, report)
    shown = {**cols, **groups}
    assert set(shown) == set(ours), f"report and score output list other figures: {set(shown) ^ set(ours)}"
    wrong = {k: (shown[k], ours[k]) for k in ours if not _near(shown[k], ours[k])}
    assert not wrong, f"report differs from the score output: {wrong}"
    gap = {k: (ours.get(k, "absent"), reference.get(k, "absent")) for k in set(ours) | set(reference)
           if k not in ours or k not in reference or not _near(ours[k], reference[k])}
    assert not gap, f"score output (and so the report) differs from the reference scorer: {gap}"


@_params(IB_GOLDEN)
def test_report_points_are_the_reference_figures_interactionbench(case, tmp_path):
    """Scored as `score` scores it, from the native files on disk (settings, items file, answer key, stored
    judge verdicts); the report shows the reference's overall and per-group means."""
    from scoring.interactionbench.scorer import IBConfig, evaluate
    paths = write_ib_case(case, tmp_path)
    report = evaluate(paths["data"], paths["preds"], mcq_key_path=paths["mcq_key"], judge_spec=paths["judge_spec"],
                      config=IBConfig.from_dict(case["config"]), items_path=paths["items"],
                      judge_cache_dir=paths["judge_args"].get("cache_dir"))
    _check_figures("interactionbench", report, _ib_figures(report), _ib_figures(case["expected"]))


@_params(OI_GOLDEN)
def test_report_points_are_the_reference_figures_omniinteract(case, tmp_path):
    """Scored as `score omniinteract --judge replay:<verdicts> --reference-args ...` scores it: judge failures
    (API errors on some slots) and non-default settings included, every paper column, the scorer's
    per-category breakdowns, IDS and NCCS are the reference summary's."""
    from runners.omniinteract.judge import transport as oi_transport
    from scoring.omniinteract import OIConfig, evaluate
    outputs = write_oi_case(case, tmp_path)
    report = evaluate(tmp_path, outputs, oi_transport(f"replay:{oi_verdicts_file(case, tmp_path)}"),
                      OIConfig.from_cli_args(case.get("cli_extra_args") or []))
    _check_figures("omniinteract", report, _oi_figures(report), _oi_figures(case["expected"]))


def test_golden_covers_judge_failures_and_non_default_settings():
    """The OmniInteract cases above include what the issue names: judge API errors and non-default flags."""
    assert any(c.get("cli_extra_args") for _, c in OI_GOLDEN)
    assert any("api_error" in stage for _, c in OI_GOLDEN for slots in c["judge_verdicts"].values()
               for stages in slots.values() for stage in stages.values())
    assert any(c["config"] for _, c in IB_GOLDEN) and any(c["judge"] for _, c in IB_GOLDEN)


@_params(PB_GOLDEN)
def test_report_points_are_the_reference_figures_proactivebench(case):
    from scoring.proactivebench import scorer as pb
    pairs = [(case["annotation"], case["prediction"])] if case["level"] == "item" else \
        [(x["annotation"], x["prediction"]) for x in case["items"]]
    items = [{"item_id": f"i{k}", "subtask": case["subtask"], **ann} for k, (ann, _) in enumerate(pairs)]
    report = pb.score(items, {f"i{k}": pred for k, (_, pred) in enumerate(pairs)})
    cols, groups = _report_points("proactivebench", report)
    exp, x = case["expected"], case["subtask"]
    tol = 1e-3  # the file's abs_tol: its figures are written to 3 decimals
    if x == "ES":
        assert _near(cols["ES"], exp["S_ES"], tol)
    elif "accuracy" in exp:
        assert _near(cols[x], exp["accuracy"], tol)
        for out in ("early", "in_window", "missed"):
            assert _near(groups[("outcome", f"{x} {out}")], exp[f"{out}_rate"], tol), out
    else:
        assert cols[x] == (100.0 if exp["correct"] else 0.0)
    assert cols["AVG"] is None  # five subtasks have no items: the paper's AVG is undefined, as `score` says


@_params(IS_GOLDEN)
def test_report_points_are_the_reference_figures_interactscope(case):
    from scoring.interactscope import scorer as isc
    group = [case["interaction"]] if case["level"] == "target" else case["interactions"]
    inters = [{"interaction_id": f"x{k}", **{f: v for f, v in it.items() if f != "responses"}}
              for k, it in enumerate(group)]
    preds = {f"x{k}": {"interaction_id": f"x{k}", "responses": it.get("responses", [])} for k, it in enumerate(group)}
    cols, groups = _report_points("interactscope", isc.score(inters, preds))
    exp = case["expected"]
    if case["level"] == "t8":
        assert _near(cols["T8"], exp["recall"], 1e-3)
        for sub, want in (exp.get("recall_by_subtype") or {}).items():
            assert _near(groups[("t8_subtype", f"T8-{sub}")], want, 1e-3), sub
    else:
        assert _near(cols[case["task"]], exp["accuracy"], 1e-3)


def test_a_runs_own_report_is_what_the_report_shows(tmp_path):
    """A run scored with a judge that failed on one sample and with non-default OmniInteract settings: the
    report's figures are that stored report's (not a second scoring under default settings)."""
    import json as _json

    from runners.evaluate import write_native
    from runners.protocols import DEFAULT_FOR_BENCHMARK
    from runners.report import write_report
    from scoring.omniinteract import JudgeTransportError, OIConfig, evaluate
    from scoring.omniinteract.judge import dry_run_transport

    db = tmp_path / "oi.sqlite"
    store = Store(db)
    ds = load("omniinteract", None, probe_media=False)
    run = BatchRunner(store, RunSpec(benchmark="omniinteract", model="baseline:periodic:2", data_dir=str(demo_dir("omniinteract")),
                                     protocol=DEFAULT_FOR_BENCHMARK["omniinteract"])).run()
    rid = run["run"]["id"]
    failing = ds.items[1].id

    def judge(stage, sample_id, slot_id, system_prompt, user_prompt):
        if sample_id == failing:
            raise JudgeTransportError("HTTP 500")
        if stage == "core":
            return '{"score": 0.9, "trigger_phrase": "", "spoiler": false, "rationale": "ok"}'
        return dry_run_transport(stage, sample_id, slot_id, system_prompt, user_prompt)

    preds = {iid: r["prediction"] for iid, r in store.run_items(rid).items()}
    summary = write_native("omniinteract", ds, preds, tmp_path / "outputs", model="m")
    config = OIConfig.from_cli_args(["--no_unmatched_fp", "--w_ack", "0.3", "--decay_gamma", "2"])
    judged = _json.loads(_json.dumps(evaluate(ds.root, summary.parent, judge, config)))
    assert any(s["status"] != "ok" for s in judged["samples"] if s["item_kind"] == "summarized")
    judged["run"] = run["run"]
    store.update_run(rid, report=judged)
    store.close()
    write_report(Store(db), {"omniinteract": ds}, tmp_path / "rep", n_resamples=50, figures=False)
    row = _rows(tmp_path / "rep" / "omniinteract_table.csv")[0]
    assert row["key"] == f"model:baseline:periodic:2@{rid}" and row["source"] == "the run's own report"
    pm = judged["summary"]["paper_metrics"]["exp_f1"]
    for col, cat in (("All", "all_global"), ("1Q1A", "one_q1a_global"), ("1QnA", "one_qna")):
        assert float(row[col]) == round(100 * pm[cat]["IA_QTF1"], 4), col
    # a second scoring under default settings would have shown another figure
    assert float(row["All"]) > 0 and round(100 * run["summary"]["paper_metrics"]["exp_f1"]["all_global"]["IA_QTF1"], 4) != float(row["All"])
