"""The reference OmniInteract evaluator's command line, accepted by `score omniinteract` as given: its own flags
become our --reference-args, --dry-run, --outputs and --judge before the arguments are parsed."""
from __future__ import annotations

import os
import shlex

from runners.checks import usage


def reference_argv(argv: list[str]) -> list[str]:
    """Rewrite the reference OmniInteract evaluator's own flags given straight to `score omniinteract` into
    --reference-args / --dry-run / --outputs / --judge; every --reference-args value (glued: it may start with
    '-') joins them in one --reference-args=…."""
    out: list[str] = []
    ref: list[str] = []
    i = 0
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
            ref.extend(shlex.split(argv[i + 1]))
            i += 2
            continue
        if tok.startswith("--reference-args="):
            ref.extend(shlex.split(tok.split("=", 1)[1]))
        elif name == "--dry_run":
            out.append("--dry-run")
        elif name == "--batch_summary_json":
            val = tok.split("=", 1)[1] if "=" in tok else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 0 if "=" in tok else 1
            out.append(f"--outputs={os.path.dirname(val) or '.'}")
        elif name in ("--judge_api_model", "--judge_api_url", "--judge_api_key"):
            val = tok.split("=", 1)[1] if "=" in tok else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 0 if "=" in tok else 1
            if name == "--judge_api_key" and val:
                raise usage("a key on the command line is never accepted; put it in $JUDGE_API_KEY (or name "
                            "another variable with --judge openai:<model>@<url>?key_env=NAME)", name)
            if name == "--judge_api_model":
                judge_model = val
            elif name == "--judge_api_url":
                judge_url = val
        elif name in with_value:
            ref.append(tok)
            if "=" not in tok and i + 1 < len(argv):
                ref.append(argv[i + 1])
                i += 1
        elif tok in flags:
            ref.append(tok)
        else:
            out.append(tok)
        i += 1
    if ref:
        out.append("--reference-args=" + " ".join(shlex.quote(x) for x in ref))
    if judge_model or judge_url:
        if any(t == "--judge" or t.startswith("--judge=") for t in out):
            raise usage("give the judge once: --judge, or the reference's --judge_api_model/--judge_api_url",
                        "--judge")
        url = (judge_url or "https://api.openai.com/v1/chat/completions").rstrip("/")
        url = url[: -len("/chat/completions")] if url.endswith("/chat/completions") else url
        out += ["--judge", f"openai:{judge_model or 'gpt-4o-2024-08-06'}@{url}?key_env=JUDGE_API_KEY"]
    return out
