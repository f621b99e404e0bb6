"""Annotation commands: `python app.py users …` (accounts) and the dataset side of `python app.py export`
(`export verified`: the prefix-verified subset in the native layout; `export dataset`: the dataset with
its review edits, in native, csv, jsonl, eaf or vtt)."""
from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from annotation import registry
from runners.cli import verb
from runners.cli_errors import CliError, usage


@verb("users", "manage accounts: users add NAME --role ROLE | users list | users passwd NAME | users disable NAME")
def _users(p: argparse.ArgumentParser) -> None:
    from annotation.auth import ROLES
    p.add_argument("action", choices=["add", "list", "passwd", "disable", "enable", "role"])
    p.add_argument("name", nargs="?")
    p.add_argument("--role", choices=ROLES, help="admin (manages users), reviewer (sees/edits everything), "
                                                 "annotator (own blind verification only)")
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store")
    p.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin "
                                                                 "(else $IBENCH_PASSWORD, else a prompt)")

    def run(a) -> int:
        from annotation import auth
        from annotation.store import Store
        from runners.checks import check_db
        if a.action != "list" and not a.name:
            raise usage(f"users {a.action}: expected the user NAME, found none", "NAME")
        if a.action == "add" and not a.role:
            raise usage("users add: expected --role (admin, reviewer or annotator), found none", "--role")
        if a.action == "role" and not a.role:
            raise usage("users role: expected --role, found none", "--role")
        check_db(a.db, create=a.action == "add")
        pw = _password(a) if a.action == "add" else None  # asked before the store is created
        store = Store(a.db)
        if a.action not in ("add", "list") and store.get_user(a.name) is None:
            raise CliError(f"expected an existing user, found no user {a.name!r}", file=a.db, field="NAME")
        if a.action == "passwd":
            pw = _password(a)
        if a.action == "list":
            for u in store.users():
                print(f"{u['name']}\t{u['role']}\t{'active' if u['active'] else 'disabled'}")
            return 0
        if a.action in ("add", "passwd"):
            if a.action == "add":
                auth.create_user(store, a.name, a.role, pw)
                print(f"added {a.name} ({a.role})")
            else:
                auth.set_password(store, a.name, pw)
                print(f"password of {a.name} changed")
        elif a.action in ("disable", "enable"):
            store.update_user(a.name, active=int(a.action == "enable"))
            print(f"{a.name} {a.action}d")
        elif a.action == "role":
            store.update_user(a.name, role=a.role)
            print(f"{a.name} is now {a.role}")
        return 0
    p.set_defaults(run=run)


def _password(a) -> str:
    """The new password: first line of stdin (--password-stdin), $IBENCH_PASSWORD, or asked twice on a terminal;
    a closed or empty standard input is a usage error, not an EOFError."""
    from annotation.auth import MIN_PASSWORD
    if a.password_stdin:
        pw = sys.stdin.readline().rstrip("\r\n") if sys.stdin is not None else ""
        if not pw:
            raise usage("expected a password on the first line of standard input, found nothing", "--password-stdin")
    elif os.environ.get("IBENCH_PASSWORD"):
        pw = os.environ["IBENCH_PASSWORD"]
    else:
        if sys.stdin is None or not sys.stdin.isatty():
            raise usage("expected a password: no terminal to ask on; pass --password-stdin or set IBENCH_PASSWORD",
                        "--password-stdin")
        try:
            pw = getpass.getpass(f"password for {a.name}: ")
            again = getpass.getpass("again: ")
        except EOFError:
            raise usage("expected a password, found the end of input", "--password-stdin") from None
        if again != pw:
            raise usage("expected the same password twice, found two different ones", "password")
    if len(pw) < MIN_PASSWORD:
        raise usage(f"expected at least {MIN_PASSWORD} characters, found {len(pw)}", "password")
    return pw


def export_dataset(a) -> int:
    """`export verified|dataset`: the annotated dataset, review edits applied, in a native or interchange format."""
    from annotation import interchange, review, verification
    from annotation.loaders import load
    from annotation.store import Store
    from runners import checks
    from runners.cli_errors import from_problem
    if not a.benchmark:
        raise usage(f"export {a.what}: expected --benchmark ({', '.join(registry.names())}), found none", "--benchmark")
    if a.what == "verified" and a.format not in (None, "native"):
        raise usage(f"export verified writes the native layout, found --format {a.format} (drop it)", "--format")
    fmt = a.format or "native"
    out = a.out or f"export-{a.benchmark}-{a.what}"
    (checks.output_file if fmt in ("csv", "jsonl") else checks.output_dir)(out, "--out")
    checks.check_db(a.db, create=False)
    if a.data is not None:
        checks.input_dir(a.data, "--data")
    ds = load(a.benchmark, a.data, probe_media=False)
    if ds.errors:
        err = from_problem(ds.errors[0])
        err.message += f" ({len(ds.errors)} error(s) in the dataset; python app.py validate {a.benchmark} {ds.root})"
        raise err
    store = Store(a.db)
    if not a.no_edits:
        ds = review.apply_edits(ds, store.reviews(a.benchmark))
    n_all = len(ds)
    if a.what == "verified":
        flagged = verification.flagged(store, ds)
        ds = verification.verified_subset(store, ds, include_unchecked=a.include_unchecked)
        for iid, why in flagged.items():
            print(f"excluded {iid}: prefix already satisfies the request ({why})", file=sys.stderr)
    out = Path(out)
    root = out.parent if out.is_absolute() else Path.cwd()
    path = interchange.export(ds, fmt, root, out if not out.is_absolute() else out.name)
    print(f"wrote {len(ds)} of {n_all} {a.benchmark} items ({fmt}) to {path}", file=sys.stderr)
    return 0

