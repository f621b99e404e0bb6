"""InteractionBench multiple-choice scoring (reference `mcq.py`): the answer key, option letters and
the letter / option-F1 / containment matcher, quirks included; `fixed=True` corrects the letter quirks."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from scoring.interactionbench.lexical import f1_tokens, normalize, tokens

LETTERS = "ABCDEF"
LETTER_WINDOW = 40


@dataclass(frozen=True)
class MCQKey:
    """One key row: the options as shown (the answer inserted at correct_index by list.insert, as the reference
    inserts it) and the correct index as written (negative allowed: -1 inserts before the last distractor and
    the reference then takes the last letter as the correct one)."""
    item_id: str
    options: tuple[str, ...]
    correct_index: int

    @property
    def letter_index(self) -> Optional[int]:
        """The index of the correct letter among A.. (the reference's `letters[correct_index]`), None when that
        lookup fails (the reference stops when a reply then picks a letter)."""
        n = min(len(self.options), len(LETTERS))
        return self.correct_index % n if n and -n <= self.correct_index < n else None


def key_from_row(row: dict, where: str = "mcq key") -> MCQKey:
    """Build an MCQKey from a `{item_id, correct_index, answer_text, distractors[]}` row."""
    try:
        iid = str(row["item_id"])
        idx = row["correct_index"]
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"correct_index must be an integer, got {idx!r}")
        options = [str(d) for d in row.get("distractors") or []]
        options.insert(idx, str(row["answer_text"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{where}: row {row!r} needs item_id, correct_index, answer_text, distractors ({exc})") from None
    return MCQKey(iid, tuple(options), idx)


def load_key(rows: Iterable[dict], where: str = "mcq key") -> dict[str, MCQKey]:
    """item_id -> MCQKey; a later row for the same item replaces an earlier one."""
    return {k.item_id: k for k in (key_from_row(r, where) for r in rows)}


def read_key_file(path: str | Path) -> list[dict]:
    """The rows of an mcq_key_v4.jsonl file (blank lines skipped)."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
    return rows


def _letter_pattern(n_options: int, fixed: bool) -> re.Pattern:
    letters = LETTERS[:n_options]
    if fixed:  # an uppercase letter standing alone (neighbours are not letters or digits of any case)
        return re.compile(rf"(?<![^\W_])([{letters}])(?![^\W_])")
    cls = letters + letters.lower()
    return re.compile(rf"(?<![a-z0-9])([{cls}])(?![a-z0-9])")


_PATTERNS: dict[tuple[int, bool], re.Pattern] = {}  # compiled on first use: `score` without MCQ items compiles none


def _pattern(n_options: int, fixed: bool) -> re.Pattern:
    pat = _PATTERNS.get((n_options, fixed))
    if pat is None:
        pat = _PATTERNS[(n_options, fixed)] = _letter_pattern(n_options, fixed)
    return pat


def letter_pattern(n_options: int, fixed: bool = False) -> re.Pattern:
    """The option-letter pattern the matcher searches the first LETTER_WINDOW characters with (compiled once)."""
    return _pattern(n_options, fixed)


def _pick(key: MCQKey, pred: Optional[str], fixed: bool) -> tuple[Optional[int], bool]:
    """(the option index the prediction picks or None, whether it picked it by its letter)."""
    s = (pred or "").strip()
    if not s:
        return None, False
    m = _pattern(min(len(key.options), len(LETTERS)), fixed).search(s[:LETTER_WINDOW])
    if m:
        return LETTERS.index(m.group(1).upper()), True
    p = tokens(s)
    f1s = [f1_tokens(tokens(o), p) for o in key.options]
    best = max(range(len(f1s)), key=f1s.__getitem__)
    if f1s[best] >= 0.5 and all(f1s[best] > f for i, f in enumerate(f1s) if i != best):
        return best, False
    np_ = normalize(s)
    hits = [i for i, o in enumerate(key.options) if (no := normalize(o)) and no in np_]
    return (hits[0] if len(hits) == 1 else None), False


def match_option(key: MCQKey, pred: Optional[str], fixed: bool = False) -> Optional[int]:
    """The option index the prediction picks, or None when it picks none."""
    return _pick(key, pred, fixed)[0]


def score_option(key: MCQKey, pred: Optional[str], fixed: bool = False) -> float:
    """1.0 when the prediction picks the correct option, else 0.0: a letter against the correct letter, an
    option's text against correct_index as written (so with -1 only the last letter scores, as in the
    reference); a letter when the correct letter does not exist stops, as the reference does."""
    i, by_letter = _pick(key, pred, fixed)
    if not by_letter:
        return 1.0 if i is not None and i == key.correct_index else 0.0
    if key.letter_index is None:
        raise ValueError(f"mcq key: item {key.item_id}: correct_index {key.correct_index} names no letter of its "
                         f"{len(key.options)} options and the reply picks a letter (the reference scorer stops "
                         "here too)")
    return 1.0 if i == key.letter_index else 0.0


@dataclass(frozen=True)
class MCQScorer:
    """A judge-shaped callable (question, gt, pred) -> 0/1 for one keyed item; ignores question and gt."""
    key: MCQKey
    fixed: bool = False
    name: str = "mcq"

    def __call__(self, question: str, gt: Optional[str], pred: Optional[str]) -> float:
        return score_option(self.key, pred, self.fixed)
