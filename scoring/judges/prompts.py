"""Our versioned LLM-judge prompts and the strict JSON reply parser, shared by the OpenAI and transformers judges.

A prompt version names benchmark, revision and stage (e.g. `ib-v2-containment`); it is part of every
cache key, so changing a prompt's wording means a new version string."""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Tuple

from .base import JudgeResult, JudgeUnavailable, score_or_raise, trivial_verdict

Complete = Callable[[str, str], str]
"""A text transport: complete(system_prompt, user_prompt) -> reply text; raises JudgeUnavailable."""


@dataclass(frozen=True)
class PromptSpec:
    """One versioned prompt: the system text and a user template with {question}, {gt}, {pred}."""
    version: str
    system: str
    user_template: str


_REPLY_FORMAT = ('Reply with exactly one JSON object and nothing else: '
                 '{"score": 1, "reason": "<one short sentence>"} if the criterion holds, '
                 '{"score": 0, "reason": "<one short sentence>"} otherwise. '
                 'The score must be the integer 0 or 1.')

_USER = ("Question:\n{question}\n\n"
         "Reference answer:\n{gt}\n\n"
         "Candidate answer:\n{pred}\n\n")

PROMPTS: Dict[str, PromptSpec] = {
    "ib-v2-containment": PromptSpec(
        "ib-v2-containment",
        "You grade answers given by an assistant that watched a video. Decide whether the candidate "
        "answer contains the key information of the reference answer. Extra details are fine unless "
        "they contradict the reference; wording, order and length do not matter; a candidate that "
        "hedges between several answers, or misses or contradicts a key fact, fails. " + _REPLY_FORMAT,
        _USER + "Does the candidate answer contain the key information of the reference answer?"),
    "ib-v1-equivalence": PromptSpec(
        "ib-v1-equivalence",
        "You grade answers given by an assistant that watched a video. Decide whether the candidate "
        "answer means the same as the reference answer with respect to the question. Paraphrases, "
        "synonyms and different number formats are equivalent; missing, added or contradicting "
        "facts that matter to the question are not. " + _REPLY_FORMAT,
        _USER + "Is the candidate answer equivalent to the reference answer?"),
}
DEFAULT_PROMPT_VERSION = "ib-v2-containment"

def reask_suffix(error: str) -> str:
    """Appended to the user prompt for the single re-ask after a malformed reply."""
    return f"\n\nYour previous reply could not be read ({error}). " + _REPLY_FORMAT


def get_prompt(version: str) -> PromptSpec:
    """The prompt registered under `version`, or a ValueError listing the known versions."""
    try:
        return PROMPTS[version]
    except KeyError:
        raise ValueError(f"unknown judge prompt version {version!r}; known: {', '.join(sorted(PROMPTS))}") from None


def build_prompt(version: str, question: str, gt: str, pred: str) -> Tuple[str, str]:
    """(system, user) texts for one (question, gt, pred) triple under prompt `version`."""
    spec = get_prompt(version)
    return spec.system, spec.user_template.format(question=question or "", gt=gt or "", pred=pred or "")


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S | re.I)


def parse_verdict(raw: str) -> Tuple[Optional[float], Optional[str]]:
    """Strictly parse a reply `{"score": 0|1, "reason": str}` -> (score, None) or (None, why not).

    The whole reply (optionally inside one ```json fence) must be that object; anything else is malformed."""
    text = (raw or "").strip()
    m = _FENCE.match(text)
    if m:
        text = m.group(1)
    if not text:
        return None, "empty reply"
    try:
        obj = json.loads(text)
    except ValueError as exc:
        return None, f"not JSON: {exc.msg}"
    if not isinstance(obj, dict):
        return None, "JSON is not an object"
    if "score" not in obj:
        return None, "no 'score' key"
    score = obj["score"]
    if isinstance(score, bool) or not isinstance(score, (int, float)) or score not in (0, 1):
        return None, f"'score' must be 0 or 1, got {score!r}"
    if "reason" in obj and not isinstance(obj["reason"], str):
        return None, "'reason' is not a string"
    return float(score), None


@dataclass
class JudgeStats:
    """Counters a scorer reports: model calls, re-asks, verdicts obtained and unobtainable."""
    calls: int = 0
    reasks: int = 0
    scored: int = 0
    unavailable: int = 0


@dataclass
class PromptedJudge:
    """A binary (question, gt, pred) judge over any text transport, with one re-ask on a malformed reply."""
    complete: Complete = field(repr=False)
    name: str
    prompt_version: str = DEFAULT_PROMPT_VERSION
    trivial: bool = True
    stats: JudgeStats = field(default_factory=JudgeStats)

    def __post_init__(self) -> None:
        get_prompt(self.prompt_version)
        self._lock = threading.Lock()

    def _count(self, **inc: int) -> None:
        with self._lock:
            for k, v in inc.items():
                setattr(self.stats, k, getattr(self.stats, k) + v)

    def _ask(self, system: str, user: str) -> str:
        self._count(calls=1)
        return self.complete(system, user)

    def judge(self, question: str, gt: str, pred: str) -> JudgeResult:
        """The verdict as a JudgeResult; score None with an error when it could not be obtained."""
        if self.trivial:
            shortcut = trivial_verdict(gt, pred)
            if shortcut is not None:
                return shortcut
        system, user = build_prompt(self.prompt_version, question, gt, pred)
        raw = ""
        try:
            raw = self._ask(system, user)
            score, err = parse_verdict(raw)
            if score is None:
                self._count(reasks=1)
                raw = self._ask(system, user + reask_suffix(err or "malformed"))
                score, err2 = parse_verdict(raw)
                if score is None:
                    self._count(unavailable=1)
                    return JudgeResult(None, raw, f"malformed reply after one re-ask: {err2}")
        except JudgeUnavailable as exc:
            self._count(unavailable=1)
            return JudgeResult(None, raw, str(exc))
        self._count(scored=1)
        return JudgeResult(score, raw, None)

    def __call__(self, question: str, gt: str, pred: str) -> float:
        """The float verdict in [0, 1]; raises JudgeUnavailable when it could not be obtained."""
        return score_or_raise(self.judge(question, gt, pred), self.name)
