"""`python app.py report --ci paper`: the paper's seeded intervals of the total beside ours, over the table's rows
in order. Stored runs carry the per-item total scores of the shared golden bootstrap cases
(golden/analysis/sh_boot_*, made by the unchanged analysis/bootstrap_ci.py); the report must give the numbers of
their expected ci_overall.csv, MISSING rows and a run listed twice included."""
import csv
import json
import shutil
from pathlib import Path

import pytest

from annotation.model import Run
from annotation.store import Store
from app import main
from tests.conftest import golden_dir

IB = "interactionbench"
PAPER = ["total_paper", "total_paper_low", "total_paper_high", "total_paper_n"]


def _case(name: str) -> Path:
    case = golden_dir() / "analysis" / name
    if not case.is_dir():
        raise FileNotFoundError(f"golden case {case} is missing; set IBENCH_GOLDEN_DIR")
    return case


def _expected(case: Path) -> list[list[str]]:
    (csv_path,) = (case / "expected").rglob("ci_*.csv")
    with open(csv_path, newline="") as fh:
        return [row for row in csv.reader(fh)][1:]


def _store_runs(tmp: Path, case: Path) -> tuple[Path, Path]:
    """A store with one finished run per row of the case's run list, in its order: the run's stored report holds
    the case's records.jsonl (its per-item totals, file order) and summary.json; a MISSING row is a run whose
    report holds no records."""
    data = tmp / "data"
    shutil.copytree(case / "input" / "data", data)
    db = tmp / "db.sqlite"
    store = Store(db)
    for k, row in enumerate(_expected(case)):
        name, eval_dir = row[0], row[5].removesuffix(" MISSING")
        folder = case / "input" / eval_dir
        if row[1]:
            records = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines() if x.strip()]
            summary = json.loads((folder / "summary.json").read_text())
        else:
            records, summary = [], {}
        ids = [r["item_id"] for r in records] or [_any_item(data)]  # a run needs an item to be a row
        run = Run(id=f"run_{k:02d}", benchmark=IB, model_spec=f"plugin:golden:{name}", protocol="sliding",
                  data_dir=str(data), config={}, status="done", n_total=len(ids), created=1000.0 + k, finished=2000.0,
                  report={"records": records, "aggregate": summary, "table": {}})
        store.create_run(run)
        for iid in ids:
            store.add_run_item(run.id, iid, {"prediction": {"emissions": []}})
    store.close()
    return db, data


def _any_item(data: Path) -> str:
    from annotation.loaders import load
    return load(IB, data, probe_media=False).items[0].id


@pytest.mark.parametrize("name", ["sh_boot_three_runs", "sh_boot_three_runs_reordered", "sh_boot_single",
                                  "sh_boot_default_paths", "sh_boot_missing_middle"])
def test_report_ci_paper_gives_the_golden_intervals(tmp_path, name, capsys):
    case = _case(name)
    db, data = _store_runs(tmp_path, case)
    out = tmp_path / "report"
    assert main(["report", "--db", str(db), "--benchmark", IB, "--data", f"{IB}={data}", "--out", str(out),
                 "--ci", "paper", "--no-figures", "--resamples", "20"]) == 0
    with open(out / f"{IB}_table.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    got = [[r["key"].split("golden:")[1].split("@")[0]] + [r[c] for c in PAPER] for r in rows]
    # golden: run, n, overall, ci_lo, ci_hi (MISSING: empty)
    want = [[run, overall, lo, hi, n] for run, n, overall, lo, hi, _ in _expected(case)]
    assert got == want
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "total (paper CI)" in md and "seeded 20260923" in md and "ours)" in md


def test_report_ci_ours_has_no_paper_columns(tmp_path):
    db, data = _store_runs(tmp_path, _case("sh_boot_single"))
    out = tmp_path / "report"
    assert main(["report", "--db", str(db), "--benchmark", IB, "--data", f"{IB}={data}", "--out", str(out),
                 "--no-figures", "--resamples", "20"]) == 0
    header = (out / f"{IB}_table.csv").read_text().splitlines()[0]
    assert "total_paper" not in header and "paper CI" not in (out / "report.md").read_text()


def test_report_ci_refuses_other_values(tmp_path, capsys):
    assert main(["report", "--db", str(tmp_path / "db.sqlite"), "--out", str(tmp_path / "r"), "--ci", "both"]) == 2
    assert "--ci" in capsys.readouterr().err and not (tmp_path / "r").exists()
