"""Opening checks for a --db path, before anything is created or written: a folder, a file that is not SQLite,
a damaged file or a store with a newer schema is refused with a message saying what was expected and found.
Kept apart from annotation.store (sqlite3 only, no sqlite-utils) so commands that merely check a path start fast."""
from __future__ import annotations

from pathlib import Path

SCHEMA_VERSION = 1


class StoreError(ValueError):
    """A --db path that is not a store this program can open (a folder, not SQLite, a newer schema)."""


_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_store_path(path: str | os.PathLike, create: bool) -> None:
    """Refuse, before anything is created or changed, a path that is a folder, a file that is not SQLite, a
    store with a newer schema, or (unless `create`) a store that does not exist yet."""
    p = Path(path)
    if p.is_dir():
        raise StoreError("expected a SQLite store file, found a folder")
    if not p.exists():
        if not create:
            raise StoreError("expected an existing store, found nothing (check the path; `python app.py` creates "
                             "one on first start)")
        if not p.parent.is_dir():
            raise StoreError(f"expected its parent folder {p.parent} to exist, found nothing (create it first)")
        return
    try:
        with open(p, "rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise StoreError(f"expected a readable SQLite store, found: {exc.strerror or exc}") from None
    if head and head != _SQLITE_MAGIC:
        raise StoreError("expected a SQLite store, found a file that is not SQLite")
    if not head:
        return  # an empty file is an empty SQLite database
    import sqlite3  # only when there is a file to look into: a command that never opens a store stays light
    try:
        conn = sqlite3.connect(f"file:{p.resolve()}?mode=ro", uri=True, timeout=30)
        try:
            has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() if has_meta else None
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"expected a readable SQLite store, found a damaged one ({exc})") from None
    try:
        version = int(row[0]) if row else 0
    except (TypeError, ValueError):
        raise StoreError(f"expected an integer schema version, found {row[0]!r}") from None
    if version > SCHEMA_VERSION:
        raise StoreError(f"expected schema version <= {SCHEMA_VERSION}, found {version} (written by a newer "
                         "ibench-ui; upgrade this program)")
