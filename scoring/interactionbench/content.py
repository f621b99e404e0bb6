"""Which content scorer grades an InteractionBench item (reference `content_score` dispatch): the
item's MCQ scorer when keyed, else the judge (its `.vdc` for A answers and segments), else lexical.
A judge that raises JudgeUnavailable yields None here and is counted, never scored 0."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from scoring.interactionbench.lexical import content_score

if TYPE_CHECKING:  # the judge and MCQ modules are imported when a judge or an answer key is used
    from scoring.interactionbench.mcq import MCQKey

JudgeFn = Callable[[str, str, str], float]


def as_judge_fn(judge: Any) -> Optional[JudgeFn]:
    """A plain (question, gt, pred) -> float callable for a judge: a callable, or a `.judge()` returning
    JudgeResult (ResultJudge); None stays None (lexical)."""
    if judge is None:
        return None
    if callable(judge):
        return judge
    if hasattr(judge, "judge"):
        from scoring.judges.base import JudgeResult, score_or_raise
        name = getattr(judge, "name", type(judge).__name__)

        def call(q: str, g: str, p: str) -> float:
            r = judge.judge(q, g, p)
            return score_or_raise(r, name) if isinstance(r, JudgeResult) else float(r)
        return call
    raise TypeError(f"judge {judge!r}: expected a callable (question, gt, pred) -> float or a .judge() method")


class ContentCounter:
    """Counts verdicts that could not be obtained (excluded from scores)."""

    def __init__(self) -> None:
        self.unavailable = 0
        self.errors: list[str] = []


class ItemContent:
    """Content scoring for one item: `plain` for trigger content and the gate, `answer` for A answers
    and segments (the judge's .vdc when it has one). Both return None when the judge is unavailable.
    (Plain classes here: one is built per item, and `score` does not import dataclasses.)"""
    __slots__ = ("question", "fn", "vdc", "fixed", "counter")

    def __init__(self, question: str, fn: Optional[JudgeFn], vdc: Optional[JudgeFn], fixed: bool,
                 counter: ContentCounter) -> None:
        self.question, self.fn, self.vdc, self.fixed, self.counter = question, fn, vdc, fixed, counter

    def _run(self, fn: Optional[JudgeFn], gt: str, pred: str) -> Optional[float]:
        if fn is None:
            return content_score(gt, pred, self.fixed)
        from scoring.judges.base import JudgeUnavailable
        try:
            return float(fn(self.question, gt, pred))
        except JudgeUnavailable as exc:
            self.counter.unavailable += 1
            if len(self.counter.errors) < 20:
                self.counter.errors.append(str(exc))
            return None

    def plain(self, gt: str, pred: str) -> Optional[float]:
        return self._run(self.fn, gt, pred)

    def answer(self, gt: str, pred: str) -> Optional[float]:
        return self._run(self.vdc, gt, pred)


def item_content(question: str, judge_fn: Optional[JudgeFn], judge: Any, key: Optional[MCQKey],
                 fixed: bool, counter: ContentCounter) -> ItemContent:
    """The content scorer of one item: a keyed item's MCQ scorer replaces the judge everywhere."""
    if key is not None:
        from scoring.interactionbench.mcq import MCQScorer
        mcq = MCQScorer(key, fixed)
        return ItemContent(question, mcq, mcq, fixed, counter)
    vdc = getattr(judge, "vdc", None) if judge is not None else None
    return ItemContent(question, judge_fn, vdc if callable(vdc) else judge_fn, fixed, counter)
