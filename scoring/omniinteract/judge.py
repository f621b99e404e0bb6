"""The three OmniInteract judge stages: prompt building (our wording, versioned) and reply parsing.

Parsing reproduces the reference's lenient rules (spec §10, §12.7-12.8); the transport that
turns prompts into a reply is injected, so no HTTP client is imported here.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .common import clamp, to_bool
from .slots import Slot

PROMPT_VERSION = "oi-v1"
STAGES = ("early", "core", "interrupted_partial")

Transport = Callable[[str, str, int, str, str], str]
"""``transport(stage, sample_id, slot_id, system_prompt, user_prompt) -> raw reply text``."""


class JudgeTransportError(RuntimeError):
    """The judge could not be reached or returned no usable body; stops the sample (status failed)."""


_DECODER = json.JSONDecoder()
_FLOAT_RE = re.compile(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?")


def first_json_object(text: str) -> Optional[dict[str, Any]]:
    """The first JSON object found by trying to decode at every ``{`` in turn."""
    text = str(text)
    pos = text.find("{")
    while pos != -1:
        try:
            obj, _ = _DECODER.raw_decode(text[pos:])
            if isinstance(obj, dict):
                return obj
        except json.JSONDecodeError:
            pass
        pos = text.find("{", pos + 1)
    return None


def first_float(text: str) -> Optional[float]:
    """The first number anywhere in the text (e.g. ``"slot 2 ..."`` gives 2.0)."""
    m = _FLOAT_RE.search(str(text))
    if not m:
        return None
    try:
        return float(m.group(0))
    except ValueError:
        return None


@dataclass(frozen=True)
class EarlyVerdict:
    category: str  # "neutral" | "hallucination"
    score: float
    raw: str
    flag_raw: str
    rationale: str
    parse_source: str

    def diagnostics(self) -> dict[str, Any]:
        return {"parse_source": self.parse_source, "raw": self.raw, "flag_raw": self.flag_raw,
                "rationale": self.rationale}


@dataclass(frozen=True)
class CoreVerdict:
    score: float
    trigger_phrase: str
    spoiler: bool
    rationale: str
    raw: str
    parse_source: str

    def diagnostics(self) -> dict[str, Any]:
        return {"parse_source": self.parse_source, "raw": self.raw, "llm_score_raw": self.score,
                "trigger_phrase": self.trigger_phrase, "spoiler": self.spoiler, "rationale": self.rationale}


@dataclass(frozen=True)
class PartialVerdict:
    score: float
    hallucination: bool
    rationale: str
    raw: str
    parse_source: str

    def diagnostics(self) -> dict[str, Any]:
        return {"score": self.score, "hallucination": self.hallucination, "rationale": self.rationale,
                "raw": self.raw, "parse_source": self.parse_source}


def parse_early_reply(raw: str) -> EarlyVerdict:
    """Flag text (or the whole reply without JSON) containing 'hallucination' wins; 'neutral' scores (default 1)."""
    obj = first_json_object(raw) or {}
    flag_raw = str(obj.get("flag", "") if obj else raw).strip()
    norm = flag_raw.lower().replace("-", "_").replace(" ", "")
    if "hallucination" in norm:
        category, score = "hallucination", 0.0
    elif "neutral" in norm:
        category = "neutral"
        try:
            score = clamp(float(obj.get("score", 1.0)))
        except (TypeError, ValueError, OverflowError):
            score = 1.0
    else:
        category, score = "neutral", 0.0
    rationale = str(obj.get("rationale", "") or "") if obj else ""
    return EarlyVerdict(category, score, raw, flag_raw, rationale, "llm_json" if obj else "llm_parse_failed")


def parse_core_reply(raw: str) -> CoreVerdict:
    """JSON score clamped to [0,1] (missing: 0); absent JSON or non-numeric score: first number in the text."""
    obj = first_json_object(raw) or {}
    score: Optional[float] = None
    source = "llm_parse_failed"
    if obj:
        try:
            score = clamp(float(obj.get("score", 0.0)))
            source = "llm_json"
        except (TypeError, ValueError, OverflowError):
            score = None
    if score is None:
        fallback = first_float(raw)
        score = clamp(fallback) if fallback is not None else 0.0
        source = "llm_float_text" if fallback is not None else "llm_parse_failed"
    trigger = str(obj.get("trigger_phrase", "") or "").strip() if obj else ""
    spoiler = to_bool(obj.get("spoiler", False)) if obj else False
    rationale = str(obj.get("rationale", "") or "").strip() if obj else ""
    return CoreVerdict(score, trigger, spoiler, rationale, raw, source)


def parse_partial_reply(raw: str) -> PartialVerdict:
    """Interrupted-partial reply: numeric score clamped (else 0) and a lenient hallucination flag."""
    obj = first_json_object(raw) or {}
    try:
        score = clamp(float(obj.get("score", 0.0)))
    except (TypeError, ValueError, OverflowError):
        score = 0.0
    halluc = to_bool(obj.get("hallucination", False)) if obj else False
    rationale = str(obj.get("rationale", "") or "").strip() if obj else ""
    return PartialVerdict(score, halluc, rationale, raw, "llm_json" if obj else "llm_parse_failed")


# --- prompts (our own wording; the reply contract matches the reference parser) -----------------

_EARLY_SYSTEM = (
    "You grade a live voice assistant that talks while watching a video. "
    "Use only the text you are given. Reply with one JSON object and nothing else."
)
_CORE_SYSTEM = (
    "You strictly grade the main answer of a live voice assistant against a reference answer. "
    "Use only the text you are given. Reply with one JSON object and nothing else."
)
_PARTIAL_SYSTEM = (
    "You grade what a voice assistant had already said when the user interrupted it. "
    "Use only the text you are given. Reply with one JSON object and nothing else."
)


def _header(slot: Slot) -> str:
    return (
        f"Scene: {slot.scene_type}\n"
        f"Slot: id={slot.slot_id}, turn={slot.turn_index}, step={slot.step_index}, "
        f"boundary={slot.boundary_type}, interrupted={str(bool(slot.is_interrupted)).lower()}\n"
        f"Question: {slot.question_text.strip()}\n"
        f"Reference answer for this slot: {slot.gt_answer.strip()}\n"
    )


def early_prompt(slot: Slot, full_context: str, actual_text: str) -> tuple[str, str]:
    """(system, user) for the early stage: was the talk before t_a harmless or a premature answer?"""
    user = (
        "The assistant spoke after the question but before the answer was due (between start and t_a).\n"
        + _header(slot)
        + f"Full text of the speech this part came from: {full_context.strip()}\n"
        f"Early speech to grade: {actual_text.strip()}\n\n"
        "Decide:\n"
        "- Neutral: greeting, acknowledgement, saying it will wait or watch, a short observation, a follow-up.\n"
        "- FP_Hallucination: a substantive answer given too early, a guess about things not yet visible, "
        "revealing later steps, or a definitive factual claim. In a 1QnA first step, reciting the whole "
        "procedure before acting also counts.\n"
        "score: interaction quality from 0 to 1 when Neutral, 0 when FP_Hallucination.\n\n"
        'Answer as {"flag": "Neutral" or "FP_Hallucination", "score": number, "rationale": "one sentence"}'
    )
    return _EARLY_SYSTEM, user


def core_prompt(slot: Slot, full_context: str, actual_text: str, future_answers: str) -> tuple[str, str]:
    """(system, user) for the core stage: quality vs the reference plus the earliest establishing phrase."""
    user = (
        "Grade the assistant's speech from the moment the answer was due (t_a) onwards.\n"
        + _header(slot)
        + f"Reference answers of later slots:\n{future_answers.strip()}\n"
        f"Full text of the speech this part came from: {full_context.strip()}\n"
        f"Core speech to grade: {actual_text.strip()}\n\n"
        "Rules:\n"
        "- score from 0 to 1 for correctness and coverage of the core speech against the reference answer; "
        "off-topic, wrong or missing key content scores low.\n"
        "- 1QnA: only information about the current step earns credit; giving away later steps or skipping "
        "the current one is penalised.\n"
        "- When score > 0, trigger_phrase is the earliest contiguous verbatim substring of the core speech "
        "that already establishes the answer; leave it empty when score is 0.\n\n"
        'Answer as {"score": number, "trigger_phrase": "verbatim substring or empty", '
        '"spoiler": true or false, "rationale": "one sentence"}'
    )
    return _CORE_SYSTEM, user


def partial_prompt(slot: Slot, actual_text: str) -> tuple[str, str]:
    """(system, user) for an interrupted slot: is what was already said relevant, correct and useful?"""
    user = (
        "The user interrupted the assistant before it finished; it did not have to complete its answer.\n"
        f"Question: {slot.question_text.strip()}\n"
        f"Reference answer: {slot.gt_answer.strip()}\n"
        f"What the assistant had said:\n{actual_text.strip()}\n\n"
        "Rules:\n"
        "- score from 0 to 1; do not penalise incompleteness, a correct useful partial answer can score high.\n"
        "- High when the speech overlaps with, paraphrases or conveys useful parts of the reference.\n"
        "- Low for bare acknowledgements or prefaces, answers to a different question, irrelevant or filler talk.\n"
        "- hallucination is true when the speech contains clearly wrong facts, the wrong target or unsupported claims.\n"
        "- Ignore how long the speech ran on; that is measured separately.\n\n"
        'Answer as {"score": number, "hallucination": true or false, "rationale": "one sentence"}'
    )
    return _PARTIAL_SYSTEM, user


def dry_run_transport(stage: str, sample_id: str, slot_id: int, system_prompt: str, user_prompt: str) -> str:
    """A transport that needs no model: early -> Neutral/0, core -> 0, partial -> 0 (the reference --dry_run)."""
    if stage == "early":
        return '{"flag": "Neutral", "score": 0.0, "rationale": "dry run"}'
    if stage == "core":
        return '{"score": 0.0, "trigger_phrase": "", "spoiler": false, "rationale": "dry run"}'
    return '{"score": 0.0, "hallucination": false, "rationale": "dry run"}'
