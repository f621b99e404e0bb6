"""`analysis human_reference score`: the human run scored with the judge, its multiple-choice items graded by the
same judge against the correct option's text (the participant saw no options), optionally with the unbounded
pre-anchor tolerance (`--pre-tol inf`); written as an evaluation folder (records.jsonl, summary.json)."""
from __future__ import annotations

import sys
from pathlib import Path

from runners.interactionbench.analysis.common import build_judge, id_set, items_by_id, pred_key, read_jsonl, \
    write_evaluation
from scoring.interactionbench import scorer as ib
from scoring.interactionbench.content import ContentCounter, as_judge_fn, item_content

MCQ_SCORING = "judge_vs_option_text"


def option_text_judge(judge_fn, answer_text: str):
    """The judge asked about the correct option's text instead of the annotated reference answer."""
    def grade(question, gt, pred):
        return judge_fn(question, answer_text, pred)
    return grade


def cmd_score(args) -> None:
    pred_fp = Path(args.predictions)
    items_fp = args.items or str(pred_fp.parent / "items.txt")
    out = Path(args.eval_dir) if args.eval_dir else pred_fp.parent / args.eval_name
    judge = build_judge(args.judge, args.judge_prompt)
    print(f"judge: {judge.name} (cache: {args.judge_cache})", file=sys.stderr)
    key = {k["item_id"]: k["answer_text"] for k in read_jsonl(args.mcq_key)}
    cfg = ib.IBConfig(**{k: v for k, v in (("pre_tol", args.pre_tol), ("delta", args.delta)) if v is not None})
    keep = id_set(items_fp)
    items = {iid: it for iid, it in items_by_id(args.data).items() if iid in keep}
    preds = {pred_key(p): p for p in read_jsonl(pred_fp)}

    judge_fn = as_judge_fn(judge)
    records, counter = [], ContentCounter()
    for iid, (row, fam, timed) in items.items():
        p = preds.get(iid) or {"emissions": []}
        if iid in key:
            grade = option_text_judge(judge_fn, key[iid])
            content = item_content(row.get("question") or "", grade, grade, None, False, counter)
        else:
            content = item_content(row.get("question") or "", judge_fn, judge, None, False, counter)
        duration, domain = ib.video_fields(row)
        rec = ib.score_row(row, iid, {"emissions": p.get("emissions") or []}, duration, domain, cfg, content, fam,
                           timed)
        rec["mcq"] = iid in key
        rec["mcq_scoring"] = MCQ_SCORING if iid in key else None
        for k in ("model", "run"):
            if k in p:
                rec[k] = p[k]
        records.append(rec)
    n_mcq = sum(1 for r in records if r["mcq"])
    print(f"scored {len(records)} items ({n_mcq} MCQ judged against option text)", file=sys.stderr)
    misses = int(getattr(judge, "n_missing", 0) or 0)
    if hasattr(judge, "n_missing"):
        print(f"judge cache misses: {judge.n_missing}/{judge.n_calls}", file=sys.stderr)

    agg = ib.aggregate(records)
    agg["variant"] = {"mcq_scoring": MCQ_SCORING, "judge": judge.name, "n_mcq": n_mcq, "n_items": len(records),
                      "pre_tol_s": cfg.pre_tol}
    agg["config"] = {"delta_s": cfg.delta, "gate_thresh": cfg.gate_thresh, "use_gate": cfg.use_gate,
                     "pre_tol_s": cfg.pre_tol, "mcq_key": args.mcq_key, "items": items_fp, "judge": judge.name,
                     "judge_cache_misses": misses}
    write_evaluation(out, agg, records)
    o = agg["overall"]
    print(f"overall n={o['n_items']} total={o['total_score']} acc={o['accuracy']} "
          f"TA={o['timing_accuracy']} SC={o['silence_compliance']}")
    print(f"wrote {out}/records.jsonl and {out}/summary.json")
