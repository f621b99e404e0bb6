"""Prompt text shared by every protocol: the system prompt, the two-line reply format, what the model already
said and the tool list. Our own wording; each benchmark's own lines live in its folder (runners/<name>/)."""
from __future__ import annotations

from typing import Optional

REPLY_FORMAT = ("Reply in exactly two lines:\n"
                "DECISION: SPEAK or WAIT\n"
                "RESPONSE: <one line; leave it empty when you WAIT>")

BASE_SYSTEM = ("You are an assistant watching a live video stream together with a user. You only see "
               "the frames up to the current stream time. At every step decide whether to speak now "
               "or to wait. Speak only when you have something useful and new to say for the user's "
               "request; otherwise wait.")

NO_REPEAT = "Do not repeat anything you already said earlier in this conversation."


def history_text(history: list[dict], limit: int = 5) -> Optional[str]:
    said = [h for h in history if h.get("spoke")][-limit:]
    if not said:
        return None
    return "You already said: " + " | ".join(f"[{h['t']:.0f} s] {h['reply']}" for h in said)


def tools_text(tools: list[dict]) -> str:
    """The tool list and the call format accepted by runners.parsing.parse_tool_call."""
    import json

    lines = ["You can call these tools:"]
    for tool in tools:
        name = tool.get("name", "?")
        desc = tool.get("description", "")
        params = tool.get("parameters") or tool.get("args") or {}
        lines.append(f"- {name}: {desc} parameters: {json.dumps(params, ensure_ascii=False)}")
    lines.append('To call a tool, reply with one JSON line: {"tool": "<name>", "args": {...}}')
    return "\n".join(lines)
