"""InteractionBench's derived predicates (reference data.py/metrics.py), over one native item row.

A row is the item dict with the video fields added (video_id, item_index, domain, duration_s), the
shape the reference scorer and our golden vectors use. Defaults follow the reference loader."""
from __future__ import annotations

CAPABILITIES = ("LVM", "IVQA", "PTR", "TOA", "CIR", "CST", "LCG", "BRC")
TIME_TYPES = ("A", "B", "C")
SILENT_MARK = "SHOULD_REMAIN_SILENT"
COUNTING_TAGS = ("counting", "计数型")
SEGMENT_CAPABILITIES = ("LCG", "BRC")
CORE_REALTIME = ("TOA", "PTR", "CST", "BRC", "LCG")
CAPABILITY_GROUPS = {"IVQA": "IVQA+CIR", "CIR": "IVQA+CIR", "CST": "CST+BRC", "BRC": "CST+BRC"}


def capability(row: dict) -> str:
    return row.get("capability") or "UNKNOWN"


def question_time(row: dict) -> float:
    q = row.get("question_time_s")
    return 0.0 if q is None else float(q)


def _answers(row: dict) -> list:
    """The row's answers list (a damaged file may hold anything there: not a list reads as none, and answers
    that are not objects are never silent or timed; the loader reports them)."""
    answers = row.get("answers")
    return answers if isinstance(answers, list) else []


def is_silent_answer(answer: dict) -> bool:
    if not isinstance(answer, dict):
        return False
    content = answer.get("content") or ""
    return bool(content) and SILENT_MARK in str(content).upper()


def should_remain_silent(row: dict) -> bool:
    answers = _answers(row)
    return bool(row.get("is_negative")) or (bool(answers) and all(is_silent_answer(a) for a in answers))


def is_counting(row: dict) -> bool:
    return bool(row.get("auto_number")) or row.get("sub_tag") in COUNTING_TAGS


def timed_answers(row: dict) -> list[dict]:
    """Answers with a time that are not silence markers, in annotation order."""
    return [a for a in _answers(row) if isinstance(a, dict) and a.get("time_s") is not None
            and not is_silent_answer(a)]


def is_valid(row: dict) -> bool:
    """Scoreable: a known time_type and either silence-required or at least one timed answer."""
    return row.get("time_type") in TIME_TYPES and (should_remain_silent(row) or bool(timed_answers(row)))


def family(row: dict) -> str:
    """The scoring family, in the reference's dispatch order."""
    if should_remain_silent(row):
        return "negative"
    if row.get("time_type") == "A":
        return "A_retro_qa"
    if capability(row) in SEGMENT_CAPABILITIES:
        return "C_segments"
    return "C_counting" if is_counting(row) else "B_trigger"


def item_id(row: dict) -> str:
    return f"{row['video_id']}#{int(row.get('item_index', 0))}"
