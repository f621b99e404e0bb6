"""OmniInteract entry point: discover samples, build slots, match, judge, score, aggregate; plus the paper table."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Union

from .common import normalize_chunks
from .config import OIConfig
from .discovery import SampleInput, items_from_batch_summary, items_from_manifest, load_json_file, repo_root_of
from .judge import Transport
from .matching import match_chunks
from .scoring import SampleScore, score_sample
from .slots import build_slots
from .summary import aggregate, summarize_sample

PathLike = Union[str, Path]


def chunk_dict(c: Any) -> dict[str, Any]:
    """A chunk as a sample's record lists it."""
    return {"chunk_id": c.chunk_id, "start": c.start, "end": c.end, "text": c.text}


def _is_math(paths: list[Optional[str]]) -> bool:
    return any(p and ("/1q1a_math/" in p or "\\1q1a_math\\" in p) for p in paths)


def _passthrough(item: SampleInput, status: str, error: Any = None, video: Any = "") -> dict[str, Any]:
    out = {"sample_id": item.sample_id, "status": status, "item_kind": "passthrough",
           "video": item.video if video == "" else video, "scene_type": item.scene_type,
           "gt_json": str(item.gt_json) if item.gt_json else "", "model_json": str(item.model_json) if item.model_json else ""}
    if error is not None:
        out["error"] = error
    return out


def _summarized(item: SampleInput, score: SampleScore, sample_summary: dict[str, Any], fixed: bool) -> dict[str, Any]:
    """A scored sample's record. Reference: the batch row it is rebuilt from carries no video, and a judge-failed
    sample's metric file is summarised without its batch row, so its gt_json/model_json are null (fixed: kept)."""
    ok = score.status == "ok"
    out = {"sample_id": item.sample_id, "status": score.status, "eval_status": score.status,
           "item_kind": "summarized", "video": item.video if fixed else None, "scene_type": item.scene_type,
           "gt_json": str(item.gt_json) if ok or fixed else None,
           "model_json": str(item.model_json) if ok or fixed else None, "error": score.error,
           "num_slots_built": score.num_slots, "unmatched_chunks": [chunk_dict(c) for c in score.unmatched],
           "slots": score.rows, "judge_calls": [c.to_dict() for c in score.judge_calls],
           "sample_summary": sample_summary}
    if score.error is not None:
        out["eval_error"] = {k: v for k, v in score.error.items() if k != "message"}
    return out


def score_item(item: SampleInput, transport: Transport, config: OIConfig) -> SampleScore:
    """Load, build slots, match and score one ready sample (exceptions other than the judge's propagate)."""
    gt_root = load_json_file(item.gt_json)
    model_root = load_json_file(item.model_json)
    slots = build_slots(gt_root, item.scene_type, float(config.last_slot_tail_sec))
    matches, unmatched = match_chunks(slots, normalize_chunks(model_root))
    return score_sample(str(item.sample_id), matches, unmatched, transport, config)


def evaluate(data_root: PathLike, outputs_dir: PathLike, transport: Transport, config: OIConfig = OIConfig(), *,
             manifest: Optional[PathLike] = None, batch_summary: Optional[PathLike] = None,
             out_dir: Optional[PathLike] = None) -> dict[str, Any]:
    """Score every sample listed in ``outputs_dir/batch_summary.json`` (or a manifest) -> ``{samples, summary}``.

    ``data_root`` holds ``data/<subset>/`` (or is that ``data/`` folder); relative paths in the batch
    summary or manifest are resolved against it (not the working directory). With ``out_dir``, one
    ``<sample_id>.unified_eval.json`` per scored sample and ``unified_eval_summary.json`` are written.
    """
    data_root, outputs_dir = Path(data_root), Path(outputs_dir)
    if manifest is not None:
        items = items_from_manifest(Path(manifest), repo_root_of(data_root))
    else:
        bs = Path(batch_summary) if batch_summary is not None else outputs_dir / "batch_summary.json"
        if not bs.exists():
            raise FileNotFoundError(f"{bs}: no batch_summary.json under the outputs folder; pass manifest= instead")
        items = items_from_batch_summary(bs, data_root, outputs_dir, config.model_json_name)
    if config.limit > 0:
        items = items[: config.limit]

    # Reference order: scored samples by sample_id (their batch rows carry no item_index); unscored rows that
    # keep their item_index (missing input, other failures) in batch order, then judge failures as they happen.
    summarized: list[dict[str, Any]] = []
    passthrough: list[dict[str, Any]] = []
    judge_failed: list[dict[str, Any]] = []
    for item in items:
        if item.status != "ready":
            passthrough.append(_passthrough(item, item.status))
            continue
        try:
            score = score_item(item, transport, config)
        except Exception as exc:  # the reference records any per-sample failure and carries on
            # Reference quirk: the failed row is merged with the input row, whose status "ready" wins.
            passthrough.append(_passthrough(item, "failed" if config.fixed else "ready", str(exc)))
            continue
        ok = score.status == "ok"
        paths = [str(item.gt_json), str(item.model_json), item.video] if ok else []
        if not ok and out_dir is not None:
            paths.append(str(Path(out_dir) / f"{score.sample_id}.unified_eval.json"))
        sample_summary = summarize_sample(score.rows, len(score.unmatched), score.status,
                                          config.count_unmatched_as_fp, _is_math(paths), config.fixed)
        entry = _summarized(item, score, sample_summary, config.fixed)
        if ok:
            summarized.append(entry)
        elif config.fixed:
            entry["item_kind"] = "failed"
            judge_failed.append(entry)
        else:
            summarized.append(entry)
            judge_failed.append(_passthrough(item, "failed", score.error, None))
    summarized.sort(key=lambda e: str(e["sample_id"]))
    passthrough.extend(judge_failed)
    summary = aggregate([e["sample_summary"] for e in summarized], len(passthrough), config.fixed)
    samples = summarized + passthrough
    result = {"samples": samples, "summary": summary}
    if out_dir is not None:
        write_outputs(Path(out_dir), result, config)
    return result


def write_outputs(out_dir: Path, result: dict[str, Any], config: OIConfig) -> None:
    """Write per-sample eval JSON files and the canonical summary (kept out of the scoring hot path)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for s in result["samples"]:
        if s.get("item_kind") == "summarized":
            record = {"metric": "Unified-IA-QTF1", "status": s["status"], "error": s.get("error"),
                      "config": {"W_ack": config.w_ack, "decay_alpha": config.decay_alpha,
                                 "decay_gamma": config.decay_gamma,
                                 "core_quality_threshold": config.core_quality_threshold,
                                 "partial_quality_threshold": config.partial_quality_threshold,
                                 "evaluate_interrupted_outputs": not config.no_interrupted_output_eval,
                                 "count_unmatched_as_fp": config.count_unmatched_as_fp, "fixed": config.fixed},
                      "meta": {"gt_json": s["gt_json"], "model_json": s["model_json"], "scene_type": s["scene_type"]},
                      "slots": s["slots"], "unmatched_chunks": s["unmatched_chunks"],
                      "judge_calls": s["judge_calls"], "sample_summary": s["sample_summary"]}
            (out_dir / f"{s['sample_id']}.unified_eval.json").write_text(
                json.dumps(record, ensure_ascii=False), encoding="utf-8")
    items = [{k: v for k, v in s.items() if k not in ("slots", "judge_calls", "unmatched_chunks")}
             for s in result["samples"]]
    (out_dir / "unified_eval_summary.json").write_text(
        json.dumps({"items": items, "summary": result["summary"]}, ensure_ascii=False, indent=2), encoding="utf-8")


def _f(x: Any) -> str:
    try:
        return f"{100.0 * float(x):.2f}"
    except (TypeError, ValueError):
        return "-"


def format_table(summary: dict[str, Any]) -> str:
    """Paper-style table: IA-QTF1 by category, then IDS (NOR, PAQ, CSM-SR, CSM-AS) and NCCS."""
    pm = summary.get("paper_metrics") or {}
    f1 = pm.get("exp_f1") or {}
    intr = pm.get("exp_interruption") or {}
    nested = pm.get("exp_nested") or {}
    cols = [("Realtime", f1.get("realtime")), ("Proactive", f1.get("proactive")), ("Nested", f1.get("nested")),
            ("1Q1A", f1.get("one_q1a_global")), ("1QnA", f1.get("one_qna")), ("All", f1.get("all_global"))]
    head1 = "| " + " | ".join(name for name, _ in cols) + " |"
    row1 = "| " + " | ".join(_f((r or {}).get("IA_QTF1", 0.0)) if r else "-" for _, r in cols) + " |"
    slots1 = "| " + " | ".join(str((r or {}).get("num_slots", 0)) for _, r in cols) + " |"
    sep1 = "|" + "---:|" * len(cols)
    csm_as = intr.get("CSM_AS_seconds", 0.0)
    lines = [
        "IA-QTF1 (x100)", head1, sep1, row1, slots1 + "  <- slots", "",
        "Interruption (IDS) and nested chain",
        "| NOR | PAQ | CSM-SR | CSM-AS (s) | NCCS |", "|---:|---:|---:|---:|---:|",
        f"| {_f(intr.get('NOR', 0.0))} | {_f(intr.get('PAQ', 0.0))} | {_f(intr.get('CSM_SR', 0.0))} | "
        f"{float(csm_as or 0.0):.2f} | {_f(nested.get('NCCS', 0.0))} |",
        f"interrupted slots: {intr.get('interrupted_slot_count', 0)} "
        f"(with output: {intr.get('interrupted_with_output_count', 0)}); nested pairs: {nested.get('num_pairs', 0)}",
    ]
    return "\n".join(lines)
