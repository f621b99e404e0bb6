"""Golden cases of the reference scorers, read from every `*cases.json` of a benchmark's golden folder, and
written to disk in each benchmark's native layout; shared by the API parity tests and the CLI parity tests.

A missing golden folder or a folder without case files is an error (the parity tests fail, never skip)."""
from __future__ import annotations

import json
import math
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
    """`python app.py score interactionbench ...` arguments for a written case: the case's own settings and
    nothing else (messy inputs are scored as the reference scores them by default, with warnings)."""
    cfg = case.get("config") or {}
    args = ["score", "interactionbench", "--data", str(paths["data"]), "--preds", str(paths["preds"]),
            "--out", str(out)]
    for key, flag in (("delta", "--delta"), ("pre_tol", "--pre-tol"), ("gate_thresh", "--gate-thresh")):
        if key in cfg:  # (flag=value: a value such as -inf or -0.5 would read as a flag)
            args.append(f"{flag}={cfg[key]}")
    if cfg.get("use_gate"):
        args += ["--gate"]
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


def ib_api_options(case: dict, paths: dict[str, Any]) -> dict[str, Any]:
    """`runners.score_api.score_files` keywords for a written case: its settings, as `ib_cli_args` gives them."""
    cfg = case.get("config") or {}
    opts: dict[str, Any] = {k: cfg[k] for k in ("delta", "gate_thresh") if k in cfg}
    if "pre_tol" in cfg:
        opts["pre_tol"] = str(cfg["pre_tol"])
    if cfg.get("use_gate"):
        opts["gate"] = True
    if cfg.get("skip_missing"):
        opts["skip_missing"] = True
    for name in ("items", "mcq_key"):
        if paths[name] is not None:
            opts[name] = str(paths[name])
    if paths["judge_spec"]:
        opts["judge"] = paths["judge_spec"]
        if "cache_dir" in paths["judge_args"]:
            opts["judge_cache_dir"] = paths["judge_args"]["cache_dir"]
    return opts


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
    path.parent.mkdir(parents=True, exist_ok=True)
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


# ---------------------------------------------------------------- comparisons

def _norm(obj, casedir: str):
    """Scratch paths -> '<casedir>', infinities -> 'inf' (how the golden file shows them)."""
    if isinstance(obj, dict):
        return {k: _norm(v, casedir) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_norm(v, casedir) for v in obj]
    if isinstance(obj, str):
        return obj.replace(casedir, "<casedir>")
    if isinstance(obj, float) and math.isinf(obj):
        return "inf"
    return obj


def _same(ours, exp, path="") -> list:
    """Differences (values, types and key sets); floats equal within 1e-9 (they are in fact identical), an int
    never equal to a float (the reference writes 7 where its inputs are integers, 7.0 where they are not)."""
    if isinstance(exp, dict):
        if not isinstance(ours, dict):
            return [f"{path}: expected a dict, got {ours!r}"]
        out = [f"{path}.{k}: missing" for k in exp if k not in ours] + [f"{path}.{k}: extra" for k in ours if k not in exp]
        for k in exp:
            if k in ours:
                out += _same(ours[k], exp[k], f"{path}.{k}")
        return out
    if isinstance(exp, list):
        if not isinstance(ours, list) or len(ours) != len(exp):
            return [f"{path}: expected {len(exp)} entries, got {ours!r}"]
        return [d for i, (a, b) in enumerate(zip(ours, exp)) for d in _same(a, b, f"{path}[{i}]")]
    if isinstance(exp, float) and type(ours) is float:  # type by type: 7 is not 7.0
        return [] if abs(ours - exp) <= 1e-9 or ours == exp else [f"{path}: ours {ours!r}, expected {exp!r}"]
    return [] if (ours == exp and type(ours) is type(exp)) else [f"{path}: ours {ours!r}, expected {exp!r}"]


def check_ib_report(report: dict, case: dict, casedir: Path) -> None:
    """The whole report (per_item, records, aggregate with config, table) equals the case's expected one."""
    exp = case["expected"]
    rep = _norm(report, str(casedir))
    assert set(rep) >= {"per_item", "records", "aggregate", "table"}
    assert _same(rep["per_item"], exp["per_item"], "per_item") == []
    assert _same(rep["aggregate"]["overall"], exp["aggregate"]["overall"], "overall") == []
    assert _same(rep["records"], exp["records"], "records") == []
    assert _same(rep["aggregate"], exp["aggregate"], "aggregate") == []
    assert _same(rep["table"], exp["table"], "table") == []


OI_TOL = 1e-9  # float_tolerance_abs of the OmniInteract case files


def assert_close(actual: Any, expected: Any, where: str) -> None:
    """Recursive comparison: every expected key present; floats to TOL; everything else exactly."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected object, got {actual!r}"
        for key, value in expected.items():
            if key == "definition":
                continue
            assert key in actual, f"{where}: missing key {key!r}"
            assert_close(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, f"{where}[{i}]")
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        assert actual == expected and type(actual) is type(expected), f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, int):
        assert isinstance(actual, int) and not isinstance(actual, bool) and actual == expected, \
            f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, float):
        assert type(actual) is float, f"{where}: {actual!r} is not a float like {expected!r}"
        assert actual == expected or math.isclose(actual, expected, rel_tol=0.0, abs_tol=OI_TOL), \
            f"{where}: {actual!r} != {expected!r}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


SLOT_KEYS = ("slot_id", "scene_type", "question_type", "step_index", "turn_index", "label", "nested_group_id",
             "nested_role", "boundary_type", "effective_boundary_type", "is_interrupted", "start", "t_a", "end",
             "num_chunks", "num_early", "num_core", "TP_ack", "TP_core", "TP_n", "FP_delta", "FN_delta", "spill",
             "spill_seconds", "max_chunk_end", "all_chunk_ids", "early_chunks", "core_chunks", "stage_early",
             "stage_core", "interruption_diagnostic")


def check_oi_result(result: dict, case: dict, root: Path) -> None:
    """Summary, sample listing and order, record fields, and per sample slots, judge calls and summaries."""
    expected = case["expected"]
    assert_close(result["summary"], expected["summary"], "summary")

    listing = [(s["sample_id"], s["item_kind"]) for s in result["samples"]]
    assert listing == [(s["sample_id"], s["item_kind"]) for s in expected["samples"]], "sample listing or order differs"
    for act, exp in zip(result["samples"], expected["samples"]):
        where = f"sample {exp['sample_id']}/{exp['item_kind']}"
        for key in ("status", "scene_type", "video", "eval_status", "eval_error", "num_slots_built", "error"):
            if key in exp:
                assert_close(act.get(key), exp[key], f"{where}.{key}")
        assert rel_to(act["gt_json"], root) == exp["gt_json"], where
        assert rel_to(act["model_json"], root) == exp["model_json"], where
        if exp["item_kind"] != "summarized":
            continue
        assert_close(act["unmatched_chunks"], exp["unmatched_chunks"], f"{where}.unmatched_chunks")
        assert len(act["slots"]) == len(exp["slots"]), f"{where}: slot count"
        for a_slot, e_slot in zip(act["slots"], exp["slots"]):
            for key in SLOT_KEYS:
                if key in e_slot:
                    assert_close(a_slot.get(key), e_slot[key], f"{where}.slot{e_slot['slot_id']}.{key}")
        assert_close(act["judge_calls"], exp["judge_calls"], f"{where}.judge_calls")
        assert_close(act["sample_summary"], exp["sample_summary"], f"{where}.sample_summary")
