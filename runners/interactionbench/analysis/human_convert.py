"""`analysis human_reference convert`: the annotation tool's export.json -> the human run's preds.jsonl, items.txt
and human_wall_latency.jsonl (every non-blank typed update one emission at its video time, sorted by time)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from runners.interactionbench.analysis.common import write_text
from runners.interactionbench.analysis.human_run import human_dir


def convert(results: dict, model: str, run: str, fixed: bool) -> tuple[list[str], list[str], list[dict], dict]:
    """(prediction lines, item ids, side-file rows, counts) of the export's results, in the export's order. The
    reference strips each answer (its docstring says unchanged); --fixed keeps it as typed."""
    n = dict(items=0, emissions=0, empty_dropped=0, silent_items=0, pre_query_updates=0, broken_flag=0)
    lines, items, side = [], [], []
    for iid, r in results.items():
        vid, sep, idx = iid.rpartition("#")
        try:
            index = int(idx) if sep else None
        except ValueError:
            index = None
        if index is None:
            raise ValueError(f"item {iid!r}: expected an id <video_id>#<item index>")
        if r.get("video_id", vid) != vid:
            raise ValueError(f"item {iid} video_id: {r.get('video_id')!r} is not the id's video {vid!r}")
        qt = r.get("question_time_s")
        ems = []
        for k, u in enumerate(r.get("updates", [])):
            typed = u.get("answer") or ""
            if not typed.strip():
                n["empty_dropped"] += 1
                continue
            try:
                t = float(u["video_time_s"])
            except (KeyError, TypeError, ValueError):
                raise ValueError(f"item {iid} updates[{k}].video_time_s: expected seconds, "
                                 f"found {u.get('video_time_s')!r}") from None
            if qt is not None and t < float(qt):
                n["pre_query_updates"] += 1
            ems.append({"t": t, "content": typed if fixed else typed.strip()})
            side.append({"item_id": iid, "t": t, "wall_ms_since_question": u.get("wall_ms_since_question"),
                         "at": u.get("at")})
        ems.sort(key=lambda e: e["t"])
        n["emissions"] += len(ems)
        n["silent_items"] += not ems
        n["broken_flag"] += bool(r.get("broken"))
        lines.append(json.dumps({"video_id": vid, "item_index": index, "model": model, "run": run,
                                 "emissions": ems}, ensure_ascii=False))
        items.append(iid)
        n["items"] += 1
    return lines, items, side, n


def cmd_convert(args) -> None:
    doc = json.loads(Path(args.raw).read_text(encoding="utf-8"))
    out = Path(args.run_dir) if args.run_dir else human_dir(args)
    out.mkdir(parents=True, exist_ok=True)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), dict):
        raise ValueError(f"{args.raw} results: expected an object of item id -> the item's updates")
    try:
        lines, items, side, n = convert(doc["results"], args.model, args.human_run, args.fixed)
    except (TypeError, AttributeError, ValueError) as exc:  # the reference stops there too, before writing
        raise ValueError(f"{args.raw}: {exc}") from None
    write_text(out / "preds.jsonl", "\n".join(lines) + "\n")
    write_text(out / "items.txt", "\n".join(items) + "\n")
    write_text(out / "human_wall_latency.jsonl", "\n".join(json.dumps(s) for s in side) + "\n")
    print(" ".join(f"{k}={v}" for k, v in n.items()), file=sys.stderr)
