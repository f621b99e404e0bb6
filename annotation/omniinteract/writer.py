"""OmniInteract predictions in the reference's output layout:
`outputs/<model>/<subset>/<video_name>/wav_transcript.json` ({"text", "chunks": [{"text", "timestamp"}]}),
`precise_truncation.json` when chunks carry `aligned_words`, and `outputs/<model>/batch_summary.json`."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from annotation.dataset import Dataset
from annotation.errors import Problem
from annotation.jsonio import write_json
from annotation.loaders._common import Problems, is_missing, parse_time, raise_if_errors, read_json
from annotation.model import Response

SUMMARY_FILE = "batch_summary.json"
TRANSCRIPT_FILE = "wav_transcript.json"
PRECISE_FILE = "precise_truncation.json"
# The reference scorer's file choice per sample when no --model_json_name is given (spec §2.5).
READ_ORDER = (PRECISE_FILE, "wav_transcript_aligned.json", TRANSCRIPT_FILE, "output.json")


def transcript_from_responses(responses: Iterable[Response]) -> dict:
    """One chunk per spoken/text response: [t, end] with end from Response.meta['end'] (else t)."""
    chunks = []
    for r in sorted(responses, key=lambda r: r.t):
        if not r.text:
            continue
        end = r.meta.get("end")
        chunk: dict[str, Any] = {"text": r.text, "timestamp": [r.t, end if end is not None else r.t]}
        if r.meta.get("aligned_words"):
            chunk["aligned_words"] = list(r.meta["aligned_words"])
        chunks.append(chunk)
    return {"text": " ".join(c["text"] for c in chunks), "chunks": chunks}


def check_transcript(doc: Any, name: str, sample_id: Optional[str], problems: Problems) -> None:
    """Report chunks the reference would skip (bad timestamp) or misread; the transcript itself is kept."""
    if not isinstance(doc, dict):
        problems.error(name, sample_id, None, f"expected an object {{text, chunks}}, got {type(doc).__name__}")
        return
    chunks = doc.get("chunks")
    if not isinstance(chunks, list):
        problems.error(name, sample_id, "chunks", "missing or not a list; the reference sees no output")
        return
    for i, c in enumerate(chunks):
        f = f"chunks[{i}]"
        if not isinstance(c, dict):
            problems.warn(name, sample_id, f, "not an object; the reference skips it")
            continue
        ts = c.get("timestamp")
        if not isinstance(ts, list) or len(ts) != 2 or any(parse_time(v) is None for v in ts):
            problems.warn(name, sample_id, f"{f}.timestamp",
                          f"expected [start, end] seconds, got {json.dumps(ts)}; the reference skips this chunk")
        elif parse_time(ts[0]) > parse_time(ts[1]):
            problems.warn(name, sample_id, f"{f}.timestamp", "start after end; the reference swaps them")
        if c.get("text") is not None and not isinstance(c["text"], str):
            problems.error(name, sample_id, f"{f}.text", f"expected a string, got {type(c['text']).__name__}")
        words = c.get("aligned_words")
        if words is not None and not isinstance(words, list):
            problems.warn(name, sample_id, f"{f}.aligned_words", "not a list; the reference ignores it")


def write_transcript(sample_dir: str | Path, transcript: Mapping) -> Path:
    """Write wav_transcript.json (chunks without words) and, if any chunk has aligned_words, precise_truncation.json."""
    d = Path(sample_dir)
    chunks = list(transcript.get("chunks") or [])
    plain = {**transcript, "chunks": [{k: v for k, v in c.items() if k != "aligned_words"} for c in chunks]}
    write_json(d / TRANSCRIPT_FILE, plain)
    if any("aligned_words" in c for c in chunks):
        write_json(d / PRECISE_FILE, dict(transcript))
        return d / PRECISE_FILE
    return d / TRANSCRIPT_FILE


def _sample_parts(dataset: Optional[Dataset], sample_id: str) -> tuple[str, str, str]:
    """(subset, video_name, video path as batch_summary writes it) for a sample id."""
    if dataset is not None and sample_id in dataset:
        meta = dataset.get(sample_id).meta
        video_file = meta.get("video_file") or f"{meta['subset']}/{meta['video']}"
        video = video_file if video_file.startswith("data/") else f"data/{video_file}"
        return meta["subset"], meta["video_name"], video
    if "__" not in sample_id:
        raise ValueError(f"sample id '{sample_id}' is not '<subset>__<video name>' and no dataset knows it")
    subset, name = sample_id.split("__", 1)
    return subset, name, f"data/{subset}/{name.replace('__', '/')}.mp4"


def write_predictions(outputs_root: str | Path, model: str, predictions: Mapping[str, Optional[Mapping]],
                      dataset: Optional[Dataset] = None) -> Path:
    """Write one folder per sample plus batch_summary.json; a None transcript is listed as "incomplete"."""
    if not model or "/" in model or model in (".", ".."):
        raise ValueError(f"model name '{model}' must be a single folder name")
    root = Path(outputs_root)
    model_dir = root / model
    problems = Problems()
    results = []
    for sid, transcript in predictions.items():
        subset, vname, video = _sample_parts(dataset, sid)
        out_rel = f"{root.name}/{model}/{subset}/{vname}"
        if transcript is None:
            results.append({"video": video, "output_dir": out_rel, "status": "incomplete"})
            continue
        check_transcript(transcript, f"{out_rel}/{TRANSCRIPT_FILE}", sid, problems)
        results.append({"video": video, "output_dir": out_rel, "status": "ok"})
    raise_if_errors(problems)
    for (sid, transcript), row in zip(predictions.items(), results):
        if transcript is not None:
            subset, vname, _ = _sample_parts(dataset, sid)
            write_transcript(model_dir / subset / vname, transcript)
    ok = sum(r["status"] == "ok" for r in results)
    write_json(model_dir / SUMMARY_FILE, {"total": len(results), "success": ok, "incomplete": len(results) - ok,
                                          "results": results})
    return model_dir / SUMMARY_FILE


def _find_output_dir(model_dir: Path, output_dir: str) -> Optional[Path]:
    """Resolve a batch_summary output_dir: as written (relative to the outputs' parent), else <subset>/<name>."""
    p = Path(output_dir)
    candidates = [p] if p.is_absolute() else [model_dir.parent.parent / p, model_dir.parent / p]
    if len(p.parts) >= 2:
        candidates.append(model_dir / p.parts[-2] / p.parts[-1])
    return next((c for c in candidates if c.is_dir()), None)


def check_predictions(model_dir: str | Path, dataset: Optional[Dataset] = None,
                      model_json_name: Optional[str] = None) -> tuple[dict[str, dict], list[Problem]]:
    """Read `<model_dir>/batch_summary.json` and each ok sample's transcript (reference file order)."""
    model_dir = Path(model_dir)
    summary_path = model_dir / SUMMARY_FILE
    name = str(summary_path)
    problems = Problems()
    preds: dict[str, dict] = {}
    summary = read_json(summary_path, name, problems)
    if is_missing(summary):
        return preds, list(problems)
    results = summary.get("results") if isinstance(summary, dict) else None
    if not isinstance(results, list):
        problems.error(name, None, "results", "expected an object with a 'results' list")
        return preds, list(problems)
    for i, row in enumerate(results):
        label = f"#{i}"
        if not isinstance(row, dict) or not isinstance(row.get("output_dir"), str):
            problems.error(name, label, "output_dir", "each result needs an 'output_dir' string")
            continue
        if row.get("status") != "ok":
            continue
        out = _find_output_dir(model_dir, row["output_dir"])
        sid = f"{Path(row['output_dir']).parent.name}__{Path(row['output_dir']).name}"
        if out is None:
            problems.warn(name, sid, "output_dir", f"folder {row['output_dir']} not found (missing_input)")
            continue
        sid = f"{out.parent.name}__{out.name}"
        order = (model_json_name,) if model_json_name else READ_ORDER
        path = next((out / f for f in order if (out / f).is_file()), None)
        if path is None:
            problems.warn(name, sid, "output_dir", f"no transcript in {out} (looked for {', '.join(order)}; missing_input)")
            continue
        doc = read_json(path, str(path), problems)
        if is_missing(doc):
            continue
        check_transcript(doc, str(path), sid, problems)
        if sid in preds:
            problems.error(name, sid, "output_dir", "two results point at the same sample")
            continue
        preds[sid] = doc
    if dataset is not None:
        for sid in preds:
            if sid not in dataset:
                problems.warn(name, sid, None, "no such sample in the dataset")
    return preds, list(problems)


def read_predictions(model_dir: str | Path, dataset: Optional[Dataset] = None,
                     model_json_name: Optional[str] = None) -> dict[str, dict]:
    """Read a model's outputs into {sample_id: transcript}; raise DatasetError listing every error."""
    preds, problems = check_predictions(model_dir, dataset, model_json_name)
    raise_if_errors(problems)
    return preds
