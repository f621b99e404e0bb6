"""Toy benchmark, scoring layer: `score` (accuracy = % of items whose first press after the question is in the
window), one-item scoring, verdicts, bootstrap statistics and the table."""
from __future__ import annotations

from scoring.bootstrap import BenchStats, Cols, ratio
from scoring.classify import ResponseVerdict

VERDICTS = ("hit", "early", "late")


def _verdict(native: dict, t: float) -> str:
    a = float(native["anchor"])
    return "early" if t < a else ("hit" if t <= a + 2.0 else "late")


def score(natives: list, preds: dict) -> dict:
    per_item = {}
    for rec in natives:
        presses = [t for t in (preds.get(rec["item_id"]) or {}).get("presses", []) if t >= float(rec["q"])]
        per_item[rec["item_id"]] = {"correct": bool(presses) and _verdict(rec, presses[0]) == "hit",
                               "presses": len(presses)}
    n = len(per_item)
    acc = round(100.0 * sum(r["correct"] for r in per_item.values()) / n, 1) if n else None
    return {"per_item": per_item, "table": {"n_items": n, "accuracy": acc}}


def score_item(item, prediction, judge=None, oi_transport=None) -> dict:
    return score([item.native], {item.id: prediction})


def headline(item, report: dict, judged: bool = False) -> dict:
    return dict(report["per_item"][item.id])


def content_judged(judge, oi_transport) -> bool:
    return False


def classify(item, prediction, report) -> list:
    presses = (prediction or {}).get("presses", [])
    return [ResponseVerdict(index=i, t=t, label=_verdict(item.native, t), target="moment") for i, t in enumerate(presses)]


def item_stats(report) -> BenchStats:
    cols = Cols()
    ids = list((report.get("per_item") or {}))
    for iid in ids:
        cols.add({"n": 1.0, "correct": float(report["per_item"][iid]["correct"])})
    c = cols.col
    metrics = {"accuracy": ratio(c("correct"), c("n"))}
    return BenchStats(report.get("benchmark", "toybench"), ids, cols.matrix(), metrics, ["accuracy"], "accuracy",
                      points={"accuracy": (report.get("table") or {}).get("accuracy")})


def format_table(report, model: str = "model") -> str:
    t = report["table"]
    return f"toybench  n={t['n_items']}  accuracy={t['accuracy']}"
