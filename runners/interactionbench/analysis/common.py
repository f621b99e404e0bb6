"""What the paper's analysis scripts share (the reference's `analysis/_common.py`): the common arguments and their
defaults, run lists, the benchmark's items in the reference's order, and one evaluation written as the reference's
evaluator writes it (`records.jsonl` + `summary.json`)."""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Iterable, Optional

from annotation.jsonio import write_text_atomic
from runners.checks import usage

DEFAULT_RUNS_ROOT = "results/runs"
DEFAULT_DATA = "data/interactionbench"
DEFAULT_OUT = "results/analysis"
MCQ_KEY = "mcq/mcq_key_v4.jsonl"
EVAL_NOJUDGE = "eval_nojudge"
EVAL_JUDGE = "eval_judge"
DEFAULT_JUDGE_CACHE = "results/judge_cache/judge_cache.jsonl"
PROG = "python app.py analysis"


class Parser(argparse.ArgumentParser):
    """argparse refusing in the project's one error line (a usage error, exit 2) instead of printing usage. (The
    command line's own parser lives in runners.cli, which library modules do not import.)"""

    def error(self, message: str):
        raise usage(f"{message} (see {self.prog} -h)")


def parser(script: str, description: str) -> Parser:
    """The script's parser."""
    return Parser(prog=f"{PROG} {script}", description=description)


def add_common_args(ap, multi_root: bool = False) -> None:
    """--runs-root (one folder, or several with multi_root), --data, --mcq-key, --out, with the reference defaults."""
    if multi_root:
        ap.add_argument("--runs-root", nargs="+", default=[DEFAULT_RUNS_ROOT],
                        help="one or more folders holding <run_name>/preds.jsonl")
    else:
        ap.add_argument("--runs-root", default=DEFAULT_RUNS_ROOT, help="folder holding <run_name>/preds.jsonl")
    ap.add_argument("--data", default=DEFAULT_DATA, help="benchmark root folder")
    ap.add_argument("--mcq-key", default=None, help=f"multiple-choice answer key (default <data>/{MCQ_KEY})")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output folder (created)")


def add_fixed(ap) -> None:
    """--fixed: opt into the corrections of the reference quirks this script reproduces (docs/analysis.md)."""
    ap.add_argument("--fixed", action="store_true",
                    help="correct the reference quirks of this script (docs/analysis.md); default: reproduce them")


def resolve_common(args) -> None:
    """The defaults that depend on other arguments, and the output folder created (as the reference does, used
    or not)."""
    if getattr(args, "mcq_key", None) is None:
        args.mcq_key = f"{args.data}/{MCQ_KEY}"
    os.makedirs(args.out, exist_ok=True)


def parse_runs(values: Optional[list[str]], default: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """[(label, run name)] from entries, or from the one file named (one entry a line, blank lines skipped). An
    entry is `run`, `label<TAB>run` or `label=run` (split at the last '='), both parts stripped."""
    if not values:
        return list(default)
    if len(values) == 1 and os.path.isfile(values[0]):
        text = Path(values[0]).read_text(encoding="utf-8")
        values = [line for line in text.splitlines() if line.strip()]
    out = []
    for v in values:
        if "\t" in v:
            label, run = v.split("\t", 1)
        elif "=" in v:
            label, run = v.rsplit("=", 1)
        else:
            label, run = v, v
        out.append((label.strip(), run.strip()))
    return out


def nonblank_lines(path) -> list[str]:
    """The lines of a text file that are not blank (as the reference reads JSONL and id lists)."""
    return [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def read_jsonl(path) -> list[Any]:
    """Every value of a JSONL file, blank lines skipped; a bad line is refused naming file and line."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
    return out


def id_set(path) -> set[str]:
    """The item ids of an id list (items.txt, a split file), stripped."""
    return {line.strip() for line in nonblank_lines(path)}


def pred_key(p: dict) -> str:
    """The item id a prediction line names, as the reference builds it (item_index as written, missing -> 0)."""
    return f"{p['video_id']}#{p.get('item_index', 0)}"


def items_by_id(data: str) -> dict[str, tuple[dict, str, list[dict]]]:
    """item id -> (row, family, timed answers) of the scoreable items, in the reference's order (a repeated id
    keeps the later row in the earlier place); a missing data folder has none."""
    from annotation.interactionbench.rules import item_id
    from scoring.interactionbench.scorer import unique_valid_rows
    rows = _rows(data)
    return {iid: (row, fam, timed) for row, iid, fam, timed in unique_valid_rows(rows, [item_id(r) for r in rows])}


def write_text(path, text: str) -> None:
    """Write a whole output file at once (atomically), its parent folder existing or created."""
    write_text_atomic(Path(path), text)


def write_lines(path, lines: Iterable[str]) -> None:
    """Write the lines of a file as they are produced; when producing one fails, the file holds the lines before it
    (what the reference's open file keeps when it stops) and the failure is raised."""
    done: list[str] = []
    try:
        for line in lines:
            done.append(line)
    finally:
        write_text(path, "".join(done))


def write_evaluation(out_dir, summary: dict, records: list[dict]) -> None:
    """An evaluation folder as the reference evaluator writes it: records.jsonl (one compact line each, non-ASCII
    kept) and summary.json (two-space indent, no final newline)."""
    out = Path(out_dir)
    write_text(out / "records.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    write_text(out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False))


def build_judge(spec: Optional[str], prompt: str = "v2", cache_dir: Optional[str] = None):
    """The judge of a reference spec (stored verdicts `cache:`/`ensemble:`, or a model judge); None without one."""
    from scoring.interactionbench.scorer import build_judge as build
    if not spec:
        return None
    judge = build(spec, cache_dir, prompt=prompt)
    if judge is None:
        raise ValueError(f"--judge {spec}: not a judge spec (expected cache:<files>, ensemble:<slugs> or a model "
                         "judge)")
    return judge


def evaluate_run(predictions: str, data: str, mcq_key: Optional[str], out_dir: str, *, items: Optional[str] = None,
                 pre_tol: Optional[float] = None, delta: Optional[float] = None, judge: Optional[str] = None,
                 judge_prompt: str = "v2", judge_cache_dir: Optional[str] = None) -> dict:
    """One evaluation of a predictions file, as the reference's library evaluator makes and writes it (the project's
    scorer; the reference's config block); returns its summary."""
    from scoring.interactionbench import scorer as ib
    from scoring.interactionbench.mcq import read_key_file
    given = {"delta": delta, "pre_tol": pre_tol}
    cfg = ib.IBConfig(**{k: v for k, v in given.items() if v is not None})
    if items:
        cfg = cfg._replace(items=ib.read_split(items))
    rows = _rows(data)
    preds = ib.read_predictions(predictions)
    key = read_key_file(mcq_key) if mcq_key else None
    j = build_judge(judge, judge_prompt, judge_cache_dir)
    report = ib.score(rows, preds, cfg, j, key)
    summary = report["aggregate"]
    summary["config"] = {
        "delta_s": cfg.delta, "gate_thresh": cfg.gate_thresh, "use_gate": cfg.use_gate, "pre_tol_s": cfg.pre_tol,
        "mcq_key": mcq_key, "items": items, "judge": j.name if j is not None else None,
        "judge_prompt": judge_prompt if j is not None else None,
        "judge_cache_misses": int(getattr(j, "n_missing", 0) or 0) if j is not None else 0,
    }
    write_evaluation(out_dir, summary, report["records"])
    return summary


def _rows(data: str) -> list[dict]:
    """The native item rows of a data folder (none when it does not exist, as the reference finds none)."""
    from annotation.interactionbench.loader import load_rows
    return load_rows(data) if os.path.isdir(data) else []
