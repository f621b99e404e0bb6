"""Export logged responses as JSONL rows or as each benchmark's native prediction files."""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Optional

from annotation.calibration import shift_of, shifted
from annotation.loaders import load
from annotation.predictions import native_predictions, write_native
from annotation.store import Store, human_responder, responder_of
from runners import checks
from runners.checks import CliError, usage

JSONL_FIELDS = ("participant", "session", "benchmark", "item", "t", "frame_t", "kind", "text", "wall_time",
                "responder")


def study_sessions(store: Store, study: str) -> list:
    """The sessions of one study (each participant's), in creation order; KeyError for an unknown study."""
    from annotation.studies import get_study
    if get_study(store, study) is None:
        raise KeyError(f"no study {study!r} in {store.path}")
    return [s for s in store.sessions() if (s.settings or {}).get("study_id") == study]


def input_kind(r) -> Optional[str]:
    """How a person gave a response: "key", "button", "text" or "voice" (None when the page did not say, as in
    rows logged through the API). From the response's kind and the page's `source` (session.js snap)."""
    if r.kind == "text":
        return "text"
    if r.kind == "speech":
        return "voice"
    source = str((r.meta or {}).get("source") or "")
    if source.startswith("key"):
        return "key"
    return "button" if source == "button" else None


def response_rows(store: Store, session: Optional[str] = None, study: Optional[str] = None,
                  calibration_shift: bool = False) -> list[dict]:
    """Every logged response (corrections applied) with its participant, its responder (`human:<participant>` or
    `model:<spec>@<session>`: a live model's rows are not the participant's) and the participant's measured
    reaction time (`calibration_s`), in log order; with `calibration_shift`, `t_shifted` is t moved back by it."""
    sessions = {s.id: s for s in store.sessions()}
    if session and session not in sessions:
        raise KeyError(f"no session {session!r} in {store.path}")
    keep = {s.id for s in study_sessions(store, study)} if study else None
    rows = []
    for r in store.responses(session_id=session):
        if keep is not None and r.session_id not in keep:
            continue
        s = sessions.get(r.session_id)
        rows.append({"participant": s.participant if s else r.responder.split(":", 1)[-1], "session": r.session_id,
                     "benchmark": r.benchmark, "item": r.item_id, "t": r.t, "frame_t": r.frame_t, "kind": r.kind,
                     "text": r.text, "wall_time": r.wall_time, "responder": responder_of(r), "id": r.id,
                     "page_id": r.page_id, "audio_path": r.audio_path})
        human = not r.responder.startswith("model:")
        rows[-1].update(input=input_kind(r) if human else None,
                        typing_started_t=(r.meta or {}).get("typing_started_t") if r.kind == "text" else None,
                        platform_id=(s.settings or {}).get("platform_id") if s and human else None)
        cal = shift_of(s.settings) if s and human else None
        rows[-1]["calibration_s"] = cal
        if calibration_shift:
            rows[-1]["t_shifted"] = shifted(r.t, cal)
    return rows


def check_export_responses(db: str, session: Optional[str], fmt: str, out: Optional[str],
                           data: Optional[str], study: Optional[str] = None) -> tuple[Store, list, dict]:
    """Every check `export responses` makes before writing: an existing store, a known session, an output of
    the right kind whose parent exists, and (native) a dataset holding every item each session was given."""
    checks.check_db(db, create=False)
    if fmt == "jsonl":
        checks.output_file(out, "--out")
    else:
        checks.output_dir(out, "--out")
    if data is not None:
        checks.input_dir(data, "--data")
    store = Store(db)
    try:
        return _check_sessions(store, db, session, fmt, data, study)
    except BaseException:
        store.close()  # the last connection closing removes SQLite's -wal/-shm files: a refusal leaves nothing
        raise


def _check_sessions(store: Store, db: str, session: Optional[str], fmt: str, data: Optional[str],
                    study: Optional[str] = None):
    if session and store.get_session(session) is None:
        raise CliError(f"expected a session id of this store, found unknown session {session!r}", file=db,
                       field="--session")
    try:
        study_group = study_sessions(store, study) if study else None
    except KeyError:
        raise CliError(f"expected a study id of this store, found unknown study {study!r}", file=db,
                       field="--study") from None
    if fmt == "jsonl":
        return store, [], {}
    sessions = [store.get_session(session)] if session else study_group if study else store.sessions()
    datasets: dict = {}
    for s in sessions:
        data_dir = data or store.session_data_dir(s.id) or None
        key = (s.benchmark, data_dir)
        if key not in datasets:
            if data_dir is not None and not Path(data_dir).is_dir():
                raise CliError("expected the session's dataset folder, found nothing (pass --data)",
                               file=str(data_dir), item=s.id, field="data_dir")
            datasets[key] = load(s.benchmark, data_dir, probe_media=False)
        ds = datasets[key]
        missing = [i for i in s.item_ids if i not in ds]
        if missing:
            raise CliError(f"expected every item of session {s.id} in the dataset, found {len(missing)} missing "
                           f"(e.g. {missing[0]})", file=str(ds.root), item=s.id, field="--data")
    return store, sessions, datasets


def export_responses(db: str, session: Optional[str] = None, fmt: str = "jsonl", out: Optional[str] = None,
                     data: Optional[str] = None, human_reference: bool = False, study: Optional[str] = None,
                     calibration_shift: bool = False) -> int:
    from annotation.jsonio import write_text_atomic
    if session and study:
        raise usage("expected --session or --study, found both", "--study")
    store, sessions, datasets = check_export_responses(db, session, fmt, out, data, study)
    if fmt == "jsonl":
        rows = response_rows(store, session, study, calibration_shift)
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        if out:
            write_text_atomic(Path(out), text, mkdir=False)
            print(f"wrote {len(rows)} responses to {out}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    by_bench: dict[str, list] = defaultdict(list)
    for s in sessions:
        by_bench[s.benchmark].append(s)
    for bench, group in by_bench.items():
        # every item a session was given gets a line, so unanswered items score as silent; the participant's
        # own responses only (a live model in the same session is another responder)
        for s in group:
            ds = datasets[(bench, data or store.session_data_dir(s.id) or None)]
            by_item = {iid: [] for iid in s.item_ids if iid in ds}
            shift = shift_of(s.settings) if calibration_shift else None
            for r in store.responses(session_id=s.id):
                if r.item_id in by_item and responder_of(r) == human_responder(s.participant):
                    by_item[r.item_id].append(replace(r, t=shifted(r.t, shift)) if shift is not None else r)
            preds = native_predictions(bench, ds, by_item, human_reference=human_reference)
            target = Path(out or f"export-{bench}") / (s.id if len(sessions) > 1 else "")
            path = write_native(bench, ds, preds, target, model=f"human-{s.participant}")
            print(f"{bench}: session {s.id} ({s.participant}), {len(preds)} items -> {path}", file=sys.stderr)
    return 0
