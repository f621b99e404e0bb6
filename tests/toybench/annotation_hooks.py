"""Toy benchmark, annotation layer: `<root>/toy.json` {"items": [{"item_id", "video", "question", "q", "anchor"}]};
predictions `preds.jsonl`, one line {"item_id", "presses": [t, ...]} per item."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from annotation.dataset import Dataset
from annotation.jsonio import write_json
from annotation.loaders._common import Problems
from annotation.media import probe_or_problem
from annotation.model import Item, Request, Target

NAME = "toybench"
WINDOW = 2.0  # seconds after the anchor that still count


def _load(root, probe_media: bool = True) -> Dataset:
    root = Path(root)
    problems = Problems()
    ds = Dataset(NAME, str(root))
    for rec in json.loads((root / "toy.json").read_text())["items"]:
        stream, problem = probe_or_problem(rec["video"], root / rec["video"], "toy.json", rec["item_id"], "video", probe_media)
        if problem is not None:
            problems.append(problem)
        target = Target(id="moment", kind="moment", anchor=float(rec["anchor"]),
                        window=(float(rec["anchor"]), float(rec["anchor"]) + WINDOW), reference="")
        ds.add(Item(id=rec["item_id"], benchmark=NAME, kind="press", stream=stream,
                    request=Request(text=rec["question"], time=float(rec["q"])), targets=(target,), native=rec,
                    source_file="toy.json"))
    ds.problems = list(problems)
    return ds


def _export_dataset(dataset: Dataset, out) -> None:
    write_json(Path(out) / "toy.json", {"items": [it.native for it in dataset.items]})


def loader():
    return SimpleNamespace(load=_load, export_dataset=_export_dataset)


def edits():
    raise ValueError("the toy benchmark has no review edits")


def item_prediction(item, responses: list):
    return {"item_id": item.id, "presses": sorted(round(r.t, 3) for r in responses)}


def write_native(dataset, preds, out, model: str):
    path = out / "preds.jsonl" if out.suffix != ".jsonl" else out
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(p) + "\n" for p in preds.values()))
    return path
