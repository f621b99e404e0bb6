"""Per-slot and per-sample scoring (spec §5): early/core stages, anchors, spill, TP/FP/FN, interruption diagnostic.

Slot results are plain dicts in the reference's per-slot record layout, so they can be written
as eval JSON and re-aggregated without the judge.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .common import HARD, SOFT, Chunk, clamp, contains_cjk, decay, f1_from_pr, safe_div
from .config import OIConfig
from .judge import (CoreVerdict, EarlyVerdict, JudgeTransportError, PartialVerdict, Transport, core_prompt,
                    early_prompt, parse_core_reply, parse_early_reply, parse_partial_reply, partial_prompt)
from .matching import Piece, SlotMatch
from .slots import Slot

_QUOTES = "\"'\u201c\u201d\u2018\u2019"


@dataclass
class JudgeCall:
    """What was sent to the judge for one stage of one slot (texts trimmed)."""

    slot_id: int
    stage: str
    actual_text: str
    full_context: Optional[str] = None
    future_answers: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"slot_id": self.slot_id, "stage": self.stage, "actual_text": self.actual_text}
        if self.full_context is not None:
            out["full_context"] = self.full_context
        if self.future_answers is not None:
            out["future_answers"] = self.future_answers
        return out


@dataclass
class SampleJudge:
    """Binds a transport to one sample, builds prompts, parses replies and records the calls."""

    transport: Transport
    sample_id: str
    calls: list[JudgeCall] = field(default_factory=list)

    def _ask(self, stage: str, slot: Slot, prompts: tuple[str, str]) -> str:
        reply = self.transport(stage, self.sample_id, slot.slot_id, prompts[0], prompts[1])
        if not isinstance(reply, str):
            raise JudgeTransportError(
                f"judge transport returned {type(reply).__name__} for sample {self.sample_id} "
                f"slot {slot.slot_id} stage {stage}; expected the reply text")
        return reply

    def early(self, slot: Slot, full_context: str, text: str) -> EarlyVerdict:
        fc, tx = full_context.strip(), text.strip()
        self.calls.append(JudgeCall(slot.slot_id, "early", tx, full_context=fc))
        return parse_early_reply(self._ask("early", slot, early_prompt(slot, fc, tx)))

    def core(self, slot: Slot, full_context: str, text: str, future: str) -> CoreVerdict:
        fc, tx, fu = full_context.strip(), text.strip(), future.strip()
        self.calls.append(JudgeCall(slot.slot_id, "core", tx, full_context=fc, future_answers=fu))
        return parse_core_reply(self._ask("core", slot, core_prompt(slot, fc, tx, fu)))

    def partial(self, slot: Slot, text: str) -> PartialVerdict:
        tx = text.strip()
        self.calls.append(JudgeCall(slot.slot_id, "interrupted_partial", tx))
        return parse_partial_reply(self._ask("interrupted_partial", slot, partial_prompt(slot, tx)))


def concat_text(pieces: list[Piece]) -> str:
    """Piece texts joined without separator, trimmed."""
    return "".join(p.text for p in pieces).strip()


def stage_context(stage: list[Piece], all_chunks: list[Piece]) -> str:
    """Full original texts of the chunks that fed a stage, in time order."""
    if not stage:
        return ""
    wanted = {p.source_chunk_id for p in stage}
    texts: list[str] = []
    seen: set[int] = set()
    for p in all_chunks:
        if p.source_chunk_id in wanted and p.source_chunk_id not in seen:
            txt = p.context_text()
            if txt:
                texts.append(txt)
                seen.add(p.source_chunk_id)
    if not texts:
        texts = [t for t in (p.context_text() for p in stage) if t]
    return "".join(texts).strip()


def char_start_times(piece: Piece) -> list[Optional[float]]:
    """Per-character start time of a piece's text from its aligned words (None where unknown)."""
    text = piece.text
    if not text:
        return []
    tokens = [(w.text, w.start) for w in piece.words if w.text]
    if not tokens:
        return [None] * len(text)
    sep = "" if contains_cjk("".join(t for t, _ in tokens)) else " "
    chars: list[str] = []
    times: list[Optional[float]] = []
    for i, (tok, st) in enumerate(tokens):
        chars.extend(tok)
        times.extend([st] * len(tok))
        if sep and i + 1 < len(tokens):
            chars.append(sep)
            times.append(None)
    built = "".join(chars).strip()
    if built == text:
        return times[: len(text)]
    out: list[Optional[float]] = [None] * len(text)
    pos = text.find(built)
    if pos >= 0:
        for i, t in enumerate(times):
            if pos + i < len(out):
                out[pos + i] = t
    return out


def find_anchor(actual_text: str, core: list[Piece], trigger_phrase: str) -> Optional[float]:
    """Start time of the judge's trigger phrase inside the core text (exact, then case-insensitive)."""
    phrase = str(trigger_phrase or "").strip().strip(_QUOTES)
    if not phrase:
        return None
    text = "".join(p.text for p in core)
    times: list[Optional[float]] = []
    for p in core:
        times.extend(char_start_times(p))
    hay = text or str(actual_text or "")
    idx = hay.find(phrase)
    if idx < 0:
        idx = hay.lower().find(phrase.lower())
    if idx < 0 or not times:
        return None
    for i in range(idx, min(len(hay), idx + len(phrase))):
        if i < len(times) and times[i] is not None:
            return float(times[i])
    return None


def future_answers(slots: list[Slot], index: int) -> str:
    """``- slot N: answer`` lines for later slots of the same scene, or ``(none)``."""
    if index + 1 >= len(slots):
        return "(none)"
    scene = slots[index].scene_type
    rows = [f"- slot {s.slot_id}: {s.gt_answer.strip()}" for s in slots[index + 1:] if s.scene_type == scene]
    return "\n".join(rows) if rows else "(none)"


def effective_boundary(slot: Slot) -> str:
    """Interrupted slots are always Hard; otherwise ``soft`` (any case) is Soft and the rest Hard."""
    if slot.is_interrupted:
        return HARD
    return SOFT if str(slot.boundary_type or HARD).lower() == "soft" else HARD


def _bounds(pieces: list[Piece]) -> tuple[Optional[float], Optional[float]]:
    if not pieces:
        return None, None
    return pieces[0].start, pieces[-1].end


def _prf(tp: float, fp: float, fn: float) -> dict[str, float]:
    p, r = safe_div(tp, tp + fp), safe_div(tp, tp + fn)
    return {"Precision": p, "Recall": r, "F1": f1_from_pr(p, r)}


def _early_stage(m: SlotMatch, judge: SampleJudge, w_ack: float, cfg: OIConfig) -> tuple[dict[str, Any], float, int]:
    slot, early = m.slot, m.early
    if not early:
        return ({"category": "none", "answer_start": None, "answer_end": None, "actual_text": "",
                 "quality_score": 0.0, "timeliness_score": 0.0, "tp_contribution": 0.0, "judge_rationale": "",
                 "T_ack": 0.0, "S_ack": 0.0, "W_ack_used": w_ack, "diagnostics": {}, "full_context": "",
                 "text_early": ""}, 0.0, 0)
    text, context = concat_text(early), stage_context(early, m.all_chunks)
    start, end = _bounds(early)
    t_ack = decay(early[0].start, slot.start, slot.t_a, cfg.decay_alpha, cfg.decay_gamma)
    verdict = judge.early(slot, context, text)
    s_ack, tp_ack, fp = verdict.score, 0.0, 0
    if verdict.category == "hallucination":
        fp, s_ack = 1, 0.0
    elif verdict.category == "neutral":
        tp_ack = t_ack * s_ack * w_ack
    return ({"category": verdict.category, "answer_start": start, "answer_end": end, "actual_text": text,
             "quality_score": s_ack, "timeliness_score": t_ack, "tp_contribution": tp_ack,
             "judge_rationale": verdict.rationale, "T_ack": t_ack, "S_ack": s_ack, "W_ack_used": w_ack,
             "diagnostics": verdict.diagnostics(), "full_context": context, "text_early": text}, tp_ack, fp)


def _core_stage(m: SlotMatch, slots: list[Slot], index: int, judge: SampleJudge, w_core: float,
                cfg: OIConfig) -> tuple[dict[str, Any], float, int]:
    slot, core = m.slot, m.core
    text, context = concat_text(core), stage_context(core, m.all_chunks)
    observed_start, observed_end = _bounds(core)
    threshold = float(cfg.core_quality_threshold)
    if slot.is_interrupted:
        return ({"skipped_interrupted": True, "answer_start": observed_start, "answer_end": observed_end,
                 "actual_text": text, "quality_score": 0.0, "timeliness_score": 0.0, "tp_contribution": 0.0,
                 "judge_rationale": "", "T_start": None, "T_end": core[-1].end if core else None,
                 "T_core": 0.0, "S_core": 0.0, "quality_threshold": threshold, "low_quality_fp": False,
                 "judge_core": {}, "full_context": context, "text_core": text}, 0.0, 0)
    if not core:
        return ({"skipped_interrupted": False, "answer_start": None, "answer_end": None, "actual_text": "",
                 "quality_score": 0.0, "timeliness_score": 0.0, "tp_contribution": 0.0, "judge_rationale": "",
                 "T_start": None, "T_end": None, "T_core": 0.0, "S_core": 0.0, "W_core_used": w_core,
                 "quality_threshold": threshold, "low_quality_fp": False, "judge_core": {},
                 "full_context": "", "text_core": ""}, 0.0, 0)
    first = core[0]
    raw_start = first.start
    if first.effective_start_hint is None:
        fallback = max(raw_start, slot.t_a)
    else:
        fallback = max(min(raw_start, first.effective_start_hint), slot.t_a)
    t_end = core[-1].end
    verdict = judge.core(slot, context, text, future_answers(slots, index))
    s_core = verdict.score
    anchor = find_anchor(text, core, verdict.trigger_phrase) if s_core > 0 else None
    t_start = max(anchor if anchor is not None else fallback, slot.t_a)
    t_core = decay(t_start, slot.t_a, slot.end, cfg.decay_alpha, cfg.decay_gamma)
    low = s_core < threshold
    tp_core, fp = (0.0, 1) if low else (t_core * s_core * w_core, 0)
    return ({"skipped_interrupted": False, "answer_start": t_start, "answer_start_observed": observed_start,
             "answer_end": t_end, "actual_text": text, "quality_score": s_core, "timeliness_score": t_core,
             "tp_contribution": tp_core, "judge_rationale": verdict.rationale, "T_start": t_start,
             "T_start_fallback": fallback, "T_start_true_effective": anchor, "T_end": t_end, "T_core": t_core,
             "S_core": s_core, "W_core_used": w_core, "quality_threshold": threshold, "low_quality_fp": low,
             "judge_core": verdict.diagnostics(), "full_context": context, "text_core": text}, tp_core, fp)


def _interruption(m: SlotMatch, spill: bool, spill_seconds: float, judge: SampleJudge,
                  cfg: OIConfig) -> dict[str, Any]:
    text = concat_text(m.all_chunks)
    has_output = bool(m.all_chunks or text)
    threshold = float(cfg.partial_quality_threshold)
    base = {"is_interrupted": True, "has_output": has_output, "num_chunks": len(m.all_chunks),
            "actual_text": text, "spill_positive": bool(spill), "spill_seconds": float(spill_seconds or 0.0),
            "quality_threshold": threshold}
    if not has_output:
        return {**base, "status": "no_output", "partial_quality": None, "low_quality": False,
                "hallucination": False, "TP": 0.0, "FP": 0, "FN": 0, **_prf(0.0, 0.0, 0.0)}
    if cfg.no_interrupted_output_eval:
        return {**base, "status": "skipped"}
    verdict = judge.partial(m.slot, text)
    q = float(verdict.score or 0.0)
    low = q < threshold
    tp = 0.0 if low else q
    fp = int(low) + int(bool(spill)) + int(verdict.hallucination)
    fn = int(low)
    return {**base, "status": "ok", "partial_quality": q, "low_quality": low, "hallucination": verdict.hallucination,
            "TP": tp, "FP": fp, "FN": fn, **_prf(tp, fp, fn), "judge_partial": verdict.diagnostics()}


def score_slot(m: SlotMatch, slots: list[Slot], index: int, judge: SampleJudge, cfg: OIConfig) -> dict[str, Any]:
    """Score one matched slot; raises JudgeTransportError if a judge call fails."""
    slot = m.slot
    w_ack = float(cfg.w_ack)
    if slot.scene_type == "1QnA" and int(slot.step_index or 1) > 1:
        w_ack = 0.0
    w_core = 1.0 - w_ack
    early_diag, tp_ack, fp_early = _early_stage(m, judge, w_ack, cfg)
    core_diag, tp_core, fp_core = _core_stage(m, slots, index, judge, w_core, cfg)
    fp = fp_early + fp_core
    boundary = effective_boundary(slot)
    spill, spill_seconds, max_end = False, 0.0, None
    if boundary == HARD and m.all_chunks:
        max_end = max(p.end for p in m.all_chunks)
        spill_seconds = max(0.0, max_end - slot.end)
        spill = spill_seconds > 0
    if spill:
        fp += 1
    diag = _interruption(m, spill, spill_seconds, judge, cfg) if slot.is_interrupted else {}
    tp_n = clamp(tp_ack + tp_core, 0.0, 1.0)
    fn = 0 if slot.is_interrupted else (1 if tp_core <= 0 else 0)
    return {
        "slot_id": slot.slot_id, "scene_type": slot.scene_type, "question_type": slot.question_type,
        "step_index": slot.step_index, "turn_index": slot.turn_index, "label": slot.label,
        "nested_group_id": slot.nested_group_id, "nested_role": slot.nested_role,
        "boundary_type": slot.boundary_type, "effective_boundary_type": boundary,
        "is_interrupted": slot.is_interrupted, "start": slot.start, "t_a": slot.t_a, "end": slot.end,
        "question_text": slot.question_text, "gt_answer": slot.gt_answer,
        "num_chunks": len(m.all_chunks), "num_early": len(m.early), "num_core": len(m.core),
        "Score_ack": tp_ack, "Score_core": tp_core, "TP_ack": tp_ack, "TP_core": tp_core, "TP_n": tp_n,
        "FP_delta": fp, "FN_delta": fn, "spill": spill, "spill_seconds": spill_seconds, "max_chunk_end": max_end,
        "spill_diagnostics": {"spill_seconds": spill_seconds, "max_chunk_end": max_end},
        "all_chunk_ids": [p.chunk_id for p in m.all_chunks],
        "early_chunks": [p.to_dict() for p in m.early], "core_chunks": [p.to_dict() for p in m.core],
        "stage_early": early_diag, "stage_core": core_diag, "interruption_diagnostic": diag,
    }


@dataclass
class SampleScore:
    """Result of scoring one sample: per-slot rows, unmatched chunks, judge calls and run status."""

    sample_id: str
    status: str  # "ok" | "failed" (judge transport error; rows scored so far are kept)
    rows: list[dict[str, Any]]
    unmatched: list[Chunk]
    num_slots: int
    judge_calls: list[JudgeCall]
    error: Optional[dict[str, Any]] = None


def score_sample(sample_id: str, matches: list[SlotMatch], unmatched: list[Chunk], transport: Transport,
                 cfg: OIConfig) -> SampleScore:
    """Score slots in order; a JudgeTransportError stops the sample with status ``failed``."""
    judge = SampleJudge(transport, sample_id)
    slots = [m.slot for m in matches]
    rows: list[dict[str, Any]] = []
    error = None
    for i, m in enumerate(matches):
        try:
            rows.append(score_slot(m, slots, i, judge, cfg))
        except JudgeTransportError as exc:
            error = {"type": "judge_api_error", "message": str(exc), "failed_slot_index": i,
                     "failed_slot_id": m.slot.slot_id, "processed_slots": len(rows)}
            break
    return SampleScore(sample_id, "failed" if error else "ok", rows, unmatched, len(slots), judge.calls, error)
