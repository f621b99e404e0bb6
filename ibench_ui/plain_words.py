"""The words a participant or an audience reads about a result: one formatter for a scorer's 0–100 figure and one
for a count, so every benchmark's plain-words hook says numbers the same way."""
from __future__ import annotations

from typing import Any, Optional

YOU, THE_MODEL = "You", "The model"


def out_of_100(v: Any) -> Optional[str]:
    """A scorer's figure already on its own 0–100 scale, as "48 out of 100" (None when there is no figure).
    The scorers already report their figures on 0–100, so nothing is rescaled here."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
        return None
    return f"{round(float(v))} out of 100"


def counted(n: int, noun: str, plural: str = "") -> str:
    """"1 video", "2 videos", "0 moments": the number with its noun in the right number."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
