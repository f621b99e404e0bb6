"""Per-response verdicts under each benchmark's own rules, for timelines and explanations.

Each classifier runs the benchmark scorer's own timing machinery (InteractionBench `decision_timing`,
ProactiveBench `score_item`, InteractScope `score_interaction`, OmniInteract `match_chunks`) and reads
every response's fate off it, so a lane's colours always agree with the scorer's counts. Pure."""
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


def classify(benchmark: str, item, prediction: Any, judge: Any = None) -> list[ResponseVerdict]:
    """Verdicts of one responder's native prediction on one `annotation.model.Item`, default settings.

    judge: optional InteractScope content judge (question, gt, pred) -> [0, 1]; tool calls are always
    checked against the reference call, as the scorer does."""
    return registry.get(benchmark).hook("scoring", "classify")(item, prediction, judge)
