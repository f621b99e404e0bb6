"""`score`'s arguments, checked before anything is scored or written: flags that fit the benchmark, the
reference `ibench eval` spellings translated (positional predictions file, --use-gate, api: judges,
--judge-arg, --judge-prompt), every input file read and checked (runners.score_checks). The result is a plan
whose `score()` does the work on inputs already known to be good."""
from __future__ import annotations

import math
import os
import re
from typing import Callable

from runners import checks, score_checks
from runners.cli_errors import CliError, usage

_IB_ONLY = ("mcq_key", "delta", "pre_tol", "gate_thresh", "items", "judge_cache_dir")
_API_ARGS = {"base_url": "base_url", "api_key_env": "key_env", "timeout_s": "timeout", "max_retries": "retries",
             "max_tokens": "max_tokens"}
_ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"  # (compiled by re on first use: only api: judges need it)
# the reference's --judge-prompt names -> our model judges' prompt versions (stored verdicts keep v1/v2)
_MODEL_PROMPTS = {"v1": "ib-v1-equivalence", "v2": "ib-v2-containment"}


class Plan:
    """What the checks let through and the scoring still to run on it."""

    def __init__(self, checked: score_checks.Checked, score: Callable[[], dict]) -> None:
        self.checked, self.score = checked, score


def check_score_args(a) -> Plan:
    b = a.benchmark
    _merge_aliases(a)
    if b == "omniinteract" and a.preds:
        raise usage("score omniinteract reads the model's outputs folder (--outputs DIR), not a predictions file",
                    "--preds")
    if b != "omniinteract" and (a.reference_args or a.asr_model or a.dry_run):
        raise usage("applies to omniinteract only", "--reference-args/--asr-model/--dry-run")
    ib_set = [f"--{f.replace('_', '-')}" for f in _IB_ONLY if getattr(a, f, None) is not None]
    if b != "interactionbench" and (ib_set or a.gate or a.skip_missing or a.judge_args or a.judge_prompt):
        raise usage(f"applies to interactionbench only ({', '.join(ib_set) or 'gate/skip-missing/judge args'})",
                    ", ".join(ib_set) or "--gate/--skip-missing/--judge-arg/--judge-prompt")
    if a.fixed and b not in ("interactionbench", "omniinteract"):
        raise usage(f"applies to interactionbench and omniinteract only (the {b} scorer has no reference "
                    "corrections)", "--fixed")
    if a.data is None:
        raise usage("expected the dataset folder (score never falls back to the embedded demo; for the demo "
                    "pass --data assets/demo/" + b + ")", "--data")
    checks.input_dir(a.data, "--data")
    checks.output_file(a.out, "--out")
    checks.check_db(a.db, create=True)  # only opened for model judges, but a bad path is refused either way
    if a.skip_invalid and a.as_reference:
        raise usage("choose one: --skip-invalid leaves bad items out, --as-reference scores them as the "
                    "reference does", "--skip-invalid/--as-reference")
    a.judge = _judge_spec(a)
    checks.judge_spec(a.judge)
    chk = score_checks.Checked()
    if b == "omniinteract":
        return _omniinteract(a, chk)
    if not a.preds:
        raise usage(f"score {b} needs the prediction file", "--preds")
    checks.input_file(a.preds, "--preds")
    if b == "interactionbench":
        return _interactionbench(a, chk)
    return _jsonl_benchmark(a, chk)


def _merge_aliases(a) -> None:
    """The reference spellings: a positional predictions file, --use-gate, --mcq-key without a value
    (<data>/mcq/mcq_key_v4.jsonl) and --judge-arg cache_dir=… for ensemble judges."""
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
    if a.predictions is not None:
        if a.preds is not None and a.preds != a.predictions:
            raise usage(f"two prediction files given ({a.predictions} and --preds {a.preds}); give one", "--preds")
        a.preds = a.predictions
    if a.use_gate:
        a.gate = True


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
    if a.judge_prompt is not None and a.judge_prompt not in ("v1", "v2"):
        raise usage(f"expected v1 or v2, found {a.judge_prompt!r}", "--judge-prompt")
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
        if not re.match(_ENV_NAME, args["api_key_env"]):
            raise usage("expected the NAME of an environment variable holding the key, found something else",
                        "--judge-arg api_key_env")
        opts = {_API_ARGS[k]: v for k, v in args.items()}
        if a.judge_prompt:
            opts["prompt"] = _MODEL_PROMPTS[a.judge_prompt]
        query = "&".join(f"{k}={v}" for k, v in opts.items())
        return f"openai:{body.strip()}@{base.rstrip('/')}" + (f"?{query}" if query else "")
    if args:
        raise usage(f"applies to api:<model> judges only, found --judge {spec}", "--judge-arg")
    if a.judge_prompt and kind.lower() in ("openai", "hf") and "prompt=" not in spec:
        return spec + ("&" if "?" in spec else "?") + f"prompt={_MODEL_PROMPTS[a.judge_prompt]}"
    return spec


def _tol(v: str) -> float:
    if str(v).strip().lower() in ("inf", "infinity"):
        return float("inf")
    try:
        t = float(v)
    except ValueError:
        raise usage(f"expected seconds or 'inf', found {v!r}", "--pre-tol") from None
    if math.isnan(t) or t < 0:
        raise usage(f"expected seconds >= 0 or 'inf', found {v!r}", "--pre-tol")
    return t


def runs_a_model(a) -> bool:
    """Whether `score` calls a model judge; lexical and stored-verdict judges (cache:, ensemble:, replay:) do not."""
    spec = (a.judge or "").strip().lower()
    return bool(spec) and spec != "lexical" and not spec.startswith(("cache:", "ensemble:", "replay:"))


def verdict_store(a):
    """The SQLite store that caches model-judge verdicts; lexical and stored-verdict judges need none."""
    if not runs_a_model(a):
        return None
    from annotation.store import Store
    return Store(a.db)


def _interactionbench(a, chk) -> Plan:
    from annotation.interactionbench.loader import scan
    from scoring.interactionbench import scorer as ib
    checks.positive_float(a.delta, "--delta")
    checks.positive_float(a.gate_thresh, "--gate-thresh", allow_zero=True)
    pre_tol = _tol(a.pre_tol) if a.pre_tol is not None else None
    if a.judge_cache_dir is not None:
        checks.input_dir(a.judge_cache_dir, "--judge-cache-dir")
    rows, problems, item_file = scan(a.data)  # one read: the rows to score and every annotation problem
    view = score_checks.DataView("interactionbench", a.data, problems, item_file)
    score_checks.dataset(view, a.skip_invalid, a.as_reference, chk)
    if chk.left_out:
        rows = [r for r in rows if ib.ib_rules.item_id(r) not in chk.left_out]
    ids = item_file.keys() - chk.left_out  # the item ids of the rows kept
    split = score_checks.items(a.items, ids, a.skip_unknown, a.as_reference, chk) if a.items else None
    preds = score_checks.ib_predictions(a.preds, rows, ids, a.skip_invalid, a.skip_unknown, a.as_reference, chk)
    if chk.left_out:
        rows = [r for r in rows if ib.ib_rules.item_id(r) not in chk.left_out]
    key = score_checks.mcq_key(a.mcq_key) if a.mcq_key else None
    given = {"delta": a.delta, "pre_tol": pre_tol, "gate_thresh": a.gate_thresh, "use_gate": a.gate or None,
             "skip_missing": a.skip_missing or None, "fixed": a.fixed or None, "items": split}
    cfg = ib.IBConfig.from_dict({k: v for k, v in given.items() if v is not None})  # unset: paper defaults
    store = verdict_store(a)
    try:
        judge = ib.build_judge(a.judge, a.judge_cache_dir, prompt=a.judge_prompt or "v2", verdict_cache=store)
    except (ValueError, OSError) as exc:
        raise CliError(f"expected a usable judge, found: {exc}", file=a.judge, field="--judge") from None

    def run() -> dict:
        return ib.score(rows, preds, cfg, judge, key, mcq_key_source=a.mcq_key, items_source=a.items)
    return Plan(chk, run)


def _jsonl_benchmark(a, chk) -> Plan:
    """ProactiveBench preds.jsonl / InteractScope responses.jsonl, checked by their writers' own readers."""
    from annotation.loaders import load
    b = a.benchmark
    ds = load(b, a.data, probe_media=False)
    score_checks.dataset(ds, a.skip_invalid, a.as_reference, chk)
    if b == "proactivebench":
        from annotation.proactivebench.writer import check_predictions
    else:
        from annotation.interactscope.writer import check_predictions
    preds, problems = check_predictions(a.preds, ds)
    if not preds and not [p for p in problems if p.severity == "error"]:
        raise CliError("expected one prediction line per item, found none", file=a.preds, field="--preds")
    for p in problems:
        unknown = p.severity == "warning" and "in the dataset" in p.message
        if unknown:
            if not (a.skip_unknown or a.as_reference):
                raise CliError(f"expected an item of the dataset, found unknown item {p.item} (pass --skip-unknown "
                               "to ignore predictions for items not in the data)", file=p.file, field=p.field)
            chk.skipped.append(p)
            preds.pop(p.item, None)
        elif p.severity == "error":
            if not a.skip_invalid:
                err = score_checks.from_problem(p)
                err.message += " (or pass --skip-invalid)"
                raise err
            chk.skip(p, p.item if p.item in ds else None)
    if b == "proactivebench" and not a.as_reference:
        _pb_seconds_inside_stream(a, ds, preds, chk)
    for iid in list(preds):
        if iid in chk.left_out:
            preds.pop(iid)
    keep = [it for it in ds.items if it.id not in chk.left_out]
    store = verdict_store(a)
    judge = None
    if b == "interactscope" and a.judge:
        from runners.evaluate import build_content_judge
        try:
            judge = build_content_judge(a.judge, store)
        except (ValueError, OSError) as exc:
            raise CliError(f"expected a usable judge, found: {exc}", file=a.judge, field="--judge") from None

    def run() -> dict:
        if b == "proactivebench":
            from scoring.proactivebench import scorer as pb
            return pb.score([it.native for it in keep], preds, pb.PBConfig())
        from scoring.interactscope import scorer as isc
        native = {it.id: it.native for it in keep}
        predictions = {}
        for iid, responses in preds.items():
            pred = isc.fill_tool_verdicts(native[iid], {"interaction_id": iid, "responses": responses})
            if judge is not None:
                pred = isc.fill_judge_verdicts(native[iid], pred, judge)
            predictions[iid] = pred
        return isc.score([it.native for it in keep], predictions, isc.ISConfig())
    return Plan(chk, run)


def _pb_seconds_inside_stream(a, ds, preds: dict, chk) -> None:
    """ProactiveBench response seconds are 1-based whole seconds of the stream: none may lie past its end."""
    import math as _math
    for iid, row in preds.items():
        if iid not in ds:
            continue
        duration = ds.get(iid).native.get("duration")
        if not (isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration > 0):
            continue
        last = _math.ceil(duration)
        late = [s for s in row.get("response_seconds") or [] if s > last]
        if late:
            err = CliError(f"expected seconds 1..{last} (inside the {duration:g} s stream), found {late[0]}",
                           file=a.preds, item=iid, field="response_seconds")
            if not a.skip_invalid:
                err.message += " (or pass --skip-invalid; --as-reference scores it as the reference does)"
                raise err
            chk.skip(err, iid)


def _omniinteract(a, chk) -> Plan:
    from pathlib import Path

    from annotation import jsonio
    from annotation.loaders import load
    from runners.cli_errors import from_problem
    if a.skip_invalid:
        raise usage("is not available for omniinteract (its scorer lists unusable samples itself); fix the "
                    "dataset, or pass --as-reference to score it as the reference does", "--skip-invalid")
    if not a.outputs:
        raise usage("score omniinteract needs the model's outputs folder (holding batch_summary.json)", "--outputs")
    checks.input_dir(a.outputs, "--outputs")
    summary = os.path.join(a.outputs, "batch_summary.json")
    summary_path = Path(summary)
    doc, problem = jsonio.read_json(summary_path, summary)
    if problem is not None:
        raise from_problem(problem)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise CliError(f"expected an object with a results list, found {type(doc).__name__}", file=str(summary_path),
                       field="results")
    if not a.judge and not a.dry_run:
        raise usage("expected a judge (openai:<model>@<url> or replay:<file.json>), or --dry-run for the "
                    "reference's judge-less dry run (every judged stage neutral / 0)", "--judge")
    if a.judge and a.dry_run:
        raise usage("choose one: --judge scores with a judge, --dry-run without", "--judge/--dry-run")
    ds = load("omniinteract", a.data, probe_media=False)
    score_checks.dataset(ds, False, a.as_reference, chk, hint="--as-reference to score it as the reference reads it")
    import shlex

    from scoring.omniinteract import OIConfig
    try:
        config = OIConfig.from_cli_args(shlex.split(a.reference_args)) if a.reference_args else OIConfig()
    except ValueError as exc:
        raise usage(str(exc), "--reference-args") from None
    if a.fixed:
        from dataclasses import replace
        config = replace(config, fixed=True)
    store = verdict_store(a)
    from runners.evaluate import oi_transport
    try:
        transport = oi_transport(a.judge, store)
    except (ValueError, OSError) as exc:
        raise CliError(f"expected a usable judge, found: {exc}", file=a.judge, field="--judge") from None

    def run() -> dict:
        import sys
        from scoring.omniinteract import evaluate
        if a.asr_model:
            from runners.asr import transcribe_outputs
            for path in transcribe_outputs(a.outputs, model=a.asr_model):
                print(f"transcribed {path}", file=sys.stderr)
        return evaluate(a.data, a.outputs, transport, config)
    return Plan(chk, run)


def reference_argv(argv: list[str]) -> list[str]:
    """Rewrite the reference OmniInteract evaluator's own flags given straight to `score omniinteract` into
    --reference-args / --dry-run / --outputs, and glue a --reference-args value that starts with '-'."""
    out: list[str] = []
    ref: list[str] = []
    i = 0
    oi = len(argv) > 1 and argv[0] == "score" and "omniinteract" in argv
    with_value = {"--last_slot_tail_sec", "--w_ack", "--decay_alpha", "--decay_gamma", "--core_quality_threshold",
                  "--partial_quality_threshold", "--model_json_name", "--limit", "--judge_api_url",
                  "--judge_api_model", "--judge_api_key", "--judge_api_timeout_sec", "--judge_max_tokens",
                  "--judge_temperature", "--num_workers", "--out_dir", "--output_root"}
    flags = {"--no_unmatched_fp", "--no_interrupted_output_eval", "--skip_existing"}
    judge_model = judge_url = None
    while i < len(argv):
        tok = argv[i]
        name = tok.split("=", 1)[0]
        if tok == "--reference-args" and i + 1 < len(argv):
            import shlex
            ref.extend(shlex.split(argv[i + 1]))
            i += 2
            continue
        if tok.startswith("--reference-args="):
            import shlex
            ref.extend(shlex.split(tok.split("=", 1)[1]))
        elif oi and name == "--dry_run":
            out.append("--dry-run")
        elif oi and name == "--batch_summary_json":
            val = tok.split("=", 1)[1] if "=" in tok else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 0 if "=" in tok else 1
            out.append(f"--outputs={os.path.dirname(val) or '.'}")
        elif oi and name in ("--judge_api_model", "--judge_api_url", "--judge_api_key"):
            val = tok.split("=", 1)[1] if "=" in tok else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 0 if "=" in tok else 1
            if name == "--judge_api_key" and val:
                raise usage("a key on the command line is never accepted; put it in $JUDGE_API_KEY (or name "
                            "another variable with --judge openai:<model>@<url>?key_env=NAME)", name)
            if name == "--judge_api_model":
                judge_model = val
            elif name == "--judge_api_url":
                judge_url = val
        elif oi and name in with_value:
            ref.append(tok)
            if "=" not in tok and i + 1 < len(argv):
                ref.append(argv[i + 1])
                i += 1
        elif oi and tok in flags:
            ref.append(tok)
        else:
            out.append(tok)
        i += 1
    if ref:
        import shlex
        out.append("--reference-args=" + " ".join(shlex.quote(x) for x in ref))
    if judge_model or judge_url:
        if any(t == "--judge" or t.startswith("--judge=") for t in out):
            raise usage("give the judge once: --judge, or the reference's --judge_api_model/--judge_api_url",
                        "--judge")
        url = (judge_url or "https://api.openai.com/v1/chat/completions").rstrip("/")
        url = url[: -len("/chat/completions")] if url.endswith("/chat/completions") else url
        out += ["--judge", f"openai:{judge_model or 'gpt-4o-2024-08-06'}@{url}?key_env=JUDGE_API_KEY"]
    return out
