"""The human run of the paper's human reference (reference `analysis/human_reference.py`): where it lives
(<runs_root>/<human_run>), its predictions and item list, and the benchmark items it covers."""
from __future__ import annotations

import json
from pathlib import Path

from runners.interactionbench.analysis.common import id_set, items_by_id, nonblank_lines

HUMAN_RUN = "human_reference"


def human_dir(args) -> Path:
    return Path(args.runs_root) / args.human_run


def item_key(p: dict) -> str:
    """`<video_id>#<item_index>` of a human prediction line (the human run's lines always carry item_index)."""
    return f'{p["video_id"]}#{p["item_index"]}'


def load_human(args) -> tuple[Path, dict, set, dict]:
    """(run folder, item id -> prediction line of --preds-name, ids of items.txt, the benchmark's items among them
    as item id -> (row, family, timed answers) in benchmark order)."""
    h = human_dir(args)
    preds = {}
    for line in nonblank_lines(h / args.preds_name):
        p = json.loads(line)
        preds[item_key(p)] = p
    keep = id_set(h / "items.txt")
    items = {iid: it for iid, it in items_by_id(args.data).items() if iid in keep}
    return h, preds, keep, items
