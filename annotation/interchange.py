"""Import/export of a dataset's time structure in shared formats: CSV and JSONL (one row per target),
ELAN `.eaf` (request, targets and responses as tiers, one file per item, through pympi-ling) and
WebVTT (one file per item, through webvtt-py);
plus the native layout through each benchmark's loader. CSV/JSONL rows read back become review edits.

Every output path is resolved inside an export root (`annotation.paths.resolve_inside`); every file is written
atomically (`annotation.jsonio.write_text_atomic`): a crash or a second export never leaves half a file."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any, Iterable, Optional

from annotation.csv_cells import plain_cell, safe_dict
from annotation.dataset import Dataset
from annotation.edits import current_value, parse_value
from annotation.jsonio import write_text_atomic
from annotation.loaders import loader
from annotation.model import Item, Response
from annotation.paths import resolve_inside

FORMATS = ("native", "csv", "jsonl", "eaf", "vtt")
COLUMNS = ["benchmark", "item_id", "kind", "stream", "request_text", "request_time", "request_modality",
           "target_id", "target_kind", "anchor", "window_start", "window_end", "window_closed", "label", "reference"]


def _ref(v: Any) -> str:
    return "" if v is None else v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)


def rows(dataset: Dataset) -> list[dict]:
    """One flat row per target (an item without targets gets one row with empty target fields)."""
    out = []
    for it in dataset.items:
        base = {"benchmark": it.benchmark, "item_id": it.id, "kind": it.kind, "stream": it.stream.id,
                "request_text": it.request.text, "request_time": it.request.time,
                "request_modality": it.request.modality}
        if not it.targets:
            out.append({**base, **{c: "" for c in COLUMNS if c not in base}})
        for t in it.targets:
            out.append({**base, "target_id": t.id, "target_kind": t.kind, "anchor": t.anchor,
                        "window_start": t.window[0] if t.window else None,
                        "window_end": t.window[1] if t.window else None,
                        "window_closed": t.window_closed if t.window else None, "label": t.label,
                        "reference": _ref(t.reference)})
    return out


def write_csv(dataset: Dataset, path: Path) -> Path:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS)
    w.writeheader()
    for r in rows(dataset):
        w.writerow(safe_dict({k: ("" if v is None else v) for k, v in r.items()}))
    write_text_atomic(path, buf.getvalue())
    return path


def write_jsonl(dataset: Dataset, path: Path, responses: Iterable[Response] = ()) -> Path:
    """Target rows, then (optionally) response rows tagged `"record": "response"`."""
    lines = [json.dumps({"record": "target", **r}, ensure_ascii=False) + "\n" for r in rows(dataset)]
    lines += [json.dumps({"record": "response", "id": r.id, "benchmark": r.benchmark, "item_id": r.item_id,
                          "responder": r.responder, "t": r.t, "kind": r.kind, "text": r.text},
                         ensure_ascii=False) + "\n" for r in responses]
    write_text_atomic(path, lines)
    return path


def read_rows(path: Path) -> list[dict]:
    """Target rows from a CSV or JSONL file written by `write_csv`/`write_jsonl` (possibly hand-edited)."""
    text = Path(path).read_text(encoding="utf-8-sig")
    if Path(path).suffix.lower() == ".csv":
        return [{k: plain_cell(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {n}: invalid JSON ({exc.msg})") from None
            if row.get("record", "target") == "target":
                out.append(row)
    return out


def changes_from_rows(dataset: Dataset, table: Iterable[dict]) -> list[tuple[str, str, Any]]:
    """(item id, field, new value) for every cell that differs from the dataset: the input of review edits."""
    out = []
    for k, r in enumerate(table, 1):
        if r.get("benchmark") not in (None, "", dataset.benchmark):
            raise ValueError(f"row {k}: benchmark {r.get('benchmark')!r} is not {dataset.benchmark!r}")
        iid = str(r.get("item_id"))
        if iid not in dataset:
            raise ValueError(f"row {k}: item_id: no item {iid!r} in {dataset.benchmark}")
        it = dataset.get(iid)
        cells = {"request.time": r.get("request_time"), "request.text": r.get("request_text")}
        tid = r.get("target_id")
        if tid not in (None, ""):
            tid = str(tid)
            ws, we = r.get("window_start"), r.get("window_end")
            cells.update({f"target.{tid}.anchor": r.get("anchor"), f"target.{tid}.reference": r.get("reference")})
            if ws not in (None, ""):
                cells[f"target.{tid}.window"] = f"{ws}, {'' if we in (None, '') else we}"
        for field, raw in cells.items():
            if raw is None or (raw == "" and not field.endswith((".text", ".reference"))):
                continue
            try:
                cur = current_value(it, field)
                new = parse_value(it, field, raw)
            except KeyError as exc:
                raise ValueError(f"row {k}: {exc.args[0]}") from None
            except ValueError as exc:
                raise ValueError(f"row {k}: {dataset.benchmark}/{it.id}: {exc}") from None
            if not _equal(cur, new):
                out.append((it.id, field, new))
    return out


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) < 1e-6
    if a is None and b == "":
        return True
    return _ref(a) == _ref(b) if not isinstance(a, (int, float)) else False


# ---------------------------------------------------------------- ELAN and WebVTT

def safe_name(item_id: str) -> str:
    """A file name for an item id (ids hold '#', '/' and such)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", item_id).strip("._") or "item"


def _ms(t: float) -> int:
    return int(round(float(t) * 1000))


def _spans(item: Item) -> list[tuple[str, float, float, str]]:
    """(tier, start, end, text) for the request and each target (a point gets 0.5 s so ELAN shows it)."""
    dur = item.stream.duration
    spans = []
    rq = item.request.time if item.request.modality != "standing" else 0.0
    spans.append(("request", rq, rq + 0.5, item.request.text))
    for t in item.targets:
        if t.window is not None:
            s = t.window[0]
            e = t.window[1] if t.window[1] is not None else (dur if dur else s + 0.5)
        elif t.anchor is not None:
            s, e = t.anchor, t.anchor + 0.5
        else:
            continue
        if e <= s:
            e = s + 0.5
        label = f"[{t.id}] " + _ref(t.reference)
        spans.append(("targets", float(s), float(e), label.strip()))
    return spans


def _tiers(item: Item, responses: Iterable[Response]) -> dict[str, list[tuple[float, float, str]]]:
    tiers: dict[str, list[tuple[float, float, str]]] = {"request": [], "targets": []}
    for tier, s, e, text in _spans(item):
        tiers[tier].append((s, e, text))
    for r in responses:
        tiers.setdefault(f"responses {r.responder}", []).append((r.t, r.t + 0.5, r.text or r.kind))
    return tiers


def eaf_document(item: Item, responses: Iterable[Response] = (), media_url: Optional[str] = None):
    """An ELAN document (pympi's `Eaf`): tiers 'request', 'targets' and one 'responses <responder>' tier
    per responder, times in milliseconds, the media linked, the item named in a property."""
    from pympi.Elan import Eaf
    eaf = Eaf(author="ibench-ui")
    eaf.remove_tier("default")  # pympi starts every document with an empty tier of that name
    if item.stream.video_path or media_url:
        eaf.add_linked_file(media_url or Path(item.stream.video_path).resolve().as_uri(), mimetype="video/mp4")
    eaf.add_property("ibench:item", f"{item.benchmark}/{item.id}")
    for name, spans in _tiers(item, responses).items():
        eaf.add_tier(name)
        used: set[tuple[int, int]] = set()
        for s, e, text in spans:
            a, b = _ms(s), max(_ms(e), _ms(s) + 1)
            while (a, b) in used:  # ELAN forbids two annotations on one tier at identical times
                b += 1
            used.add((a, b))
            eaf.add_annotation(name, a, b, text)
    return eaf


def write_eaf(item: Item, path: Path, responses: Iterable[Response] = (), media_url: Optional[str] = None) -> Path:
    """Write the item's ELAN file, serialised by pympi (its own `to_eaf` would rename an older file to .bak)."""
    from xml.etree import ElementTree
    from pympi.Elan import to_adocument
    doc = to_adocument(eaf_document(item, responses, media_url))
    write_text_atomic(Path(path), ElementTree.tostring(doc, encoding="UTF-8", xml_declaration=True).decode("utf-8"))
    return Path(path)


def read_eaf(path: Path) -> dict[str, list[tuple[float, float, str]]]:
    """Tiers of an .eaf file as {tier: [(start s, end s, text)]}, read through pympi."""
    from pympi.Elan import Eaf
    eaf = Eaf(str(path))
    out: dict[str, list[tuple[float, float, str]]] = {}
    for tier in eaf.get_tier_names():
        rows = sorted(eaf.get_annotation_data_for_tier(tier))
        out[tier] = [(a / 1000.0, b / 1000.0, v) for a, b, v, *_ in rows]
    return out


def _vtt_time(t: float) -> str:
    ms = _ms(t)
    h, rem = divmod(ms, 3600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def _vtt_seconds(stamp: str) -> float:
    parts = stamp.split(":")
    sec = float(parts[-1]) + 60 * float(parts[-2]) + (3600 * float(parts[-3]) if len(parts) > 2 else 0.0)
    return round(sec, 3)


def _vtt_text(text: str) -> str:
    """Cue text with WebVTT's markup characters escaped and no blank lines (they would end the cue)."""
    t = (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # '-->' too, by its '>'
    return "\n".join(line for line in t.splitlines() if line.strip()) or " "


def vtt_document(item: Item, responses: Iterable[Response] = ()):
    """A WebVTT document (webvtt-py): one cue per request, target and response, by start then end time;
    cues with the same times keep that order (request, targets, then the responses as given)."""
    import webvtt
    cues = [(s, e, f"{tier}: {text}") for tier, s, e, text in _spans(item)]
    cues += [(r.t, r.t + 0.5, f"{r.responder}: {r.text or r.kind}") for r in responses]
    cues.sort(key=lambda c: (c[0], c[1]))
    captions = [webvtt.Caption(_vtt_time(s), _vtt_time(e), _vtt_text(text), identifier=str(k))
                for k, (s, e, text) in enumerate(cues, 1)]
    return webvtt.WebVTT(captions=captions, header_comments=[f"{item.benchmark}/{item.id}".replace("-->", "->")])


def vtt_text(item: Item, responses: Iterable[Response] = ()) -> str:
    return vtt_document(item, responses).content


def read_vtt(path: Path) -> list[tuple[float, float, str]]:
    """Cues of a WebVTT file as (start s, end s, text with entities decoded), read through webvtt-py."""
    import html
    import webvtt
    return [(_vtt_seconds(c.start), _vtt_seconds(c.end), html.unescape(c.text)) for c in webvtt.read(str(path))]


# ---------------------------------------------------------------- one entry point

def export(dataset: Dataset, fmt: str, export_root: str | Path, rel_out: str | Path,
           responses: Iterable[Response] = ()) -> Path:
    """Write `dataset` as `fmt` at `export_root/rel_out` (refused if it escapes the root); returns the path."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    root = Path(export_root)
    root.mkdir(parents=True, exist_ok=True)
    out = resolve_inside(root, rel_out)
    if out == root.resolve():
        raise ValueError(f"give a file or folder name inside {root}, not the export root itself")
    responses = list(responses)
    by_item: dict[str, list[Response]] = {}
    for r in responses:
        by_item.setdefault(r.item_id, []).append(r)
    if fmt == "native":
        loader(dataset.benchmark).export_dataset(dataset, out)
        return out
    if fmt == "csv":
        return write_csv(dataset, out)
    if fmt == "jsonl":
        return write_jsonl(dataset, out, responses)
    out.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    for it in dataset.items:
        stem = safe_name(it.id)
        k = 1
        while stem.lower() in used:  # two ids that sanitise alike ("a#1", "a/1") get distinct files
            k += 1
            stem = f"{safe_name(it.id)}-{k}"
        used.add(stem.lower())
        name = stem + (".eaf" if fmt == "eaf" else ".vtt")
        target = resolve_inside(out, name)
        if fmt == "eaf":
            write_eaf(it, target, by_item.get(it.id, ()))
        else:
            write_text_atomic(target, vtt_text(it, by_item.get(it.id, ())))
    return out
