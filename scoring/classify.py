"""Per-response verdicts for timelines and explanations, read off the scorer's own report on the item.

Each benchmark's `classify` hook maps what its scorer returns for an item (InteractionBench's emission verdicts,
OmniInteract's per-sample slots, ProactiveBench's and InteractScope's per-item records) to one label per
response, with no matching of its own, so a lane's colours are the scorer's counts for the same settings and
judge, failed judge calls included. Pure."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from annotation import registry


@dataclass(frozen=True)
class ResponseVerdict:
    """One response's fate: its label, the target it was attributed to, delay and timing credit.

    `credit` is the timing credit in [0, 1] the scorer gives it (IB: 1 - d/delta; OI: timeliness decay;
    PB/IS: 1 when it makes the item/target correct); `counted` says whether it enters the score."""
    index: int
    t: float
    label: str
    end: Optional[float] = None
    text: str = ""
    target: Optional[str] = None
    delay: Optional[float] = None
    credit: Optional[float] = None
    counted: bool = True
    detail: str = ""
    roles: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (target id, role) pairs


def labels(benchmark: str) -> tuple[str, ...]:
    """Every label the benchmark can give a response, in legend order."""
    return registry.get(benchmark).hook("scoring", "VERDICTS")


def classify(benchmark: str, item, prediction: Any, report: Optional[dict] = None) -> list[ResponseVerdict]:
    """Verdicts of one responder's native prediction on one `annotation.model.Item`, read off `report`: the
    scorer's report holding the item (a run's own, or `scoring.live.score_prediction`'s). None, or a report
    without the item's per-response record (a run scored before it was kept), scores the item now with the
    default settings and no judge."""
    hook = registry.get(benchmark).hook("scoring", "classify")
    verdicts = hook(item, prediction, report) if report is not None else None
    if verdicts is None:
        from scoring.live import score_prediction
        verdicts = hook(item, prediction, score_prediction(item, prediction))
    if verdicts is None:
        raise ValueError(f"{benchmark} item {item.id}: the scorer's report has no per-response record")
    return verdicts
