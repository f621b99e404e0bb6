import pytest

from runners.parsing import (ToolCall, is_silence, parse_count, parse_decision, parse_mcq_letter, parse_offline,
                             parse_tool_call)


@pytest.mark.parametrize("text,speak,response,decision", [
    ("DECISION: SPEAK\nRESPONSE: The ball fell.", True, "The ball fell.", "SPEAK"),
    ("decision: speak\nresponse: lower case works", True, "lower case works", "SPEAK"),
    ("DECISION: WAIT\nRESPONSE: it might fall", False, "", "WAIT"),
    ("**DECISION:** SPEAK\n**RESPONSE:** bold markdown", True, "bold markdown", "SPEAK"),
    ("DECISION: SPEAK\nRESPONSE:\nThe answer on the next line\nextra", True, "The answer on the next line", "SPEAK"),
    ("The cup is red.", True, "The cup is red.", None),  # no decision line = speaking
    ("RESPONSE: only a response", True, "only a response", None),
    ("DECISION: SPEAK\nRESPONSE: NO_RESPONSE", False, "", "SPEAK"),
    ("DECISION: SPEAK", False, "", "SPEAK"),
    ("", False, "", None),
    ("WAIT", False, "", None),
    ("Nothing to report.", False, "", None),
    ("DECISION: SPEAK\nRESPONSE: first line\nsecond line", True, "first line", "SPEAK"),
])
def test_parse_decision(text, speak, response, decision):
    p = parse_decision(text)
    assert (p.speak, p.response, p.decision) == (speak, response, decision)


@pytest.mark.parametrize("text,silent", [
    ("", True), ("   ", True), (None, True), ("WAIT", True), ("wait.", True), ("NO_RESPONSE", True),
    ("No response", True), ("nothing to report", True), ('"..."', True), ("[silence]", True),
    ("Wait for it, the ball is falling", False), ("No", False), ("0", False),
])
def test_silence_markers(text, silent):
    assert is_silence(text) is silent


def test_mcq_and_counts():
    assert parse_mcq_letter("The answer is (C).") == "C"
    assert parse_mcq_letter("B. The red one") == "B"
    assert parse_mcq_letter("D") == "D"
    assert parse_mcq_letter("It is a blue cup") is None
    assert parse_mcq_letter("Answer: E", letters="ABCD") is None
    assert parse_count("I counted 3, no wait, 4 birds") == 4
    assert parse_count("three so far") == 3
    assert parse_count("no number") is None
    assert parse_count("about 2.0 times") == 2


def test_offline_lines():
    text = "[t=12.3] the ball falls\nt=5 - a person waves\n- [t=20s]: done\nsome chatter\n[t=30] NO_RESPONSE"
    assert parse_offline(text) == [(12.3, "the ball falls"), (5.0, "a person waves"), (20.0, "done")]
    assert parse_offline("NO_RESPONSE") == []


@pytest.mark.parametrize("text,expected", [
    ('{"tool": "set_timer", "args": {"seconds": 30}}', ToolCall("set_timer", {"seconds": 30})),
    ('Sure! {"tool": "notify", "args": {}} done', ToolCall("notify", {})),
    ('{"name": "x", "arguments": "{\\"a\\": 2}"}', ToolCall("x", {"a": 2})),
    ('{"function": {"name": "y", "arguments": {"b": 1}}}', ToolCall("y", {"b": 1})),
    ('CALL set_timer({"seconds": 30})', ToolCall("set_timer", {"seconds": 30})),
    ('CALL set_timer(seconds=30, label="tea")', ToolCall("set_timer", {"seconds": 30, "label": "tea"})),
    ("CALL beep()", ToolCall("beep", {})),
    ("DECISION: SPEAK\nRESPONSE: hello", None),
    ('{"answer": 3}', None),
])
def test_tool_calls(text, expected):
    assert parse_tool_call(text) == expected
