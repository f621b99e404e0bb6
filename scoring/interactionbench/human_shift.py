"""The paper's reaction-latency allowance for a human run (the reference's analysis/human_reference.py
`reaction-latency` and `shift-a`): which items measure it, the measured shift, and A-type answers moved back by
it. Pure arithmetic, so the export, the report and the analysis drop-ins share one implementation."""
from __future__ import annotations

import statistics
from typing import Iterable, Optional, Sequence

from annotation.interactionbench import rules

PAPER_SHIFT_S = 2.48  # the paper's value, measured on its own human run (53 answered IVQA A items)


def measures_shift(row: dict) -> bool:
    """An item whose first answer measures the latency: an IVQA question of time type A that expects an answer."""
    return rules.capability(row) == "IVQA" and row.get("time_type") == "A" and not rules.should_remain_silent(row)


def first_answer_delay(question_time: float, times: Iterable[float]) -> Optional[float]:
    """Seconds from the question to the first answer at or after it; None when nothing came at or after it."""
    post = [t for t in times if t >= question_time]
    return min(post) - question_time if post else None


def measured_shift(delays: Sequence[float]) -> Optional[float]:
    """The shift the paper uses: the median first-answer delay, rounded to 0.01 s; None without delays."""
    return round(statistics.median(delays), 2) if delays else None


def shifted_time(t: float, shift: float, question_time: float) -> float:
    """An A-type answer moved back by the shift, never before the question nor the stream start:
    max(t - shift, question time, 0) rounded to 0.001 s."""
    return round(max(t - shift, question_time, 0.0), 3)


def shift_emissions(emissions: Iterable[dict], shift: float, question_time: float) -> list[dict]:
    """An A-type item's emissions shifted (`t`), each keeping its original time as `t_orig`, sorted by the new t."""
    return sorted(({**e, "t": shifted_time(e["t"], shift, question_time), "t_orig": e["t"]} for e in emissions),
                  key=lambda e: e["t"])
