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
    """As the reference reads it: float(question_time_s or 0.0) (a number written as text counts)."""
    return float(row.get("question_time_s") or 0.0)


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
    return family_and_timed(row)[0] is not None


def family_and_timed(row: dict) -> tuple[str | None, list[dict]]:
    """(family, timed answers) from one pass over the answers, for the loader and scorer that need both for
    every item; the family is None when the row is not scoreable (`is_valid`)."""
    answers = _answers(row)
    timed = []
    all_silent = bool(answers)
    for a in answers:
        if is_silent_answer(a):
            continue
        all_silent = False
        if isinstance(a, dict) and a.get("time_s") is not None:
            timed.append(a)
    silent = bool(row.get("is_negative")) or all_silent
    if row.get("time_type") not in TIME_TYPES or not (silent or timed):
        return None, timed
    return ("negative" if silent else _answered_family(row)), timed


def family(row: dict) -> str:
    """The scoring family, in the reference's dispatch order."""
    return "negative" if should_remain_silent(row) else _answered_family(row)


def _answered_family(row: dict) -> str:
    if row.get("time_type") == "A":
        return "A_retro_qa"
    if capability(row) in SEGMENT_CAPABILITIES:
        return "C_segments"
    return "C_counting" if is_counting(row) else "B_trigger"


def item_id(row: dict) -> str:
    return f"{row['video_id']}#{int(row.get('item_index', 0))}"
