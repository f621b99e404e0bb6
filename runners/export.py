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
from annotation.store import Store

JSONL_FIELDS = ("participant", "session", "benchmark", "item", "t", "frame_t", "kind", "text", "wall_time")


def study_sessions(store: Store, study: str) -> list:
    """The sessions of one study (each participant's), in creation order; KeyError for an unknown study."""
    from annotation.studies import get_study
    if get_study(store, study) is None:
        raise KeyError(f"no study {study!r} in {store.path}")
    return [s for s in store.sessions() if (s.settings or {}).get("study_id") == study]


def response_rows(store: Store, session: Optional[str] = None, study: Optional[str] = None,
                  calibration_shift: bool = False) -> list[dict]:
    """Every logged response (corrections applied) with its participant and their measured reaction time
    (`calibration_s`), in log order; with `calibration_shift`, `t_shifted` is t moved back by it."""
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
                     "text": r.text, "wall_time": r.wall_time, "responder": r.responder, "id": r.id,
                     "page_id": r.page_id, "audio_path": r.audio_path})
        human = not r.responder.startswith("model:")
        cal = shift_of(s.settings) if s and human else None
        rows[-1]["calibration_s"] = cal
        if calibration_shift:
            rows[-1]["t_shifted"] = shifted(r.t, cal)
    return rows


def export_responses(db: str, session: Optional[str] = None, fmt: str = "jsonl", out: Optional[str] = None,
                     data: Optional[str] = None, human_reference: bool = False, study: Optional[str] = None,
                     calibration_shift: bool = False) -> int:
    store = Store(db)
    if session and study:
        raise ValueError("give --session or --study, not both")
    if fmt == "jsonl":
        rows = response_rows(store, session, study, calibration_shift)
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        if out:
            Path(out).write_text(text, encoding="utf-8")
            print(f"wrote {len(rows)} responses to {out}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    sessions = [store.get_session(session)] if session else study_sessions(store, study) if study else store.sessions()
    if session and sessions[0] is None:
        raise KeyError(f"no session {session!r} in {store.path}")
    by_bench: dict[str, list] = defaultdict(list)
    for s in sessions:
        by_bench[s.benchmark].append(s)
    for bench, group in by_bench.items():
        data_dir = data or store.session_data_dir(group[0].id) or None
        ds = load(bench, data_dir, probe_media=False)
        # every item a session was given gets a line, so unanswered items score as silent
        for s in group:
            by_item = {iid: [] for iid in s.item_ids if iid in ds}
            shift = shift_of(s.settings) if calibration_shift else None
            for r in store.responses(session_id=s.id):
                if r.item_id in by_item:
                    by_item[r.item_id].append(replace(r, t=shifted(r.t, shift)) if shift is not None else r)
            preds = native_predictions(bench, ds, by_item, human_reference=human_reference)
            target = Path(out or f"export-{bench}") / (s.id if len(sessions) > 1 else "")
            path = write_native(bench, ds, preds, target, model=f"human-{s.participant}")
            print(f"{bench}: session {s.id} ({s.participant}), {len(preds)} items -> {path}", file=sys.stderr)
    return 0
