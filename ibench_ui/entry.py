"""What `python app.py` runs: no verb serves the studio, a verb runs that command. Kept out of app.py, which Python
compiles afresh on every start (a script has no cached bytecode): a module's is cached, ~0.7 ms of every command."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# verbs that end without the interpreter's teardown (see _exit_now)
FAST_EXIT = ("score",)


def _serve(argv: list[str]) -> int:
    from annotation import registry
    parser = argparse.ArgumentParser(prog="python app.py", description="Serve the ibench-ui studio. "
                                     "Commands: validate, list, score, run, export, report, users, study (python app.py <verb> -h)")
    parser.add_argument("--db", default="ibench.sqlite", help="SQLite file (created on first start)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="default: Gradio's (7860 or the next free one)")
    for b in registry.names():
        parser.add_argument(f"--{b}", metavar="DIR", help=f"{b} dataset folder (default: the embedded demo)")
    parser.add_argument("--asr-model", default=None, help="faster-whisper model: a local folder or a model name")
    parser.add_argument("--models", metavar="FILE", default=None,
                        help="TOML model registry (name -> spec, allowed base URLs and key variables): the only "
                             "models the browser can choose, by name (default: the built-in baselines)")
    args = parser.parse_args(argv)
    from runners.cli_errors import CliError
    try:  # the same checks as the verbs: one error line, before anything is created
        from runners import checks
        checks.check_db(args.db, create=True)
        for b in registry.names():
            if getattr(args, b):
                checks.input_dir(getattr(args, b), f"--{b}")
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code

    from ibench_ui.host import NO_ADMIN, is_loopback
    if not is_loopback(args.host) and not Path(args.db).exists():  # no store, so no accounts: refuse first
        print(f"error: {NO_ADMIN.format(host=args.host, db=args.db)}", file=sys.stderr)
        return 2

    from annotation.store import Store
    from ibench_ui.app import serve
    from ibench_ui.context import AppContext
    from ibench_ui.models import ModelRegistry

    try:
        models = ModelRegistry.load(args.models) if args.models else ModelRegistry.default()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    dirs = {b: getattr(args, b) for b in registry.names() if getattr(args, b)}
    ctx = AppContext(store=Store(args.db), data_dirs={k: Path(v) for k, v in dirs.items()},
                     asr_model=args.asr_model, models=models)
    return serve(ctx, host=args.host, port=args.port)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if a != "--debug"), "")
    if first and not first.startswith("-"):  # a verb (--debug may come before it)
        from runners.cli import main as cli_main
        return cli_main(argv)
    return _serve(argv)


def _exit_now(code: int) -> None:
    """End a finished `score` without the interpreter's teardown, which frees its tens of thousands of
    objects one by one (~10 ms, a tenth of the command, for memory the OS takes back at once). Safe here:
    the report is written atomically, fsynced and closed before the command returns, `score` starts no
    thread or subprocess and registers no exit handler; stdout and stderr are flushed first."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):  # a reader that went away: nothing more can reach it
        pass
    os._exit(code)


def run() -> None:
    """`python app.py [verb] …`: run, then exit with its code (a finished `score` without teardown)."""
    rc = main()
    if next((a for a in sys.argv[1:] if a != "--debug"), "") in FAST_EXIT and isinstance(rc, int):
        _exit_now(rc)
    sys.exit(rc)
