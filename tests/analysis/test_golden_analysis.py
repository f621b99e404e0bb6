"""The paper's analysis scripts as drop-ins, against golden cases made by the unchanged reference scripts: the
shared ones (../shared/golden/analysis) and our own (tests/analysis/cases). Each case's input tree is copied to a
scratch folder, every command of cmd.json is run through `python app.py analysis …` as a subprocess, and every
expected file is compared byte for byte, with the exit codes, deleted files and created folders of meta.json."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, golden_dir

OWN = Path(__file__).resolve().parent / "cases"
NOT_COMPARED = {"stdout.txt", "stderr.txt"}


def case_dirs(root: Path) -> list[Path]:
    """The case folders under root (each has cmd.json); a missing or empty root is an error, never a skip."""
    if not root.is_dir():
        raise FileNotFoundError(f"golden folder {root} is missing")
    cases = sorted(p.parent for p in root.glob("*/cmd.json"))
    if not cases:
        raise FileNotFoundError(f"no case (*/cmd.json) under {root}")
    return cases


CASES = [pytest.param(c, id=f"shared:{c.name}") for c in case_dirs(golden_dir() / "analysis")] + \
        [pytest.param(c, id=f"own:{c.name}") for c in case_dirs(OWN)]


def run_case(case: Path, work: Path) -> list[str]:
    """Run the case in `work`; the list of every difference from what the reference did (empty: identical)."""
    shutil.copytree(case / "input", work)
    cmd = json.loads((case / "cmd.json").read_text(encoding="utf-8"))
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    env = {**os.environ, "PYTHONUTF8": "1", "HF_HUB_OFFLINE": "1"}
    problems = []
    for n, argv in enumerate(cmd["commands"]):
        script = Path(argv[0]).stem
        done = subprocess.run([sys.executable, str(REPO / "app.py"), "analysis", script, *argv[1:]], cwd=work,
                              env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != meta["rc"][n]:
            problems.append(f"command {n} {argv}: exit {done.returncode}, reference {meta['rc'][n]}; "
                            f"stderr: {done.stderr.strip()[-500:]}")
    expected = case / "expected"
    for f in sorted(p for p in expected.rglob("*") if p.is_file()):
        rel = f.relative_to(expected)
        if str(rel) in NOT_COMPARED:
            continue
        got = work / rel
        if not got.is_file():
            problems.append(f"{rel}: not written")
        elif got.read_bytes() != f.read_bytes():
            problems.append(f"{rel}: differs from the reference's")
    problems += [f"{rel}: not deleted" for rel in meta.get("deleted_files", []) if (work / rel).exists()]
    problems += [f"{rel}: folder not created" for rel in meta.get("created_dirs", []) if not (work / rel).is_dir()]
    return problems


@pytest.mark.parametrize("case", CASES)
def test_golden_case(case: Path, tmp_path: Path) -> None:
    assert run_case(case, tmp_path / "work") == []
