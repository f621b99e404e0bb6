"""Golden cases of the reference scorers, read from every `*cases.json` of a benchmark's golden folder, and
written to disk in each benchmark's native layout; shared by the API parity tests and the CLI parity tests.

A missing golden folder or a folder without case files is an error (the parity tests fail, never skip)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from tests.conftest import golden_dir

IB_VIDEO_FIELDS = ("video_id", "item_index", "domain", "duration_s")


def case_files(benchmark: str) -> list[Path]:
    """Every `*cases.json` in golden/<benchmark>/, sorted; raises when the folder or the files are missing."""
    folder = golden_dir() / benchmark
    if not folder.is_dir():
        raise FileNotFoundError(f"golden folder {folder} is missing; set IBENCH_GOLDEN_DIR")
    files = sorted(folder.glob("*cases.json"))
    if not files:
        raise FileNotFoundError(f"no *cases.json in {folder}")
    return files


def load_cases(benchmark: str, key: str = "cases") -> list[tuple[str, dict]]:
    """(file stem, case) for every entry under `key` ('cases' or 'vectors') of every case file that has it."""
    out = []
    for path in case_files(benchmark):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not ({"cases", "vectors"} & set(doc)):
            raise ValueError(f"{path}: expected an object with 'cases' or 'vectors'")
        out += [(path.stem, case) for case in doc.get(key, [])]
    return out


def case_id(stem: str, case: dict) -> str:
    """`<file stem>:<case name>` (the names are unique within a file, not across files)."""
    return f"{stem}:{case.get('name') or case.get('case_id') or case.get('vector_id')}"


def _jsonl(path: Path, rows: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------- InteractionBench

def write_ib_annotations(case: dict, data: Path) -> None:
    """The case's annotation files under `data`: `annotation_files` verbatim when the case has them, else one
    `annotations/<domain>/<video_id>.json` per video built from `items` (video fields from its first entry)."""
    if case.get("annotation_files"):
        for rel, doc in case["annotation_files"].items():
            path = data / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        return
    videos: dict = {}
    for it in case["items"]:
        v = videos.setdefault(it["video_id"], {"video_id": it["video_id"], "domain": it.get("domain"),
                                                "duration_s": it.get("duration_s"), "items": []})
        v["items"].append(it)
    for v in videos.values():
        v["items"] = [{k: x for k, x in it.items() if k not in IB_VIDEO_FIELDS}
                      for it in sorted(v["items"], key=lambda it: it["item_index"])]
        path = data / "annotations" / v["domain"] / f"{v['video_id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(v, ensure_ascii=False), encoding="utf-8")


def ib_rows(case: dict) -> list[dict]:
    """The item rows the loader yields for a case, for the scoring API: `items` as they are when the case gives
    its `annotation_files` (they list the loader's output), else with each video's fields (domain, duration_s)
    taken from its first entry, as the one file per video written from them holds them."""
    if case.get("annotation_files"):
        return case["items"]
    first: dict = {}
    for it in case["items"]:
        first.setdefault(it["video_id"], {k: it.get(k) for k in ("domain", "duration_s")})
    return [{**it, **first[it["video_id"]]} for it in case["items"]]


def write_ib_case(case: dict, casedir: Path) -> dict[str, Any]:
    """Every input of an InteractionBench case under `casedir` (data/, preds.jsonl, mcq_key.jsonl, items.txt,
    the judge's verdict files); returns their paths and the judge spec/args with <casedir> filled in."""
    data = casedir / "data"
    write_ib_annotations(case, data)
    out: dict[str, Any] = {"data": data, "preds": _jsonl(casedir / "preds.jsonl", case["preds"]),
                           "mcq_key": None, "items": None, "judge_spec": None, "judge_args": {}}
    if case.get("mcq_key") is not None:
        out["mcq_key"] = _jsonl(casedir / "mcq_key.jsonl", case["mcq_key"])
    items = (case.get("config") or {}).get("items")
    if items is not None:
        out["items"] = casedir / "items.txt"
        out["items"].write_text("".join(f"{i}\n" for i in items), encoding="utf-8")
    judge = case.get("judge")
    if judge:
        for name, rows in judge["files"].items():
            _jsonl(casedir / name, rows)
        out["judge_spec"] = judge["spec"].replace("<casedir>", str(casedir))
        out["judge_args"] = {k: v.replace("<casedir>", str(casedir)) if isinstance(v, str) else v
                             for k, v in (judge.get("judge_args") or {}).items()}
    return out


def ib_cli_args(case: dict, paths: dict[str, Any], out: Path) -> list[str]:
    """`python app.py score interactionbench ...` arguments for a written case (existing flags only)."""
    cfg = case.get("config") or {}
    args = ["score", "interactionbench", "--data", str(paths["data"]), "--preds", str(paths["preds"]),
            "--out", str(out)]
    if "delta" in cfg:
        args += ["--delta", str(cfg["delta"])]
    if "pre_tol" in cfg:
        args += ["--pre-tol", str(cfg["pre_tol"])]
    if cfg.get("use_gate"):
        args += ["--gate"]
    if "gate_thresh" in cfg:
        args += ["--gate-thresh", str(cfg["gate_thresh"])]
    if cfg.get("skip_missing"):
        args += ["--skip-missing"]
    if paths["items"] is not None:
        args += ["--items", str(paths["items"])]
    if paths["mcq_key"] is not None:
        args += ["--mcq-key", str(paths["mcq_key"])]
    if paths["judge_spec"]:
        args += ["--judge", paths["judge_spec"]]
        if "cache_dir" in paths["judge_args"]:
            args += ["--judge-cache-dir", paths["judge_args"]["cache_dir"]]
    return args


# ---------------------------------------------------------------- OmniInteract

def write_oi_case(case: dict, root: Path) -> Path:
    """Every annotation and model-output file of an OmniInteract case under `root` (JSON as JSON, `.jsonl`
    arrays one object per line); returns the outputs folder the reference batch ran on."""
    for rel, content in {**case["annotations"], **case["model_outputs"]}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".jsonl"):
            path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in content), encoding="utf-8")
        elif isinstance(content, str) and not rel.endswith(".json"):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return root / "outputs" / "synth"


def oi_verdicts_file(case: dict, root: Path) -> Path:
    """The case's stored judge replies as a `replay:` file."""
    path = root / "verdicts.json"
    path.write_text(json.dumps(case["judge_verdicts"], ensure_ascii=False), encoding="utf-8")
    return path


def rel_to(path: Optional[Any], root: Path) -> Any:
    """A path as the golden files show it: relative to the case root (None and '' unchanged)."""
    if not path:
        return path
    p = Path(str(path))
    try:
        return p.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
