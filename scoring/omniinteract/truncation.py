"""Text-only precise truncation of data prep (spec §2.4 step 2): keep what the ASR heard of each chunk.

For each native transcript chunk, the ASR words overlapping its span (± tolerance) are walked
greedily through the normalised native text; the text is cut after the last matched character
(plus trailing punctuation/space). Forced alignment of the result is a model step, not done here.
"""
from __future__ import annotations

import unicodedata
from typing import Any, Optional

_CN_DIGITS = {"零": "0", "〇": "0", "○": "0", "一": "1", "二": "2", "两": "2", "三": "3", "四": "4",
              "五": "5", "六": "6", "七": "7", "八": "8", "九": "9"}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_CN_NUMERALS = frozenset(_CN_DIGITS) | frozenset(_CN_UNITS)


def normalize_char(ch: str) -> str:
    """NFKC, Chinese digits to Arabic, whitespace/punctuation/symbols dropped, lower-cased."""
    out: list[str] = []
    for c in unicodedata.normalize("NFKC", ch):
        if c in _CN_DIGITS:
            out.append(_CN_DIGITS[c])
            continue
        cat = unicodedata.category(c)
        if c.isspace() or cat[0] in ("P", "S"):
            continue
        out.append(c.lower())
    return "".join(out)


def normalize_text(text: str) -> str:
    return "".join(normalize_char(ch) for ch in text)


def _normalize_with_map(text: str) -> tuple[str, list[int]]:
    chars: list[str] = []
    mapping: list[int] = []
    for i, ch in enumerate(text):
        for c in normalize_char(ch):
            chars.append(c)
            mapping.append(i)
    return "".join(chars), mapping


def cn_numeral_to_arabic(token: str) -> Optional[str]:
    """Chinese numeral string (digits and 十百千万) to Arabic digits; None if other characters occur."""
    if not token or any(ch not in _CN_NUMERALS for ch in token):
        return None
    if not any(ch in _CN_UNITS for ch in token):
        return "".join(_CN_DIGITS[ch] for ch in token)
    total = section = number = 0
    for ch in token:
        if ch in _CN_DIGITS:
            number = int(_CN_DIGITS[ch])
            continue
        unit = _CN_UNITS[ch]
        if unit == 10000:
            total += (section + number) * unit
            section = number = 0
        else:
            section += (number or 1) * unit
            number = 0
    return str(total + section + number)


def _merge_numeral_runs(words: list[dict[str, Any]]) -> list[str]:
    """Word texts with consecutive all-numeral Chinese tokens merged and converted to Arabic."""
    out: list[str] = []
    i = 0
    while i < len(words):
        token = str(words[i].get("text", "")).strip()
        if token and all(ch in _CN_NUMERALS for ch in token):
            run: list[str] = []
            while i < len(words):
                nxt = str(words[i].get("text", "")).strip()
                if not nxt or any(ch not in _CN_NUMERALS for ch in nxt):
                    break
                run.append(nxt)
                i += 1
            merged = "".join(run)
            arabic = cn_numeral_to_arabic(merged)
            out.append(arabic if arabic is not None else merged)
            continue
        if token:
            out.append(token)
        i += 1
    return out


def words_in_window(asr_chunks: list[Any], start: float, end: float, tol: float) -> list[dict[str, Any]]:
    """ASR words whose span touches ``[start - tol, end + tol]`` (inclusive), with non-empty text."""
    out: list[dict[str, Any]] = []
    for c in asr_chunks:
        if not isinstance(c, dict):
            continue
        ts = c.get("timestamp", [None, None])
        if not isinstance(ts, list) or len(ts) != 2:
            continue
        ws, we = ts
        if ws is None or we is None:
            continue
        if we >= start - tol and ws <= end + tol:
            text = str(c.get("text", "")).strip()
            if text:
                out.append({"text": text, "timestamp": [float(ws), float(we)]})
    return out


def truncate_to_heard(original: str, words: list[dict[str, Any]]) -> str:
    """The prefix of ``original`` covered by the heard words, plus trailing non-semantic characters."""
    if not original or not words:
        return ""
    norm, mapping = _normalize_with_map(original)
    if not norm:
        return ""
    pos = matched_end = 0
    for token in _merge_numeral_runs(words):
        w = normalize_text(token)
        if not w:
            continue
        idx = norm.find(w, pos)
        if idx >= 0:
            pos = idx + len(w)
            matched_end = max(matched_end, pos)
            continue
        rest = norm[pos:]
        lcp = 0
        while lcp < min(len(rest), len(w)) and rest[lcp] == w[lcp]:
            lcp += 1
        if lcp > 0:
            pos += lcp
            matched_end = max(matched_end, pos)
    if matched_end <= 0:
        return ""
    cut = mapping[matched_end - 1] + 1
    while cut < len(original) and not normalize_char(original[cut]):
        cut += 1
    return original[:cut]


def build_precise_chunks(wav_transcript: dict[str, Any], asr_output: dict[str, Any],
                         tolerance_sec: float = 0.15) -> dict[str, Any]:
    """``{"text", "chunks": [{"text", "timestamp"}]}`` keeping only the heard part of each chunk."""
    asr_chunks = asr_output.get("chunks", []) or []
    kept: list[dict[str, Any]] = []
    for ch in wav_transcript.get("chunks", []) or []:
        if not isinstance(ch, dict):
            continue
        ts = ch.get("timestamp", [None, None])
        if not isinstance(ts, list) or len(ts) != 2 or ts[0] is None or ts[1] is None:
            continue
        start, end = float(ts[0]), float(ts[1])
        text = truncate_to_heard(ch.get("text", ""), words_in_window(asr_chunks, start, end, tolerance_sec))
        if text.strip():
            kept.append({"text": text, "timestamp": [start, end]})
    joined = " ".join(c["text"].strip() for c in kept if c["text"].strip()).strip()
    return {"text": joined, "chunks": kept}
