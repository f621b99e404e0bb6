"""The command line: `python app.py [verb] …`. `main` only looks the verb up in `VERBS` and runs it; each verb's
module, named there as a "module:function" string and imported only when that verb runs, adds its arguments,
parses them and calls the library. No verb runs the serve verb (the studio, in ibench_ui)."""
from __future__ import annotations

import importlib
import os
import sys
from typing import Callable, Optional

from runners.checks import DATA, CliError, one_line

# verb -> (its one-line help, "module:function"); the function takes the verb's arguments and the parser to add
# them to, and returns the exit code. The help lives here so that listing the verbs imports none of them.
VERBS: dict[str, tuple[str, str]] = {
    "validate": ("load a dataset, print counts per item kind and every problem; exit 1 on errors",
                 "runners.cli.validate:main"),
    "list": ("print the item ids of a dataset, one per line", "runners.cli.list_items:main"),
    "export": ("export logged responses, or an annotated dataset (verified subset, or with review edits)",
               "runners.cli.export:main"),
    "run": ("evaluate a model on a benchmark in the background; resumes an interrupted run with the same arguments",
            "runners.cli.run:main"),
    "score": ("score predictions with a benchmark's scorer; writes JSON and prints the paper table",
              "runners.cli.score:main"),
    "users": ("manage accounts: users add NAME --role ROLE | users list | users passwd NAME | users disable NAME",
              "runners.cli.users:main"),
    "report": ("write paper tables with bootstrap intervals (Markdown + CSV), the leaderboard and timeline figures",
               "runners.cli.report:main"),
    "study": ("a study for outside participants: study create (links.csv, one capability link each) | "
              "study status", "runners.cli.study:main"),
    "analysis": ("run a benchmark's published analysis script as a drop-in: analysis <script> <its arguments>",
                 "runners.cli.analysis:main"),
    "serve": ("serve the studio (what python app.py does without a verb)", "ibench_ui.serve_verb:main"),
}
DEFAULT_VERB = "serve"
FAST_EXIT = ("score",)  # verbs that end without the interpreter's teardown (see _exit_now)
PROG = "python app.py"


def verb_function(name: str) -> Callable:
    """The function of verb `name`, its module imported now (and only now)."""
    module, _, function = VERBS[name][1].partition(":")
    return getattr(importlib.import_module(module), function)


def build_parser():
    """The parser of `python app.py <verb>` listing every verb with its help, none of their modules imported; it
    refuses an unknown verb in the one error line."""
    from runners.cli.common import Parser
    parser = Parser(prog=PROG, description="ibench-ui: serve the studio (no verb) or run a command; "
                    "--debug anywhere shows the traceback of a failure")
    sub = parser.add_subparsers(dest="verb", metavar="verb", parser_class=Parser)
    for name, (help_text, _) in VERBS.items():
        sub.add_parser(name, help=help_text, description=help_text)
    return parser


def _parser_for(name: str, argv: list[str]):
    """The parser handed to a verb: `python app.py <verb>` refusing in one line, or, with no verb given, the
    studio's own (`python app.py -h` shows its flags and lists every verb)."""
    import argparse

    from runners.cli.common import Parser
    if argv[:1] == [name]:
        return Parser(prog=f"{PROG} {name}", description=VERBS[name][0])
    verbs = "\n".join(f"  {v:<9} {h}" for v, (h, _) in VERBS.items())
    return argparse.ArgumentParser(prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
                                   description="Serve the ibench-ui studio, or run a command: "
                                   f"{PROG} <verb> … (--debug anywhere shows the traceback of a failure)",
                                   epilog=f"verbs ({PROG} <verb> -h for a verb's arguments):\n{verbs}")


def main(argv: Optional[list[str]] = None) -> int:
    """Run one verb (the serve verb when none is given). A refused command prints one `error:` line (exit 2 usage,
    1 data), never a traceback unless --debug is given; an interrupt exits 130."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [x for x in argv if x != "--debug"]
    name = argv[0] if argv and not argv[0].startswith("-") else DEFAULT_VERB
    try:
        if name not in VERBS:
            build_parser().parse_args(argv)  # raises the usage error naming the verbs
        rest = argv[1:] if argv[:1] == [name] else argv
        return int(verb_function(name)(rest, _parser_for(name, argv)) or 0)
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


__all__ = ["DEFAULT_VERB", "FAST_EXIT", "VERBS", "build_parser", "main", "run", "verb_function"]
