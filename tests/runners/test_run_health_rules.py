"""Run-health rules (runners.run_health) on hand-built traces and stored results: every figure below is worked
out by hand in the test's docstring, never computed by the module. Percentiles are numpy's default (linear
between the two closest ranks): for n sorted values, the q-th percentile sits at rank (n - 1) * q / 100."""
from __future__ import annotations

import pytest

from runners.protocols.base import CallRecord, Trace
from runners.run_health import (COMPLIANCE_THRESHOLD, ON_ERROR, RunFailed, call_counts, check_any_call_succeeded,
                                endpoint_counts, error_ticks, format_health, item_has_errors, scored_items,
                                summarise)

A, B = "http://a:8000/v1", "http://b:8000/v1"


def _trace() -> Trace:
    """Six ticks: ok (1 attempt, compliant, pool a), timeout after 3 attempts (a, b, b: the last attempt has no kind),
    ok after a 500 at b then a (not compliant), skipped, malformed (1 attempt), ok (compliant, no pool)."""
    calls = [
        CallRecord(t=0.5, status="ok", attempts=1, compliant=True, endpoints=((A, True, 0.20004, None),)),
        CallRecord(t=1.0, status="error", error_kind="timeout", attempts=3,
                   endpoints=((A, False, 1.0, "timeout"), (B, False, 1.5, None), (B, False, 2.0, None))),
        CallRecord(t=1.5, status="ok", attempts=2, compliant=False,
                   endpoints=((B, False, 0.3, "http_500"), (A, True, 0.25, None))),
        CallRecord(t=2.0, status="skipped", attempts=0),
        CallRecord(t=2.5, status="error", error_kind="malformed", attempts=1),
        CallRecord(t=3.0, status="ok", attempts=1, compliant=True),
    ]
    return Trace(item_id="i1", protocol="polling", backend="openai", poll_latencies=[0.123456, 0.5, 0.33333],
                 n_polls=5, n_errors=2, skipped_ticks=1, timing="arrival", calls=calls, n_reused=1)


def test_error_ticks_name_each_failed_tick_and_its_kind():
    """Ticks 1.0 (timeout) and 2.5 (malformed) failed; the ok and skipped ticks are not errors."""
    assert error_ticks(_trace()) == [{"t": 1.0, "kind": "timeout"}, {"t": 2.5, "kind": "malformed"}]


def test_call_counts_of_a_trace_by_hand():
    """ok calls: ticks 0.5, 1.5, 3.0 -> 3. retries = (1-1) + (3-1) + (2-1) + (1-1) + (1-1) = 3 (skipped not counted).
    compliant: 0.5 and 3.0 -> 2, compliance 2/3 = 0.66667 -> 0.6667. latencies rounded to 4 places: 0.123456 -> 0.1235,
    0.5, 0.33333 -> 0.3333. Endpoint a: attempts at ticks 0.5, 1.0, 1.5 -> 3, one failure (timeout), latencies
    0.20004 -> 0.2, 1.0, 0.25. Endpoint b: 1.5 (no kind), 2.0 (no kind), 0.3 (http_500) -> 3 attempts, 3 failures:
    backend 2 (an attempt without a kind is a backend failure), http_500 1."""
    got = call_counts(_trace())
    assert got == {
        "timing": "arrival", "n_polls": 5, "n_ok": 3, "n_errors": 2,
        "errors_by_kind": {"timeout": 1, "malformed": 1},
        "error_ticks": [{"t": 1.0, "kind": "timeout"}, {"t": 2.5, "kind": "malformed"}],
        "n_retries": 3, "n_reused": 1, "skipped_ticks": 1, "n_compliant": 2, "compliance": 0.6667,
        "latencies": [0.1235, 0.5, 0.3333],
        "endpoints": {
            A: {"attempts": 3, "errors": 1, "errors_by_kind": {"timeout": 1}, "latencies": [0.2, 1.0, 0.25]},
            B: {"attempts": 3, "errors": 3, "errors_by_kind": {"backend": 2, "http_500": 1},
                "latencies": [1.5, 2.0, 0.3]},
        },
    }


def test_call_counts_without_a_pool_or_an_ok_call():
    """Two failed calls and no endpoints: no `endpoints` key, compliance None (no ok reply to judge), n_ok 0."""
    tr = Trace(item_id="i2", protocol="polling", backend="hf", n_polls=2, n_errors=2,
               calls=[CallRecord(t=0.5, status="error", error_kind="connection", attempts=2),
                      CallRecord(t=1.0, status="error", error_kind="connection", attempts=1)])
    got = call_counts(tr)
    assert "endpoints" not in got
    assert (got["n_ok"], got["compliance"], got["n_retries"], got["errors_by_kind"], got["timing"]) == \
        (0, None, 1, {"connection": 2}, "decision")


def test_endpoint_counts_sum_attempts_per_server():
    """a: ok 0.1, failed 0.33333 (timeout) -> 2 attempts, 1 error, latencies [0.1, 0.3333]; b: one ok attempt."""
    got = endpoint_counts([("a", True, 0.1, None), ("b", 1, "0.7", None), ("a", False, 0.33333, "timeout")])
    assert got == {"a": {"attempts": 2, "errors": 1, "errors_by_kind": {"timeout": 1}, "latencies": [0.1, 0.3333]},
                   "b": {"attempts": 1, "errors": 0, "errors_by_kind": {}, "latencies": [0.7]}}
    assert endpoint_counts([]) == {}


@pytest.mark.parametrize("result, bad", [({}, False), ({"n_errors": 0, "failed": None}, False),
                                          ({"n_errors": 0, "failed": ""}, False), ({"n_errors": 1}, True),
                                          ({"n_errors": 0, "failed": "worker died"}, True)])
def test_an_item_has_errors_when_a_call_or_the_item_failed(result, bad):
    assert item_has_errors(result) is bad


RESULTS = {  # stored per-item results; "e" comes first here but last in the run's order
    "e": {"n_errors": 0},
    "a": {"n_errors": 0},
    "b": {"n_errors": 2, "errors_by_kind": {"timeout": 1, "http_500": 1}},
    "c": {"n_errors": 0, "failed": "crash", "errors_by_kind": {"timeout": 1}},
}
ORDER = ["a", "b", "c", "d", "e"]  # d never ran (no result)


def test_exclude_scores_only_clean_items_in_run_order():
    """a and e are clean; b (2 errors) and c (the item failed) are left out; d has no result."""
    assert scored_items(ORDER, RESULTS, "exclude") == (["a", "e"], ["b", "c"])


def test_silence_scores_every_item_with_a_result():
    assert scored_items(ORDER, RESULTS, "silence") == (["a", "b", "c", "e"], [])


def test_fail_refuses_with_the_count_and_kinds_of_the_failures():
    """Two bad items, b and c; kinds summed: http_500 1, timeout 1 + 1 = 2, sorted by name."""
    with pytest.raises(RunFailed) as e:
        scored_items(ORDER, RESULTS, "fail")
    assert str(e.value) == ("2 item(s) had failed model calls (http_500 1, timeout 2) and --on-error is fail; "
                            "resume the run to retry them, or choose --on-error exclude|silence")


def test_fail_scores_a_clean_run_and_an_unknown_policy_is_refused():
    clean = {k: RESULTS[k] for k in ("a", "e")}
    assert scored_items(ORDER, clean, "fail") == (["a", "e"], [])
    assert ON_ERROR == ("exclude", "silence", "fail")
    with pytest.raises(ValueError, match=r"^--on-error must be one of exclude, silence, fail, got 'skip'$"):
        scored_items(ORDER, RESULTS, "skip")


def _run() -> dict:
    """Four items of the run (a, b, c, d) and one (z) that is not: z's figures must never show."""
    return {
        "a": {"n_polls": 4, "n_ok": 3, "n_errors": 1, "errors_by_kind": {"timeout": 1}, "n_retries": 2,
              "skipped_ticks": 0, "n_reused": 1, "n_compliant": 3, "compliance": 1.0, "latencies": [0.1, 0.2, 0.3],
              "endpoints": {B: {"attempts": 2, "errors": 1, "errors_by_kind": {"timeout": 1}, "latencies": [0.2, 0.4]},
                            A: {"attempts": 1, "errors": 0, "errors_by_kind": {}, "latencies": [0.1]}}},
        "b": {"n_polls": 3, "n_ok": 2, "n_errors": 1, "errors_by_kind": {"http_500": 1}, "n_retries": 1,
              "skipped_ticks": 2, "n_reused": 0, "n_compliant": 1, "compliance": 0.5, "latencies": [0.5, 0.4],
              "endpoints": {B: {"attempts": 3, "errors": 2, "errors_by_kind": {"http_500": 1, "timeout": 1},
                                "latencies": [0.6, 1.0, 0.8]}}},
        "c": {"n_polls": 1, "n_ok": 1, "n_errors": 0, "errors_by_kind": {}, "n_retries": 0, "skipped_ticks": 1,
              "n_reused": 0, "n_compliant": 1, "compliance": 1.0, "latencies": [1.5], "worker_retries": 2},
        "d": {"failed": "worker died", "worker_retries": 1},
        "z": {"n_polls": 100, "n_ok": 50, "n_errors": 50, "errors_by_kind": {"timeout": 50}, "n_retries": 9,
              "skipped_ticks": 9, "n_reused": 9, "n_compliant": 0, "latencies": [9.0], "worker_retries": 5,
              "endpoints": {"http://z": {"attempts": 100, "errors": 50, "errors_by_kind": {}, "latencies": [9.0]}}},
    }


def test_summary_figures_by_hand():
    """Items a, b, c, d (z is not in the run, "missing" has no result). calls 4+3+1+0 = 8, ok 3+2+1 = 6, errors 1+1 = 2
    (http_500 1, timeout 1), retries 2+1 = 3, skipped 0+2+1 = 3, reused 1, items 4, with errors a, b, d = 3.
    Latencies sorted: 0.1 0.2 0.3 0.4 0.5 1.5 (n = 6): p50 at rank 2.5 = 0.3 + 0.5 * 0.1 = 0.35; p95 at rank 4.75
    = 0.5 + 0.75 * 1.0 = 1.25; max 1.5; mean 3.0 / 6 = 0.5, over the 0.3 s interval = 1.6667 -> 1.667.
    compliant 3+1+1 = 5 of 6 ok -> 0.83333 -> 0.8333 < 0.9: flagged. Endpoint a: 1 attempt, p50 = p95 = 0.1.
    Endpoint b: 2+3 = 5 attempts, 1+2 = 3 errors (http_500 1, timeout 2), latencies 0.2 0.4 0.6 0.8 1.0: p50 at rank
    2 = 0.6, p95 at rank 3.8 = 0.8 + 0.8 * 0.2 = 0.96. Ray retried c twice and d once."""
    h = summarise(_run(), ["a", "b", "c", "d", "missing"], timing="arrival", on_error="exclude", interval=0.3,
                  excluded=["a", "b", "d"])
    assert h == {
        "timing": "arrival", "on_error": "exclude", "calls": 8, "ok": 6, "errors": 2,
        "errors_by_kind": {"http_500": 1, "timeout": 1}, "retries": 3, "skipped_ticks": 3, "reused_calls": 1,
        "items": 4, "items_with_errors": 3, "excluded_items": ["a", "b", "d"],
        "latency_p50": 0.35, "latency_p95": 1.25, "latency_max": 1.5, "realtime_factor": 1.667,
        "compliant": 5, "compliance": 0.8333, "compliance_threshold": 0.9, "compliance_flag": True,
        "per_item": {
            "a": {"calls": 4, "errors": 1, "skipped_ticks": 0, "compliance": 1.0, "excluded": True},
            "b": {"calls": 3, "errors": 1, "skipped_ticks": 2, "compliance": 0.5, "excluded": True},
            "c": {"calls": 1, "errors": 0, "skipped_ticks": 1, "compliance": 1.0, "excluded": False},
            "d": {"calls": 0, "errors": 0, "skipped_ticks": 0, "compliance": None, "excluded": True},
        },
        "endpoints": {
            A: {"attempts": 1, "errors": 0, "errors_by_kind": {}, "latency_p50": 0.1, "latency_p95": 0.1},
            B: {"attempts": 5, "errors": 3, "errors_by_kind": {"http_500": 1, "timeout": 2},
                "latency_p50": 0.6, "latency_p95": 0.96},
        },
        "worker_retries": {"c": 2, "d": 1},
    }
    assert list(h["errors_by_kind"]) == ["http_500", "timeout"] and list(h["endpoints"]) == [A, B]
    assert list(h["endpoints"][B]["errors_by_kind"]) == ["http_500", "timeout"]


def test_percentiles_of_an_odd_count_and_of_one_value():
    """Latencies 1, 2, 4, 8, 16 (n = 5): p50 at rank 2 = 4; p95 at rank 3.8 = 8 + 0.8 * 8 = 14.4; max 16; mean
    31 / 5 = 6.2 over a 2 s interval = 3.1. A single latency 0.25 is its own p50, p95 and max."""
    h = summarise({"x": {"n_polls": 5, "n_ok": 5, "latencies": [16, 1, 8, 2, 4]}}, ["x"], timing="decision",
                  on_error="silence", interval=2.0, excluded=[])
    assert (h["latency_p50"], h["latency_p95"], h["latency_max"], h["realtime_factor"]) == (4.0, 14.4, 16.0, 3.1)
    h = summarise({"x": {"n_polls": 1, "n_ok": 1, "latencies": [0.25]}}, ["x"], timing="decision",
                  on_error="silence", interval=None, excluded=[])
    assert (h["latency_p50"], h["latency_p95"], h["latency_max"], h["realtime_factor"]) == (0.25, 0.25, 0.25, None)


def test_latency_figures_are_rounded_to_four_places():
    """Stored latencies 0.1, 0.1003, 0.1004: p95 at rank 1.9 = 0.1003 + 0.9 * 0.0001 = 0.10039 -> 0.1004; p50 at rank 1
    = 0.1003. Latencies of five places 0.1, 0.10002: max 0.10002 -> 0.1, p50 0.10001 -> 0.1; mean 0.10001 over a 0.1 s
    interval = 1.0001 -> 1.0 (three places)."""
    kw = dict(timing="decision", on_error="silence", excluded=[])
    h = summarise({"x": {"latencies": [0.1004, 0.1, 0.1003]}}, ["x"], interval=None, **kw)
    assert (h["latency_p50"], h["latency_p95"]) == (0.1003, 0.1004)
    h = summarise({"x": {"latencies": [0.1, 0.10002]}}, ["x"], interval=0.1, **kw)
    assert (h["latency_p50"], h["latency_max"], h["realtime_factor"]) == (0.1, 0.1, 1.0)


def test_a_run_without_calls_has_no_latency_compliance_pool_or_ray_figures():
    """Item x never called the model: no latency figure, no compliance (0 ok replies), no flag, no pool, no ray."""
    h = summarise({"x": {"failed": "no video"}}, ["x"], timing="decision", on_error="silence", interval=0.5,
                  excluded=[])
    assert (h["calls"], h["ok"], h["latency_p50"], h["latency_p95"], h["latency_max"], h["realtime_factor"]) == \
        (0, 0, None, None, None, None)
    assert (h["compliant"], h["compliance"], h["compliance_flag"], h["items_with_errors"]) == (0, None, False, 1)
    assert "endpoints" not in h and "worker_retries" not in h
    assert h["per_item"] == {"x": {"calls": 0, "errors": 0, "skipped_ticks": 0, "compliance": None,
                                   "excluded": False}}


@pytest.mark.parametrize("ok, compliant, compliance, flag", [(10, 9, 0.9, False),  # exactly at 0.9: not below
                                                             (10000, 8999, 0.8999, True),  # just below
                                                             (20, 19, 0.95, False), (4, 0, 0.0, True)])
def test_the_compliance_flag_is_strictly_below_the_threshold(ok, compliant, compliance, flag):
    h = summarise({"x": {"n_polls": ok, "n_ok": ok, "n_compliant": compliant}}, ["x"], timing="decision",
                  on_error="silence", interval=None, excluded=[])
    assert (h["compliance"], h["compliance_flag"], h["compliance_threshold"]) == (compliance, flag, 0.9)
    assert COMPLIANCE_THRESHOLD == 0.9


def test_a_threshold_of_the_runs_own():
    """0.95 compliance is below a 0.96 threshold and not below 0.95."""
    r = {"x": {"n_polls": 20, "n_ok": 20, "n_compliant": 19}}
    kw = dict(timing="decision", on_error="silence", interval=None, excluded=[])
    assert summarise(r, ["x"], threshold=0.96, **kw)["compliance_flag"] is True
    assert summarise(r, ["x"], threshold=0.95, **kw)["compliance_flag"] is False


def test_every_call_failing_is_refused_in_one_line():
    """3 calls, 0 ok: the kinds sorted by name, the first error appended when known."""
    h = {"calls": 3, "ok": 0, "errors": 3, "errors_by_kind": {"timeout": 2, "http_500": 1}}
    with pytest.raises(RunFailed) as e:
        check_any_call_succeeded(h, "HTTP 500 from http://a")
    assert str(e.value) == "every model call failed (3 of 3: http_500 1, timeout 2); first: HTTP 500 from http://a"
    with pytest.raises(RunFailed) as e:
        check_any_call_succeeded({**h, "errors_by_kind": {}})
    assert str(e.value) == "every model call failed (3 of 3: none)"
    assert check_any_call_succeeded({"calls": 0, "ok": 0, "errors": 0, "errors_by_kind": {}}) is None
    assert check_any_call_succeeded({**h, "ok": 1}, "boom") is None


def _health(**patch) -> dict:
    h = {"timing": "arrival", "on_error": "exclude", "calls": 8, "ok": 6, "retries": 3, "errors": 2,
         "errors_by_kind": {"timeout": 1, "http_500": 1}, "skipped_ticks": 3, "reused_calls": 1,
         "latency_p50": 0.35, "latency_p95": 1.25, "latency_max": 1.5, "realtime_factor": 1.667,
         "items_with_errors": 3, "excluded_items": ["i1", "i2", "i3", "i4", "i5", "i6"],
         "endpoints": {A: {"attempts": 1, "errors": 0, "errors_by_kind": {}, "latency_p50": 0.1, "latency_p95": 0.1},
                       B: {"attempts": 5, "errors": 3, "errors_by_kind": {"timeout": 2, "http_500": 1},
                           "latency_p50": 0.6, "latency_p95": 0.96}},
         "worker_retries": {"c": 2, "d": 1},
         "compliant": 5, "compliance": 0.8333, "compliance_threshold": 0.9, "compliance_flag": True}
    return {**h, **patch}


def test_the_printed_health_with_every_part():
    """Six excluded items: the first five named, then ', ...'. 5/6 compliance = 83.33 % -> '83.3 %', flagged below
    90 %. Ray: 2 + 1 = 3 retried attempts."""
    assert format_health(_health()).split("\n") == [
        "timing: arrival | calls 8, ok 6, retries 3, errors 2 (http_500 1, timeout 1), skipped ticks 3, reused 1",
        "latency p50 0.35 s, p95 1.25 s, max 1.5 s, realtime factor 1.667",
        "on error: exclude | items with errors 3, excluded 6 (i1, i2, i3, i4, i5, ...)",
        f"endpoint {A}: attempts 1, errors 0, latency p50 0.1 s, p95 0.1 s",
        f"endpoint {B}: attempts 5, errors 3 (http_500 1, timeout 2), latency p50 0.6 s, p95 0.96 s",
        "ray: 3 item attempt(s) retried after a worker died (c, d)",
        "format compliance: 5/6 replies (83.3 %)  << FLAG: below 90 %: the model did not follow the reply format; "
        "its replies were read by the fallback rules",
    ]


def test_the_printed_health_of_a_quiet_run():
    """No errors, reuse, latencies, exclusions, pool, ray or compliance: none of their parts is printed."""
    h = _health(timing="decision", on_error="silence", calls=0, ok=0, retries=0, errors=0, errors_by_kind={},
                skipped_ticks=0, reused_calls=0, latency_p50=None, items_with_errors=0, excluded_items=[],
                endpoints={}, worker_retries={}, compliance=None)
    assert format_health(h) == ("timing: decision | calls 0, ok 0, retries 0, errors 0, skipped ticks 0\n"
                                "latency: no calls\n"
                                "on error: silence | items with errors 0, excluded 0")


def test_the_printed_health_at_its_edges():
    """Exactly five excluded: all named, no ', ...'. Six ray retries: the first five items named. A zero p50 and a
    zero compliance are figures (printed), not missing ones. 0.95 unflagged: '95.0 %' and no flag; 0 of 4 below an
    85 % threshold: flagged with '85 %'."""
    h = _health(excluded_items=["i1", "i2", "i3", "i4", "i5"], latency_p50=0.0, latency_p95=0.0, latency_max=0.0,
                realtime_factor=0.0, worker_retries={f"w{k}": 1 for k in range(1, 7)}, endpoints={},
                compliance=0.95, compliant=19, ok=20, compliance_flag=False)
    assert format_health(h).split("\n")[1:] == [
        "latency p50 0.0 s, p95 0.0 s, max 0.0 s, realtime factor 0.0",
        "on error: exclude | items with errors 3, excluded 5 (i1, i2, i3, i4, i5)",
        "ray: 6 item attempt(s) retried after a worker died (w1, w2, w3, w4, w5)",
        "format compliance: 19/20 replies (95.0 %)",
    ]
    h = _health(compliance=0.0, compliant=0, ok=4, compliance_threshold=0.85, endpoints={}, worker_retries={})
    assert format_health(h).split("\n")[-1] == ("format compliance: 0/4 replies (0.0 %)  << FLAG: below 85 %: the "
                                                "model did not follow the reply format; its replies were read by the "
                                                "fallback rules")
