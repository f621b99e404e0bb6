"""`analysis human_reference reaction-latency` and `shift-a`: the human run's delays (first answer after the question
on A-type question items, matched trigger events) with the shift they give (the IVQA A-type median,
reaction_offset.json), and that shift taken off every A-type answer, never before the question
(preds_shiftedA.jsonl)."""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Callable, Optional

from annotation.interactionbench import rules
from runners.interactionbench.analysis.common import nonblank_lines, write_text
from runners.interactionbench.analysis.human_run import item_key, load_human
from scoring.interactionbench.human_shift import shift_emissions
from scoring.interactionbench.timing import decision_timing

# first emission at or after the question: (label, capabilities, A-type only; the CIR row times the first answer)
QUESTION_ROWS = (("IVQA_A", {"IVQA"}, True), ("IVQA+LVM_A", {"IVQA", "LVM"}, True), ("CIR_B", {"CIR"}, False))
# matched trigger events (no gate, the scorer's default tolerance)
TRIGGER_ROWS: tuple[tuple[str, Callable[[dict], bool]], ...] = (
    ("PTR_INS", lambda r: rules.capability(r) == "PTR" and r.get("interaction_type") == "INS"),
    ("PTR_all", lambda r: rules.capability(r) == "PTR"),
    ("TOA_QA_B", lambda r: rules.capability(r) == "TOA" and r.get("time_type") == "B"),
    ("CST_INS", lambda r: rules.capability(r) == "CST" and r.get("interaction_type") == "INS"),
    ("all_INS", lambda r: r.get("interaction_type") == "INS" and rules.capability(r) not in ("LCG",)),
    ("all_B_C_trigger", lambda r: r.get("time_type") in ("B", "C") and rules.capability(r) not in ("LCG", "BRC")),
)
PRE_TOL = 1.0


def quantiles(xs: list) -> Optional[dict]:
    """n, median, mean, p25 (xs[n//4]), p75 (xs[3n//4]), min, max of the sorted values, rounded to 2; None if empty."""
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return None
    return {"n": n, "median": round(statistics.median(xs), 2), "mean": round(statistics.mean(xs), 2),
            "p25": round(xs[n // 4], 2), "p75": round(xs[(3 * n) // 4], 2), "min": round(xs[0], 2),
            "max": round(xs[-1], 2)}


def question_delays(items: dict, preds: dict, raw: dict, caps: set, a_only: bool, source: str) -> dict:
    """Delay of the first emission at or after the question (stream), of the first typed update (wall clock)."""
    d_stream, d_wall, n_silent, n_pre = [], [], 0, 0
    for iid, (row, _, timed) in items.items():
        if rules.capability(row) not in caps or rules.should_remain_silent(row):
            continue
        if a_only and row.get("time_type") != "A":
            continue
        qt = rules.question_time(row) if a_only else timed[0]["time_s"]
        ems = sorted(preds.get(iid, {}).get("emissions", []), key=lambda e: e["t"])
        post = [e for e in ems if e["t"] >= qt]
        n_pre += len(ems) - len(post)
        if not post:
            n_silent += 1
            continue
        d_stream.append(post[0]["t"] - qt)
        ups = [u for u in _export_item(raw, iid, source)["updates"] if (u.get("answer") or "").strip()]
        if ups and a_only:
            d_wall.append(min(u["wall_ms_since_question"] for u in ups) / 1000.0)
    return {"first_emission_delay_stream_s": quantiles(d_stream), "first_update_wall_s": quantiles(d_wall),
            "silent_items": n_silent, "pre_query_emissions": n_pre}


def _export_item(raw: dict, iid: str, source: str) -> dict:
    """The export's entry of an answered item (the reference stops when there is none, or it has no updates)."""
    if not isinstance(raw.get(iid), dict) or "updates" not in raw[iid]:
        raise ValueError(f"{source} results: no updates of item {iid} of the human run")
    return raw[iid]


def event_times(timed: list[dict]) -> list:
    """The distinct answer times as annotated (coincident answers are one event), sorted."""
    return sorted({a["time_s"]: None for a in timed})


def trigger_delays(items: dict, preds: dict, select: Callable[[dict], bool]) -> dict:
    """Signed delay (emission time - event time) of every matched event, and of each item's first event."""
    first, alld, miss, tot = [], [], 0, 0
    for iid, (row, _, timed) in items.items():
        if not select(row) or rules.should_remain_silent(row):
            continue
        gt = event_times(timed)
        ems = sorted((e for e in preds.get(iid, {}).get("emissions", []) if (e.get("content") or "").strip()),
                     key=lambda e: e["t"])
        tm = decision_timing([float(t) for t in gt], [(float(e["t"]), e["content"]) for e in ems], PRE_TOL)
        ds = {n: ems[m]["t"] - gt[n] for n, m in enumerate(tm.match) if m is not None}
        tot += len(gt)
        miss += len(gt) - len(ds)
        alld += list(ds.values())
        if 0 in ds:
            first.append(ds[0])
    return {"first_event_matched_delay_s": quantiles(first), "all_matched_event_delay_s": quantiles(alld),
            "events": tot, "missed_events": miss}


def cmd_reaction_latency(args) -> None:
    h, preds, keep, items = load_human(args)
    source = str(args.raw or h / "human_raw.json")
    raw = json.loads(Path(source).read_text(encoding="utf-8"))["results"]
    print("items in benchmark:", len(items), "of", len(keep))
    res = {label: question_delays(items, preds, raw, caps, a_only, source) for label, caps, a_only in QUESTION_ROWS}
    res.update({label: trigger_delays(items, preds, select) for label, select in TRIGGER_ROWS})
    first = res["IVQA_A"]["first_emission_delay_stream_s"]
    if first is None:
        raise ValueError(f"{h}: no answered A-type IVQA item, so no shift can be measured")
    res["shift_s_used"] = first["median"]
    text = json.dumps(res, indent=1, ensure_ascii=False)
    print(text)
    out = Path(args.out) / "reaction_offset.json"
    write_text(out, text)
    print("wrote", out)


def cmd_shift_a(args) -> None:
    h, _, keep, items = load_human(args)
    if args.shift is not None:
        shift = args.shift
    else:
        fp = args.reaction_offset or f"{args.out}/reaction_offset.json"
        shift = json.loads(Path(fp).read_text(encoding="utf-8"))["shift_s_used"]
    lines, n_a = [], 0
    for line in nonblank_lines(h / args.preds_name):
        p = json.loads(line)
        it = items.get(item_key(p))
        if it is not None and it[0].get("time_type") == "A":
            n_a += 1
            p["emissions"] = shift_emissions(p["emissions"], shift, rules.question_time(it[0]))
            p["shift_s"] = shift
        p["run"] = f"{args.human_run}_shiftedA"
        lines.append(json.dumps(p, ensure_ascii=False))
    write_text(h / "preds_shiftedA.jsonl", "\n".join(lines) + "\n")
    print("A-type items shifted:", n_a, "shift", shift)
