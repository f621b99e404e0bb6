"""The command line: `python app.py <verb>` (validate, list, score, run, export, report, users)."""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Optional

from annotation.loaders import load
from annotation.model import BENCHMARKS

VERBS: dict[str, Callable[[argparse.ArgumentParser], None]] = {}


def verb(name: str, help: str):
    """Register a sub-command: the decorated function adds its arguments and sets its handler."""
    def wrap(fn):
        VERBS[name] = (help, fn)
        return fn
    return wrap


@verb("validate", "load a dataset, print counts per item kind and every problem; exit 1 on errors")
def _validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BENCHMARKS)
    p.add_argument("path", nargs="?", help="dataset folder (default: the embedded demo)")
    p.add_argument("--no-media", action="store_true", help="skip probing the video files")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")

    def run(a) -> int:
        ds = load(a.benchmark, a.path, probe_media=not a.no_media)
        print(f"{a.benchmark}: {len(ds)} items in {ds.root}")
        for kind, n in ds.kind_counts().items():
            print(f"  {kind}: {n}")
        for prob in ds.problems:
            print(prob)
        n_err = len(ds.errors)
        n_warn = len(ds.problems) - n_err
        print(f"{n_err} error(s), {n_warn} warning(s)")
        return 1 if n_err or (a.strict and n_warn) else 0
    p.set_defaults(run=run)


@verb("list", "print the item ids of a dataset, one per line")
def _list(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BENCHMARKS)
    p.add_argument("--data", help="dataset folder (default: the embedded demo)")

    def run(a) -> int:
        ds = load(a.benchmark, a.data, probe_media=False)
        for it in ds.items:
            print(it.id)
        for prob in ds.errors:
            print(prob, file=sys.stderr)
        return 1 if ds.errors else 0
    p.set_defaults(run=run)


@verb("export", "export logged responses, or an annotated dataset (verified subset, or with review edits)")
def _export(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=["responses", "verified", "dataset"],
                   help="responses | verified (the prefix-verified subset, native layout) | dataset (with review edits)")
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store")
    p.add_argument("--format", choices=["jsonl", "native", "csv", "eaf", "vtt"],
                   help="responses: jsonl (default) or native; dataset: native (default), csv, jsonl, eaf or vtt")
    p.add_argument("--out", help="output file or folder")
    p.add_argument("--data", help="dataset folder (default: the session's, or the embedded demo)")
    p.add_argument("--session", help="responses: one session id (default: every session)")
    p.add_argument("--study", help="responses: every participant session of one study, each with its "
                                   "reaction-time calibration (calibration_s)")
    p.add_argument("--calibration-shift", dest="calibration_shift", action="store_true",
                   help="responses: move each participant's times back by their measured reaction time "
                        "(jsonl: t_shifted; native: the predictions that get scored)")
    p.add_argument("--human-reference", action="store_true",
                   help="responses, InteractionBench: apply the paper's human-reference shift to A-type answers")
    p.add_argument("--benchmark", choices=BENCHMARKS, help="verified/dataset: which benchmark")
    p.add_argument("--include-unchecked", action="store_true",
                   help="verified: also keep items nobody has prefix-checked yet (failed ones are always dropped)")
    p.add_argument("--no-edits", action="store_true", help="verified/dataset: ignore review edits")

    def run(a) -> int:
        if a.what == "responses":
            if a.format not in (None, "jsonl", "native"):
                raise ValueError("export responses writes jsonl or native")
            from runners.export import export_responses
            return export_responses(a.db, session=a.session, fmt=a.format or "jsonl", out=a.out, data=a.data,
                                    human_reference=a.human_reference, study=a.study,
                                    calibration_shift=a.calibration_shift)
        from runners.cli_annotation import export_dataset
        return export_dataset(a)
    p.set_defaults(run=run)


@verb("run", "evaluate a model on a benchmark in the background; resumes an interrupted run with the same arguments")
def _run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--benchmark", required=True, choices=BENCHMARKS)
    p.add_argument("--model", required=True, help="openai:<model>@<base_url> | hf:<path> | plugin:<module>:<Class> | "
                                                  "baseline:<silent|always|periodic[:N]|motion>")
    p.add_argument("--data", help="dataset folder (default: the embedded demo)")
    p.add_argument("--protocol", help="default: the benchmark's paper protocol")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="protocol option, e.g. interval=1.0 sample_fps=2 max_frames=16 (repeatable)")
    p.add_argument("--backend-option", dest="backend_option", action="append", default=[], metavar="KEY=VALUE",
                   help="model backend option, e.g. api_key_env=OPENAI_API_KEY (the variable's NAME, never the key), "
                        "timeout=60, retries=3, concurrency=4, max_tokens=96, device=cpu, dtype=float32 (repeatable)")
    p.add_argument("--limit", type=int, help="only the first N items")
    p.add_argument("--items", help="file with one item id per line (a split)")
    p.add_argument("--concurrency", type=int, default=1, help="items in flight at once (HTTP backends)")
    p.add_argument("--timing", choices=("decision", "arrival"), default="decision",
                   help="decision: a reply counts at its tick (the published protocol); arrival: at tick + the "
                        "model's latency, ticks that come due during a call are skipped (as live)")
    p.add_argument("--on-error", dest="on_error", choices=("exclude", "silence", "fail"), default="exclude",
                   help="items with failed model calls: exclude (left out and counted), silence (scored as "
                        "silent), fail (no score; resume to retry)")
    p.add_argument("--judge", help="content judge spec for scoring (default: the benchmark's reference judge)")
    p.add_argument("--db", default="ibench.sqlite")
    p.add_argument("--out", help="folder for report.json and the native prediction files")

    def run(a) -> int:
        from runners.run_cmd import run_command
        return run_command(a)
    p.set_defaults(run=run)


@verb("score", "score predictions with a benchmark's scorer; writes JSON and prints the paper table")
def _score(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BENCHMARKS)
    p.add_argument("--data", help="dataset folder (default: the embedded demo)")
    p.add_argument("--preds", help="prediction file (interactionbench preds.jsonl, proactivebench preds.jsonl, "
                                   "interactscope responses.jsonl)")
    p.add_argument("--outputs", help="omniinteract: the model's outputs folder holding batch_summary.json")
    p.add_argument("--judge", help="judge spec: lexical | cache:<glob> | ensemble:<a,b> | openai:<model>@<url> | "
                                   "hf:<path> | semantic")
    p.add_argument("--asr-model", dest="asr_model",
                   help="omniinteract: transcribe each output.wav that has no transcript yet (faster-whisper path)")
    p.add_argument("--judge-cache-dir", dest="judge_cache_dir",
                   help="interactionbench: folder of stored verdict files for ensemble:<slugs> (results/judge_cache)")
    p.add_argument("--reference-args", dest="reference_args",
                   help="omniinteract: the reference scorer's own flags, quoted (e.g. \"--w_ack 0.3 --no_unmatched_fp\")")
    p.add_argument("--mcq-key", dest="mcq_key", help="interactionbench: answer key (mcq_key_v4.jsonl)")
    p.add_argument("--delta", type=float, help="interactionbench: delay at which timing credit reaches 0 (5 s)")
    p.add_argument("--pre-tol", dest="pre_tol", help="interactionbench: tolerance before an event, seconds or inf (1)")
    p.add_argument("--gate", action="store_true", help="interactionbench: content gate (ablation)")
    p.add_argument("--gate-thresh", dest="gate_thresh", type=float, help="interactionbench: gate threshold (0.3)")
    p.add_argument("--skip-missing", dest="skip_missing", action="store_true",
                   help="interactionbench: drop items without a prediction line instead of scoring them silent")
    p.add_argument("--items", help="interactionbench: split file, one item id per line")
    p.add_argument("--model-name", dest="model_name", help="row label in the printed table")
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store where model-judge verdicts are cached")
    p.add_argument("--out", help="write the report here (JSON)")

    def run(a) -> int:
        from runners.score_cmd import score_command
        return score_command(a)
    p.set_defaults(run=run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python app.py", description="ibench-ui: serve the studio (no verb) "
                                     "or run a command")
    sub = parser.add_subparsers(dest="verb", metavar="verb")
    for name, (help_text, add) in VERBS.items():
        add(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except (ValueError, KeyError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
import runners.cli_annotation  # noqa: E402,F401
import runners.cli_report  # noqa: E402,F401
import runners.cli_study  # noqa: E402,F401
