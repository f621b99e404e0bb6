"""`analysis human_reference compare`: the human run and the systems averaged over the human's items (without and
with the judge), with diagnostics of how the human answered the multiple-choice items (human_first300.json)."""
from __future__ import annotations

import collections
import json
import re
from pathlib import Path

from runners.interactionbench.analysis.common import nonblank_lines, parse_runs, read_jsonl, write_text
from runners.interactionbench.analysis.human_run import human_dir, item_key
from scoring.interactionbench.mcq import LETTERS, LETTER_WINDOW, letter_pattern

SYSTEMS = ["qwen3vl-8b_sliding_win64_iv1_mcqv4_full", "joyai_streaming_4fps_mcqv4",
           "qwen3vl-8b_sliding_offline_iv1_mcqv4_full", "llava-ov2-8b_sliding_iv1_mcqv4_full",
           "mmduet2-3b_streaming_4fps_mcq_MERGED"]
METRICS = ("total_score", "accuracy", "timing_accuracy", "silence_compliance")
MAX_EXAMPLES = 12
# a reply read as a bare option letter: the reference lets up to two words follow the letter ("A cat"); --fixed
# only the letter, optionally in parentheses or with a full stop
BARE = re.compile(r"\s*\(?[A-Fa-f][\.\)]?\s*(.*)?")
BARE_FIXED = re.compile(r"\s*\(?[A-Fa-f][\.\)]?\s*")


def mean3(xs) -> object:
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 3) if xs else None


def means(recs: list[dict]) -> dict:
    return {"n_items": len(recs), **{m: mean3([r.get(m) for r in recs]) for m in METRICS}}


def grouped(recs: dict, field: str) -> dict:
    groups: dict = collections.defaultdict(list)
    for r in recs.values():
        groups[r.get(field)].append(r)
    return {g: means(rs) for g, rs in sorted(groups.items(), key=lambda kv: str(kv[0]))}


def full(recs: dict) -> dict:
    return {"overall": means(list(recs.values())), "by_capability": grouped(recs, "capability"),
            "by_family": grouped(recs, "family")}


def load_records(path, iset: set) -> dict:
    """item id -> record of the human's items (a later line for an item replaces an earlier one in its place)."""
    return {r["item_id"]: r for r in read_jsonl(path) if r["item_id"] in iset}


def mcq_diagnostics(items: list[str], key: dict, preds: dict, fixed: bool) -> dict:
    """How the human answered the keyed items: by a bare letter, by text only, silent, or text in which the option
    scorer's letter pattern fires on a stray letter (with up to 12 examples)."""
    bare_re = BARE_FIXED if fixed else BARE
    mcq_items = [i for i in items if i in key]
    by_letter = by_text = silent = stray = 0
    examples = []
    for i in mcq_items:
        k = key[i]
        n_options = len(k["distractors"]) + 1
        lre = letter_pattern(min(n_options, len(LETTERS)))
        ems = preds[i]["emissions"]
        if not ems:
            silent += 1
            continue
        fired = [lre.search(e["content"][:LETTER_WINDOW]) for e in ems]
        bare = [e["content"] for e, m in zip(ems, fired)
                if m and bare_re.fullmatch(e["content"]) and len(e["content"].split()) <= 3]
        if not any(fired):
            by_text += 1
        elif bare:
            by_letter += 1
        else:
            stray += 1
            if len(examples) < MAX_EXAMPLES:
                examples.append({"item_id": i, "answer": ems[-1]["content"][:80],
                                 "regex_letter": next(m.group(1) for m in fired if m),
                                 "correct": k["correct_letter"], "answer_text": k["answer_text"]})
    return {"n_mcq_items_in_subset": len(mcq_items), "answered_by_bare_letter": by_letter,
            "answered_by_text_only": by_text, "silent_mcq": silent,
            "free_text_where_letter_regex_fires_on_a_stray_letter": stray, "examples_stray_letter": examples}


def cmd_compare(args) -> None:
    human = human_dir(args)
    ev_nj, ev_j = args.eval_name, args.judge_eval_name
    ev_hj = args.human_judge_eval_name or ev_j
    items = [line.strip() for line in nonblank_lines(human / "items.txt")]
    iset = set(items)
    res = {"items_file": str(human / "items.txt"), "n_items": len(items),
           "items_by_capability": dict(collections.Counter(r["capability"]
                                                           for r in read_jsonl(human / ev_nj / "records.jsonl"))),
           "human": {}, "systems": {}}
    res["human"][ev_nj] = full(load_records(human / ev_nj / "records.jsonl", iset))
    res["human"]["summary_json_overall"] = json.loads((human / ev_nj / "summary.json").read_text(encoding="utf-8"))[
        "overall"]
    judged = human / ev_hj / "records.jsonl"
    if judged.exists():
        res["human"][ev_hj] = full(load_records(judged, iset))
    key = {k["item_id"]: k for k in read_jsonl(args.mcq_key)}
    preds = {item_key(p): p for p in read_jsonl(human / "preds.jsonl")}
    missing = [i for i in items if i in key and i not in preds]
    if missing:
        raise ValueError(f"{human / 'preds.jsonl'}: no prediction line for the multiple-choice item {missing[0]} "
                         "of items.txt")
    res["human"]["mcq_diag"] = mcq_diagnostics(items, key, preds, args.fixed)
    for _, s in parse_runs(args.runs, [(r, r) for r in SYSTEMS]):
        res["systems"][s] = {}
        for ev in (ev_j, ev_nj):
            p = Path(args.runs_root) / s / ev / "records.jsonl"
            if p.exists():
                r = load_records(p, iset)
                res["systems"][s][ev] = full(r)
                res["systems"][s][ev]["overall"]["n_missing_in_records"] = len(iset) - len(r)
    out = Path(args.out) / "human_first300.json"
    write_text(out, json.dumps(res, indent=1, ensure_ascii=False))

    def row(name, o):
        return (f'{name:48s} n={o["n_items"]:3d} Total={o["total_score"]} Acc={o["accuracy"]} '
                f'TA={o["timing_accuracy"]} SC={o["silence_compliance"]}')
    print(row("HUMAN nojudge", res["human"][ev_nj]["overall"]))
    for s, evs in res["systems"].items():
        for ev, o in evs.items():
            print(row(f"{s} [{ev[:12]}]", o["overall"]))
    print("MCQ diag", json.dumps(res["human"]["mcq_diag"], ensure_ascii=False)[:1500])
    print("wrote", out)
