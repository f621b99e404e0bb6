"""The serve verb: `python app.py [serve] [--db PATH] [--host ADDR] …` serves the studio. Named by runners.cli's
verb table (runners never import the UI); like every verb it parses its own arguments, checks them with the
library's checks (one error line, before anything is created) and calls the app."""
from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str], parser) -> int:
    from annotation import registry
    parser.add_argument("--db", default="ibench.sqlite", help="SQLite file (created on first start)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="default: Gradio's (7860 or the next free one)")
    for b in registry.names():
        parser.add_argument(f"--{b}", metavar="DIR", help=f"{b} dataset folder (default: the embedded demo)")
    parser.add_argument("--asr-model", default=None, help="faster-whisper model: a local folder or a model name")
    parser.add_argument("--models", metavar="FILE", default=None,
                        help="TOML model registry (name -> spec, allowed base URLs and key variables): the only "
                             "models the browser can choose, by name (default: the built-in baselines)")
    parser.add_argument("--allowed-hosts", metavar="HOST[:PORT],...", default=None,
                        help="the host names the server answers to, comma-separated (a name alone: any port); "
                             "default: localhost, 127.0.0.1, [::1] and --host, each with the port")
    args = parser.parse_args(argv)
    from ibench_ui.allowed_hosts import AllowedHosts
    try:
        allowed = AllowedHosts.parse([args.allowed_hosts]) if args.allowed_hosts is not None else None
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from runners import checks
    checks.check_db(args.db, create=True)  # the same checks as the other verbs, before anything is created
    dirs = {b: getattr(args, b) for b in registry.names() if getattr(args, b)}
    for b, path in dirs.items():
        checks.input_dir(path, f"--{b}")

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

    ctx = AppContext(store=Store(args.db), data_dirs={k: Path(v) for k, v in dirs.items()},
                     asr_model=args.asr_model, models=models)
    return serve(ctx, host=args.host, port=args.port, allowed=allowed)
