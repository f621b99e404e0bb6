"""Mutation testing of the core rules with mutmut: how many deliberate small bugs the suite catches.

Each group (a few source files and the tests that guard them) is copied to a scratch folder with its
own mutmut configuration, so the project tree never gets a `mutants/` folder or a setup.cfg. Prints,
per module, the mutants killed, survived, without a covering test and timed out, and the share killed
(goal: >= 90 %). Survivors judged equivalent are listed in docs/testing.md with the reason.

    python benchmarks/mutation.py                      # every group (slow: tens of minutes on 2 cores)
    python benchmarks/mutation.py --group store        # one group
    python benchmarks/mutation.py --survivors          # also print each survivor's name
    python benchmarks/mutation.py --group ib_aggregate --only 'scoring.interactionbench.aggregate.*'   # one module
Not run in CI."""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL = 0.90

# group -> (files to mutate, tests that guard them)
GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "ib_timing": (["scoring/interactionbench/timing.py", "scoring/interactionbench/refmath.py"],
                  ["tests/scoring/test_ib_timing_rules.py", "tests/scoring/test_interactionbench_units.py",
                   "tests/scoring/test_interactionbench_parity.py"]),
    "ib_aggregate": (["scoring/interactionbench/aggregate.py", "scoring/interactionbench/scorer.py"],
                     ["tests/scoring/test_ib_aggregate_rules.py", "tests/scoring/test_ib_records_rules.py",
                      "tests/scoring/test_interactionbench_units.py",
                      "tests/scoring/test_interactionbench_parity.py",
                      "tests/scoring/test_interactionbench_rules.py"]),
    "oi_matching": (["scoring/omniinteract/matching.py", "scoring/omniinteract/slots.py",
                     "scoring/omniinteract/summary.py"],
                    ["tests/scoring/test_oi_matching_rules.py", "tests/scoring/test_oi_summary_rules.py",
                     "tests/scoring/test_omniinteract_units.py", "tests/scoring/test_omniinteract_parity.py"]),
    "bootstrap": (["scoring/bootstrap.py"] + [f"scoring/{b}/stats.py" for b in
                                              ("interactionbench", "proactivebench", "interactscope", "omniinteract")],
                  ["tests/scoring/test_bootstrap.py", "tests/scoring/test_bootstrap_pinned.py",
                                          "tests/scoring/test_bootstrap_rules.py"]),
    "store": (["annotation/store.py"], ["tests/annotation", "tests/ui/test_session_logic.py"]),
    "session": (["ibench_ui/session.py"], ["tests/ui/test_session_logic.py", "tests/ui/test_session_response_rules.py"]),
    # where people and attackers touch (issue 27): access, verification and agreement, what runs report and export

    "verification": (["annotation/verification.py"], ["tests/annotation/test_verification_rules.py"]),

    "agreement": (["annotation/agreement.py"],
                  ["tests/annotation/test_agreement_rules.py", "tests/annotation/test_agreement.py"]),

    "auth": (["annotation/auth.py", "annotation/throttle.py", "ibench_ui/auth_routes.py"],
             ["tests/annotation/test_auth_rules.py", "tests/annotation/test_throttle_rules.py",
              "tests/ui/test_auth_routes_rules.py", "tests/annotation/test_auth_sessions.py",
              "tests/annotation/test_throttle_csv.py"]),

    "studies": (["annotation/studies.py"], ["tests/annotation/test_studies_rules.py", "tests/security/test_studies.py",
                                            "tests/annotation/test_auth_sessions.py"]),

    "calibration": (["annotation/calibration.py"],
                    ["tests/annotation/test_calibration_rules.py", "tests/runners/test_cli_study.py"]),

    "interchange": (["annotation/interchange.py"],
                    ["tests/annotation/test_interchange_rules.py", "tests/annotation/test_interchange.py"]),

    "roles": (["ibench_ui/guard.py", "ibench_ui/role_table.py", "ibench_ui/tab_access.py"],
              ["tests/ui/test_guard_rules.py"]),  # fast; the whole studio (test_role_table) is ~1 min a mutant

    "media": (["ibench_ui/media_route.py"], ["tests/security/test_media_route_rules.py"]),

    "realtime": (["runners/backends/realtime.py", "runners/realtime_run.py"],
                 ["tests/runners/test_realtime_run_rules.py", "tests/runners/test_realtime_backend_rules.py",
                  "tests/runners/test_realtime_session_rules.py"]),

    "sampling": (["runners/sampling.py", "runners/clock.py"],
                 ["tests/runners/test_sampling_rules.py", "tests/runners/test_clock_rules.py",
                  "tests/runners/test_sampling.py", "tests/runners/test_clock.py"]),

    "run_health": (["runners/run_health.py"], ["tests/runners/test_run_health_rules.py"]),

    "export": (["runners/export.py", "annotation/csv_cells.py"],
               ["tests/runners/test_export_rules.py", "tests/annotation/test_csv_cells_rules.py",
                "tests/runners/test_export.py", "tests/runners/test_export_human_reference.py",
                "tests/annotation/test_throttle_csv.py"]),
}
# mutmut mutates no decorated function (it skips anything but @staticmethod/@classmethod), so the session's
# @_guarded server functions would never be mutated. In the group's scratch copy only, their decorator is
# applied after the class instead (same behaviour: the same guard wraps the same body): group -> (file,
# decorator, methods of SessionService).
UNDECORATE: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "session": ("ibench_ui/session.py", "_guarded", ("respond", "correct", "finish_item")),
}
EQUIVALENTS_DOC = REPO / "docs" / "testing.md"  # its table names each survivor judged equivalent, in backticks
PACKAGES = ["annotation", "scoring", "runners", "ibench_ui", "assets", "app.py", "pytest.ini"]


def _config(files: list[str], tests: list[str]) -> str:
    roots = sorted({f.split("/")[0] for f in files})
    copy = [p for p in PACKAGES if p not in roots]
    lines = ["[mutmut]", "source_paths=" + "\n    ".join(roots), "only_mutate=" + "\n    ".join(files),
             "also_copy=" + "\n    ".join(copy), "pytest_add_cli_args_test_selection=" + "\n    ".join(tests),
             "pytest_add_cli_args=-p no:randomly -p no:cacheprovider -q -x"]
    return "\n".join(lines) + "\n"


def documented_equivalents(path: Path = EQUIVALENTS_DOC) -> set[str]:
    """The mutant names docs/testing.md lists as equivalent (empty when the file is absent)."""
    if not path.is_file():
        return set()
    return set(re.findall(r"`([\w.ǁ]+__mutmut_\d+)`", path.read_text(encoding="utf-8")))


def _scratch_copy(dest: Path) -> None:
    """The tracked and untracked (not ignored) files of the work tree, as they are now."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    for rel in files:
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def _undecorate(scratch: Path, group: str) -> None:
    """Move UNDECORATE's decorators below the class in the scratch copy, so mutmut mutates those methods."""
    if group not in UNDECORATE:
        return
    rel, deco, methods = UNDECORATE[group]
    path = scratch / rel
    text = path.read_text(encoding="utf-8")
    for m in methods:
        pattern = rf"\n    @{deco}\n(    def {m}\()"
        text, n = re.subn(pattern, r"\n\1", text)
        if n != 1:
            raise SystemExit(f"error: {rel}: expected one '@{deco}' method {m!r} to undecorate, found {n}")
        text += f"\nSessionService.{m} = {deco}(SessionService.{m})\n"
    path.write_text(text, encoding="utf-8")


def _module_of(mutant: str) -> str:
    # annotation.store.x_new_id__mutmut_1 -> annotation/store.py ; class methods: annotation.store.xǁStoreǁ...
    mod = re.split(r"\.x[_ǁ]", mutant, maxsplit=1)[0]
    return mod.replace(".", "/") + ".py"


def run_group(name: str, jobs: int, workdir: Path, log: Path,
              only: list[str] | None = None) -> tuple[dict[str, Counter], list[str]]:
    """Mutate one group in its own scratch copy; the status counts per module and the survivors' names."""
    files, tests = GROUPS[name]
    for rel in files + tests:
        if not (REPO / rel).exists():
            raise SystemExit(f"error: {rel}: group {name!r} names a file that does not exist")
    scratch = workdir / name
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    _scratch_copy(scratch)
    _undecorate(scratch, name)
    (scratch / "setup.cfg").write_text(_config(files, tests))
    env = {**os.environ, "IBENCH_GOLDEN_DIR": str(REPO.parent / "shared" / "golden"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with open(log, "a") as fh:
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *(only or [])],
                       cwd=scratch, env=env, stdout=fh, stderr=subprocess.STDOUT)
    out = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=scratch, env=env,
                         capture_output=True, text=True).stdout
    per: dict[str, Counter] = defaultdict(Counter)
    survivors = []
    for line in out.splitlines():
        if ":" not in line:
            continue
        mutant, status = (s.strip() for s in line.rsplit(":", 1))
        if status == "not checked":  # outside --only
            continue
        per[_module_of(mutant)][status] += 1
        if status in ("survived", "no tests"):
            survivors.append(f"{mutant} ({status})")
    return per, survivors


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--group", action="append", choices=sorted(GROUPS), help="default: every group")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--workdir", default=None, help="scratch folder (default: a temporary folder)")
    p.add_argument("--survivors", action="store_true", help="print each surviving mutant's name")
    p.add_argument("--only", action="append", metavar="GLOB",
                   help="mutmut name pattern, e.g. 'scoring.interactionbench.aggregate.*': mutate only one module of a group")
    a = p.parse_args(argv)
    if a.jobs < 1:
        raise SystemExit("error: --jobs: expected a positive count")
    if shutil.which("git") is None:
        raise SystemExit("error: git: needed to list the files to copy")
    if importlib.util.find_spec("mutmut") is None:
        raise SystemExit("error: mutmut: not installed (pip install -r requirements-dev.txt)")
    workdir = Path(a.workdir) if a.workdir else Path(tempfile.mkdtemp(prefix="ibench-mutation-"))
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "mutmut.log"
    rows, survivors = [], []
    equivalents = documented_equivalents()
    t0 = time.perf_counter()
    for name in a.group or sorted(GROUPS):
        per, names = run_group(name, a.jobs, workdir, log, a.only)
        if not per:  # nothing measured is no figure, never a goal met
            raise SystemExit(f"error: group {name!r}: no mutant was measured{' matching --only' if a.only else ''};"
                             f" see {log}")
        survivors += names
        for module, c in sorted(per.items()):
            total = sum(c.values())
            equiv = sum(1 for n in names if n.split(" ")[0] in equivalents and _module_of(n.split(" ")[0]) == module)
            rows.append((name, module, total, c["killed"], c["survived"], c["no tests"], c["timeout"], equiv))
    print(f"{'group':<13} {'module':<36} {'total':>6} {'killed':>7} {'survived':>9} {'no test':>8} "
          f"{'timeout':>8} {'equiv':>6} {'killed %':>9} {'of non-equiv':>13}")
    ok = True
    for name, module, total, killed, survived, none, timeout, equiv in rows:
        share = (killed + timeout) / total if total else 1.0  # a mutant that hangs the suite is caught
        real = (killed + timeout) / (total - equiv) if total > equiv else 1.0
        ok &= real >= GOAL
        print(f"{name:<13} {module:<36} {total:>6} {killed:>7} {survived:>9} {none:>8} {timeout:>8} {equiv:>6} "
              f"{100 * share:>8.1f}% {100 * real:>12.1f}%{'' if real >= GOAL else '  < goal'}")
    print(f"goal {100 * GOAL:.0f} % killed per module (of the mutants not documented as equivalent in "
          f"{EQUIVALENTS_DOC.relative_to(REPO)}): {'met' if ok else 'NOT met'}; "
          f"{time.perf_counter() - t0:.0f} s; log {log}")
    if a.survivors:
        print("\n".join(survivors))
    (workdir / "summary.json").write_text(json.dumps({"rows": rows, "survivors": survivors}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
