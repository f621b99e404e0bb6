"""Scoring speed on full-size synthetic sets, against the reference scorers.

InteractionBench end to end: `python app.py score interactionbench` on 1,060 items x 3 emissions, a fresh
process each time, next to the reference's `ibench eval` on the same files, measured in the same run
(alternating, median of 5) with the ratio. The reference lives outside this repository: pass the folder holding
its `interactionbench` package with `--reference-ib DIR` or $IBENCH_REFERENCE_IB (there is no default); get it
with `git clone https://github.com/Espere-1119-Song/InteractionBench` (the clone's root is that folder).
InteractionBench scoring core: scoring + aggregation in-process (reference's published 0.38 s).
OmniInteract: 250 videos, ~1,430 slots, full run from files with an instant judge (reference: 14.6 s).
The numbers themselves are checked by the parity tests, not here."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.interactionbench.loader import load_rows  # noqa: E402
from benchmarks import synthetic  # noqa: E402
from benchmarks.oi_synthetic import _instant, build_synthetic  # noqa: E402
from benchmarks.timing import median_time  # noqa: E402

REF_IB_S = 0.38
REF_OI_S = 14.6
REPO = Path(__file__).resolve().parents[1]
HOW_TO_GET_IB = ("get it with `git clone https://github.com/Espere-1119-Song/InteractionBench` and pass the clone's "
                 "root (the folder holding the interactionbench package) with --reference-ib DIR or "
                 "IBENCH_REFERENCE_IB=DIR")


def reference_ib(argv: list[str]) -> Path:
    """The reference InteractionBench's folder: --reference-ib DIR, else $IBENCH_REFERENCE_IB; none is an error
    saying how to obtain it."""
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reference-ib", default=os.environ.get("IBENCH_REFERENCE_IB"),
                   help="folder holding the reference's interactionbench package (or $IBENCH_REFERENCE_IB)")
    folder = p.parse_args(argv).reference_ib
    if not folder:
        raise SystemExit(f"the reference InteractionBench is not given: {HOW_TO_GET_IB}")
    if not (Path(folder) / "interactionbench" / "cli.py").is_file():
        raise SystemExit(f"no reference InteractionBench at {folder} (expected {folder}/interactionbench/cli.py): "
                         f"{HOW_TO_GET_IB}")
    return Path(folder)


def _wall(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+system) of one child process; CPU time is the steadier figure on a
    loaded machine, wall time what a user waits."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _clean_venv(root: Path) -> str:
    """A venv of this same interpreter: Python's start-up without this machine's site-packages .pth hooks (here
    one imports certifi on every start, ~26 ms, for a sandbox's proxy CA). The installed packages stay importable
    through PYTHONPATH (`_without_hooks`), which puts a folder on sys.path without running its .pth files."""
    import venv
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(root / "clean-venv")
    return str(root / "clean-venv" / "bin" / "python")


def _without_hooks(env: dict) -> dict:
    """`env` with this interpreter's site-packages on PYTHONPATH (after any path already there)."""
    import sysconfig
    paths = [p for p in (env.get("PYTHONPATH"), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])
             if p]
    return {**env, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


def end_to_end_interactionbench(root: Path, reference: Path, repeat: int = 21) -> None:
    """Our CLI and the reference's CLI on the same 1,060-item set, alternating runs with a bare interpreter
    (`python -c pass`: Python's own start-up, which both pay); medians, the ratio, and both above start-up.
    Measured twice in the same run: with this machine's Python as it starts (the figure a user of this machine
    sees), and with the same interpreter and packages from a clean venv (no .pth hooks: start-up as on a fresh
    install)."""
    data, preds = root / "ib", root / "ib_preds.jsonl"
    # bytecode caching on for both, as an installed program has it (the warm-up run writes the .pyc files)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    ref_env = {**env, "PYTHONPATH": str(reference)}
    pythons = {"this machine's python": sys.executable, "clean venv, same packages": _clean_venv(root)}

    def commands(py: str) -> dict[str, tuple[list[str], Path, dict]]:
        fix = (lambda e: e) if py == sys.executable else _without_hooks
        return {
            "ours": ([py, str(REPO / "app.py"), "score", "interactionbench", "--data", str(data),
                      "--preds", str(preds), "--out", str(root / "ours.json")], REPO, fix(env)),
            "ref": ([py, "-c", "import sys; from interactionbench.cli import main; main(sys.argv[1:])",
                     "eval", str(preds), "--data", str(data), "--out", str(root / "ref_out")], reference,
                    fix(ref_env)),
            "bare": ([py, "-c", "pass"], REPO, fix(env)),
        }
    runs = {(label, name): [] for label in pythons for name in ("ours", "ref", "bare")}
    for py in pythons.values():  # warm the caches (.pyc, page cache)
        for cmd, cwd, e in commands(py).values():
            _wall(cmd, cwd, e)
    for _ in range(repeat):
        for label, py in pythons.items():
            for name, (cmd, cwd, e) in commands(py).items():
                runs[(label, name)].append(_wall(cmd, cwd, e))
    our_total = json.loads((root / "ours.json").read_text())["aggregate"]["overall"]["total_score"]
    ref_total = json.loads((root / "ref_out" / "summary.json").read_text())["overall"]["total_score"]
    print(f"interactionbench end to end (CLI, fresh process, 1,060 items x 3 emissions, same run, alternating, "
          f"median of {repeat}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):")
    print(f"  {'':30} {'ours':>8} {'reference':>10} {'ratio':>7} {'python -c pass':>15} "
          f"{'ours above start-up':>20} {'ref above start-up':>19} {'ratio':>7}")
    for label in pythons:
        for k, kind in ((0, "wall"), (1, "CPU")):
            o, r, b = (statistics.median(x[k] for x in runs[(label, name)]) for name in ("ours", "ref", "bare"))
            print(f"  {label + ', ' + kind:30} {o * 1000:6.0f}ms {r * 1000:8.0f}ms {r / o:6.2f}x {b * 1000:13.0f}ms "
                  f"{(o - b) * 1000:18.0f}ms {(r - b) * 1000:17.0f}ms {(r - b) / max(o - b, 1e-9):6.2f}x")
    print(f"  (reference = `ibench eval` from {reference}; ratio = reference / ours, above 1 means ours is "
          f"faster; overall total_score ours {our_total}, reference {ref_total})")


def reference_core(data: Path, preds: list, reference: Path) -> float:
    """The reference's scoring core on the same rows (score_item per item + aggregate), median of 5."""
    sys.path.insert(0, str(reference))
    try:
        from interactionbench.data import iter_items, load_benchmark
        from interactionbench.metrics import MetricConfig, aggregate, score_item
    finally:
        sys.path.remove(str(reference))
    items = list(iter_items(load_benchmark(data)))
    by_id = {f"{p['video_id']}#{p.get('item_index', 0)}": p for p in preds}

    def run():
        cfg = MetricConfig()
        return aggregate([score_item(it, (by_id.get(it.item_id) or {}).get("emissions") or [], cfg) for it in items])
    t, _ = median_time(run)
    return t


def main(argv: list[str]) -> None:
    from scoring.interactionbench import scorer as ib
    reference = reference_ib(argv)  # before any work
    from scoring.omniinteract import OIConfig, evaluate

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        preds = synthetic.interactionbench(root / "ib")
        (root / "ib_preds.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
        end_to_end_interactionbench(root, reference)
        rows = load_rows(root / "ib")
        t, report = median_time(lambda: ib.score(rows, preds, ib.IBConfig()))
        rt = reference_core(root / "ib", preds, reference)
        print(f"interactionbench scoring core (in-process, score+aggregate): ours median {t * 1000:.1f} ms, "
              f"{len(rows) / t:,.0f} items/s; reference median {rt * 1000:.1f} ms in the same run "
              f"(published {REF_IB_S * 1000:.0f} ms) -> {rt / t:.1f}x (total {report['table']['total']})")
        n_slots = build_synthetic(root / "oi")
        t, result = median_time(lambda: evaluate(root / "oi", root / "oi" / "outputs" / "m", _instant, OIConfig()))
        n = result["summary"]["num_items"]
        print(f"omniinteract: {n} videos, {n_slots} slots, full run median {t * 1000:.1f} ms, {n / t:,.0f} videos/s; "
              f"reference {REF_OI_S:.1f} s -> {REF_OI_S / t:.0f}x faster (IA-QTF1 {result['summary']['IA_QTF1']:.4f})")


if __name__ == "__main__":
    main(sys.argv[1:])
