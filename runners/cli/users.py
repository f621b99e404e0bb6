"""`python app.py users add|list|passwd|disable|enable|role`: the accounts of a store."""
from __future__ import annotations

import getpass
import os
import sys

from runners.checks import CliError, check_db, usage


def main(argv: list[str], p) -> int:
    from annotation.auth import ROLES
    p.add_argument("action", choices=["add", "list", "passwd", "disable", "enable", "role"])
    p.add_argument("name", nargs="?")
    p.add_argument("--role", choices=ROLES, help="admin (manages users), reviewer (sees/edits everything), "
                                                 "annotator (own blind verification only)")
    p.add_argument("--db", default="ibench.sqlite", help="SQLite store")
    p.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin "
                                                                 "(else $IBENCH_PASSWORD, else a prompt)")
    a = p.parse_args(argv)

    from annotation import auth
    from annotation.store import Store
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
