"""Make our own golden cases for `python app.py analysis …` by running the UNCHANGED reference analysis scripts on
seeded, generated inputs, in the layout of ../shared/golden/analysis (input/, cmd.json, expected/, meta.json).

    python tests/analysis/make_cases.py --reference DIR [--out tests/analysis/cases] [--only NAME]

DIR holds the reference repository's `analysis/` scripts and its `interactionbench` package (a checkout of
Espere-1119-Song/InteractionBench); they are run as subprocesses with PYTHONPATH=DIR and PYTHONUTF8=1. This file
holds no reference code: it writes inputs, runs the scripts and records what they wrote."""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from scoring.judges.stored import verdict_key  # noqa: E402 (the verdict files' published key format)

WORDS = ("red cup blue box door car knife table player goal dog cat green left right open closed jump ball pan "
         "truck light step window chair 苹果 三个").split()
DOMAINS = ("cooking", "sports", "traffic", "厨房")
# (capability, time_type, interaction_type, sub_tag, number of answers)
KINDS = (("IVQA", "A", "QA", None, 1), ("LVM", "A", "QA", None, 1), ("CIR", "A", "QA", None, 1),
         ("CIR", "B", "QA", None, 1), ("PTR", "B", "INS", None, 1), ("PTR", "C", "INS", None, 3),
         ("TOA", "B", "QA", None, 1), ("TOA", "C", "QA", None, 2), ("CST", "C", "INS", "counting", 3),
         ("LCG", "C", "INS", None, 3), ("BRC", "C", "QA", None, 2), ("IVQA", "A", "QA", None, 1))


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def num(rng: random.Random, lo: float, hi: float, ints: bool) -> float:
    """A time in [lo, hi]: an integer now and then (JSON ints travel as ints), else 2-3 decimals."""
    x = rng.uniform(lo, hi)
    return int(x) if ints and rng.random() < 0.3 else round(x, rng.choice((2, 3)))


# ----------------------------------------------------------------------------- dataset

def make_data(rng: random.Random, root: Path, prefix: str, n_videos: int = 4, per_video: int = 7,
              ints: bool = False) -> list[dict]:
    """annotations/<domain>/<video>.json and mcq/mcq_key_v4.jsonl under root; the items as dicts (id, kind, times,
    answers, question, key) for building predictions, exports and verdicts."""
    items, key_rows = [], []
    for v in range(n_videos):
        vid, domain = f"{prefix}_v{v}", DOMAINS[v % len(DOMAINS)]
        dur = float(rng.choice((90, 120, 150, 180)))
        rows = []
        for i in range(per_video):
            cap, tt, it, tag, n_ans = rng.choice(KINDS)
            row = {"capability": cap, "time_type": tt, "interaction_type": it, "range_length": rng.choice(
                ("0-1min", "1-5min", "5-10min")), "sub_tag": tag, "is_negative": False, "auto_number": False,
                "question": words(rng, 3) + "?", "question_time_s": 0.0, "answers": []}
            roll = rng.random()
            if roll < 0.1:  # silence required
                row.update(is_negative=rng.random() < 0.5,
                           answers=[{"time_s": None, "content": "SHOULD_REMAIN_SILENT"}])
            elif roll < 0.14:  # not scoreable: no time type
                row.update(time_type=None, answers=[{"time_s": 10.0, "content": "x"}])
            elif tt == "A":
                qt = num(rng, 25, dur - 15, ints)
                ans = {"time_s": qt, "content": words(rng, rng.randint(1, 3))}
                if rng.random() < 0.4:
                    ans["evidence_time_s"] = round(rng.uniform(1, 20), 1)
                row.update(question_time_s=qt, answers=[ans])
            else:
                row["question_time_s"] = num(rng, 0, 10, ints)
                times = sorted(num(rng, 12, dur - 5, ints) for _ in range(n_ans))
                if n_ans > 1 and rng.random() < 0.2:
                    times[1] = times[0]  # coincident answers: one event
                row["answers"] = [{"time_s": t, "content": (f"count {k + 1}" if tag == "counting" else
                                                            words(rng, rng.randint(1, 3)))}
                                  for k, t in enumerate(times)]
            rows.append(row)
            iid = f"{vid}#{i}"
            scoreable = row["time_type"] in ("A", "B", "C")
            silent = row["is_negative"] or row["answers"][0]["content"] == "SHOULD_REMAIN_SILENT"
            item = {"id": iid, "vid": vid, "idx": i, "row": row, "dur": dur, "scoreable": scoreable,
                    "silent": silent, "key": None}
            if scoreable and not silent and tt in ("A", "B") and rng.random() < 0.45:
                n_opt = rng.choice((3, 4, 4, 5))
                correct = rng.randrange(n_opt)
                text = row["answers"][0]["content"]
                item["key"] = {"item_id": iid, "correct_index": correct, "correct_letter": "ABCDEF"[correct],
                               "answer_text": text, "distractors": [words(rng, 2) for _ in range(n_opt - 1)]}
                key_rows.append(item["key"])
            items.append(item)
        doc = {"video_id": vid, "domain": domain, "duration_s": dur, "items": rows}
        write(root / "annotations" / domain / f"{vid}.json", json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=1))
    write(root / "mcq" / "mcq_key_v4.jsonl", "".join(json.dumps(k) + "\n" for k in key_rows))
    return items


def targets(item: dict) -> list[float]:
    row = item["row"]
    if row["time_type"] == "A":
        return [row["question_time_s"]]
    # a silence-required item has no time: a reply to it lands mid-stream
    return [a["time_s"] for a in row["answers"] if a["time_s"] is not None] or [item["dur"] / 2]


def reply(rng: random.Random, item: dict, good: float) -> str:
    """An answer: right (the reference or, keyed, a letter or the option text), wrong, blank or padded."""
    k = item["key"]
    ref = item["row"]["answers"][0]["content"] if item["row"]["answers"] else ""
    r = rng.random()
    if r < 0.05:
        return rng.choice(("", "   "))
    if k is not None and r < 0.55:
        letter = rng.choice(("ABCDEF"[k["correct_index"]], rng.choice("ABCDE")))
        return rng.choice((letter, f"({letter.lower()})", f"{letter}.", f"{letter} {words(rng, 1)}",
                           f"Answer: {letter}", k["answer_text"], f"a {words(rng, 2)}", words(rng, 4)))
    return ref if rng.random() < good else (f"  {words(rng, 2)} " if rng.random() < 0.2 else words(rng, 2))


def make_preds(rng: random.Random, items: list[dict], model: str, delay: tuple[float, float], chatter: float,
               answer_rate: float, good: float = 0.6, messy: bool = True) -> list[dict]:
    """One preds.jsonl run: emissions near each item's targets (delays, early and repeated replies, silence)."""
    lines = []
    for item in items:
        if rng.random() > answer_rate:
            continue
        ems = []
        if not item["silent"] or rng.random() < 0.3:
            for t in targets(item):
                ems.append({"t": round(max(0.0, t + rng.uniform(*delay)), 3), "content": reply(rng, item, good)})
                while rng.random() < chatter:
                    ems.append({"t": round(max(0.0, t + rng.uniform(-3, 12)), 3), "content": reply(rng, item, good)})
        for e in ems:
            if messy and rng.random() < 0.3:
                e["latency_s"] = round(rng.uniform(0.05, 0.6), 3)
        if messy:
            rng.shuffle(ems)
        line = {"video_id": item["vid"], "item_index": item["idx"], "emissions": ems, "model": model, "run": model}
        if messy and rng.random() < 0.2:
            line["n_polls"] = rng.randint(5, 60)
        lines.append(line)
    if messy and lines:
        lines.append(dict(lines[0], emissions=[]))  # a repeated line: the last one counts
        lines.append({"video_id": "unknown_video", "item_index": 0, "emissions": [{"t": 1.0, "content": "x"}]})
    return lines


def verdicts(rng: random.Random, items: list[dict], runs: list[list[dict]], coverage: float) -> dict[str, float]:
    """Stored verdicts {key: score} for the (question, reference, reply) triples a judge may be asked, each
    stored with probability `coverage` (the rest are misses); ints and floats both."""
    by_id = {it["id"]: it for it in items}
    out = {}
    for lines in runs:
        for line in lines:
            item = by_id.get(f"{line['video_id']}#{line.get('item_index', 0)}")
            if item is None:
                continue
            q = item["row"]["question"]
            refs = {a["content"] for a in item["row"]["answers"] if a["content"]}  # walked sorted: seeded runs repeat
            refs.add("; ".join(a["content"] for a in item["row"]["answers"] if a["content"]))
            if item["key"]:
                refs.add(item["key"]["answer_text"])
            for e in line["emissions"]:
                pred = (e.get("content") or "").strip()
                for ref in sorted(refs):
                    if pred and ref.strip() and rng.random() < coverage:
                        out[verdict_key(q, ref.strip(), pred)] = rng.choice((0, 1, 0.0, 1.0, 1))
    return out


def write_verdicts(path: Path, table: dict) -> None:
    write(path, "".join(json.dumps({"k": k, "s": s}) + "\n" for k, s in table.items()))


def jsonl(path: Path, rows: list) -> None:
    write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def records(rng: random.Random, n: int, nulls: float = 0.1) -> list[dict]:
    """Hand-made records.jsonl rows: total_score as floats, integers and nulls."""
    out = []
    for i in range(n):
        r = rng.random()
        score = None if r < nulls else (rng.randint(0, 100) if r < 0.35 else round(rng.uniform(0, 100), 1))
        out.append({"item_id": f"x{i}#0", "total_score": score, "capability": rng.choice(("IVQA", "PTR"))})
    return out


def summary(rng: random.Random, n: int, odd: bool = False) -> dict:
    o = {"n_items": n, "total_score": round(rng.uniform(5, 60), 3), "accuracy": round(rng.uniform(10, 90), 3),
         "timing_accuracy": round(rng.uniform(0, 80), 3), "silence_compliance": round(rng.uniform(30, 100), 3)}
    if odd:
        k = rng.choice(("accuracy", "timing_accuracy", "silence_compliance"))
        o[k] = rng.choice((None, 50, "n/a", True))
        if rng.random() < 0.3:
            del o["silence_compliance"]
    return {"overall": o, "config": {}}


def export(rng: random.Random, items: list[dict], odd: bool = False) -> dict:
    """The annotation tool's export.json: per item the typed updates with their video and wall times."""
    results = {}
    for item in items:
        if not item["scoreable"] or rng.random() < 0.15:
            continue
        row = item["row"]
        qt = row["question_time_s"]
        ups = []
        for t in (targets(item) if not item["silent"] else []):
            if rng.random() < 0.15:
                continue
            lag = rng.uniform(0.8, 5.5)
            for extra in range(rng.choice((1, 1, 2))):
                vt = round(t + lag + 2 * extra, 3)
                ups.append({"video_time_s": (f"{vt:.2f}" if odd and rng.random() < 0.3 else vt),
                            "wall_ms_since_question": round((vt - qt) * 1000 + rng.uniform(-1500, 600)),
                            "answer": reply(rng, item, 0.7) if not odd else rng.choice(
                                (reply(rng, item, 0.7), f"  {words(rng, 2)}\t", None, "", "🍎 " + words(rng, 1))),
                            "at": f"2025-05-12T09:{rng.randint(10, 59)}:00Z"})
        if rng.random() < 0.15 and not item["silent"]:
            ups.append({"video_time_s": round(max(0.0, qt - 2), 2), "wall_ms_since_question": -2000,
                        "answer": words(rng, 1), "at": None})  # typed before the question
        rng.shuffle(ups)
        entry = {"item_id": item["id"], "video_id": item["vid"], "capability": row["capability"],
                 "time_type": row["time_type"], "interaction_type": row["interaction_type"],
                 "question_time_s": qt, "question": row["question"], "updates": ups}
        if rng.random() < 0.1:
            entry["broken"] = rng.choice((True, 1, "yes"))
        results[item["id"]] = entry
    return {"participant": "P-01", "tool": "stream-annotator 0.4", "n_items": len(results), "results": results}


# ----------------------------------------------------------------------------- running the reference

def snapshot(root: Path) -> tuple[dict[str, bytes], set[str]]:
    files, dirs = {}, set()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_dir():
            dirs.add(rel)
        else:
            files[rel] = p.read_bytes()
    return files, dirs


def record_case(out: Path, reference: Path, name: str, description: str, build, commands: list[list[str]]) -> None:
    """Build the input tree, run the reference commands on a copy, and store the case under out/name."""
    with tempfile.TemporaryDirectory() as tmp:
        inp, work = Path(tmp) / "input", Path(tmp) / "work"
        inp.mkdir()
        build(inp)
        shutil.copytree(inp, work)
        before, dirs_before = snapshot(work)
        env = {**os.environ, "PYTHONPATH": str(reference), "PYTHONUTF8": "1"}
        rcs, stdout, stderr = [], [], []
        for argv in commands:
            done = subprocess.run([sys.executable, str(reference / argv[0]), *argv[1:]], cwd=work, env=env,
                                  capture_output=True, text=True)
            rcs.append(done.returncode)
            stdout.append(done.stdout)
            stderr.append(done.stderr)
        after, dirs_after = snapshot(work)
        case = out / name
        shutil.rmtree(case, ignore_errors=True)
        shutil.copytree(inp, case / "input")
        written = sorted(k for k, v in after.items() if before.get(k) != v)
        for rel in written:
            write_bytes(case / "expected" / rel, after[rel])
        write(case / "expected" / "stdout.txt", "".join(stdout))
        write(case / "expected" / "stderr.txt", "".join(stderr))
        meta = {"rc": rcs, "written_files": written, "deleted_files": sorted(set(before) - set(after)),
                "created_dirs": sorted(dirs_after - dirs_before)}
        write(case / "meta.json", json.dumps(meta, indent=1) + "\n")
        cmd = {"description": description, "cwd": "input/ (every path in the commands is relative to it)",
               "commands": commands, "shell": ["python " + shlex.join(c) for c in commands],
               "env": {"PYTHONPATH": "<the reference package>", "PYTHONUTF8": "1"}}
        write(case / "cmd.json", json.dumps(cmd, indent=1, ensure_ascii=False) + "\n")
        print(f"{name}: rc {rcs}, {len(written)} files written")


def write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


BOOT, RANK, HUMAN, EXPORT = ("analysis/bootstrap_ci.py", "analysis/rank_stability.py", "analysis/human_reference.py",
                             "analysis/export_tables.py")
COMMON = ["--runs-root", "runs", "--data", "data", "--out", "out"]


# ----------------------------------------------------------------------------- the cases

def systems(rng: random.Random, items: list[dict], root: Path, names: list[str]) -> list[list[dict]]:
    """preds.jsonl of several systems of different habits under root/<name>/."""
    habits = [((0.0, 1.5), 0.1, 0.95, 0.8), ((2.0, 7.0), 0.2, 0.9, 0.6), ((-2.5, 3.0), 0.7, 0.95, 0.5),
              ((0.5, 3.0), 0.05, 0.5, 0.7), ((-1.0, 9.0), 0.4, 0.8, 0.4)]
    runs = []
    for n, name in enumerate(names):
        d, ch, ar, good = habits[n % len(habits)]
        lines = make_preds(rng, items, name, d, ch, ar, good)
        jsonl(root / name / "preds.jsonl", lines)
        runs.append(lines)
    return runs


def case_boot(rng):
    def build(inp):
        for n, run in enumerate(("alpha", "beta", "gamma", "delta_run", "eps")):
            if run == "delta_run":
                (inp / "runs" / run / "eval_judge").mkdir(parents=True)  # evaluated elsewhere: no records here
                continue
            jsonl(inp / "runs" / run / "eval_judge" / "records.jsonl", records(rng, rng.randint(3, 40)))
        jsonl(inp / "runs" / "gamma" / "eval_other" / "records.jsonl", records(rng, 12))
        (inp / "out").mkdir()
    return build


def case_chain(rng, human_only=False):
    """Dataset + systems + human export, for the human-reference chain and sweeps."""
    def build(inp):
        items = make_data(rng, inp / "data", "c%d" % rng.randint(100, 999), n_videos=5, per_video=8, ints=True)
        names = ["sys_fast", "sys_slow", "sys_chatty"]
        runs = systems(rng, items, inp / "runs", names)
        human = export(rng, items)
        write(inp / "export.json", json.dumps(human, indent=1, ensure_ascii=False))
        write_verdicts(inp / "judge_cache" / "j_v2.jsonl", verdicts(rng, items, runs, 0.85))
        human_runs = [[{"video_id": k.rsplit("#", 1)[0], "item_index": int(k.rsplit("#", 1)[1]),
                        "emissions": [{"t": 0, "content": (u.get("answer") or "")} for u in r["updates"]]}
                       for k, r in human["results"].items()]]
        write_verdicts(inp / "judge_cache" / "human_v2.jsonl", verdicts(rng, items, human_runs, 0.8))
    return build


CASES = {}


def case(name: str, description: str, commands: list[list[str]], seed: int = 0):
    """Register a case: its inputs come from make_build(random.Random(seed)) (seed 0: one of its own)."""
    def register(make_build):
        CASES[name] = (description, make_build, commands, seed or 2501 + len(CASES))
        return make_build
    return register


case("own_boot_five_runs", "Five runs in one list with a MISSING run (an eval folder without records) in the "
     "middle and a run listed twice; hand-made records with float, integer and null total_score.",
     [[BOOT, "--runs", "alpha", "beta", "delta_run", "gamma", "alpha", "eps", *COMMON]], seed=7)(case_boot)
case("own_boot_five_runs_reordered", "The input of own_boot_five_runs in another order, plus an absent run: "
     "every interval moves with the shared stream.",
     [[BOOT, "--runs", "eps", "gamma", "absent", "alpha", "beta", *COMMON]], seed=7)(case_boot)


@case("own_boot_lists", "Run lists as files: a text file (labels with '=' and TAB, blank lines, a name with "
      "spaces around it) with --eval-name eval_other, then a JSON list of {run, dir} (absolute-looking and "
      "trailing-slash dirs, a missing dir) with --out-file in an existing folder.",
      [[BOOT, "--runs", "lists/runs.txt", "--eval-name", "eval_other", *COMMON],
       [BOOT, "--runs", "lists/runs.json", "--out-file", "out/custom.csv", "--out", "out/unused"]])
def case_boot_lists(rng):
    def build(inp):
        case_boot(rng)(inp)
        write(inp / "lists" / "runs.txt", "first=gamma\n\nsecond\talpha\n   beta   \n\t\nx=y=gamma\nnone_here\n")
        write(inp / "lists" / "runs.json", json.dumps([
            {"run": "g", "dir": "runs/gamma/eval_judge/"}, {"run": "missing", "dir": "runs/nowhere"},
            {"run": "a2", "dir": "runs/alpha/eval_judge"}, {"run": 7, "dir": "runs/eps/eval_judge"}]))
    return build


@case("own_boot_after_sweep", "rank_stability creates the sweep (no judge), then bootstrap_ci reads evaluator "
      "records through a JSON list of sweep folders in list order.",
      [[RANK, "--runs", "sys_fast", "sys_slow", "sys_chatty", *COMMON],
       [BOOT, "--runs", "sweep.json", *COMMON]])
def case_boot_sweep(rng):
    def build(inp):
        case_chain(rng)(inp)
        write(inp / "sweep.json", json.dumps([{"run": f"{r}@{d}", "dir": f"out/delta_sweep/{r}_d{d}"}
                                              for r in ("sys_slow", "sys_fast", "sys_chatty") for d in (2, 5, 10)]))
    return build


@case("own_rank_create_then_reuse", "A sweep created for two runs (pre-tol 0.5), then a second call adds a third "
      "run and reuses the existing evaluations (created and reused in one tree).",
      [[RANK, "--runs", "sys_fast", "sys_slow", "--pre-tol", "0.5", *COMMON],
       [RANK, "--runs", "sys_slow", "sys_chatty", "sys_fast", "--pre-tol", "0.5", *COMMON]])
def case_rank_reuse(rng):
    return case_chain(rng)


@case("own_rank_cache_glob_inf", "--pre-tol inf with a stored-verdict judge given by a glob (misses included), a "
      "run list file with labels, --sweep-dir, and a stale run in the sweep with only some Deltas.",
      [[RANK, "--runs", "runs.txt", "--pre-tol", "inf", "--judge", "cache:judge_cache/j_v*.jsonl",
        "--sweep-dir", "sweep", *COMMON]])
def case_rank_glob(rng):
    def build(inp):
        case_chain(rng)(inp)
        write(inp / "runs.txt", "Fast=sys_fast\nSlow\tsys_slow\nsys_chatty\n")
        write(inp / "sweep" / "stale_d5" / "summary.json", json.dumps(summary(rng, 9)))
        write(inp / "sweep" / "stale_d2" / "summary.json", json.dumps(summary(rng, 9)))
    return build


@case("own_rank_ensemble_subset", "Ensemble judge over three verdict sets (one sharded in two files, a v1 decoy), "
      "an item subset with an unknown id, pre-tol 0 and an explicit answer key path.",
      [[RANK, "--runs", "sys_fast", "sys_slow", "sys_chatty", "--judge", "ensemble:ja,jb,jc",
        "--judge-cache-dir", "jc", "--items", "subset.txt", "--pre-tol", "0", "--mcq-key", "data/mcq/mcq_key_v4.jsonl",
        *COMMON]])
def case_rank_ensemble(rng):
    def build(inp):
        items = make_data(rng, inp / "data", "e%d" % rng.randint(100, 999), n_videos=4, per_video=8)
        runs = systems(rng, items, inp / "runs", ["sys_fast", "sys_slow", "sys_chatty"])
        for slug in ("ja", "jb", "jc"):
            table = verdicts(rng, items, runs, 0.7)
            if slug == "jb":
                half = dict(list(table.items())[: len(table) // 2])
                write_verdicts(inp / "jc" / "jb_v2_part1.jsonl", half)
                write_verdicts(inp / "jc" / "jb_v2_part2.jsonl", {k: v for k, v in table.items() if k not in half})
            else:
                write_verdicts(inp / "jc" / f"{slug}_v2.jsonl", table)
        write_verdicts(inp / "jc" / "ja_v1.jsonl", {k: 1 for k in verdicts(rng, items, runs, 0.9)})
        ids = [it["id"] for it in items if rng.random() < 0.6] + ["nope#3"]
        write(inp / "subset.txt", "\n".join(ids) + "\n\n")
    return build


@case("own_rank_too_few", "Only one run has every Delta: tau over no pair is nan, the ranks cannot move.",
      [[RANK, "--runs", "sys_fast", *COMMON]])
def case_rank_one(rng):
    return case_chain(rng)


@case("own_export_roots", "Three roots with custom evaluation names ('=label' and bare), summaries with null, "
      "integer, string and boolean fields and a missing overall block, run names with underscores and non-ASCII, "
      "--progress-roots over two roots, a custom MCQ glob (same run in two roots: first wins; last row of an item "
      "wins), checks passing so a stale ANOMALY.txt is removed.",
      [[EXPORT, "--runs-root", "rA", "rB", "rC", "--eval-name", "eval_nojudge=No judge", "eval_j=Judge_v2", "eval_z",
        "--final-label", "Judge_v2", "--progress-roots", "rC", "rA", "--mcq-runs-glob", "mc_*", "--out", "exp"]])
def case_export_roots(rng):
    def build(inp):
        for root in ("rA", "rB", "rC"):
            for run in rng.sample(["scripted_never_fire", "qwen3vl-8b_sliding_fps05_iv1_mcqv4_full", "run_α",
                                   "plain", "x_y_z", "mc_agent"], 4):
                d = inp / root / run
                for ev in ("eval_nojudge", "eval_j", "eval_z", "eval_unlisted"):
                    if rng.random() < 0.6:
                        s = summary(rng, rng.randint(5, 50), odd=True)
                        if run == "scripted_never_fire":
                            s["overall"]["total_score"] = 6.52
                        if run.startswith("qwen3vl") and ev == "eval_nojudge":
                            s["overall"]["accuracy"] = 55.5
                        if rng.random() < 0.1:
                            s = {"config": {}}
                        write(d / ev / "summary.json", json.dumps(s))
                if rng.random() < 0.7:
                    write(d / "preds.jsonl", "\n".join("{}" for _ in range(rng.randint(0, 6))) + "\n")
                if run.startswith("mc_"):
                    letters = ("A", "b", "", None, "None", " ")
                    rows = [{"item_id": f"v#{rng.randint(0, 6)}", "letter": rng.choice(letters),
                             "correct": rng.choice(("True", True, False, "False", None))} for _ in range(9)]
                    jsonl(d / "results.jsonl", rows)
        write(inp / "rB" / "mc_other" / "results.jsonl", '{"item_id": "q#1", "letter": "C", "correct": true}\n\n')
        write(inp / "rA" / "notes.txt", "not a run\n")
        write(inp / "exp" / "ANOMALY.txt", "stale\n")
    return build


@case("own_export_never_fire_crash", "Defaults (one root results/runs, the paper's evaluation names): the never-fire "
      "total is off by more than 0.05, so the reference fails while writing its warning, after every table is "
      "written (exit 1, no ANOMALY.txt).",
      [[EXPORT, "--out", "results/export"]])
def case_export_crash(rng):
    def build(inp):
        base = inp / "results" / "runs"
        for run, ev in (("scripted_never_fire", "eval_nojudge"), ("a_run", "eval_qwen_qwen3-14b_v2"),
                        ("a_run", "eval_nojudge"), ("b_run", "eval_final_vdc")):
            s = summary(rng, 20)
            if run == "scripted_never_fire":
                s["overall"]["total_score"] = 7.9
            write(base / run / ev / "summary.json", json.dumps(s))
        jsonl(base / "x_qwenmm_mcqv4" / "results.jsonl", [{"item_id": "i#0", "letter": "A", "correct": "True"}])
        write(base / "a_run" / "preds.jsonl", "{}\n{}\n")
    return build


@case("own_hum_chain", "The whole human-reference chain on a generated export (integer and float times): convert, "
      "reaction-latency, shift-a (measured shift), score of the shifted run with stored verdicts (misses included), "
      "a second score of the unshifted run as eval_nojudge with --pre-tol inf, the systems scored on the human's "
      "items, then compare with a run list given as arguments (labels, an absent system).",
      [[HUMAN, "convert", "export.json", *COMMON],
       [HUMAN, "reaction-latency", "--raw", "export.json", *COMMON],
       [HUMAN, "shift-a", *COMMON],
       [HUMAN, "score", "runs/human_reference/preds_shiftedA.jsonl", "--judge", "cache:judge_cache/human_v2.jsonl",
        "--eval-name", "eval_judge", *COMMON],
       [HUMAN, "score", "runs/human_reference/preds.jsonl", "--judge", "cache:judge_cache/human_v2.jsonl",
        "--eval-name", "eval_nojudge", "--pre-tol", "inf", *COMMON],
       [HUMAN, "score", "runs/sys_fast/preds.jsonl", "--judge", "cache:judge_cache/j_v2.jsonl", "--items",
        "runs/human_reference/items.txt", "--eval-dir", "runs/sys_fast/eval_judge", *COMMON],
       [HUMAN, "score", "runs/sys_slow/preds.jsonl", "--judge", "cache:judge_cache/j_v2.jsonl", "--items",
        "runs/human_reference/items.txt", "--eval-dir", "runs/sys_slow/eval_nojudge", "--delta", "8", *COMMON],
       [HUMAN, "compare", "--runs", "Fast=sys_fast", "sys_slow", "absent_sys", *COMMON]])
def case_hum_chain(rng):
    return case_chain(rng)


@case("own_hum_convert_odd", "convert on an odd export: string and integer video times, padded, blank and null "
      "answers, non-ASCII, broken flags, items unknown to the benchmark; --model and --human-run.",
      [[HUMAN, "convert", "export.json", "--model", "p-07", "--human-run", "p07", *COMMON]])
def case_hum_convert(rng):
    def build(inp):
        items = make_data(rng, inp / "data", "o%d" % rng.randint(100, 999), n_videos=3, per_video=8, ints=True)
        doc = export(rng, items, odd=True)
        doc["results"]["ghost.v#2"] = {"question_time_s": "7", "updates": [
            {"video_time_s": 9, "answer": " B ", "wall_ms_since_question": 2000}]}
        doc["results"]["a b#0"] = {"video_id": "a b", "updates": [{"video_time_s": "1e1", "answer": "x"}]}
        write(inp / "export.json", json.dumps(doc, indent=2, ensure_ascii=False))
    return build


@case("own_hum_shift_offset_file", "shift-a with --reaction-offset naming another file whose shift is an integer, "
      "--preds-name, a custom --human-run, extra emission and line fields kept.",
      [[HUMAN, "shift-a", "--reaction-offset", "offsets/ro.json", "--preds-name", "alt.jsonl", "--human-run", "hx",
        *COMMON]])
def case_hum_shift(rng):
    def build(inp):
        items = make_data(rng, inp / "data", "s%d" % rng.randint(100, 999), n_videos=3, per_video=8, ints=True)
        lines = make_preds(rng, items, "human", (0.5, 4.0), 0.3, 0.9, messy=False)
        for line in lines:
            line["note"] = "kept"
            for e in line["emissions"]:
                if rng.random() < 0.3:
                    e["src"] = "kbd"
        jsonl(inp / "runs" / "hx" / "alt.jsonl", lines)
        write(inp / "runs" / "hx" / "items.txt", "\n".join(it["id"] for it in items if rng.random() < 0.85) + "\n")
        write(inp / "offsets" / "ro.json", json.dumps({"shift_s_used": 3}))
    return build


@case("own_hum_score_ensemble", "score with an ensemble judge from the default cache folder "
      "(results/judge_cache), --judge-prompt v1, --delta 3, --items with an unknown id, --eval-dir, and items "
      "without a prediction line.",
      [[HUMAN, "score", "runs/human_reference/preds.jsonl", "--judge", "ensemble:ja,jb", "--judge-prompt", "v1",
        "--delta", "3", "--items", "some.txt", "--eval-dir", "evals/h", *COMMON]])
def case_hum_score(rng):
    def build(inp):
        items = make_data(rng, inp / "data", "h%d" % rng.randint(100, 999), n_videos=4, per_video=7)
        lines = make_preds(rng, items, "human", (0.5, 4.0), 0.3, 0.8, messy=False)
        for line in lines:
            line["run"] = "human_reference"
        jsonl(inp / "runs" / "human_reference" / "preds.jsonl", lines)
        for slug in ("ja", "jb"):
            write_verdicts(inp / "results" / "judge_cache" / f"{slug}_v1.jsonl", verdicts(rng, items, [lines], 0.75))
        write(inp / "some.txt", "\n".join([it["id"] for it in items if rng.random() < 0.7] + ["zz#9"]) + "\n")
    return build


@case("own_hum_compare_mcq", "compare on hand-written human answers to keyed items (bare letters, '(c)', 'A cat' "
      "read as a bare letter, longer text with a stray letter, text only, silent), the judged evaluation under the "
      "same name as the unjudged one, systems from the default list (two present).",
      [[HUMAN, "compare", "--judge-eval-name", "eval_nojudge", *COMMON]])
def case_hum_compare(rng):
    def build(inp):
        items = make_data(rng, inp / "data", "m%d" % rng.randint(100, 999), n_videos=6, per_video=8)
        keyed = [it for it in items if it["key"]]
        answers = ["B", "(c)", "A cat", "a dog runs", "I think it is the red cup", "blue box", "", "d.", "E dog cat",
                   "the answer is b maybe", "Answer: C"]
        lines = []
        for it in items:
            ems = []
            if it in keyed:
                a = answers[keyed.index(it) % len(answers)]
                ems = [{"t": 30.0 + k, "content": a} for k in range(rng.choice((1, 2)))] if a else []
            lines.append({"video_id": it["vid"], "item_index": it["idx"], "emissions": ems})
        h = inp / "runs" / "human_reference"
        jsonl(h / "preds.jsonl", lines)
        write(h / "items.txt", "\n".join(it["id"] for it in items) + "\n")
        recs = [{"item_id": it["id"], "capability": it["row"]["capability"], "family": rng.choice(
            ("A_retro_qa", "B_trigger", None)), "total_score": rng.choice((None, 0, 50.0, 12.5)),
            "accuracy": rng.choice((None, 100.0, 0.0)), "timing_accuracy": round(rng.uniform(0, 100), 1),
            "silence_compliance": rng.choice((None, 100.0))} for it in items]
        jsonl(h / "eval_nojudge" / "records.jsonl", recs + recs[:2])
        write(h / "eval_nojudge" / "summary.json", json.dumps(summary(rng, len(items))))
        for s in ("joyai_streaming_4fps_mcqv4", "mmduet2-3b_streaming_4fps_mcq_MERGED"):
            jsonl(inp / "runs" / s / "eval_nojudge" / "records.jsonl", rng.sample(recs, len(recs) - 3))
    return build


@case("own_boot_null_run_fails", "A run whose records all have a null total_score after two good runs: the reference "
      "divides by zero there (exit 1) after writing the rows before it.",
      [[BOOT, "--runs", "alpha", "beta", "nulls", "gamma", *COMMON]])
def case_boot_nulls(rng):
    def build(inp):
        case_boot(rng)(inp)
        jsonl(inp / "runs" / "nulls" / "eval_judge" / "records.jsonl", [{"item_id": "n#0", "total_score": None}] * 3)
    return build


@case("own_rank_empty_sweep_fails", "No run list and a sweep where no run has every Delta: the reference writes the "
      "header of kendall.csv and fails on the empty ranking (exit 1).",
      [[RANK, "--sweep-dir", "sw", *COMMON]])
def case_rank_empty(rng):
    def build(inp):
        write(inp / "sw" / "lonely_d5" / "summary.json", json.dumps(summary(rng, 4)))
        write(inp / "sw" / "lonely_d8" / "summary.json", json.dumps(summary(rng, 4)))
    return build


@case("own_rank_null_total_fails", "An existing sweep where one run's total at Delta 8 s is null: the reference "
      "writes kendall.csv up to Delta 5 s and fails ranking the totals at 8 s (exit 1, no per_run.csv).",
      [[RANK, "--sweep-dir", "sw", *COMMON]])
def case_rank_null(rng):
    def build(inp):
        for run in ("r1", "r2", "r3"):
            for d in (2, 3, 5, 8, 10):
                s = summary(rng, 6)
                if run == "r2" and d == 8:
                    s["overall"]["total_score"] = None
                write(inp / "sw" / f"{run}_d{d}" / "summary.json", json.dumps(s))
    return build


@case("own_export_empty_mcq_fails", "An agent multiple-choice run whose results.jsonl holds only blank lines: its "
      "accuracy is none and the reference fails inside mcqv4_agent_table.tex (exit 1), the lines before kept.",
      [[EXPORT, "--runs-root", "runs", "--out", "o", "--mcq-runs-glob", "*_mcq"]])
def case_export_empty_mcq(rng):
    def build(inp):
        jsonl(inp / "runs" / "a_mcq" / "results.jsonl", [{"item_id": "i#0", "letter": "B", "correct": "False"}])
        write(inp / "runs" / "b_mcq" / "results.jsonl", "\n  \n")
        write(inp / "runs" / "c_mcq" / "results.jsonl", '{"item_id": "i#0", "letter": "A", "correct": "True"}\n')
        write(inp / "runs" / "a_mcq" / "eval_nojudge" / "summary.json", json.dumps(summary(rng, 3)))
    return build


@case("own_hum_convert_mismatch", "convert on an export whose entry names another video than its item id: the "
      "reference's assertion fails before anything is written (exit 1; the run folder is created).",
      [[HUMAN, "convert", "bad.json", "--run-dir", "hr", *COMMON]])
def case_hum_mismatch(rng):
    def build(inp):
        write(inp / "bad.json", json.dumps({"results": {"v1#0": {"updates": [{"video_time_s": 2, "answer": "a"}]},
                                                         "v1#1": {"video_id": "v2", "updates": []}}}))
    return build


@case("own_boot_out_file_without_folder", "--out-file in a folder that does not exist: the reference cannot open it "
      "and stops before reading any run (exit 1, nothing written).",
      [[BOOT, "--runs", "alpha", "--out-file", "nowhere/ci.csv", *COMMON]])
def case_boot_no_folder(rng):
    return case_boot(rng)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reference", required=True, type=Path, help="folder with analysis/ and interactionbench/")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "cases")
    ap.add_argument("--only", default=None, help="make only the case of this name")
    a = ap.parse_args()
    for name, (description, make_build, commands, seed) in CASES.items():
        if a.only and name != a.only:
            continue
        record_case(a.out, a.reference.resolve(), name, description, make_build(random.Random(seed)), commands)
    return 0


if __name__ == "__main__":
    sys.exit(main())
