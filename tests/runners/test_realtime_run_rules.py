"""Rules of runners.realtime_run on hand-built sessions: where a realtime reply's words, chunks, emissions and
speech land on the media timeline, and what an item's stored record counts. No server: each StreamResult is
built by hand, and every expected value is worked out in the test's comments."""
from __future__ import annotations

import base64
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from annotation.model import Item, Request, Stream
from runners.backends.realtime import ResponseRecord, StreamResult, Timeline
from runners.realtime_run import (WORDS_PER_SECOND, _counts, _pos_to_t, chunk_of_response, drive_realtime,
                                  emissions_from_transcript, realtime_item_result, response_words, speech_audio,
                                  speech_segments, transcript_from_stream)


def item(benchmark: str = "proactivebench", duration=12.0, native=None) -> Item:
    stream = Stream(id="s", video_path=None, duration=duration)
    return Item(id="it1", benchmark=benchmark, kind="k", stream=stream, request=Request("Say when.", 0.0, "standing"),
                targets=(), native=native if native is not None else {"item_id": "it1"})


def rec(rid="r", spans=(), samples=0, deltas=(), interrupted_t=None) -> ResponseRecord:
    return ResponseRecord(rid, spans=[list(s) for s in spans], samples=samples,
                          deltas=[{"text": x, "t": t, "pos": p} for x, t, p in deltas], interrupted_t=interrupted_t)


class FakeBackend:
    """A realtime backend that returns a prepared StreamResult (and hands each response to on_response)."""

    def __init__(self, result=None, error=None, output_rate=10, asr_model=None):
        self.result, self.error = result, error
        self.name = "realtime:fake"
        self.options = SimpleNamespace(asr_model=asr_model, output_rate=output_rate)
        self.calls = []

    def stream_item(self, item, benchmark, clock=None, cancel=None, on_speech=None, on_response=None, mix=None):
        self.calls.append({"item": item.id, "benchmark": benchmark, "clock": clock, "cancel": cancel,
                           "on_speech": on_speech, "mix": mix})
        if self.error is not None:
            raise self.error
        if on_response is not None:
            for r in self.result.responses:
                on_response(r)
        return self.result


# -- sample position -> media time --------------------------------------------------------------------------

SPANS = [[10.0, 11.0], [12.0, 13.0]]  # 1 s of audio at 10.0 and 1 s at 12.0 (rate 10: samples 0-9, 10-19)


@pytest.mark.parametrize("pos,end,t", [
    (0, False, 10.0),  # the first sample
    (5, False, 10.5),
    (9, False, 10.9),  # the last sample of the first span
    (10, False, 12.0),  # on the span edge: the next span's start
    (10, True, 11.0),  # ... or, as an end, the previous span's end
    (19, False, 12.9),
    (20, True, 13.0),  # the end of the placed audio
    (20, False, 13.0),  # past every span: 13.0 + 0
    (25, False, 13.5),  # half a second past the placed audio
    (15, True, 12.5),  # 1.5 s in: 0.5 s past the first span's end, so in the second span (not 11.5)
])
def test_sample_position_maps_to_media_time(pos, end, t):
    assert _pos_to_t(SPANS, pos, 10, end=end) == pytest.approx(t, abs=1e-9)


def test_a_position_is_a_start_unless_said_otherwise():
    assert _pos_to_t(SPANS, 10, 10) == 12.0  # on the edge: the next span's start


def test_a_word_starting_on_a_span_edge_starts_in_the_next_span():
    """rate 100, spans 1.0-1.1 and 2.0-2.1 (10 samples each); "cd" arrived with sample 10, the edge: it starts at
    2.0, not 1.1. "ab": samples 0 to 2/3 * 10 = 6.67 -> 1.0-1.067; "cd": 10-20 -> 2.0-2.1."""
    r = rec(spans=[[1.0, 1.1], [2.0, 2.1]], samples=20, deltas=[("ab ", 1.0, 0), ("cd", 1.1, 10)])
    assert response_words(r, 100) == [("ab", 1.0, 1.067), ("cd", 2.0, 2.1)]


def test_the_last_mark_never_goes_below_the_last_deltas_position():
    """A count that lags its deltas (5 samples, deltas at 0, 10, 20): the text ends at sample 20, not 10.
    rate 100, span 1.0-1.3: "ab" 0-6.67 -> 1.0-1.067; "cd" 10-16.67 -> 1.1-1.167; "ef" 20-20 -> 1.2-1.2."""
    r = rec(spans=[[1.0, 1.3]], samples=5, deltas=[("ab ", 1.0, 0), ("cd ", 1.1, 10), ("ef", 1.2, 20)])
    assert response_words(r, 100) == [("ab", 1.0, 1.067), ("cd", 1.1, 1.167), ("ef", 1.2, 1.2)]


def test_a_position_within_a_nanosecond_of_an_edge_is_on_it():
    """Spans 0-1 and 5-6 at rate 1. 1e-9 s before the edge is the edge: as a start, the next span's start
    (5.0); 1e-9 s after it, as an end, the previous span's end (1.0)."""
    spans = [[0.0, 1.0], [5.0, 6.0]]
    assert _pos_to_t(spans, 1.0 - 1e-9, 1) == pytest.approx(5.0, abs=1e-6)
    assert _pos_to_t(spans, 1.0 + 1e-9, 1, end=True) == pytest.approx(1.0, abs=1e-6)


def test_sample_position_uses_the_rate():
    # 24 kHz: sample 12000 is 0.5 s into the span that starts at 3.0
    assert _pos_to_t([[3.0, 4.0]], 12000, 24000) == pytest.approx(3.5, abs=1e-9)


# -- word times --------------------------------------------------------------------------------------------

def test_words_follow_delta_positions():
    """rate 100, one span 2.0-2.4 s (40 samples); "ab " arrived at sample 0, "cd" at sample 20.
    marks (chars, samples): (0, 0), (3, 20), (5, 40). "ab": chars 0-2 -> samples 0 and 2/3 * 20 = 13.33
    -> 2.0 and 2.1333 -> 2.133. "cd": chars 3-5 -> samples 20 and 40 -> 2.2 and 2.4 (the span's end)."""
    r = rec(spans=[[2.0, 2.4]], samples=40, deltas=[("ab ", 2.0, 0), ("cd", 2.1, 20)])
    assert response_words(r, 100) == [("ab", 2.0, 2.133), ("cd", 2.2, 2.4)]


def test_words_spread_by_characters_when_the_deltas_carry_no_timing():
    """One delta (one position): "abc de" (6 chars) spread over 10 samples at rate 10, placed 1.0-1.5 and
    3.0-3.5. "abc": chars 0-3 -> samples 0-5 -> 1.0 and (as an end) 1.5. "de": chars 4-6 -> samples 6.667-10
    -> 0.6667 s in = 0.1667 s into the second span -> 3.167; its end, sample 10, is the second span's end 3.5."""
    r = rec(spans=[[1.0, 1.5], [3.0, 3.5]], samples=10, deltas=[("abc de", 1.0, 0)])
    assert response_words(r, 10) == [("abc", 1.0, 1.5), ("de", 3.167, 3.5)]


def test_two_deltas_at_the_same_position_carry_no_timing():
    """Both deltas at sample 0: spread by characters. "ab cd" over 40 samples at rate 100 from 2.0:
    "ab" samples 0-16 -> 2.0-2.16; "cd" 24-40 -> 2.24-2.4."""
    r = rec(spans=[[2.0, 2.4]], samples=40, deltas=[("ab ", 2.0, 0), ("cd", 2.0, 0)])
    assert response_words(r, 100) == [("ab", 2.0, 2.16), ("cd", 2.24, 2.4)]


def test_deltas_before_any_audio_then_with_audio():
    """Three deltas at samples 0, 0, 20 (two distinct positions: timed). rate 100, span 5.0-5.4 (40 samples).
    marks: (0, 0), (2, 0), (4, 20), (6, 40). "a": chars 0-1 -> samples 0-0 -> 5.0-5.0; "b": chars 2-3 ->
    samples 0 and 10 -> 5.0-5.1; "cd": chars 4-6 -> 20-40 -> 5.2-5.4."""
    r = rec(spans=[[5.0, 5.4]], samples=40, deltas=[("a ", 5.0, 0), ("b ", 5.0, 0), ("cd", 5.2, 20)])
    assert response_words(r, 100) == [("a", 5.0, 5.0), ("b", 5.0, 5.1), ("cd", 5.2, 5.4)]


def test_a_late_delta_position_never_goes_back():
    """A delta whose position is below the previous one's keeps the previous one (times only move forward):
    marks (0, 0), (3, 30), (6, 30) (not 10), (8, 40). rate 100, span 1.0-1.4. "ab": 0-2 chars -> samples
    0-20 -> 1.0-1.2; "cd": chars 3-5 -> 30-30 -> 1.3-1.3; "ef": chars 6-8 -> 30-40 -> 1.3-1.4."""
    r = rec(spans=[[1.0, 1.4]], samples=40, deltas=[("ab ", 1.0, 0), ("cd ", 1.3, 30), ("ef", 1.3, 10)])
    assert response_words(r, 100) == [("ab", 1.0, 1.2), ("cd", 1.3, 1.3), ("ef", 1.3, 1.4)]


def test_text_past_the_last_delta_position_reaches_the_received_samples():
    """The last mark is the samples received (50 here, more than the last delta's 20). rate 100, spans
    1.0-1.5. marks (0, 0), (2, 20), (4, 50): "a" 0-1 chars -> 0-10 -> 1.0-1.1; "bc" chars 2-4 -> 20-50."""
    r = rec(spans=[[1.0, 1.5]], samples=50, deltas=[("a ", 1.0, 0), ("bc", 1.2, 20)])
    assert response_words(r, 100) == [("a", 1.0, 1.1), ("bc", 1.2, 1.5)]


def test_words_not_heard_are_dropped_and_the_last_is_cut_at_the_heard_end():
    """Barge-in: 10 samples received at rate 10 but only 1.0-1.5 placed. "ab " at sample 0, "cd" at sample 5:
    "cd" starts at sample 5 = 0.5 s = the heard end exactly: never heard. "ab" ends at 2/3 * 5 = 3.33
    samples -> 1.333."""
    r = rec(spans=[[1.0, 1.5]], samples=10, deltas=[("ab ", 1.0, 0), ("cd", 1.4, 5)], interrupted_t=1.5)
    assert response_words(r, 10) == [("ab", 1.0, 1.333)]
    one = rec(spans=[[1.0, 1.5]], samples=10, deltas=[("abcd", 1.0, 0)])  # ends at sample 10 = 2.0: cut to 1.5
    assert response_words(one, 10) == [("abcd", 1.0, 1.5)]


def test_no_words_without_placed_audio_or_text():
    assert response_words(rec(spans=[], samples=10, deltas=[("ab", 1.0, 0)]), 10) == []
    assert response_words(rec(spans=[[1.0, 2.0]], samples=10, deltas=[(" \n ", 1.0, 0)]), 10) == []
    assert response_words(rec(spans=[[1.0, 2.0]], samples=10), 10) == []


# -- one response as a chunk ---------------------------------------------------------------------------------

def test_spoken_response_chunk_has_its_stripped_text_and_word_span():
    r = rec(spans=[[2.0, 2.4]], samples=40, deltas=[(" ab ", 2.0, 0), ("cd ", 2.1, 20)])
    # marks (0, 0), (4, 20), (7, 40): "ab" chars 1-3 -> samples 5-15 -> 2.05-2.15; "cd" 4-6 -> 20-33.33
    assert chunk_of_response(r, 100, 12.0) == {
        "text": "ab cd", "timestamp": [2.05, 2.333],
        "aligned_words": [{"text": "ab", "start": 2.05, "end": 2.15}, {"text": "cd", "start": 2.2, "end": 2.333}]}


def test_interrupted_response_chunk_keeps_only_the_heard_words():
    r = rec(spans=[[1.0, 1.5]], samples=10, deltas=[("ab ", 1.0, 0), ("cd", 1.4, 5)], interrupted_t=1.5)
    assert chunk_of_response(r, 10, 12.0) == {"text": "ab", "timestamp": [1.0, 1.333],
                                              "aligned_words": [{"text": "ab", "start": 1.0, "end": 1.333}]}


def test_chunk_text_is_the_reply_as_written_or_the_heard_words_after_a_barge_in():
    """Not interrupted: the text as written (two spaces kept). Interrupted at 1.5 s: "ab cd ef" over 10 samples
    at rate 10 from 1.0 (0.5 s placed): "ab" 1.0-1.25, "cd" from sample 3.75 (1.375) to the heard end,
    "ef" from sample 7.5 (past the placed audio): "ab cd"."""
    whole = rec(spans=[[2.0, 2.4]], samples=40, deltas=[("ab  cd\n", 2.0, 0)])
    assert chunk_of_response(whole, 100, 12.0)["text"] == "ab  cd"
    cut = rec(spans=[[1.0, 1.5]], samples=10, deltas=[("ab cd ef", 1.0, 0)], interrupted_t=1.5)
    assert chunk_of_response(cut, 10, 12.0) == {
        "text": "ab cd", "timestamp": [1.0, 1.5],
        "aligned_words": [{"text": "ab", "start": 1.0, "end": 1.25}, {"text": "cd", "start": 1.375, "end": 1.5}]}


def test_spoken_response_with_nothing_heard_is_no_chunk():
    # audio placed but its only word starts at the heard end (sample 5 of 5 placed)
    r = rec(spans=[[1.0, 1.5]], samples=10, deltas=[("", 1.0, 0), (" x", 1.5, 5)])
    assert chunk_of_response(r, 10, 12.0) is None


def test_text_only_response_lasts_by_word_count():
    """At its first text (4.0), 3 words at 2.5 words/s: 4.0 + 1.2 = 5.2 (later than the last delta, 4.2);
    0.4 s a word."""
    assert WORDS_PER_SECOND == 2.5
    r = rec(deltas=[("one two ", 4.0, 0), ("three", 4.2, 0)])
    assert chunk_of_response(r, 24000, 12.0) == {
        "text": "one two three", "timestamp": [4.0, 5.2],
        "aligned_words": [{"text": "one", "start": 4.0, "end": 4.4}, {"text": "two", "start": 4.4, "end": 4.8},
                          {"text": "three", "start": 4.8, "end": 5.2}]}


def test_text_only_response_lasts_until_its_last_delta_when_that_is_later():
    # 2 words from 1.0: 1.0 + 0.8 = 1.8, but the last delta came at 3.0: 1.0 s a word
    r = rec(deltas=[("a", 1.0, 0), (" b", 3.0, 0)])
    assert chunk_of_response(r, 24000, 12.0)["aligned_words"] == [
        {"text": "a", "start": 1.0, "end": 2.0}, {"text": "b", "start": 2.0, "end": 3.0}]


def test_text_only_response_is_cut_at_the_stream_end():
    """3 words from 11.0 would last to 12.2; the stream ends at 12.0: 1/3 s a word (11.333, 11.667)."""
    r = rec(deltas=[("one two three", 11.0, 0)])
    assert chunk_of_response(r, 24000, 12.0)["aligned_words"] == [
        {"text": "one", "start": 11.0, "end": 11.333}, {"text": "two", "start": 11.333, "end": 11.667},
        {"text": "three", "start": 11.667, "end": 12.0}]


def test_text_only_response_at_or_after_the_stream_end_is_no_chunk():
    assert chunk_of_response(rec(deltas=[("late", 12.0, 0)]), 24000, 12.0) is None
    assert chunk_of_response(rec(deltas=[("late", 12.5, 0)]), 24000, 12.0) is None
    just = chunk_of_response(rec(deltas=[("late", 11.999, 0)]), 24000, 12.0)
    assert just["timestamp"] == [11.999, 12.0]


def test_response_with_neither_audio_nor_text_is_no_chunk():
    assert chunk_of_response(rec(), 24000, 12.0) is None
    assert chunk_of_response(rec(deltas=[("  ", 3.0, 0)]), 24000, 12.0) is None


# -- a session's transcript ------------------------------------------------------------------------------------

def session(responses, duration=12.0, rate=10, **kw) -> StreamResult:
    res = StreamResult("it1", duration, Timeline(duration, rate), **kw)
    res.responses.extend(responses)
    return res


def test_transcript_orders_chunks_by_onset_audio_and_text_only_replies_together():
    spoken = rec("r1", spans=[[5.0, 5.4]], samples=4, deltas=[("Blue now.", 5.0, 0)])
    text_only = rec("r2", deltas=[("Hi", 2.0, 0)])  # after the spoken one in arrival order, before it in time
    out = transcript_from_stream(session([spoken, text_only]))
    assert out["text"] == "Hi Blue now."
    assert [c["timestamp"] for c in out["chunks"]] == [[2.0, 2.4], [5.0, 5.4]]
    assert [c["text"] for c in out["chunks"]] == ["Hi", "Blue now."]


def test_transcript_orders_chunks_by_start_not_end():
    """A long text-only reply (10 words from 2.0: to 6.0) and a short spoken one at 5.0-5.4: by start, the long
    one first (by end it would be second)."""
    long = rec("r1", deltas=[("a b c d e f g h i j", 2.0, 0)])
    short = rec("r2", spans=[[5.0, 5.4]], samples=4, deltas=[("Now.", 5.0, 0)])
    out = transcript_from_stream(session([short, long]))
    assert [c["timestamp"] for c in out["chunks"]] == [[2.0, 6.0], [5.0, 5.4]]
    assert out["text"] == "a b c d e f g h i j Now."


def test_a_reply_with_nothing_heard_leaves_no_chunk_in_the_transcript():
    out = transcript_from_stream(session([rec("r1", deltas=[("late", 12.0, 0)]), rec("r2", deltas=[("ok", 1.0, 0)])]))
    assert out == {"text": "ok", "chunks": [{"text": "ok", "timestamp": [1.0, 1.4],
                                             "aligned_words": [{"text": "ok", "start": 1.0, "end": 1.4}]}]}


def test_speech_without_text_goes_to_asr_at_16khz(monkeypatch):
    """8 kHz speech [0, 16384, 0, -16384, 0, 0, 0, 0] is [0, .5, 0, -.5, 0...] as float; at 16 kHz
    (16 samples, at source positions 0, .5, 1, ...): 0, .25, .5, .25, 0, -.25, -.5, -.25, then 0."""
    import runners.asr as asr

    seen = {}

    def transcribe(audio, model=None, vad_filter=False):
        seen.update(audio=audio, model=model, vad=vad_filter)
        return SimpleNamespace(words=["w"])

    monkeypatch.setattr(asr, "transcribe", transcribe)
    monkeypatch.setattr(asr, "to_oi_transcript", lambda words: {"text": "from asr", "words": words})
    res = session([rec("r1", spans=[[0.0, 0.001]], samples=8), rec("r2", spans=[[0.0005, 0.001]], samples=4,
                                                                    deltas=[("has text", 0.0, 0)])],
                  duration=0.001, rate=8000)
    res.timeline.audio[:] = [0, 16384, 0, -16384, 0, 0, 0, 0]
    assert transcript_from_stream(res, "tiny-asr") == {"text": "from asr", "words": ["w"]}
    assert seen["model"] == "tiny-asr" and seen["vad"] is True
    assert seen["audio"].dtype == np.float32
    assert seen["audio"].tolist() == [0, .25, .5, .25, 0, -.25, -.5, -.25, 0, 0, 0, 0, 0, 0, 0, 0]


def test_one_second_of_8khz_speech_is_16000_samples_for_asr(monkeypatch):
    import runners.asr as asr

    seen = {}
    monkeypatch.setattr(asr, "transcribe", lambda audio, model=None, vad_filter=False: seen.update(
        n=len(audio)) or SimpleNamespace(words=[]))
    monkeypatch.setattr(asr, "to_oi_transcript", lambda words: {"text": "", "chunks": []})
    transcript_from_stream(session([rec("r1", spans=[[0.0, 1.0]], samples=8000)], duration=1.0, rate=8000))
    assert seen["n"] == 16000


def test_speech_at_16khz_goes_to_asr_unresampled(monkeypatch):
    import runners.asr as asr

    seen = {}
    monkeypatch.setattr(asr, "transcribe", lambda audio, model=None, vad_filter=False: seen.update(
        audio=audio, vad=vad_filter) or SimpleNamespace(words=[]))
    monkeypatch.setattr(asr, "to_oi_transcript", lambda words: {"text": "", "chunks": []})
    res = session([rec("r1", spans=[[0.0, 0.00025]], samples=4)], duration=0.00025, rate=16000)
    res.timeline.audio[:] = [8192, -8192, 32767, -32768]
    assert transcript_from_stream(res) == {"text": "", "chunks": []}
    assert seen["audio"].dtype == np.float32 and seen["vad"] is True
    assert seen["audio"].tolist() == [0.25, -0.25, 32767 / 32768, -1.0]


# -- emissions ---------------------------------------------------------------------------------------------

def test_chunks_and_tool_calls_become_emissions_in_time_order():
    """A chunk at 3.0004 is emitted at 3.0 (second 4: that of its onset); tool calls at 0.9996 and 2.5 are
    emitted at 1.0 and 2.5, each in the second of its emitted time (2 and 3) and ending there."""
    transcript = {"chunks": [{"text": "Blue now.", "timestamp": [3.0004, 3.5]}]}
    calls = ({"t": 2.5, "name": "set_timer", "args": {"seconds": 30}}, {"t": 0.9996, "name": "stop", "args": {}})
    em = emissions_from_transcript(transcript, calls)
    assert [(e.t, e.kind, e.content) for e in em] == [
        (1.0, "tool_call", '{"args": {}, "tool": "stop"}'),
        (2.5, "tool_call", '{"args": {"seconds": 30}, "tool": "set_timer"}'),
        (3.0, "speech", "Blue now.")]
    assert [e.meta for e in em] == [{"end": 1.0, "second": 2}, {"end": 2.5, "second": 3},
                                    {"end": 3.5, "second": 4}]
    assert [e.tool for e in em] == [{"name": "stop", "args": {}}, {"name": "set_timer", "args": {"seconds": 30}},
                                    None]


def test_chunk_second_is_that_of_its_onset():
    em = emissions_from_transcript({"chunks": [{"text": "a", "timestamp": [0.999, 1.5]},
                                               {"text": "b", "timestamp": [1.0, 1.2]}]})
    assert [(e.t, e.meta["second"]) for e in em] == [(0.999, 1), (1.0, 2)]
    assert emissions_from_transcript({}) == []


# -- speech segments -----------------------------------------------------------------------------------------

def test_speech_segments_are_the_placed_audio_as_pcm16():
    """rate 10: response 1 at 0.2-0.5 (samples 2-4: 1, 2, 3) and an empty span 0.7-0.7; response 2 at 0.8-1.0
    (samples 8, 9: -1, 256). int16 little-endian: 01 00 02 00 03 00 -> "AQACAAMA"; ff ff 00 01 -> "//8AAQ==". """
    res = session([rec("a", spans=[[0.2, 0.5], [0.7, 0.7]]), rec("b", spans=[[0.8, 1.0]])], duration=1.0, rate=10)
    res.timeline.audio[:] = [9, 9, 1, 2, 3, 9, 9, 9, -1, 256]
    assert speech_segments(res) == [{"t": 0.2, "rate": 10, "pcm16": "AQACAAMA"},
                                    {"t": 0.8, "rate": 10, "pcm16": "//8AAQ=="}]


def test_speech_segment_time_is_its_first_sample_to_six_decimals():
    res = session([rec("a", spans=[[1 / 3, 0.5]])], duration=1.0, rate=24000)
    (seg,) = speech_segments(res)
    assert seg["t"] == 0.333333 and len(base64.b64decode(seg["pcm16"])) == 2 * 4000  # samples 8000-12000


def test_speech_audio_puts_segments_back_and_cuts_at_the_stream_end():
    segs = [{"t": 0.2, "rate": 10, "pcm16": "AQACAAMA"}, {"t": 0.8, "rate": 10, "pcm16": "AQACAAMA"},
            {"t": 1.5, "rate": 10, "pcm16": "AQACAAMA"}]  # the last starts past the end: nothing of it
    assert speech_audio(segs, 1.0, 10).tolist() == [0, 0, 1, 2, 3, 0, 0, 0, 1, 2]
    assert speech_audio(segs, 1.0, 10).dtype == np.int16
    assert speech_audio([{"t": 0.5, "rate": 10, "pcm16": ""}], 1.0, 10).tolist() == [0] * 10  # an empty segment
    assert speech_audio([], 0.25, 24000).shape == (6000,)
    assert speech_audio([], 1.0).shape == (24000,)  # the default rate is 24 kHz


def test_speech_audio_refuses_a_segment_at_another_rate():
    with pytest.raises(ValueError, match=r"speech segment at 0.2s has rate 16000, expected 10"):
        speech_audio([{"t": 0.2, "rate": 16000, "pcm16": "AQACAAMA"}], 1.0, 10)


# -- counts ------------------------------------------------------------------------------------------------

def test_counts_call_errors_failures_by_kind():
    """4 model turns, 2 malformed events and 1 server error: 7 calls, 4 ok, 3 failed; 3 reconnects."""
    res = session([], n_malformed=2, n_server_errors=1, n_reconnects=3)
    assert _counts(res, 4) == {"timing": "realtime", "n_polls": 7, "n_ok": 4, "n_errors": 3,
                               "errors_by_kind": {"malformed": 2, "server_error": 1}, "error_ticks": [],
                               "n_retries": 3, "n_reused": 0, "skipped_ticks": 0, "n_compliant": 4,
                               "latencies": [], "poll_latency_mean": None}
    only_server = _counts(session([], n_server_errors=2), 1)
    assert (only_server["errors_by_kind"], only_server["n_polls"], only_server["n_errors"]) == (
        {"server_error": 2}, 3, 2)
    assert _counts(session([], n_malformed=1), 0)["errors_by_kind"] == {"malformed": 1}
    assert _counts(session([]), 0)["errors_by_kind"] == {}


# -- one item's stored record --------------------------------------------------------------------------------

def spoken_and_text_session(**kw) -> StreamResult:
    """rate 10, 12 s: "Blue now." spoken at 4.2-4.6 (samples 42-45 = 1, 2, 3, 4) and "Ok" as text at 9.0."""
    res = session([rec("r1", spans=[[4.2, 4.6]], samples=4, deltas=[("Blue now.", 4.2, 0)]),
                   rec("r2", deltas=[("Ok", 9.0, 0)])], **kw)
    res.timeline.audio[42:46] = [1, 2, 3, 4]
    return res


def test_item_record_of_a_session_with_speech_and_text():
    """Chunks at 4.2 (second 5) and 9.0 (second 10): ProactiveBench's seconds [5, 10]; 2 model turns and one
    malformed event: 3 calls, 2 ok, 1 failed; the speech is kept as one segment (1, 2, 3, 4 as pcm16)."""
    res = spoken_and_text_session(n_malformed=1, n_events=9)
    res.user_transcripts.append({"t": 1.0, "text": "hello"})
    r = realtime_item_result("proactivebench", item(), FakeBackend(res))
    assert r["prediction"] == {"item_id": "it1", "response_seconds": [5, 10],
                               "texts": {"5": "Blue now.", "10": "Ok"}}
    assert r["emissions"] == [
        {"t": 4.2, "content": "Blue now.", "kind": "speech", "tool": None, "frame_t": None, "latency_s": 0.0,
         "end": 4.6},
        {"t": 9.0, "content": "Ok", "kind": "speech", "tool": None, "frame_t": None, "latency_s": 0.0, "end": 9.4}]
    assert (r["n_polls"], r["n_ok"], r["n_errors"], r["errors_by_kind"]) == (3, 2, 1, {"malformed": 1})
    assert (r["failed"], r["cancelled"], r["hindsight"], r["item_id"]) == (None, False, False, "it1")
    assert r["speech"] == [{"t": 4.2, "rate": 10, "pcm16": "AQACAAMABAA="}]
    rt = r["realtime"]
    assert (rt["duration"], rt["rate"], rt["n_events"], rt["n_malformed"]) == (12.0, 10, 9, 1)
    assert rt["user_transcripts"] == [{"t": 1.0, "text": "hello"}] and rt["tool_calls"] == []
    assert [x["id"] for x in rt["responses"]] == ["r1", "r2"] and rt["responses"][1]["text"] == "Ok"
    assert "endpoints" not in r


def test_item_record_keeps_tool_calls_and_pool_endpoints():
    res = spoken_and_text_session(endpoints=[["ws://a", True, 1.5, None], ["ws://b", False, 0.25, "connection"]])
    res.tool_calls.append({"t": 3.0, "name": "set_timer", "args": {"seconds": 30}, "call_id": "c1"})
    r = realtime_item_result("proactivebench", item(), FakeBackend(res))
    assert [(e["t"], e["kind"], e["tool"]) for e in r["emissions"]] == [
        (3.0, "tool_call", {"name": "set_timer", "args": {"seconds": 30}}), (4.2, "speech", None),
        (9.0, "speech", None)]
    assert r["realtime"]["tool_calls"] == [{"t": 3.0, "name": "set_timer", "args": {"seconds": 30}, "call_id": "c1"}]
    assert r["endpoints"] == {"ws://a": {"attempts": 1, "errors": 0, "errors_by_kind": {}, "latencies": [1.5]},
                              "ws://b": {"attempts": 1, "errors": 1, "errors_by_kind": {"connection": 1},
                                         "latencies": [0.25]}}


def test_item_record_of_a_benchmark_whose_prediction_names_calls_model_and_failure():
    """InteractionBench's line keeps the model turns (2), the backend's name and the failure."""
    res = spoken_and_text_session(failed="connection lost at media time 9.50s; 0 reconnect(s) failed: x")
    r = realtime_item_result("interactionbench", item("interactionbench", native={"video_id": "v", "item_index": 3}),
                             FakeBackend(res))
    assert r["prediction"] == {"video_id": "v", "item_index": 3, "n_polls": 2, "poll_latencies": [],
                               "emissions": [{"t": 4.2, "content": "Blue now.", "latency_s": 0.0},
                                             {"t": 9.0, "content": "Ok", "latency_s": 0.0}],
                               "model": "realtime:fake", "failed": res.failed}


def test_backend_that_raises_is_a_failed_item_never_silence():
    r = realtime_item_result("proactivebench", item(), FakeBackend(error=RuntimeError("no route")))
    assert r == {"item_id": "it1", "prediction": None, "failed": "RuntimeError: no route", "cancelled": False,
                 "n_polls": 0, "n_ok": 0, "n_errors": 1, "errors_by_kind": {"backend": 1}}


def test_failed_session_keeps_what_arrived_marked_failed_without_speech():
    res = spoken_and_text_session(failed="connection lost at media time 9.50s; 1 reconnect(s) failed: x")
    r = realtime_item_result("proactivebench", item(), FakeBackend(res))
    assert r["failed"] == res.failed and r["prediction"]["failed"] == res.failed
    assert r["prediction"]["response_seconds"] == [5, 10]
    assert [e["content"] for e in r["emissions"]] == ["Blue now.", "Ok"]
    assert "speech" not in r and r["cancelled"] is False


def test_failed_session_of_a_transcript_benchmark_has_no_prediction():
    res = spoken_and_text_session(failed="connection lost before streaming; 0 reconnect(s) failed: x")
    r = realtime_item_result("omniinteract", item("omniinteract"), FakeBackend(res))
    assert r["prediction"] is None and r["failed"] == res.failed
    assert [e["t"] for e in r["emissions"]] == [4.2, 9.0]  # what arrived is still recorded


def test_transcript_benchmark_prediction_is_the_transcript():
    r = realtime_item_result("omniinteract", item("omniinteract"), FakeBackend(spoken_and_text_session()))
    assert r["prediction"]["text"] == "Blue now. Ok"
    assert [c["timestamp"] for c in r["prediction"]["chunks"]] == [[4.2, 4.6], [9.0, 9.4]]


def test_cancelled_session_is_not_scored_as_complete():
    cancel = threading.Event()
    backend = FakeBackend(spoken_and_text_session(cancelled=True))
    r = realtime_item_result("omniinteract", item("omniinteract"), backend, cancel=cancel)
    assert backend.calls[0]["cancel"] is cancel and backend.calls[0]["benchmark"] == "omniinteract"
    assert backend.calls[0]["item"] == "it1" and backend.calls[0]["clock"] is None
    clock = object()
    realtime_item_result("omniinteract", item("omniinteract"), backend, clock=clock)
    assert backend.calls[1]["clock"] is clock
    assert r["cancelled"] is True and r["prediction"] is None and "speech" not in r
    assert [e["content"] for e in r["emissions"]] == ["Blue now.", "Ok"]


def test_speech_that_cannot_be_transcribed_fails_the_item(monkeypatch):
    import runners.asr as asr

    models = []

    def broken(audio, model=None, vad_filter=False):
        models.append(model)
        raise RuntimeError("no model")

    monkeypatch.setattr(asr, "transcribe", broken)
    res = session([rec("r1", spans=[[1.0, 1.2]], samples=2)])
    r = realtime_item_result("omniinteract", item("omniinteract"), FakeBackend(res, asr_model="tiny-asr"))
    assert models == ["tiny-asr"]  # the backend's asr_model option reaches faster-whisper
    assert r["failed"] == "speech without a transcript could not be transcribed: RuntimeError: no model"
    assert r["prediction"] is None and "speech" not in r and r["emissions"] == []
    pb = realtime_item_result("proactivebench", item(), FakeBackend(res))
    assert pb["prediction"] == {"item_id": "it1", "response_seconds": [], "texts": {}, "failed": pb["failed"]}


# -- live: one emission per finished response ------------------------------------------------------------------

def test_drive_realtime_emits_each_response_at_its_onset_then_tool_calls():
    res = spoken_and_text_session(n_server_errors=2, failed=None)
    res.tool_calls.append({"t": 6.0, "name": "stop", "args": {}})
    seen = []
    backend = FakeBackend(res)
    trace = drive_realtime(item(), SimpleNamespace(benchmark="interactscope"), backend, on_emission=seen.append)
    assert backend.calls[0]["benchmark"] == "interactscope"
    assert trace.emissions == seen
    assert [(e.t, e.kind, e.content) for e in seen] == [(4.2, "speech", "Blue now."), (9.0, "speech", "Ok"),
                                                       (6.0, "tool_call", '{"args": {}, "tool": "stop"}')]
    assert seen[0].meta == {"end": 4.6, "second": 5, "response_id": "r1",
                            "aligned_words": [{"text": "Blue", "start": 4.2, "end": 4.378},
                                              {"text": "now.", "start": 4.422, "end": 4.6}]}
    assert seen[1].meta["response_id"] == "r2" and seen[1].meta["second"] == 10
    assert (trace.n_polls, trace.n_errors, trace.failed, trace.cancelled) == (2, 2, None, False)
    assert (trace.item_id, trace.protocol, trace.backend) == ("it1", "realtime", "realtime:fake")


def test_drive_realtime_bench_and_stream_length():
    """Without a duration every text-only reply counts (the stream's end is unknown); the benchmark named
    by the caller wins over the protocol's and the item's."""
    res = session([rec("r1", deltas=[("late", 100.0, 0)])], failed="lost", cancelled=True)
    backend = FakeBackend(res)
    trace = drive_realtime(item(duration=None), SimpleNamespace(benchmark="interactscope"), backend,
                           benchmark="omniinteract", mix="m", clock="c", on_speech="s")
    assert backend.calls[0] == {"item": "it1", "benchmark": "omniinteract", "mix": "m", "clock": "c",
                                "on_speech": "s", "cancel": None}
    assert [(e.t, e.meta["end"]) for e in trace.emissions] == [(100.0, 100.4)]
    assert (trace.failed, trace.cancelled) == ("lost", True)
    late = FakeBackend(session([rec("r1", deltas=[("late", 100.0, 0)])]))
    cancel = threading.Event()
    short = drive_realtime(item("interactscope", duration=50.0), SimpleNamespace(), late, cancel=cancel)
    assert short.emissions == [] and late.calls[0]["benchmark"] == "interactscope"  # no protocol benchmark: the item's
    assert late.calls[0]["cancel"] is cancel
    by_item = FakeBackend(session([]))
    drive_realtime(item("interactionbench"), SimpleNamespace(benchmark=""), by_item)
    assert by_item.calls[0]["benchmark"] == "interactionbench"
