"""Reading model replies: speak/wait decisions, silence markers, MCQ letters, counts, offline timed
lines and tool calls. Every rule here is listed in docs/protocols.md; change both together."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional

SILENCE_MARKERS = ("wait", "no_response", "no response", "noresponse", "nothing to report",
                   "nothing to report yet", "silent", "silence", "<silence>", "(silence)", "none yet",
                   "no comment", "...", "-", "n/a")

_DECISION_RE = re.compile(r"^\s*[*_#>\s]*decision[*_\s]*[:：]\s*[*_\s]*([A-Za-z_]+)", re.I | re.M)
_RESPONSE_RE = re.compile(r"^\s*[*_#>\s]*response[*_\s]*[:：][ \t]*(.*)$", re.I | re.M)
_SPEAK_WORDS = {"speak", "speaking", "respond", "yes", "talk", "say"}


@dataclass(frozen=True)
class ParsedReply:
    """What a polling reply means: speak or not, the one-line response, and what the model wrote."""
    speak: bool
    response: str
    decision: Optional[str]  # "SPEAK" | "WAIT" | None when the reply had no decision line
    raw: str = ""


def normalize_marker(text: str) -> str:
    """Lower-cased text with surrounding quotes, brackets, asterisks and final punctuation removed."""
    s = (text or "").strip().lower()
    s = s.strip(" \t\r\n\"'`*_[]{}")
    s = s.rstrip(".!。")
    return s.strip()


def is_silence(text: Optional[str]) -> bool:
    """True for an empty reply or one that is only a silence marker (WAIT, NO_RESPONSE, ...)."""
    if text is None or not str(text).strip():
        return True
    raw = str(text).strip()
    if raw in ("...", "-", "—"):
        return True
    norm = normalize_marker(raw)
    return not norm or norm in SILENCE_MARKERS


def one_line(text: str) -> str:
    """Collapse whitespace so a response is a single line."""
    return " ".join((text or "").split())


def parse_decision(text: Optional[str]) -> ParsedReply:
    """Read a `DECISION: SPEAK|WAIT` / `RESPONSE: <line>` reply.

    The decision is read case-insensitively; a reply without a decision line counts as speaking.
    The response is the rest of the `RESPONSE:` line (or the next non-empty line when that is
    empty); without a RESPONSE line it is the whole reply minus the decision line. A SPEAK whose
    response is a silence marker is silent."""
    raw = text or ""
    m = _DECISION_RE.search(raw)
    decision = None
    if m:
        word = m.group(1).strip().lower()
        decision = "SPEAK" if word in _SPEAK_WORDS else "WAIT"
    r = _RESPONSE_RE.search(raw)
    if r:
        response = r.group(1).strip()
        if not response:
            rest = raw[r.end():].splitlines()
            response = next((ln.strip() for ln in rest if ln.strip()), "")
    else:
        body = _DECISION_RE.sub("", raw) if m else raw
        if m:  # drop the remainder of the decision line
            body = "\n".join(ln for ln in raw.splitlines() if not _DECISION_RE.match(ln))
        response = body.strip()
    response = one_line(response.strip(" *_"))
    speak = decision != "WAIT" and not is_silence(response)
    return ParsedReply(speak=speak, response=response if speak else "", decision=decision, raw=raw)


_LETTER_PATTERNS = (
    re.compile(r"\b(?:answer|option|choice)\s*(?:is|:)?\s*[(\[]?([A-H])[)\].:]?(?![A-Za-z])", re.I),
    re.compile(r"^\s*[(\[]?([A-H])[)\].:](?:\s|$)"),
    re.compile(r"^\s*([A-H])\s*$"),
    re.compile(r"[(\[]([A-H])[)\]]"),
)


def parse_mcq_letter(text: Optional[str], letters: str = "ABCD") -> Optional[str]:
    """The chosen option letter: 'Answer: B', '(B)', 'B.' or a lone 'B'; None when unclear.

    This is the runner's own reading for display and counting; scorers apply the benchmark's rules."""
    s = text or ""
    for pat in _LETTER_PATTERNS:
        m = pat.search(s)
        if m and m.group(1).upper() in letters.upper():
            return m.group(1).upper()
    return None


_NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
_NUM_RE = re.compile(r"-?\d+(?:\.\d+)?|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def parse_count(text: Optional[str]) -> Optional[int]:
    """The last number in the text (digits or an English word zero..twenty) as an int; None if none."""
    found = _NUM_RE.findall(text or "")
    if not found:
        return None
    last = found[-1].lower()
    if last in _NUMBER_WORDS:
        return _NUMBER_WORDS[last]
    return int(float(last))


_OFFLINE_RE = re.compile(r"^\s*[-*•]?\s*\[?\s*t\s*=\s*(-?\d+(?:\.\d+)?)\s*s?\s*\]?\s*[:\-–—]?\s*(.*)$", re.I)


def parse_offline(text: Optional[str]) -> list[tuple[float, str]]:
    """`[t=12.3] text` lines -> [(12.3, 'text')]; brackets optional; other lines and NO_RESPONSE ignored."""
    out = []
    for line in (text or "").splitlines():
        m = _OFFLINE_RE.match(line)
        if not m:
            continue
        body = one_line(m.group(2))
        if is_silence(body):
            continue
        out.append((float(m.group(1)), body))
    return out


@dataclass(frozen=True)
class ToolCall:
    """A tool invocation read from a reply."""
    name: str
    args: dict = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"tool": self.name, "args": self.args}, ensure_ascii=False, sort_keys=True)


_CALL_RE = re.compile(r"\bCALL\s+([A-Za-z_][\w.\-]*)\s*\((.*?)\)\s*$", re.I | re.M | re.S)
_KV_RE = re.compile(r"""\s*([A-Za-z_]\w*)\s*[=:]\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^,]+)\s*(?:,|$)""")


def _json_objects(text: str):
    """Every top-level {...} in text that parses as a JSON object, in order."""
    dec = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            yield obj
        i = text.find("{", end)


def _as_args(value: Any) -> Optional[dict]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value) if value.strip() else {}
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _scalar(v: str) -> Any:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    try:
        return json.loads(v)
    except ValueError:
        return v


def parse_tool_call(text: Optional[str]) -> Optional[ToolCall]:
    """A tool call in a reply: JSON `{"tool": name, "args": {...}}` (also `{"name", "arguments"}`)
    or `CALL name({...})` / `CALL name(key=value, ...)`. None when the reply holds no tool call."""
    s = text or ""
    for obj in _json_objects(s):
        fn = obj.get("function") if isinstance(obj.get("function"), dict) else {}
        name = obj.get("tool") or obj.get("name") or fn.get("name")
        if isinstance(name, dict):  # {"tool": {"name": ..., "args": ...}}
            inner = name
            name = inner.get("name")
            obj = {"args": inner.get("args", inner.get("arguments"))}
        if not isinstance(name, str) or not name:
            continue
        raw_args = obj.get("args", obj.get("arguments", obj.get("parameters")))
        if raw_args is None and fn:
            raw_args = fn.get("arguments")
        args = _as_args(raw_args)
        if args is not None:
            return ToolCall(name, args)
    m = _CALL_RE.search(s)
    if m:
        name, inner = m.group(1), m.group(2).strip()
        args = _as_args(inner)
        if args is None:
            args = {k: _scalar(v) for k, v in _KV_RE.findall(inner)}
            if inner and not args:
                args = {"input": _scalar(inner)}
        return ToolCall(name, args)
    return None


def follows_format(expects: str, text: Optional[str]) -> bool:
    """Whether a reply kept the protocol's reply format: a `DECISION:` line ("decision"), a tool call or a
    decision line ("tool_or_decision"), timed `[t=..]` lines or NO_RESPONSE ("offline"). A reply that breaks
    the format is still read (no decision line counts as speaking); this only counts how often that happens."""
    raw = text or ""
    if expects == "offline":
        return bool(parse_offline(raw)) or normalize_marker(raw) in ("no_response", "no response", "noresponse")
    has_decision = _DECISION_RE.search(raw) is not None
    if expects == "tool_or_decision":
        return has_decision or parse_tool_call(raw) is not None
    return has_decision
