"""The command line: `python app.py <verb>` (validate, list, score, run, export, report, users)."""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Optional

from runners.cli_errors import USAGE, CliError, DATA, one_line

# the benchmark names (annotation.model.BENCHMARKS, checked equal by tests/cli/test_fast_start.py), spelled here
# so that building a verb's parser does not import the data model
BENCHMARKS = ("interactionbench", "omniinteract", "proactivebench", "interactscope")

VERBS: dict[str, Callable[[argparse.ArgumentParser], None]] = {}
# verbs registered by other modules, imported only when that verb runs (or the full help is built)
ELSEWHERE = {"users": "runners.cli_annotation", "report": "runners.cli_report", "study": "runners.cli_study"}


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
        from annotation.loaders import load
        from runners.checks import input_dir
        if a.path is not None:
            input_dir(a.path, "PATH")
        ds = load(a.benchmark, a.path, probe_media=not a.no_media)
        print(f"{a.benchmark}: {len(ds)} items in {ds.root}")
        for kind, n in ds.kind_counts().items():
            print(f"  {kind}: {n}")
        for prob in ds.problems:
            print(prob)
        n_err = len(ds.errors)
        n_warn = len(ds.problems) - n_err
        print(f"{n_err} error(s), {n_warn} warning(s)")
        if n_err or (a.strict and n_warn):
            raise CliError(f"expected a dataset without {'errors' if n_err else 'warnings (--strict)'}, found "
                           f"{n_err} error(s) and {n_warn} warning(s), listed above", file=str(ds.root))
        return 0
    p.set_defaults(run=run)


@verb("list", "print the item ids of a dataset, one per line")
def _list(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BENCHMARKS)
    p.add_argument("--data", help="dataset folder (default: the embedded demo)")

    def run(a) -> int:
        from annotation.loaders import load
        from runners.checks import input_dir
        from runners.cli_errors import from_problem
        if a.data is not None:
            input_dir(a.data, "--data")
        ds = load(a.benchmark, a.data, probe_media=False)
        for it in ds.items:
            print(it.id)
        if ds.errors:
            err = from_problem(ds.errors[0])
            err.message += f" ({len(ds.errors)} error(s); python app.py validate {a.benchmark} {ds.root})"
            raise err
        return 0
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
                raise CliError(f"expected jsonl or native for export responses, found {a.format}", file="--format",
                               code=USAGE)
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
    p.add_argument("--model", required=True, help="openai:<model>@<base_url> | realtime:<ws url> | hf:<path> | plugin:<module>:<Class> | "
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
    p.add_argument("--out", help="folder for report.json and the native prediction files (its parent must exist)")
    p.add_argument("--skip-invalid", dest="skip_invalid", action="store_true",
                   help="leave out items whose annotation or media has problems (listed and stored in the report) "
                        "instead of refusing")
    p.add_argument("--skip-unknown", dest="skip_unknown", action="store_true",
                   help="ignore --items ids that are not in the data instead of refusing")

    def run(a) -> int:
        from runners.run_cmd import run_command
        return run_command(a)
    p.set_defaults(run=run)


@verb("score", "score predictions with a benchmark's scorer; writes JSON and prints the paper table")
def _score(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", choices=BENCHMARKS)
    p.add_argument("predictions", nargs="?", help="the prediction file (the reference `ibench eval` spelling; "
                                                  "same as --preds)")
    p.add_argument("--data", help="dataset folder (required)")
    p.add_argument("--preds", help="prediction file (interactionbench preds.jsonl, proactivebench preds.jsonl, "
                                   "interactscope responses.jsonl)")
    p.add_argument("--outputs", help="omniinteract: the model's outputs folder holding batch_summary.json")
    p.add_argument("--judge", help="judge spec: lexical | cache:<glob> | ensemble:<a,b> | openai:<model>@<url> | "
                                   "api:<model> (reference spelling) | hf:<path> | semantic | replay:<file.json>")
    p.add_argument("--judge-arg", dest="judge_args", action="append", default=[], metavar="KEY=VALUE",
                   help="api:<model> judges: base_url, api_key_env (a variable NAME), timeout_s, max_retries, "
                        "max_tokens (repeatable; the reference's spelling)")
    p.add_argument("--judge-prompt", dest="judge_prompt", help="interactionbench: grading prompt version v1 or v2 (v2)")
    p.add_argument("--dry-run", dest="dry_run", action="store_true",
                   help="omniinteract: score without a judge, every judged stage neutral / 0 (the reference's dry run)")
    p.add_argument("--asr-model", dest="asr_model",
                   help="omniinteract: transcribe each output.wav that has no transcript yet (faster-whisper path)")
    p.add_argument("--judge-cache-dir", dest="judge_cache_dir",
                   help="interactionbench: folder of stored verdict files for ensemble:<slugs> (results/judge_cache)")
    p.add_argument("--reference-args", dest="reference_args",
                   help="omniinteract: the reference scorer's own flags, quoted "
                        "(e.g. \"--w_ack 0.3 --no_unmatched_fp\"); "
                        "they may also be given directly")
    p.add_argument("--mcq-key", dest="mcq_key", nargs="?", const="auto",
                   help="interactionbench: answer key; without a value <data>/mcq/mcq_key_v4.jsonl (as the reference)")
    p.add_argument("--delta", type=float, help="interactionbench: delay at which timing credit reaches 0 (5 s)")
    p.add_argument("--pre-tol", dest="pre_tol", help="interactionbench: tolerance before an event, seconds or inf (1)")
    p.add_argument("--gate", action="store_true", help="interactionbench: content gate (ablation)")
    p.add_argument("--use-gate", dest="use_gate", action="store_true", help="the reference's spelling of --gate")
    p.add_argument("--gate-thresh", dest="gate_thresh", type=float, help="interactionbench: gate threshold (0.3)")
    p.add_argument("--skip-missing", dest="skip_missing", action="store_true",
                   help="interactionbench: drop items without a prediction line instead of scoring them silent")
    p.add_argument("--items", help="interactionbench: split file, one item id per line")
    p.add_argument("--skip-invalid", dest="skip_invalid", action="store_true",
                   help="leave out items whose annotation or prediction has errors (listed, counted and stored "
                        "under 'skipped' in the output) instead of refusing")
    p.add_argument("--skip-unknown", dest="skip_unknown", action="store_true",
                   help="ignore predictions and --items ids for items not in the data instead of refusing")
    p.add_argument("--as-reference", dest="as_reference", action="store_true",
                   help="score the input exactly as the reference scorer reads it: annotation errors, unknown "
                        "items, duplicate lines and out-of-stream times pass (listed under 'skipped')")
    p.add_argument("--fixed", action="store_true",
                   help="interactionbench, omniinteract: apply every opt-in correction of a reference bug "
                        "(docs/scoring.md; reported as config fixed: true); default: the reference's numbers")
    p.add_argument("--model-name", dest="model_name", help="row label in the printed table")
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store where model-judge verdicts are cached")
    p.add_argument("--out", help="write the report here (JSON; the parent folder must exist)")

    def run(a) -> int:
        from runners.score_cmd import score_command
        return score_command(a)
    p.set_defaults(run=run)


class _Parser(argparse.ArgumentParser):
    """argparse that raises a usage CliError (one line, exit 2) instead of printing usage and exiting."""

    def error(self, message: str):
        verb_name = self.prog[len("python app.py"):].strip()
        raise CliError(f"{message} (see python app.py {verb_name + ' ' if verb_name else ''}-h)", code=USAGE)


def _register(only: Optional[str]) -> None:
    """Import the module that registers `only` (every such module when `only` is None)."""
    import importlib
    for name, module in ELSEWHERE.items():
        if only is None or name == only:
            importlib.import_module(module)


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that verb is built and only its module imported, so a command imports only
    what its own verb needs (e.g. `score` never loads the store, argon2 or the other verbs' modules)."""
    _register(only)
    parser = _Parser(prog="python app.py", description="ibench-ui: serve the studio (no verb) or run a command; "
                     "--debug anywhere shows the traceback of a failure")
    sub = parser.add_subparsers(dest="verb", metavar="verb", parser_class=_Parser)
    for name, (help_text, add) in VERBS.items():
        if only is None or name == only:
            add(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    """Run one verb. A refused command prints one `error:` line (exit 2 usage, 1 data), never a traceback
    unless --debug is given; an interrupt exits 130."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [x for x in argv if x != "--debug"]
    try:
        if argv and argv[0] == "score":
            from runners.score_args import reference_argv
            argv = reference_argv(argv)
        parser = build_parser(argv[0] if argv and (argv[0] in VERBS or argv[0] in ELSEWHERE) else None)
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return USAGE
        return int(args.run(args) or 0)
    except CliError as exc:
        return _fail(str(exc), exc.code, debug)
    except KeyboardInterrupt:
        return _fail("interrupted", 130, debug)
    except (ValueError, KeyError, OSError) as exc:
        return _fail(_plain(exc), DATA, debug)
    except Exception as exc:  # noqa: BLE001 - the one-line promise holds for bugs too; --debug shows them
        return _fail(f"internal error {type(exc).__name__}: {_plain(exc)} (rerun with --debug and report it)",
                     DATA, debug)


def _plain(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc) or type(exc).__name__


def _fail(message: str, code: int, debug: bool) -> int:
    if debug:
        import traceback
        traceback.print_exc()
    print(f"error: {one_line(message)}", file=sys.stderr)
    return code
