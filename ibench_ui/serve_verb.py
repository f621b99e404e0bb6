"""The serve verb: `python app.py [serve] [--db PATH] [--host ADDR] …` serves the studio. Named by runners.cli's
verb table (runners never import the UI); like every verb it parses its own arguments, checks them with the
library's checks (one error line, before anything is created) and calls the app."""
from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str], parser) -> int:
    from annotation import auth, registry
    parser.add_argument("--db", default="ibench.sqlite", help="SQLite file (created on first start)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="default: Gradio's (7860 or the next free one)")
    for b in registry.names():
        parser.add_argument(f"--{b}", metavar="DIR", help=f"{b} dataset folder (default: the embedded demo)")
    parser.add_argument("--asr-model", default=None, help="faster-whisper model: a local folder or a model name")
    parser.add_argument("--models", metavar="FILE", default=None,
                        help="TOML model registry (name -> spec, allowed base URLs and key variables): the only "
                             "models the browser can choose, by name (default: the built-in baselines)")
    parser.add_argument("--ray", metavar="ADDRESS", help="the Runs tab runs items as Ray tasks on this cluster "
                        "(HOST:PORT, ray://HOST:PORT, auto or local; docs/scale.md)")
    parser.add_argument("--ray-media", dest="ray_media", choices=("shared", "ship"),
                        help="with --ray: media from a filesystem every node sees (shared) or shipped (ship)")
    parser.add_argument("--base-url", dest="base_url", default="",
                        help="the public URL people open (an https:// one makes the sign-in cookies Secure)")
    parser.add_argument("--session-idle", dest="session_idle", type=float, default=auth.IDLE_TTL, metavar="SECONDS",
                        help=f"a sign-in unused this long ends (default {auth.IDLE_TTL:.0f})")
    parser.add_argument("--session-max", dest="session_max", type=float, default=auth.TOKEN_TTL, metavar="SECONDS",
                        help=f"a sign-in ends this long after it began, used or not (default {auth.TOKEN_TTL:.0f})")
    parser.add_argument("--link-session-max", dest="link_session_max", type=float,
                        default=auth.SignInSettings.link_max_age, metavar="SECONDS",
                        help=f"a study link's cookie lasts this long (default {auth.SignInSettings.link_max_age:.0f})")
    parser.add_argument("--signin-lockout", dest="signin_lockout", type=float, default=None, metavar="SECONDS",
                        help="the first lockout after repeated failed sign-ins or link tokens, doubling with each "
                             "further failure (default 30)")
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
    from runners.run_checks import check_ray_args
    checks.check_db(args.db, create=True)  # the same checks as the other verbs, before anything is created
    check_ray_args(args.ray, args.ray_media, {})
    dirs = {b: getattr(args, b) for b in registry.names() if getattr(args, b)}
    for b, path in dirs.items():
        checks.input_dir(path, f"--{b}")

    try:
        signin = auth.SignInSettings(idle=args.session_idle, max_age=args.session_max,
                                     link_max_age=args.link_session_max, lockout=args.signin_lockout)
    except ValueError as exc:
        print(f"error: serve: {exc}", file=sys.stderr)
        return 2
    if args.base_url and not args.base_url.startswith(("http://", "https://")):
        print(f"error: serve: --base-url must start with http:// or https://, got {args.base_url!r}", file=sys.stderr)
        return 2
    try:
        AllowedHosts.default("127.0.0.1", 1, args.base_url)  # its host joins the default allowed hosts
    except ValueError:
        print(f"error: serve: --base-url {args.base_url!r} names no valid host", file=sys.stderr)
        return 2

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

    if args.ray:
        from runners.ray_run import join
        join(args.ray)
    ctx = AppContext(store=Store(args.db), data_dirs={k: Path(v) for k, v in dirs.items()},
                     asr_model=args.asr_model, models=models, ray=args.ray, ray_media=args.ray_media, signin=signin,
                     base_url=args.base_url)
    return serve(ctx, host=args.host, port=args.port, allowed=allowed)
