"""Judge result type, the unavailable-verdict exception and the counting helpers every scorer shares.

A verdict that could not be obtained is a `JudgeResult` with score None and an error; scorers
exclude it and count it, never score it 0."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Protocol, runtime_checkable


class JudgeUnavailable(RuntimeError):
    """A verdict could not be obtained (endpoint down, timeouts, 5xx after retries, malformed replies)."""


@dataclass(frozen=True)
class JudgeResult:
    """One verdict: score in [0, 1] or None when unobtainable, the raw reply, and the error if any."""
    score: Optional[float]
    raw: str = ""
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.score is not None


@runtime_checkable
class ResultJudge(Protocol):
    """A judge that reports verdicts as `JudgeResult` and is identified for caching."""
    name: str
    prompt_version: str

    def judge(self, question: str, gt: str, pred: str) -> JudgeResult: ...


def trivial_verdict(gt: Optional[str], pred: Optional[str]) -> Optional[JudgeResult]:
    """Reference shortcut before any model call: both stripped sides empty -> 1, one empty -> 0."""
    g, p = (gt or "").strip(), (pred or "").strip()
    if not g and not p:
        return JudgeResult(1.0, "trivial: both empty")
    if not g or not p:
        return JudgeResult(0.0, "trivial: one side empty")
    return None


def score_or_raise(result: JudgeResult, judge_name: str) -> float:
    """The float verdict of `result`, or JudgeUnavailable naming the judge and the cause."""
    if result.score is None:
        raise JudgeUnavailable(f"judge {judge_name}: no verdict ({result.error or 'unknown error'})")
    return float(result.score)


@dataclass(frozen=True)
class JudgeTally:
    """How many verdicts were asked for, obtained and excluded, and the mean over obtained ones."""
    n: int
    n_scored: int
    n_unavailable: int
    mean: Optional[float]


def tally(results: Iterable[JudgeResult]) -> JudgeTally:
    """Count results, excluding (not zeroing) the unobtainable ones from the mean."""
    rs = list(results)
    scores = [float(r.score) for r in rs if r.score is not None]
    return JudgeTally(len(rs), len(scores), len(rs) - len(scores),
                      sum(scores) / len(scores) if scores else None)
