"""OmniInteract's scores in the runners: native transcripts written as the reference's outputs/<model>/ tree
and scored by its evaluator, an item's figures out of a run's report, and the pooled humans through the
evaluator's own aggregation of every participant's sample summaries."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional

from annotation.predictions import write_native
from runners.evaluate import folder_name
from runners.omniinteract.judge import transport
from runners.pooling import pooled_id
from scoring.omniinteract import evaluate as oi_evaluate
from scoring.omniinteract.live import item_figures
from scoring.omniinteract.summary import aggregate


def score_predictions(ds, item_ids: list[str], preds: dict, judge: Optional[str] = None, store=None,
                      model: str = "model") -> dict:
    """The evaluator's report on the items' transcripts, judged through `judge`'s transport."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = write_native(ds.benchmark, ds, {i: preds[i] for i in item_ids}, Path(tmp) / "outputs",
                               model=folder_name(model))
        return oi_evaluate(ds.root, summary.parent, transport(judge, store))


def run_item_score(item, report: dict) -> Optional[dict]:
    """The item's headline figures in a finished run's report (its summarized sample), None when absent."""
    for smp in report.get("samples") or []:
        if str(smp.get("sample_id")) == item.id and smp.get("item_kind") == "summarized":
            summ = (smp.get("sample_summary") or {}).get("summary") or {}
            return {**item_figures(summ), "status": smp.get("status")}
    return None


def pooled_report(ds, parts, predictions_of, judge: Optional[str] = None, store=None) -> dict:
    """Every participant's samples (from their reports) summarized as one responder's."""
    samples = [{**smp, "sample_id": pooled_id(smp.get("sample_id"), r)} for r, rep in parts
               for smp in rep.get("samples") or []]
    done = [smp for smp in samples if smp.get("item_kind") == "summarized"]
    fixed = any("exclusive_by_question_type" in ((smp.get("sample_summary") or {}).get("summary") or {})
                for smp in done)
    return {"samples": samples, "summary": aggregate([smp["sample_summary"] for smp in done],
                                                     len(samples) - len(done), fixed)}
