"""`analysis rank_stability`: the system ranking under other delay bounds (reference `analysis/rank_stability.py`).
Creates the missing <sweep>/<run>_d<Delta> evaluations of the listed runs (Delta 2, 3, 5, 8, 10 s), then compares
every complete run's ranking at each Delta with the one at 5 s: Kendall tau of totals and of timing accuracy, the
largest rank shift, whether the top three are the same, the mean total (kendall.csv, per_run.csv)."""
from __future__ import annotations

import glob
import itertools
import json
import os

from runners.interactionbench.analysis.common import (add_common_args, add_fixed, evaluate_run, parse_runs, parser,
                                                      resolve_common, write_lines, write_text)

DELTAS = (2, 3, 5, 8, 10)
BASE_DELTA = 5


def tau(a: list[float], b: list[float]) -> float:
    """Kendall tau-a over the pairs tied in neither list (nan when there are none), as the paper computes it."""
    conc = disc = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        s = (a[i] - a[j]) * (b[i] - b[j])
        if s > 0:
            conc += 1
        elif s < 0:
            disc += 1
    return (conc - disc) / (conc + disc) if conc + disc else float("nan")


def rank(vals: list[float]) -> list[int]:
    """1-based ranks by descending value, ties in list order."""
    rk = [0] * len(vals)
    for pos, i in enumerate(sorted(range(len(vals)), key=lambda i: -vals[i])):
        rk[i] = pos + 1
    return rk


def top3(vals: list[float]) -> set[int]:
    return set(sorted(range(len(vals)), key=lambda i: -vals[i])[:3])


def create_missing(args, sweep: str) -> None:
    """Evaluate every listed run at every Delta that has no summary.json yet (the library evaluator's defaults for
    what is not given)."""
    judge = args.judge or None
    for _, run in parse_runs(args.runs, []):
        for d in DELTAS:
            target = "%s/%s_d%d" % (sweep, run, d)
            if os.path.exists(f"{target}/summary.json"):
                continue
            evaluate_run(f"{args.runs_root}/{run}/preds.jsonl", args.data, args.mcq_key, target, items=args.items,
                         pre_tol=args.pre_tol, delta=float(d), judge=judge, judge_prompt=args.judge_prompt,
                         judge_cache_dir=args.judge_cache_dir if judge and judge.startswith("ensemble:") else None)
            print("scored", target, flush=True)


def sweep_scores(sweep: str) -> tuple[list[str], dict]:
    """The runs that have a _d5 evaluation (sorted) and (run, Delta) -> (total, timing accuracy) of each summary."""
    runs = sorted({os.path.basename(p).rsplit("_d", 1)[0] for p in glob.glob(f"{sweep}/*_d{BASE_DELTA}")})
    score = {}
    for r in runs:
        for d in DELTAS:
            f = "%s/%s_d%d/summary.json" % (sweep, r, d)
            if os.path.exists(f):
                with open(f, encoding="utf-8") as fh:
                    o = json.load(fh)["overall"]
                score[(r, d)] = (o["total_score"], o["timing_accuracy"], o["silence_compliance"])
    return runs, score


HEADER = "delta,n_runs,tau_overall,tau_timing,max_rank_shift,top3_same,mean_overall\n"


def kendall_lines(rs: list[str], score: dict):
    """kendall.csv: per Delta the agreement of the ranking with the one at 5 s (the 5 s ranking made before the
    file is begun, as the reference makes it)."""
    base = [score[(r, BASE_DELTA)][0] for r in rs]
    base_rk, top3_base = rank(base), top3(base)
    ta_base = [score[(r, BASE_DELTA)][1] for r in rs]

    def lines():
        yield HEADER
        for d in DELTAS if rs else ():
            ov = [score[(r, d)][0] for r in rs]
            ta = [score[(r, d)][1] for r in rs]
            shift = max(abs(a - b) for a, b in zip(rank(ov), base_rk))
            yield "%d,%d,%.3f,%.3f,%d,%s,%.2f\n" % (d, len(rs), tau(ov, base), tau(ta, ta_base), shift,
                                                    top3(ov) == top3_base, sum(ov) / len(ov))
    return lines()


def per_run_lines(rs: list[str], score: dict):
    """per_run.csv: every complete run's totals and timing accuracies at each Delta."""
    yield ("run," + ",".join("overall_d%d" % d for d in DELTAS) + "," + ",".join("ta_d%d" % d for d in DELTAS)
           + "\n")
    for r in rs:
        yield (r + "," + ",".join("%.2f" % score[(r, d)][0] for d in DELTAS) + ","
               + ",".join("%.2f" % score[(r, d)][1] for d in DELTAS) + "\n")


def main(argv: list[str]) -> int:
    ap = parser("rank_stability", __doc__)
    add_common_args(ap)
    ap.add_argument("--sweep-dir", default=None,
                    help="folder of <run>_d<Delta>/summary.json (default <out>/delta_sweep)")
    ap.add_argument("--runs", nargs="*", default=None,
                    help="run names, or a file with one name per line, whose missing evaluations are created first")
    ap.add_argument("--items", default=None, help="file of item ids used when evaluations are created")
    ap.add_argument("--pre-tol", type=float, default=None,
                    help="pre-anchor tolerance when evaluations are created ('inf' allowed; default 1.0)")
    ap.add_argument("--judge", default=None,
                    help="judge spec when evaluations are created, e.g. ensemble:qwen_qwen3-14b (default: no judge)")
    ap.add_argument("--judge-cache-dir", default="results/judge_cache", help="stored verdicts of an ensemble judge")
    ap.add_argument("--judge-prompt", default="v2", help="grading prompt version")
    add_fixed(ap)
    args = ap.parse_args(argv)
    resolve_common(args)
    sweep = args.sweep_dir or f"{args.out}/delta_sweep"
    create_missing(args, sweep)

    runs, score = sweep_scores(sweep)
    rs = [r for r in runs if all((r, d) in score for d in DELTAS)]
    kendall = f"{args.out}/kendall.csv"
    if not rs and not args.fixed:
        write_text(kendall, HEADER)
        raise ValueError(f"{sweep}: no run has an evaluation at every Delta {list(DELTAS)} (the reference stops "
                         "after the header of kendall.csv; --fixed writes both tables empty)")
    write_lines(kendall, kendall_lines(rs, score))
    write_lines(f"{args.out}/per_run.csv", per_run_lines(rs, score))
    with open(kendall, encoding="utf-8") as fh:
        print(fh.read())
    return 0
