"""The shared shape of the one-file native layouts (ProactiveBench `annotations.json`, InteractScope
`interactions.json`): `{benchmark, version, <records>: [...]}` read, checked record by record, and exported."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from annotation.dataset import Dataset
from annotation.errors import PathEscapeError
from annotation.jsonio import write_json
from annotation.loaders._common import Problems, is_missing, item_label, link_or_copy, read_json, resolve_inside
from annotation.model import Item


@dataclass(frozen=True)
class Layout:
    """What differs between the one-file layouts: names of the file, the record list and the record id."""
    benchmark: str
    file: str          # e.g. "annotations.json"
    version: int
    records: str       # key of the record list, e.g. "items"
    noun: str          # one record in messages, e.g. "item"
    id_key: str        # e.g. "item_id"


# build_item(rec, index, root, file name, problems, seen ids, probe_media) -> Item or None (on errors)
BuildItem = Callable[[Any, int, Path, str, Problems, dict, bool], Optional[Item]]


def load(layout: Layout, root: str | Path, build_item: BuildItem, probe_media: bool = True) -> Dataset:
    """Read and validate `<root>/<layout.file>`; every problem found is kept in Dataset.problems."""
    root = Path(root)
    problems = Problems()
    ds = Dataset(layout.benchmark, str(root))
    if not root.is_dir():
        problems.error(str(root), None, None, f"annotation root not found (expected a folder holding {layout.file})")
        ds.problems = list(problems)
        return ds
    name = layout.file
    top = read_json(root / name, name, problems)
    if is_missing(top):
        ds.problems = list(problems)
        return ds
    records = _check_header(layout, top, name, problems)
    if isinstance(top, dict):
        ds.extra["header"] = {k: (None if k == layout.records else v) for k, v in top.items()}
    seen: dict[str, int] = {}
    for index, rec in enumerate(records):
        item = build_item(rec, index, root, name, problems, seen, probe_media)
        if item is not None:
            ds.add(item)
    if isinstance(records, list) and not records:
        problems.error(name, None, layout.records, f"empty dataset: the {layout.records} list has no entries")
    elif records and not ds.items:
        problems.error(name, None, layout.records, f"no valid {layout.noun} could be loaded")
    ds.problems = list(problems)
    return ds


def _check_header(layout: Layout, top: Any, name: str, problems: Problems) -> list:
    """The record list of the file, after checking benchmark and version; [] when there is none."""
    if not isinstance(top, dict):
        problems.error(name, None, None, f"expected a JSON object with 'benchmark', 'version' and '{layout.records}', "
                                         f"got {type(top).__name__}")
        return []
    if top.get("benchmark") != layout.benchmark:
        problems.error(name, None, "benchmark",
                       f"expected \"{layout.benchmark}\", got {json.dumps(top.get('benchmark'))}")
    if "version" not in top:
        problems.warn(name, None, "version", f"missing; assuming version {layout.version}")
    elif top["version"] != layout.version:
        problems.error(name, None, "version",
                       f"unsupported version {json.dumps(top['version'])} (expected {layout.version})")
    records = top.get(layout.records)
    if records is None:
        problems.error(name, None, layout.records, f"missing field (expected a list of {layout.records})")
        return []
    if not isinstance(records, list):
        problems.error(name, None, layout.records, f"expected a list, got {type(records).__name__}")
        return []
    return records


def start_record(layout: Layout, rec: Any, index: int, name: str, problems: Problems,
                 seen: dict[str, int]) -> Optional[tuple[str, int]]:
    """Check a record is an object with a unique non-empty id: (its label, the error count before it), or
    None when it is not an object. Callers drop the record if errors grew past that count."""
    key = layout.id_key
    iid = item_label(rec, key, index)
    if not isinstance(rec, dict):
        problems.error(name, iid, None, f"expected an object, got {type(rec).__name__}")
        return None
    n_before = problems.error_count()
    if key not in rec:
        problems.error(name, iid, key, "missing field")
    elif not isinstance(rec[key], str) or not rec[key].strip():
        problems.error(name, iid, key, f"expected a non-empty string, got {json.dumps(rec[key])}")
    elif rec[key] in seen:
        problems.error(name, iid, key, f"duplicate id: {layout.noun} #{index} repeats the id of "
                                       f"{layout.noun} #{seen[rec[key]]}; ids must be unique")
    else:
        seen[rec[key]] = index
    return iid, n_before


def check_choice(rec: dict, key: str, choices: tuple[str, ...], name: str, iid: str,
                 problems: Problems) -> Optional[str]:
    """A required field that must be one of `choices`; None (and an error) otherwise."""
    value = rec.get(key)
    if key not in rec:
        problems.error(name, iid, key, f"missing field (one of {', '.join(choices)})")
        return None
    if value not in choices:
        problems.error(name, iid, key, f"unknown {key} {json.dumps(value)} (expected one of {', '.join(choices)})")
        return None
    return value


def check_video(rec: dict, root: Path, name: str, iid: str, problems: Problems) -> tuple[Any, Optional[Path]]:
    """The record's `video` as given and its path resolved inside the dataset root (None on a problem)."""
    video_rel = rec.get("video")
    if "video" not in rec:
        problems.error(name, iid, "video", "missing field (path of the video relative to the dataset root)")
    elif not isinstance(video_rel, str) or not video_rel.strip():
        problems.error(name, iid, "video", f"expected a relative path string, got {json.dumps(video_rel)}")
    else:
        try:
            return video_rel, resolve_inside(root, video_rel)
        except PathEscapeError as exc:
            problems.error(name, iid, "video", str(exc))
    return video_rel, None


def export_dataset(layout: Layout, dataset: Dataset, out_dir: str | Path) -> Path:
    """Write `<out>/<layout.file>` from each Item.native (header kept) and link or copy the videos."""
    out = Path(out_dir)
    header = dict(dataset.extra.get("header")
                  or {"benchmark": layout.benchmark, "version": layout.version, layout.records: None})
    header[layout.records] = [it.native for it in dataset.items]
    write_json(out / layout.file, header)
    src_root = Path(dataset.root)
    for rel in sorted({it.native.get("video") for it in dataset.items if isinstance(it.native, dict)} - {None}):
        link_or_copy(resolve_inside(src_root, rel), resolve_inside(out, rel))
    return out / layout.file
