"""CSV cells safe to open in a spreadsheet: a text cell that starts with = + - @, a tab or a carriage return
is written with a leading apostrophe, so Excel, LibreOffice or Sheets show it as text instead of running it as
a formula (CSV injection). Numbers, and text that is a negative number such as "-0.25", are written unchanged.
A text that already starts with apostrophes before such a start gets one more, so reading back (`plain_cell`)
gives exactly the text written. Every CSV we write passes its rows through `safe_row`."""
from __future__ import annotations

import re
from typing import Any, Iterable

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"-([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")  # a negative number: data, not a formula


def _marked(text: str) -> bool:
    """True for a text `safe_cell` writes with a leading apostrophe."""
    body = text.lstrip("'")
    return body.startswith(_TRIGGERS) and not _NUMBER.fullmatch(body)


def safe_cell(value: Any) -> Any:
    if isinstance(value, str) and _marked(value):
        return "'" + value
    return value


def safe_row(row: Iterable[Any]) -> list:
    return [safe_cell(v) for v in row]


def safe_dict(row: dict) -> dict:
    return {k: safe_cell(v) for k, v in row.items()}


def plain_cell(value: Any) -> Any:
    """A cell read back from a CSV we wrote: the apostrophe `safe_cell` added is taken off again."""
    if isinstance(value, str) and value.startswith("'") and _marked(value[1:]):
        return value[1:]
    return value
