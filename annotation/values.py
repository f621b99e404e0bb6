"""Type tests and lenient readers for hand-written JSON values (numbers, times, flags).

One implementation for the loaders and the scorers; `reference_time` and `to_bool` are the OmniInteract
reference's rules to the letter (the scorer's golden parity depends on them)."""
from __future__ import annotations

import math
from typing import Any, Optional

_TRUE_STRINGS = frozenset({"1", "true", "yes", "y", "t"})


def is_real(value: Any) -> bool:
    """An int or float that is not a bool (JSON's true/false are not numbers); may be NaN or infinite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A real JSON number (bools excluded), finite."""
    return is_real(value) and math.isfinite(value)


def is_int(value: Any) -> bool:
    """An int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def reference_time(value: Any) -> Optional[float]:
    """Seconds from a number, a float string, ``MM:SS`` or ``H:MM:SS`` (parts may be fractional); else None.

    The reference's rules to the letter: bools count as numbers and non-finite values pass through."""
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    parts = text.split(":")
    if len(parts) not in (2, 3):
        return None
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        return None
    if len(nums) == 2:
        return nums[0] * 60.0 + nums[1]
    return nums[0] * 3600.0 + nums[1] * 60.0 + nums[2]


def finite_time(value: Any) -> Optional[float]:
    """`reference_time` for validation: bools and non-finite results are not times (None)."""
    if isinstance(value, bool):
        return None
    t = reference_time(value)
    return t if t is not None and math.isfinite(t) else None


def to_bool(value: Any) -> bool:
    """Lenient flag: bools as is, numbers by non-zero, strings 1/true/yes/y/t (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    return str(value or "").strip().lower() in _TRUE_STRINGS
