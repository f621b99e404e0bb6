"""InteractionBench's prompt lines: per-capability hints, the request line by time type, the per-tick text and
the offline listing. Our own wording; the structure (stream time, request, hint, two-line reply format)
follows InteractionBench's prompts as described in the spec."""
from __future__ import annotations

from runners.protocols.prompts import REPLY_FORMAT

HINTS = {
    "default": {
        "LVM": "The answer may depend on something shown long ago; use everything you have seen.",
        "IVQA": "Answer about what is visible in the stream right now.",
        "PTR": "This is an alert: speak as soon as the requested event happens, and not before.",
        "TOA": "Timing matters: speak exactly when the stated condition becomes true.",
        "CIR": "Use details from earlier in the stream that matter for the request.",
        "CST": "Keep track of the state; report each change when it happens, with the running number if counting.",
        "LCG": "Commentate: describe each new development briefly as it happens.",
        "BRC": "If new evidence changes the answer, say the corrected answer right away.",
        "UNKNOWN": "",
    },
    "v2": {
        "PTR": "Say it the moment it happens. Stay quiet until then.",
        "CST": "Announce every new occurrence with the updated count.",
        "LCG": "Give short live commentary on what changes.",
    },
    "v3": {},
}


def hint(capability: str, hint_set: str = "default") -> str:
    table = HINTS.get(hint_set, {})
    return table.get(capability) or HINTS["default"].get(capability, "")


def request_line(question: str, time_type: str, q: float) -> str:
    """A items: 'just asked' (shown only from q on); B/C: a standing request from the start."""
    if not question:
        return "The user has not asked anything; speak only if something important happens."
    if time_type == "A":
        return f'The user just asked (at {q:.1f} s): "{question}" Answer now.'
    return f'Standing request from the user (active since the stream began): "{question}"'


def user_text(t: float, question: str, time_type: str, q: float, capability: str,
                 hint_set: str = "default") -> str:
    lines = [f"Stream time: {t:.1f} s.", request_line(question, time_type, q)]
    h = hint(capability, hint_set)
    if h:
        lines.append(f"Hint: {h}")
    lines.append(REPLY_FORMAT)
    return "\n".join(lines)


def turn_text(t: float) -> str:
    """The short per-tick text of the interleaved protocol."""
    return f"Stream time: {t:.1f} s. Decide now.\n{REPLY_FORMAT}"


def offline_text(question: str, time_type: str, q: float, duration: float) -> str:
    lines = [f"You have seen the whole video ({duration:.1f} s). The frames are in time order.",
             request_line(question, time_type, q)]
    if time_type == "A":
        lines.append("Give exactly one line: [t=<seconds of the evidence>] <answer>.")
    else:
        lines.append("List every moment you would have spoken, one per line, as: [t=<seconds>] <text>. "
                     "If you would never speak, reply NO_RESPONSE.")
    return "\n".join(lines)
