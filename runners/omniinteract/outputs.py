"""OmniInteract's run outputs: the reference's outputs/<model>/ tree of transcripts and, for a realtime run,
each sample's speech (`output.wav`, `responses.jsonl`) and what went wrong on the wire (`realtime.json`)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from annotation.jsonio import write_json
from annotation.predictions import write_native
from runners.backends.realtime import ResponseRecord
from runners.evaluate import folder_name
from runners.realtime_run import response_words, speech_audio

COUNT_KEYS = ("n_malformed", "n_server_errors", "n_reconnects", "gaps", "cut_s", "n_frames", "n_audio_chunks")


def write_outputs(ds, results: dict, out_dir: Path, model: str) -> list[Path]:
    """The transcripts under out_dir/outputs/<model>/ and, beside each, a realtime run's speech."""
    preds = {iid: r["prediction"] for iid, r in results.items()}
    main = write_native(ds.benchmark, ds, preds, out_dir / "outputs", model=folder_name(model))
    return [main] + write_speech(main.parent, ds, results)


def _responses_jsonl(r: dict) -> str:
    """The reference adapters' responses.jsonl: one line per response (ids, seconds, audio length, text, words)."""
    rt = r.get("realtime") or {}
    rate = int(rt.get("rate", 24000))
    lines = []
    for resp in rt.get("responses", []):
        rec = ResponseRecord(resp["id"], created_t=resp.get("created_t"), spans=resp.get("spans") or [],
                             samples=resp.get("samples", 0), deltas=resp.get("deltas") or [],
                             interrupted_t=resp.get("interrupted_t"))
        words = response_words(rec, rate)
        end = rec.spans[-1][1] if rec.spans else (rec.deltas[-1]["t"] if rec.deltas else rec.created_t)
        lines.append(json.dumps({
            "response_id": rec.id, "triggered_at_second": int(rec.created_t or 0), "done_at_second": int(end or 0),
            "audio_duration_sec": round(sum(e - s for s, e in rec.spans), 3), "text": rec.text,
            "chunks": [{"text": w, "timestamp": [s, e]} for w, s, e in words],
            "interrupted_at": rec.interrupted_t, "timestamp_method": "transcript_delta_audio_position"},
            ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def write_speech(model_dir: str | Path, ds, results: dict) -> list[Path]:
    """`output.wav` (24 kHz mono 16-bit, as long as the stream) and `responses.jsonl` in each sample folder of
    an OmniInteract outputs/<model>/ tree, for the items whose stored result carries realtime speech, and
    `realtime.json` beside batch_summary.json: per item and in total, what went wrong on the wire."""
    import soundfile as sf

    written, counts = [], {}
    for sid, r in results.items():
        if "speech" not in r or sid not in ds:
            continue
        meta = ds.get(sid).meta
        folder = Path(model_dir) / meta["subset"] / meta["video_name"]
        folder.mkdir(parents=True, exist_ok=True)
        rt = r.get("realtime") or {}
        rate = int(rt.get("rate", 24000))
        audio = speech_audio(r["speech"], float(rt["duration"]), rate)
        target = folder / "output.wav"
        tmp = folder / ".output.wav.tmp"
        sf.write(tmp, audio, rate, format="WAV", subtype="PCM_16")
        os.replace(tmp, target)
        responses = folder / "responses.jsonl"
        tmp = folder / ".responses.jsonl.tmp"
        tmp.write_text(_responses_jsonl(r), encoding="utf-8")
        os.replace(tmp, responses)
        written += [target, responses]
        counts[sid] = {k: rt.get(k) for k in COUNT_KEYS}
    if counts:
        totals = {k: sum(len(c[k]) if k == "gaps" else (c[k] or 0) for c in counts.values()) for k in COUNT_KEYS}
        write_json(Path(model_dir) / "realtime.json", {"totals": totals, "items": counts})
        written.append(Path(model_dir) / "realtime.json")
    return written
