"""`score omniinteract`: the model's outputs folder (batch_summary.json) and the dataset checked, the judge (or the
reference's judge-less dry run) and the reference scorer's own flags resolved, then a Plan that scores them."""
from __future__ import annotations

import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from runners import checks
from runners.checks import CliError, from_problem, usage
from runners.score_checks import Checked, Plan, dataset, usable_judge, verdict_store


def check_flags(a) -> None:
    """Refused before any file is read: a predictions file (this benchmark's scorer reads an outputs folder)."""
    if a.preds:
        raise usage("score omniinteract reads the model's outputs folder (--outputs DIR), not a predictions file",
                    "--preds")


def plan(a, chk: Checked) -> Plan:
    from annotation import jsonio
    from annotation.loaders import load
    if a.skip_invalid:
        raise usage("is not available for omniinteract (its scorer lists unusable samples itself); by default "
                    "the dataset is scored as the reference reads it, with warnings (--strict refuses them)",
                    "--skip-invalid")
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
    ds = load(a.benchmark, a.data, probe_media=False)
    dataset(ds, False, True, chk)  # what the reference reads is a warning (--strict refuses it)
    from scoring.omniinteract import OIConfig
    try:
        config = OIConfig.from_cli_args(shlex.split(a.reference_args)) if a.reference_args else OIConfig()
    except ValueError as exc:
        raise usage(str(exc), "--reference-args") from None
    if a.fixed:
        config = replace(config, fixed=True)
    store = verdict_store(a)
    from runners.omniinteract.judge import transport as oi_transport
    transport = usable_judge(lambda: oi_transport(a.judge, store), a.judge)

    def run() -> dict:
        from scoring.omniinteract import evaluate
        if a.asr_model:
            from runners.asr import transcribe_outputs
            for path in transcribe_outputs(a.outputs, model=a.asr_model):
                print(f"transcribed {path}", file=sys.stderr)
        return evaluate(a.data, a.outputs, transport, config)
    return Plan(chk, run)
