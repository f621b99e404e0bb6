"""`analysis bootstrap_ci`: the paper's 95% intervals of each run's mean item total (reference
`analysis/bootstrap_ci.py`): one seeded random stream shared by the runs in list order
(scoring.interactionbench.paper_bootstrap), written to <out>/ci_overall.csv; a run without records is a MISSING row."""
from __future__ import annotations

import json
import os

from runners.interactionbench.analysis.common import (EVAL_JUDGE, add_common_args, add_fixed, parse_runs, parser,
                                                      resolve_common, write_text)
from scoring.interactionbench.paper_bootstrap import paper_intervals


def run_list(args) -> list[dict]:
    """[{run, dir}]: the JSON list file given, else run names (or a file of them) under <runs_root>/<run>/<eval>."""
    if len(args.runs) == 1 and args.runs[0].endswith(".json") and os.path.isfile(args.runs[0]):
        with open(args.runs[0], encoding="utf-8") as fh:
            return json.load(fh)
    return [{"run": run, "dir": os.path.join(args.runs_root, run, args.eval_name)}
            for _, run in parse_runs(args.runs, [])]


def read_scores(path: str, fixed: bool) -> list[float]:
    """The non-null total_score of every record line (the reference reads every line, a blank one included)."""
    xs = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if fixed and not line.strip():
                continue
            try:
                x = json.loads(line).get("total_score")
            except (json.JSONDecodeError, AttributeError):
                raise ValueError(f"{path}:{n}: expected a JSON record object") from None
            if x is not None:
                xs.append(float(x))
    return xs


def main(argv: list[str]) -> int:
    ap = parser("bootstrap_ci", __doc__)
    add_common_args(ap)
    ap.add_argument("--runs", nargs="+", required=True,
                    help="run names, a file with one name per line, or a JSON file with a list of {run, dir} objects")
    ap.add_argument("--eval-name", default=EVAL_JUDGE, help="evaluation folder name (default: %(default)s)")
    ap.add_argument("--out-file", default=None, help="output CSV (default <out>/ci_overall.csv)")
    add_fixed(ap)
    args = ap.parse_args(argv)
    resolve_common(args)
    runs = run_list(args)
    target = args.out_file or f"{args.out}/ci_overall.csv"
    if not os.path.isdir(os.path.dirname(target) or "."):  # the reference opens it before reading any run
        raise ValueError(f"--out-file {target}: its folder does not exist")
    samples: list = []
    failure = None
    for r in runs:  # read in list order; the reference writes the rows before a failing run, then stops
        f = os.path.join(r["dir"], "records.jsonl")
        if not os.path.exists(f):
            samples.append(None)
            continue
        try:
            xs = read_scores(f, args.fixed)
        except ValueError as exc:
            failure = exc
            break
        if not xs and not args.fixed:
            failure = ValueError(f"{f}: no record has a total_score (the reference divides by zero here)")
            break
        samples.append(xs or None)
    rows = ["run,n,overall,ci_lo,ci_hi,dir\n"]
    for r, xs, ci in zip(runs, samples, paper_intervals(samples)):
        if ci is None:
            rows.append("%s,,,,,%s MISSING\n" % (r["run"], r["dir"]))
            continue
        mean, lo, hi = ci
        rows.append("%s,%d,%.2f,%.2f,%.2f,%s\n" % (r["run"], len(xs), mean, lo, hi, r["dir"]))
        print(r["run"], len(xs), round(mean, 2), round(lo, 2), round(hi, 2), flush=True)
    write_text(target, "".join(rows))
    if failure is not None:
        raise failure
    return 0
