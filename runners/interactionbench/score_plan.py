"""`score interactionbench`: the reference `ibench eval` spellings resolved, every input read and checked
(dataset rows, preds.jsonl, --items, the answer key, the judge), then a Plan that scores them."""
from __future__ import annotations

import math
import os

from runners import checks
from runners.checks import CliError, usage
from runners.score_checks import Checked, DataView, Plan, dataset, items, prediction_file, usable_judge, verdict_store


def aliases(a) -> None:
    """--mcq-key without a value means <data>/mcq/mcq_key_v4.jsonl (as the reference); --judge-arg cache_dir=…
    with an ensemble judge is --judge-cache-dir."""
    if a.mcq_key == "auto":
        if a.data is None:
            raise usage("without a value needs --data (it means <data>/mcq/mcq_key_v4.jsonl)", "--mcq-key")
        a.mcq_key = os.path.join(a.data, "mcq", "mcq_key_v4.jsonl")
    rest = []
    for pair in a.judge_args or []:
        k, sep, v = pair.partition("=")
        if k.strip() == "cache_dir" and sep and (a.judge or "").strip().lower().startswith("ensemble:"):
            if a.judge_cache_dir is not None and a.judge_cache_dir != v.strip():
                raise usage("given twice (--judge-cache-dir and --judge-arg cache_dir)", "--judge-cache-dir")
            a.judge_cache_dir = v.strip()
        else:
            rest.append(pair)
    a.judge_args = rest


def plan(a, chk: Checked) -> Plan:
    from annotation.interactionbench.loader import scan
    from runners.interactionbench.score_checks import ib_predictions, mcq_key, reference_reads
    from scoring.interactionbench import scorer as ib
    prediction_file(a)
    pre_tol = _tol(a.pre_tol) if a.pre_tol is not None else None
    _settings(a, pre_tol, chk)
    if a.judge_cache_dir is not None:
        checks.input_dir(a.judge_cache_dir, "--judge-cache-dir")
    rows, problems, item_file = scan(a.data)  # one read: the rows to score and every annotation problem
    dataset(DataView(a.benchmark, a.data, problems, item_file), a.skip_invalid,
            a.as_reference and reference_reads(rows), chk)
    if chk.left_out:
        rows = [r for r in rows if ib.ib_rules.item_id(r) not in chk.left_out]
    ids = item_file.keys() - chk.left_out  # the item ids of the rows kept
    split = items(a.items, ids, a.skip_unknown, a.as_reference, chk, allow_empty=a.as_reference) if a.items \
        else None
    preds = ib_predictions(a.preds, rows, ids, a.skip_invalid, a.skip_unknown, a.as_reference, chk)
    if chk.left_out:
        rows = [r for r in rows if ib.ib_rules.item_id(r) not in chk.left_out]
    key = mcq_key(a.mcq_key) if a.mcq_key else None
    given = {"delta": a.delta, "pre_tol": pre_tol, "gate_thresh": a.gate_thresh, "use_gate": a.gate or None,
             "skip_missing": a.skip_missing or None, "fixed": a.fixed or None, "items": split}
    cfg = ib.IBConfig.from_dict({k: v for k, v in given.items() if v is not None})  # unset: paper defaults
    store = verdict_store(a)
    judge = usable_judge(lambda: ib.build_judge(a.judge, a.judge_cache_dir, prompt=a.judge_prompt or "v2",
                                                verdict_cache=store), a.judge)

    def run() -> dict:
        return ib.score(rows, preds, cfg, judge, key, mcq_key_source=a.mcq_key, items_source=a.items)
    return Plan(chk, run)


def _tol(v: str) -> float:
    try:
        t = float(v)  # (float() reads inf, infinity and -inf in any case)
    except ValueError:
        raise usage(f"expected seconds or 'inf', found {v!r}", "--pre-tol") from None
    if math.isnan(t):
        raise usage(f"expected seconds or 'inf', found {v!r}", "--pre-tol")
    return t


# (flag, value the reference computes with without crashing, but outside the range the paper uses)
_ODD = (("--delta", lambda v: not (0 < v < math.inf)), ("--pre-tol", lambda v: v < 0),
        ("--gate-thresh", lambda v: not (0 <= v <= 1)))


def _settings(a, pre_tol, chk: Checked) -> None:
    """--delta, --pre-tol, --gate-thresh: NaN refused (usage); any other number is what the reference computes
    with, those outside the paper's range (delta 0 or inf, a negative tolerance, a threshold outside [0, 1]) with
    a warning. (A delta of 0 stops the reference at the first matched response; that item is then an error.)"""
    for (flag, odd), v in zip(_ODD, (a.delta, pre_tol, a.gate_thresh)):
        if v is None:
            continue
        if math.isnan(v):
            raise usage(f"expected a number, found {v}", flag)
        if odd(v):
            chk.warn("setting outside the paper's range", CliError(f"{v:g} is outside the paper's range; scored as "
                                                                   "the reference scores it", file=flag))
