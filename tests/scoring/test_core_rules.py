"""Core scoring rules, each pinned by a small hand-worked case that fails when the rule is broken
(issue 17's deliberate bugs: a plain float mean, missed events not scored 0, an inclusive slot end)."""
from __future__ import annotations

import statistics

from scoring.interactionbench.timing import decision_timing
from scoring.omniinteract.common import Chunk, Word
from scoring.omniinteract.matching import match_chunks
from scoring.omniinteract.slots import Slot


def _ta(times, ems, delta=2.0):
    return decision_timing(times, ems, pre_tol=1.0).fields(delta)


def test_timing_accuracy_counts_a_missed_event_as_zero():
    # events at 0 s and 10 s; one emission 0.5 s after the first: scores 1 - 0.5/2 = 0.75 and 0 -> 37.5
    f = _ta([0.0, 10.0], [(0.5, "now")])
    assert (f["timing_accuracy"], f["n_matched"], f["miss_rate"]) == (37.5, 1, 0.5)
    assert f["delay_mean_s"] == 0.5


def test_timing_accuracy_is_the_exactly_rounded_mean():
    """Six events 10 s apart, answered 1.1, 0.67, 1.7, 0.57, 1.34, 1.55 s late (delta 2). The reference's
    statistics.mean rounds the exact sum once: 42.2; a plain float sum / n lands on 42.3."""
    times = [10.0 * i for i in range(6)]
    ems = [(t + d, "x") for t, d in zip(times, [1.1, 0.67, 1.7, 0.57, 1.34, 1.55])]
    scores = [1 - (e - t) / 2.0 for (e, _), t in zip(ems, times)]  # the reference's per-event scores
    assert round(100 * statistics.mean(scores), 1) == 42.2      # the reference's arithmetic
    assert round(100 * (sum(scores) / len(scores)), 1) == 42.3  # what a naive mean would report
    assert _ta(times, ems)["timing_accuracy"] == 42.2


def test_premature_redundant_and_matched_emissions():
    # r* = 5, 10; pre_tol 1: t=3 -> a=4 < 5 premature; t=4.2 -> a=5.2 -> event 5 matched (delay 0);
    # t=6 -> event 5 taken -> redundant; t=10.4 -> event 10 matched, delay 0.4
    f = _ta([5.0, 10.0], [(3.0, "a"), (4.2, "b"), (6.0, "c"), (10.4, "d")])
    assert (f["v_premature"], f["v_redundant"], f["n_matched"]) == (1, 1, 2)
    assert f["timing_accuracy"] == 90.0  # mean(1.0, 0.8)
    assert f["silence_compliance"] == 0.0  # 2 violations over 2 events


def _slot(i, start, t_a, end):
    return Slot(slot_id=i, start=start, t_a=t_a, end=end, boundary_type="", question_text="q", gt_answer="a",
                scene_type="1q1a")


def _chunk(i, start, end, text="hello there"):
    return Chunk(i, start, end, text, (Word("hello", start, start + 0.2), Word("there", start + 0.3, end)))


def test_a_slot_does_not_own_a_chunk_starting_at_its_end():
    matches, unmatched = match_chunks([_slot(1, 0.0, 2.0, 5.0)], [_chunk(0, 5.0, 6.0), _chunk(1, 4.99, 6.0)])
    assert [c.chunk_id for c in unmatched] == [0]
    assert [p.chunk_id for p in matches[0].all_chunks] == [1]


def test_the_latest_starting_slot_that_contains_the_start_owns_the_chunk():
    # slot 1 [0, 2, 10) contains 5.0; slot 2 [3, 4, 5) ends at 5.0 and must not take it
    slots = [_slot(1, 0.0, 2.0, 10.0), _slot(2, 3.0, 4.0, 5.0)]
    matches, unmatched = match_chunks(slots, [_chunk(0, 5.0, 6.0), _chunk(1, 4.0, 4.5)])
    assert unmatched == []
    assert [p.chunk_id for p in matches[0].all_chunks] == [0]
    assert [p.chunk_id for p in matches[1].all_chunks] == [1]


def test_a_chunk_crossing_t_a_is_split_by_word_starts():
    (m,), _ = match_chunks([_slot(1, 0.0, 2.0, 5.0)],
                           [Chunk(0, 1.5, 2.6, "wait it is red", (Word("wait", 1.5, 1.8), Word("it", 2.0, 2.1),
                                                                  Word("is", 2.2, 2.3), Word("red", 2.4, 2.6)))])
    assert [(p.chunk_id, p.text, p.start, p.end) for p in m.early] == [("0:early", "wait", 1.5, 1.8)]
    assert [(p.chunk_id, p.text, p.start, p.end) for p in m.core] == [("0:core", "it is red", 2.0, 2.6)]
