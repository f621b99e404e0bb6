"""`python app.py study create|status`: a study's links for outside participants and its progress.

Everything is checked (dataset, items, practice item, consent file, output folder) before the study is
written; the study and every participant's session and capability token are written in one transaction
(annotation.studies), then links.csv is written atomically. Tokens are printed nowhere else."""
from __future__ import annotations

import csv
import io
import os
import random
import sys
import tempfile
from pathlib import Path

from annotation.csv_cells import safe_row
from annotation.calibration import shift_of
from annotation.loaders import load
from annotation.model import Item
from runners.cli.common import benchmarks

DEFAULT_BASE_URL = "http://127.0.0.1:7860"


def _playable(item: Item) -> bool:
    return bool(item.stream.video_path) and Path(item.stream.video_path).is_file()


def _text(path: str, what: str) -> str:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: {what} file not found")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: {what} file is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _lines(path: str, what: str) -> list[str]:
    """The non-blank lines of a list file; lines starting with # are comments."""
    return [ln.strip() for ln in _text(path, what).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def participants_of(arg: str) -> list[str]:
    """`--participants N` (P001..PN) or a file with one participant id per line."""
    if arg.isdigit():
        n = int(arg)
        if not 1 <= n <= 10000:
            raise ValueError(f"--participants: a count from 1 to 10000, got {n}")
        return [f"P{i:0{max(3, len(str(n)))}d}" for i in range(1, n + 1)]
    ids = _lines(arg, "participants")
    if not ids:
        raise ValueError(f"{arg}: no participant ids in the file")
    return ids


def items_of(ds, items_file: str | None, n: int | None, seed: str | None) -> list[str]:
    """The study's items: the ids listed in --items (each must exist and be playable) or N playable at random."""
    if items_file:
        ids = _lines(items_file, "items")
        if not ids:
            raise ValueError(f"{items_file}: no item ids in the file")
        for i, iid in enumerate(ids, 1):
            if iid not in ds:
                raise ValueError(f"{items_file}: line {i}: item {iid!r} is not in {ds.benchmark} ({ds.root})")
            if not _playable(ds.get(iid)):
                raise ValueError(f"{items_file}: line {i}: item {iid!r} has no playable video "
                                 f"({ds.get(iid).stream.video_path})")
        if len(set(ids)) != len(ids):
            raise ValueError(f"{items_file}: an item id is listed twice")
        return ids
    pool = [it.id for it in ds.items if it.kind != "invalid" and _playable(it)]
    if not 1 <= n <= len(pool):
        raise ValueError(f"--n: a count from 1 to {len(pool)} (playable items in {ds.benchmark}), got {n}")
    return random.Random(seed).sample(pool, n)


def write_csv_atomic(path: Path, rows: list[tuple[str, str]]) -> None:
    """links.csv (participant,url) written to a temporary file beside it, then renamed into place."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["participant", "url"])
    w.writerows(safe_row(r) for r in rows)  # a participant id may start with + - @ (annotation.csv_cells)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(buf.getvalue())
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)  # the links are the participants' keys
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def create(a) -> int:
    from annotation.store import Store
    from annotation.studies import BOUNDS, check_settings, create_study, participant_url

    # -- check before doing: every argument and file, nothing written yet
    if (a.items is None) == (a.n is None):
        raise ValueError("give exactly one of --items FILE or --n N")
    out = Path(a.out)
    if out.exists():
        raise ValueError(f"{out}: already exists; links are created once (choose a new --out)")
    if not out.parent.is_dir():
        raise ValueError(f"{out.parent}: output folder does not exist")
    if not os.access(out.parent, os.W_OK):
        raise ValueError(f"{out.parent}: output folder is not writable")
    if not a.base_url.startswith(("http://", "https://")):
        raise ValueError(f"--base-url must start with http:// or https://, got {a.base_url!r}")
    participants = participants_of(a.participants)
    ds = load(a.benchmark, a.data, probe_media=False)
    if not len(ds):
        raise ValueError(f"{a.benchmark}: no items loaded from {ds.root}")
    item_ids = items_of(ds, a.items, a.n, a.seed)
    if a.practice is not None:
        if a.practice not in ds:
            raise ValueError(f"--practice: item {a.practice!r} is not in {a.benchmark} ({ds.root})")
        if not _playable(ds.get(a.practice)):
            raise ValueError(f"--practice: item {a.practice!r} has no playable video")
        if a.practice in item_ids:
            raise ValueError(f"--practice: item {a.practice!r} is also a study item; choose another")
    consent = _text(a.consent, "consent") if a.consent else ""
    if a.consent and not consent.strip():
        raise ValueError(f"{a.consent}: the consent file is empty")
    settings = check_settings({"show_results": bool(a.show_results), "practice_item": a.practice,
                               "consent": consent, "completion_code": a.completion_code or "",
                               "completion_url": a.completion_url or "",
                               "participant_param": a.participant_param,
                               # the participant flow: instructions (the built-in text unless --consent),
                               # a reaction-time calibration and a countdown before each item
                               "instructions": True, "calibrate": not a.no_calibration,
                               "countdown": 0 if a.no_countdown else 3,
                               # bounds (annotation.studies.BOUNDS) where the command names them
                               **{k: getattr(a, k) for k in BOUNDS if getattr(a, k) not in (None, False)}},
                              {it.id for it in ds.items})
    if not Path(a.db).parent.resolve().is_dir():
        raise ValueError(f"{a.db}: folder does not exist")

    # -- the study and its links in one transaction, then the CSV
    store = Store(a.db)
    try:
        study, tokens = create_study(store, a.benchmark, participants, item_ids, settings, name=a.name or "",
                                     data_dir=str(Path(ds.root).resolve()), known_items={it.id for it in ds.items})
    finally:
        store.close()
    write_csv_atomic(out, [(p, participant_url(a.base_url, tokens[p])) for p in participants])
    print(f"study {study.id}: {a.benchmark}, {len(item_ids)} item(s), {len(participants)} participant(s); "
          f"links in {out}", file=sys.stderr)
    print(study.id)
    return 0


def status(a) -> int:
    from annotation.store import Store
    from annotation.studies import list_studies, study_status

    store = Store(a.db)
    try:
        studies = [s for s in list_studies(store) if a.study in (None, s.id)]
        if a.study and not studies:
            raise KeyError(f"no study {a.study!r} in {a.db}")
        if not studies:
            print(f"no studies in {a.db}")
            return 0
        for st in studies:
            rep = study_status(store, st.id)
            print(f"study {st.id} {st.name or ''} ({st.benchmark}): {rep.n_done}/{len(rep.participants)} done")
            print(f"  {'participant':<16} {'progress':>9} {'status':<7} {'responses':>9} {'reaction':>9}  session")
            for p in rep.participants:
                s = store.get_session(p.session_id)
                shift = shift_of(s.settings if s else None)
                react = f"{shift * 1000:.0f} ms" if shift is not None else "-"
                state = "revoked" if p.revoked else p.status
                print(f"  {p.participant:<16} {f'{p.index}/{p.n_items}':>9} {state:<7} {p.n_responses:>9} "
                      f"{react:>9}  {p.session_id}")
    finally:
        store.close()
    return 0


def main(argv: list[str], p) -> int:
    sub = p.add_subparsers(dest="action", metavar="action", required=True)
    c = sub.add_parser("create", help="create a study and write one link per participant to --out")
    c.add_argument("--db", required=True, help="SQLite store the app serves")
    c.add_argument("--benchmark", required=True, choices=benchmarks())
    c.add_argument("--participants", required=True, metavar="N|FILE",
                   help="a count (ids P001..PN) or a file with one participant id per line")
    c.add_argument("--items", metavar="FILE", help="file with one item id per line")
    c.add_argument("--n", type=int, help="N playable items at random (the same for every participant)")
    c.add_argument("--seed", help="--n: random seed, so the same command picks the same items")
    c.add_argument("--data", help="dataset folder (default: the embedded demo)")
    c.add_argument("--show-results", dest="show_results", action="store_true",
                   help="show each item's result to the participant in plain words (off by default)")
    c.add_argument("--practice", metavar="ID", help="an item played first as practice (not recorded)")
    c.add_argument("--consent", metavar="FILE", help="consent text and instructions, Markdown")
    c.add_argument("--completion-code", dest="completion_code",
                   help="code shown at the end (e.g. a crowdsourcing platform's); default: one per participant")
    c.add_argument("--completion-url", dest="completion_url", metavar="URL",
                   help="the end screen links here, beside the completion code (a crowd platform's completion URL)")
    c.add_argument("--participant-param", dest="participant_param", default="PROLIFIC_PID", metavar="NAME",
                   help="URL parameter whose value (the platform's participant id) is recorded with the sitting "
                        "(default PROLIFIC_PID; '' for none)")
    c.add_argument("--no-calibration", dest="no_calibration", action="store_true",
                   help="skip the reaction-time test (on by default: its median is stored with each session)")
    c.add_argument("--no-countdown", dest="no_countdown", action="store_true", help="start items without 3-2-1")
    c.add_argument("--max-responses-per-item", dest="max_responses_per_item", type=int,
                   help="responses one participant may log on one item (default 200)")
    c.add_argument("--max-responses-per-session", dest="max_responses_per_session", type=int,
                   help="responses one participant may log in the whole session (default 2000)")
    c.add_argument("--max-text", dest="max_text", type=int, help="characters in one typed response (default 500)")
    c.add_argument("--allow-skip", dest="allow_skip", action="store_true",
                   help="let participants finish an item before its video has run to the end")
    c.add_argument("--name", help="a label for the study")
    c.add_argument("--base-url", dest="base_url", default=DEFAULT_BASE_URL,
                   help=f"where participants reach the app (default {DEFAULT_BASE_URL})")
    c.add_argument("--out", required=True, help="links.csv to write (participant,url); must not exist")
    c.set_defaults(run=create)
    s = sub.add_parser("status", help="progress of each participant of each study")
    s.add_argument("--db", required=True)
    s.add_argument("--study", help="one study id (default: every study)")
    s.set_defaults(run=status)
    a = p.parse_args(argv)
    return a.run(a)
