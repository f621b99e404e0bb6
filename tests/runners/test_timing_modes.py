"""Timing modes and per-call records in `drive`, with a backend that reports a fixed latency (no wall clock):
which ticks are asked and skipped, when replies count, compliance, failed calls, and replaying stored calls."""
import pytest

from tests.runners.conftest import ib_item, pb_item
from runners.backends.base import Backend
from runners.parsing import follows_format
from runners.protocols import drive, get_protocol
from runners.proactivebench.prediction import compact_trace
from runners.protocols.base import BackendFailure, CallRecord, Reply

SPEAK = "DECISION: SPEAK\nRESPONSE: Blue now."


class Fixed(Backend):
    """Answers `reply` (or what `script` says for a tick) and claims `latency` seconds per call."""
    name = "fixed"

    def __init__(self, latency: float, reply: str = SPEAK, script=None):
        self.latency, self.reply, self.script, self.asked = latency, reply, dict(script or {}), []

    def respond(self, decision):
        self.asked.append(decision.t)
        what = self.script.get(decision.t, self.reply)
        if isinstance(what, Exception):
            raise what
        return Reply(what, self.latency)


def test_decision_timing_asks_every_tick_and_stamps_at_the_tick(clip):
    b = Fixed(2.5)
    trace = drive(ib_item(clip, "A", q=2.0), get_protocol("sliding", a_window=4.0), b)
    assert b.asked == [2.0, 3.0, 4.0, 5.0, 6.0] and trace.skipped_ticks == 0
    assert [e.t for e in trace.emissions] == [2.0, 3.0, 4.0, 5.0, 6.0]


def test_arrival_timing_skips_ticks_due_during_a_call_and_stamps_on_arrival(clip):
    b = Fixed(2.5)
    trace = drive(ib_item(clip, "A", q=2.0), get_protocol("sliding", a_window=4.0), b, timing="arrival")
    # asked at 2 (back at 4.5), 3 and 4 skipped, asked at 5 (back at 7.5), 6 skipped
    assert b.asked == [2.0, 5.0] and trace.skipped_ticks == 3
    assert [(c.t, c.status) for c in trace.calls] == [(2.0, "ok"), (3.0, "skipped"), (4.0, "skipped"),
                                                      (5.0, "ok"), (6.0, "skipped")]
    assert [(e.t, e.meta["decision_t"]) for e in trace.emissions] == [(4.5, 2.0), (7.5, 5.0)]
    # a reply exactly one interval long leaves no tick skipped
    b = Fixed(1.0)
    trace = drive(ib_item(clip, "A", q=2.0), get_protocol("sliding", a_window=2.0), b, timing="arrival")
    assert b.asked == [2.0, 3.0, 4.0] and [e.t for e in trace.emissions] == [3.0, 4.0, 5.0]


def test_arrival_moves_a_proactivebench_answer_to_the_second_it_arrives_in(clip):
    b = Fixed(1.4, script={k: "DECISION: WAIT\nRESPONSE:" for k in (2.0, 3.0, 5.0, 6.0)})
    trace = drive(pb_item(clip), get_protocol("proactive"), b, timing="arrival")
    # asked at 2 (back 3.4), 4 (back 5.4): the answer given at second 4 arrives in second 6
    assert b.asked[:2] == [2.0, 4.0]
    assert compact_trace(trace)["response_seconds"][0] == 6
    assert trace.emissions[0].meta["decision_t"] == 4.0 and trace.emissions[0].t == 5.4


def test_failed_calls_are_errors_not_silence_and_compliance_is_counted(clip):
    script = {3.0: BackendFailure("HTTP 500", kind="http_500", attempts=4), 4.0: "I see blue.",
              5.0: "DECISION: WAIT\nRESPONSE:"}
    trace = drive(ib_item(clip, "A", q=2.0), get_protocol("sliding", a_window=4.0), Fixed(0.1, script=script))
    got = [(c.t, c.status, c.error_kind, c.attempts, c.decision, c.compliant) for c in trace.calls]
    assert got == [(2.0, "ok", None, 1, "speak", True), (3.0, "error", "http_500", 4, None, None),
                   (4.0, "ok", None, 1, "speak", False), (5.0, "ok", None, 1, "silent", True),
                   (6.0, "ok", None, 1, "speak", True)]
    assert trace.n_errors == 1 and trace.errors_by_kind() == {"http_500": 1} and trace.n_retries == 3
    assert trace.n_compliant == 3
    assert trace.calls[0].prompt.startswith("Stream time: 2.0 s.") and len(trace.calls[0].frame_times) == 4


def test_stored_calls_are_replayed_not_asked_again(clip):
    first = drive(ib_item(clip, "A", q=2.0), get_protocol("interleaved", a_window=4.0),
                  Fixed(2.5, script={3.0: "DECISION: SPEAK\nRESPONSE: Third."}), timing="arrival")
    kept = {c.t: CallRecord.from_row({**c.store_fields(), "t": c.t}) for c in first.calls[:1]}
    b = Fixed(2.5, script={3.0: "DECISION: SPEAK\nRESPONSE: Third."})
    again = drive(ib_item(clip, "A", q=2.0), get_protocol("interleaved", a_window=4.0), b, timing="arrival",
                  reuse=kept)
    assert b.asked == [5.0] and again.n_reused == 1 and again.calls[0].reused
    assert [(e.t, e.content) for e in again.emissions] == [(e.t, e.content) for e in first.emissions]


@pytest.mark.parametrize("expects,text,ok", [
    ("decision", "DECISION: WAIT\nRESPONSE:", True), ("decision", "**Decision:** speak\nhi", True),
    ("decision", "The ball is red.", False), ("decision", "", False),
    ("offline", "[t=12.3] It turned blue.", True), ("offline", "NO_RESPONSE", True), ("offline", "blue", False),
    ("tool_or_decision", '{"tool": "set_timer", "args": {"seconds": 30}}', True),
    ("tool_or_decision", "DECISION: WAIT", True), ("tool_or_decision", "sure", False)])
def test_follows_format(expects, text, ok):
    assert follows_format(expects, text) is ok


def test_retry_after_header_forms():
    import email.utils
    import time
    from types import SimpleNamespace

    from runners.backends.openai_backend import retry_after
    assert retry_after(SimpleNamespace(headers={"retry-after": "2"})) == 2.0
    assert retry_after(SimpleNamespace(headers={"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    assert retry_after(SimpleNamespace(headers={})) is None
    assert retry_after(SimpleNamespace(headers={"retry-after": "soon"})) is None
    later = email.utils.formatdate(time.time() + 3600, usegmt=True)
    assert 3000 < retry_after(SimpleNamespace(headers={"retry-after": later})) <= 3600
