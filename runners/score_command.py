"""`score <benchmark> …` as a library: its flags (`arguments`), every check of its inputs before any work
(`check_score_args`), and the one path from checked flags to a report (`score_report`) that the command
(runners/cli/score.py) and the Python API (runners/score_api.py) both take. The flags common to every benchmark
are checked here; what is a benchmark's own (its flags, reference spellings, inputs, scoring) comes from its
runners hooks: SCORE_FLAGS, SCORE_INPUT, score_argv, score_aliases, check_score_flags, score_plan (its table is
the scoring hook format_table)."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from annotation import registry
from runners import checks
from runners.benchmarks import for_whom, hook
from runners.checks import usage
from runners.score_checks import Checked, Plan, runs_a_model

_API_ARGS = {"base_url": "base_url", "api_key_env": "key_env", "timeout_s": "timeout", "max_retries": "retries",
             "max_tokens": "max_tokens"}
_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"  # (compiled by re on first use: only api: judges need it)


def arguments(p) -> None:
    """Every score flag; help naming the benchmarks a flag is for comes from their hooks. The parsed arguments
    carry `flag_names` (dest -> flag), for refusals that name the flags given."""
    flags: dict[str, str] = {}

    def add(*names, **kw) -> None:
        action = p.add_argument(*names, **kw)
        flags[action.dest] = names[0]

    def who(dest: str) -> str:
        return for_whom("SCORE_FLAGS", dest)
    inputs = {b: hook(b, "SCORE_INPUT", (None, None)) for b in registry.names()}
    preds = ", ".join(f"{b} {name}" for b, (flag, name) in inputs.items() if flag == "--preds")
    outputs = [(b, name) for b, (flag, name) in inputs.items() if flag == "--outputs"]
    fixable = ", ".join(_fixable())
    add("benchmark", choices=registry.names())
    add("predictions", nargs="?", help="the prediction file (the reference `ibench eval` spelling; "
                                       "same as --preds)")
    add("--data", help="dataset folder (required)")
    add("--preds", help=f"prediction file ({preds})")
    add("--outputs", help=f"{', '.join(b for b, _ in outputs)}: the model's outputs folder holding "
                          f"{', '.join(sorted({n for _, n in outputs}))}")
    add("--judge", help="judge spec: lexical | cache:<glob> | ensemble:<a,b> | openai:<model>@<url> | "
                        "api:<model> (reference spelling) | hf:<path> | semantic | replay:<file.json>")
    add("--judge-arg", dest="judge_args", action="append", default=[], metavar="KEY=VALUE",
        help="api:<model> judges: base_url, api_key_env (a variable NAME), timeout_s, max_retries, "
             "max_tokens (repeatable; the reference's spelling)")
    add("--judge-prompt", dest="judge_prompt",
        help=f"{who('judge_prompt')}: grading prompt version v1 or v2 (v2)")
    add("--dry-run", dest="dry_run", action="store_true",
        help=f"{who('dry_run')}: score without a judge, every judged stage neutral / 0 (the reference's "
             "dry run)")
    add("--asr-model", dest="asr_model",
        help=f"{who('asr_model')}: transcribe each output.wav that has no transcript yet (faster-whisper "
             "path)")
    add("--judge-cache-dir", dest="judge_cache_dir",
        help=f"{who('judge_cache_dir')}: folder of stored verdict files for ensemble:<slugs> "
             "(results/judge_cache)")
    add("--reference-args", dest="reference_args",
        help=f"{who('reference_args')}: the reference scorer's own flags, quoted "
             "(e.g. \"--w_ack 0.3 --no_unmatched_fp\"); they may also be given directly")
    add("--mcq-key", dest="mcq_key", nargs="?", const="auto",
        help=f"{who('mcq_key')}: answer key; without a value <data>/mcq/mcq_key_v4.jsonl (as the "
             "reference)")
    add("--delta", type=float, help=f"{who('delta')}: delay at which timing credit reaches 0 (5 s)")
    add("--pre-tol", dest="pre_tol", help=f"{who('pre_tol')}: tolerance before an event, seconds or inf (1)")
    add("--gate", action="store_true", help=f"{who('gate')}: content gate (ablation)")
    add("--use-gate", dest="use_gate", action="store_true", help="the reference's spelling of --gate")
    add("--gate-thresh", dest="gate_thresh", type=float, help=f"{who('gate_thresh')}: gate threshold (0.3)")
    add("--skip-missing", dest="skip_missing", action="store_true",
        help=f"{who('skip_missing')}: drop items without a prediction line instead of scoring them silent")
    add("--items", help=f"{who('items')}: split file, one item id per line")
    add("--strict", action="store_true",
        help="refuse input the reference scores only by tolerating it (every warning becomes the one error "
             "line, exit 1), as validate --strict does")
    add("--skip-invalid", dest="skip_invalid", action="store_true",
        help="leave out items whose annotation or prediction has problems (listed, counted and stored "
             "under 'skipped' in the output) instead of scoring them as the reference does")
    add("--skip-unknown", dest="skip_unknown", action="store_true",
        help="ignore predictions and --items ids for items not in the data, listed under 'skipped' "
             "(by default they are ignored as the reference ignores them, with a warning)")
    add("--as-reference", dest="as_reference", action="store_true",
        help="no-op, kept for old command lines: scoring the input as the reference scorer reads it is the "
             "default (what it tolerates is a warning; --strict refuses it)")
    add("--fixed", action="store_true",
        help=f"{fixable}: apply every opt-in correction of a reference bug "
             "(docs/scoring.md; reported as config fixed: true); default: the reference's numbers")
    add("--model-name", dest="model_name", help="row label in the printed table")
    add("--db", default="ibench.sqlite", help="SQLite store where model-judge verdicts are cached")
    add("--out", help="write the report here (JSON; the parent folder must exist)")
    p.set_defaults(flag_names=flags)


def _fixable() -> tuple[str, ...]:
    """The benchmarks whose scorers have opt-in corrections of reference bugs (--fixed)."""
    return tuple(b for b in registry.names() if registry.get(b).get("fixed_option"))


def glue_reference_args(argv: list[str]) -> list[str]:
    """`--reference-args VALUE` as `--reference-args=VALUE`, so a VALUE starting with '-' parses."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--reference-args" and i + 1 < len(argv):
            out.append(f"--reference-args={argv[i + 1]}")
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def score_command(a) -> int:
    """Check every argument and file first, then score, write --out atomically and print the table."""
    import gc
    # Without a model, score builds a few hundred thousand objects (parsed files, records) that hold no reference
    # cycles: the cyclic collector's passes over that growing heap find nothing and cost ~2 ms of a 100 ms
    # command. It is paused for the command (and resumed after, for a caller in the same process); a model
    # judge's clients may hold cycles, so with one it keeps running.
    paused = gc.isenabled() and not runs_a_model(a)
    if paused:
        gc.disable()
    try:
        return _score(a)
    finally:
        if paused:
            gc.enable()


def _score(a) -> int:
    from runners.score_report import print_table, write_report
    report = score_report(a, echo=True)
    write_report(report, a.out)
    print_table(a.benchmark, report, a.model_name or Path(a.preds or a.outputs).stem)
    return 0


def score_report(a, echo: bool = False) -> dict:
    """The one path of `score` (the command and `runners.score_api`): check every input, refuse the first warning
    with --strict, score, and add what was tolerated (`warnings`: one line per kind with its count and first
    file, item and field) and skipped (`skipped`) to the report; `echo` prints what was skipped on stderr."""
    plan = check_score_args(a)
    chk = plan.checked
    if a.strict and chk.warned:
        raise chk.strict_error()
    report = plan.score()
    block = chk.report_block()
    if block is not None:
        report["skipped"] = block
    tolerated = chk.warnings()
    report["warnings"] = tolerated + [w for w in report.get("warnings", []) if w not in tolerated]
    if echo:  # (the warnings are printed under the table, by print_table)
        for line in chk.lines():
            print(f"warning: skipped {line}", file=sys.stderr)
        if chk.left_out:
            print(f"warning: {len(chk.left_out)} item(s) left out of the score", file=sys.stderr)
    return report


def check_score_args(a) -> Plan:
    """Every check that needs no benchmark's own code, in the order a user meets them; then the benchmark's
    score plan reads and checks its inputs."""
    b = a.benchmark
    hook(b, "score_aliases", _nothing)(a)
    _merge_aliases(a)
    hook(b, "check_score_flags", _nothing)(a)
    _refuse_other_benchmarks_flags(a)
    fixable = _fixable()
    if a.fixed and b not in fixable:
        raise usage(f"applies to {' and '.join(fixable)} only (the {b} scorer has no reference "
                    "corrections)", "--fixed")
    if a.data is None:
        raise usage("expected the dataset folder (score never falls back to the embedded demo; for the demo "
                    "pass --data assets/demo/" + b + ")", "--data")
    checks.input_dir(a.data, "--data")
    checks.output_file(a.out, "--out")
    checks.check_db(a.db, create=True)  # only opened for model judges, but a bad path is refused either way
    a.as_reference = not a.skip_invalid  # the default: scored as the reference reads it, with warnings
    a.judge = _judge_spec(a)
    checks.judge_spec(a.judge)
    return hook(b, "score_plan")(a, Checked())


def _nothing(a) -> None:
    """An optional per-benchmark step a benchmark does not have."""


def _given(value) -> bool:
    """Whether a flag was given: a value, a store_true flag that is on, a non-empty repeatable flag."""
    return value is not None and value is not False and value != []


def _merge_aliases(a) -> None:
    """The reference spellings every benchmark shares: a positional predictions file and --use-gate."""
    if a.predictions is not None:
        if a.preds is not None and a.preds != a.predictions:
            raise usage(f"two prediction files given ({a.predictions} and --preds {a.preds}); give one", "--preds")
        a.preds = a.predictions
    if a.use_gate:
        a.gate = True


def _refuse_other_benchmarks_flags(a) -> None:
    """A flag that is another benchmark's own (its runners hook SCORE_FLAGS) is refused, naming that benchmark."""
    own = set(hook(a.benchmark, "SCORE_FLAGS", ()))
    for other in registry.names():
        given = [a.flag_names[d] for d in hook(other, "SCORE_FLAGS", ()) if d not in own and _given(getattr(a, d))]
        if other != a.benchmark and given:
            raise usage(f"applies to {other} only ({', '.join(given)})", ", ".join(given))


def _judge_spec(a):
    """`api:<model>` with --judge-arg base_url=… api_key_env=… (the reference's spelling) -> openai:<model>@<url>;
    --judge-prompt -> the spec's prompt option (stored-verdict judges read it from the plan)."""
    spec = a.judge
    args = {}
    for pair in a.judge_args or []:
        k, sep, v = pair.partition("=")
        if not sep or not k:
            raise usage(f"expected KEY=VALUE, found {pair!r}", "--judge-arg")
        args[k.strip()] = v.strip()
    prompts = hook(a.benchmark, "JUDGE_PROMPTS", {}) if a.judge_prompt is not None else {}
    if a.judge_prompt is not None and a.judge_prompt not in prompts:
        raise usage(f"expected {' or '.join(prompts)}, found {a.judge_prompt!r}", "--judge-prompt")
    if spec is None:
        if args:
            raise usage("given without --judge", "--judge-arg")
        return None
    kind, _, body = spec.strip().partition(":")
    if kind.lower() == "api":
        if not body.strip():
            raise usage(f"expected api:<model>, found {spec!r}", "--judge")
        unknown = sorted(set(args) - set(_API_ARGS))
        if unknown:
            raise usage(f"expected one of {', '.join(_API_ARGS)}, found {', '.join(unknown)}", "--judge-arg")
        base = args.pop("base_url", None) or os.environ.get("IBENCH_JUDGE_BASE_URL") or \
            os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        args.setdefault("api_key_env", "IBENCH_JUDGE_API_KEY")
        if not re.fullmatch(_ENV_NAME, args["api_key_env"]):
            raise usage("expected the NAME of an environment variable holding the key, found something else",
                        "--judge-arg api_key_env")
        opts = {_API_ARGS[k]: v for k, v in args.items()}
        if a.judge_prompt:
            opts["prompt"] = prompts[a.judge_prompt]
        query = "&".join(f"{k}={v}" for k, v in opts.items())
        return f"openai:{body.strip()}@{base.rstrip('/')}" + (f"?{query}" if query else "")
    if args:
        raise usage(f"applies to api:<model> judges only, found --judge {spec}", "--judge-arg")
    if a.judge_prompt and kind.lower() in ("openai", "hf") and "prompt=" not in spec:
        return spec + ("&" if "?" in spec else "?") + f"prompt={prompts[a.judge_prompt]}"
    return spec
