"""Annotation commands: `python app.py users …` (accounts) and the dataset side of `python app.py export`
(`export verified`: the prefix-verified subset in the native layout; `export dataset`: the dataset with
its review edits, in native, csv, jsonl, eaf or vtt)."""
from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from annotation.model import BENCHMARKS
from runners.cli import verb


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
        store = Store(a.db)
        if a.action == "list":
            for u in store.users():
                print(f"{u['name']}\t{u['role']}\t{'active' if u['active'] else 'disabled'}")
            return 0
        if not a.name:
            raise ValueError(f"users {a.action}: give the user NAME")
        if a.action in ("add", "passwd"):
            if a.action == "add" and not a.role:
                raise ValueError("users add: give --role (admin, reviewer or annotator)")
            pw = _password(a)
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
            if not a.role:
                raise ValueError("users role: give --role")
            store.update_user(a.name, role=a.role)
            print(f"{a.name} is now {a.role}")
        return 0
    p.set_defaults(run=run)


def _password(a) -> str:
    if a.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    if os.environ.get("IBENCH_PASSWORD"):
        return os.environ["IBENCH_PASSWORD"]
    pw = getpass.getpass(f"password for {a.name}: ")
    if getpass.getpass("again: ") != pw:
        raise ValueError("the two passwords differ")
    return pw


def export_dataset(a) -> int:
    """`export verified|dataset`: the annotated dataset, review edits applied, in a native or interchange format."""
    from annotation import interchange, review, verification
    from annotation.loaders import load
    from annotation.store import Store
    if not a.benchmark:
        raise ValueError(f"export {a.what}: give --benchmark ({', '.join(BENCHMARKS)})")
    if a.what == "verified" and a.format not in (None, "native"):
        raise ValueError("export verified writes the native layout (drop --format)")
    fmt = a.format or "native"
    store = Store(a.db)
    ds = load(a.benchmark, a.data, probe_media=False)
    if ds.errors:
        raise ValueError(f"{a.benchmark}: the dataset has {len(ds.errors)} error(s); first: {ds.errors[0]}")
    if not a.no_edits:
        ds = review.apply_edits(ds, store.reviews(a.benchmark))
    n_all = len(ds)
    if a.what == "verified":
        flagged = verification.flagged(store, ds)
        ds = verification.verified_subset(store, ds, include_unchecked=a.include_unchecked)
        for iid, why in flagged.items():
            print(f"excluded {iid}: prefix already satisfies the request ({why})", file=sys.stderr)
    out = Path(a.out or f"export-{a.benchmark}-{a.what}")
    root = out.parent if out.is_absolute() else Path.cwd()
    path = interchange.export(ds, fmt, root, out if not out.is_absolute() else out.name)
    print(f"wrote {len(ds)} of {n_all} {a.benchmark} items ({fmt}) to {path}", file=sys.stderr)
    return 0

