"""Export logged responses as JSONL rows or as each benchmark's native prediction files."""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Optional

from annotation import registry
from annotation.calibration import shift_of, shifted
from annotation.loaders import load
from annotation.predictions import native_predictions, write_native
from annotation.store import Store, human_responder, responder_of
from runners import checks
from runners.benchmarks import hook
from runners.checks import CliError, usage

JSONL_FIELDS = ("participant", "session", "benchmark", "item", "t", "frame_t", "kind", "text", "wall_time",
                "responder")


def study_sessions(store: Store, study: str) -> list:
    """The sessions of one study named by id or name (each participant's), in creation order; KeyError for an
    unknown study."""
    from annotation.studies import find_study
    sid = find_study(store, study).id
    return [s for s in store.sessions() if (s.settings or {}).get("study_id") == sid]


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


def tool_formats() -> tuple[str, ...]:
    """The `--format` values of the benchmarks' own annotation tools (each benchmark's EXPORT_FORMATS hook)."""
    return tuple(f for b in registry.names() for f in hook(b, "EXPORT_FORMATS", ()))


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
    if fmt in tool_formats():
        for flag, on in (("--human-reference", human_reference), ("--calibration-shift", calibration_shift)):
            if on:
                raise usage(f"expected no {flag} with --format {fmt} (the paper's procedure measures and applies its "
                            "own shift: analysis human_reference reaction-latency, shift-a)", flag)
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
    dataset_of = lambda s: datasets[(s.benchmark, data or store.session_data_dir(s.id) or None)]  # noqa: E731
    if fmt in tool_formats():
        return _export_tool(store, sessions, dataset_of, fmt, out)
    for s in sessions:
        # every item a session was given gets a line, so unanswered items score as silent; the participant's
        # own responses only (a live model in the same session is another responder)
        bench, ds = s.benchmark, dataset_of(s)
        preds = native_predictions(bench, ds, sitting_responses(store, s, ds, calibration_shift))
        if human_reference and "human_reference" in hook(bench, "EXPORT_FLAGS", ()):
            sid = study_of(s)
            others = partial(study_predictions, store, sid, bench, ds, calibration_shift)
            preds, said = hook(bench, "human_reference")(ds, preds, s.id, sid, others)
            print(f"{bench}: session {s.id} ({s.participant}): {said}", file=sys.stderr)
        target = Path(out or f"export-{bench}") / (s.id if len(sessions) > 1 else "")
        path = write_native(bench, ds, preds, target, model=f"human-{s.participant}")
        print(f"{bench}: session {s.id} ({s.participant}), {len(preds)} items -> {path}", file=sys.stderr)
    return 0


def study_of(session) -> Optional[str]:
    """The study a session was created for (None for a session opened in the studio)."""
    return (session.settings or {}).get("study_id")


def study_predictions(store: Store, study: str, bench: str, ds, calibration_shift: bool = False) -> list[dict]:
    """Native predictions of every sitting of a study on `bench` (its participants' own responses)."""
    return [native_predictions(bench, ds, sitting_responses(store, o, ds, calibration_shift))
            for o in study_sessions(store, study) if o.benchmark == bench]


def sitting_responses(store: Store, s, ds, calibration_shift: bool = False) -> dict[str, list]:
    """item id -> the participant's own responses (log order) for every item the session was given that the
    dataset holds (an unanswered item gets an empty list); with `calibration_shift`, moved back by their
    measured reaction time."""
    by_item = {iid: [] for iid in s.item_ids if iid in ds}
    shift = shift_of(s.settings) if calibration_shift else None
    for r in store.responses(session_id=s.id):
        if r.item_id in by_item and responder_of(r) == human_responder(s.participant):
            by_item[r.item_id].append(replace(r, t=shifted(r.t, shift)) if shift is not None else r)
    return by_item


def _export_tool(store: Store, sessions: list, dataset_of, fmt: str, out: Optional[str]) -> int:
    """`--format human-reference`: one annotation-tool export.json per sitting (the reference converts one
    participant): OUT/export.json for one sitting, OUT/<session id>/export.json for several."""
    from annotation.jsonio import write_text_atomic
    for s in sessions:
        if fmt not in hook(s.benchmark, "EXPORT_FORMATS", ()):
            raise CliError(f"expected sessions of a benchmark that writes --format {fmt}, found {s.benchmark}",
                           file=store.path, item=s.id, field="--format")
    for s in sessions:
        ds = dataset_of(s)
        doc = hook(s.benchmark, "tool_export")(ds, s, sitting_responses(store, s, ds), study_of(s))
        path = Path(out or f"export-{s.benchmark}") / (s.id if len(sessions) > 1 else "") / "export.json"
        write_text_atomic(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        n_up = sum(len(r["updates"]) for r in doc["results"].values())
        print(f"{s.benchmark}: session {s.id} ({s.participant}), {doc['n_items']} items, {n_up} updates -> {path}",
              file=sys.stderr)
    return 0
