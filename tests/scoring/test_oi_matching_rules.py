"""Rule-by-rule tests of OmniInteract chunk-to-slot matching (spec §4), slot construction (spec §3) and scene
dispatch (spec §1.2, §2.6): each test guards one rule with hand-worked expectations (issue 17)."""
import json

import pytest

from scoring.omniinteract.common import Chunk, Word
from scoring.omniinteract.matching import Piece, match_chunks, split_at, whole_piece
from scoring.omniinteract.slots import Slot, build_slots, load_scene_map, scene_from_video


def slot(sid, start, t_a, end):
    return Slot(sid, start, t_a, end, "Hard", "q", "a", "multi_turn")


def chunk(cid, start, end, text="x", words=()):
    return Chunk(cid, start, end, text, tuple(Word(*w) for w in words))


# ---------------------------------------------------------------- matching (spec §4)

def test_slot_window_is_half_open_end_excluded():
    """Slot [0, 5, 10): a chunk starting at 10.0 is outside (unmatched); one at 0.0 is inside; 9.99 inside."""
    (m,), unmatched = match_chunks([slot(1, 0.0, 5.0, 10.0)], [chunk(0, 10.0, 11.0), chunk(1, 0.0, 1.0),
                                                               chunk(2, 9.99, 10.5)])
    assert [c.chunk_id for c in unmatched] == [0]
    assert [p.chunk_id for p in m.all_chunks] == [1, 2]


def test_chunk_start_before_every_slot_is_unmatched():
    _, unmatched = match_chunks([slot(1, 5.0, 6.0, 10.0)], [chunk(0, 4.9, 5.5)])
    assert [c.chunk_id for c in unmatched] == [0]


def test_overlapping_slots_latest_start_then_largest_id_owns():
    """Slots [0, 20) and [5, 20): a chunk at 6 belongs to the later start (slot 2); two slots with the same start
    5: the larger slot id (3) wins; a chunk at 2 only fits slot 1."""
    slots = [slot(1, 0.0, 10.0, 20.0), slot(2, 5.0, 10.0, 20.0)]
    ms, _ = match_chunks(slots, [chunk(0, 6.0, 7.0), chunk(1, 2.0, 3.0)])
    assert [p.chunk_id for p in ms[1].all_chunks] == [0] and [p.chunk_id for p in ms[0].all_chunks] == [1]
    tie = [slot(3, 5.0, 10.0, 20.0), slot(2, 5.0, 10.0, 20.0)]
    ms, _ = match_chunks(tie, [chunk(0, 6.0, 7.0)])
    assert [p.chunk_id for p in ms[0].all_chunks] == [0] and ms[1].all_chunks == []


def test_phase_by_start_against_t_a():
    """t_a = 5: a chunk starting at 4 (ending by 5) is early; one starting exactly at 5 is core."""
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], [chunk(0, 4.0, 5.0), chunk(1, 5.0, 6.0)])
    assert [p.chunk_id for p in m.early] == [0] and [p.chunk_id for p in m.core] == [1]


def test_crossing_chunk_splits_by_word_start_at_t_a():
    """Chunk 3 [4, 7] crossing t_a = 5 with words 'a'@4.0-4.5, 'b'@5.0-5.5 (starts at t_a: core), 'c'@6.0-7.0:
    early piece '3:early' = 'a' [4.0, 4.5]; core piece '3:core' = 'b c' [5.0, 7.0] with effective start 5.0;
    all_chunks keeps the whole chunk."""
    c = chunk(3, 4.0, 7.0, "a b c", [("a", 4.0, 4.5), ("b", 5.0, 5.5), ("c", 6.0, 7.0)])
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], [c])
    (e,), (k,) = m.early, m.core
    assert (e.chunk_id, e.source_chunk_id, e.start, e.end, e.text, e.full_text) == ("3:early", 3, 4.0, 4.5, "a", "a b c")
    assert (k.chunk_id, k.start, k.end, k.text, k.effective_start_hint) == ("3:core", 5.0, 7.0, "b c", 5.0)
    assert e.effective_start_hint is None and e.is_split and k.is_split
    assert [p.chunk_id for p in m.all_chunks] == [3]


def test_crossing_chunk_without_words_stays_whole_and_early():
    """No aligned words: chunk [4, 7] crossing t_a = 5 is not split; its start 4 < 5 puts it in early."""
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], [chunk(0, 4.0, 7.0)])
    assert [p.chunk_id for p in m.early] == [0] and m.core == [] and not m.early[0].is_split


def test_crossing_chunk_with_only_early_words_gives_one_piece():
    """Every word starts before t_a = 5: only the early piece exists, nothing goes to core."""
    c = chunk(0, 4.0, 7.0, "a b", [("a", 4.0, 4.4), ("b", 4.5, 6.0)])
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], [c])
    assert [p.chunk_id for p in m.early] == ["0:early"] and m.early[0].text == "a b" and m.core == []


def test_crossing_chunk_with_only_blank_words_falls_back_to_the_whole_chunk():
    """Words whose texts are empty give no piece on either side: the whole chunk goes to its phase (early)."""
    c = chunk(0, 4.0, 7.0, "", [("", 4.0, 4.4), ("", 5.5, 6.0)])
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], [c])
    assert [p.chunk_id for p in m.early] == [0] and m.core == []


def test_chunk_ending_exactly_at_t_a_is_not_split():
    """start < t_a < end is strict: chunk [4, 5] with words is early and whole."""
    c = chunk(0, 4.0, 5.0, "a", [("a", 4.0, 5.0)])
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], [c])
    assert [p.chunk_id for p in m.early] == [0]


def test_pieces_sorted_by_start_then_end():
    """Chunks given out of order (7-9, 6-8, 6-7) come back as 6-7, 6-8, 7-9."""
    cs = [chunk(0, 7.0, 9.0), chunk(1, 6.0, 8.0), chunk(2, 6.0, 7.0)]
    (m,), _ = match_chunks([slot(1, 0.0, 5.0, 10.0)], cs)
    assert [p.chunk_id for p in m.core] == [2, 1, 0] and [p.chunk_id for p in m.all_chunks] == [2, 1, 0]


def test_split_at_cjk_words_join_without_spaces():
    c = chunk(0, 1.0, 3.0, "三个苹果", [("三个", 1.0, 1.5), ("苹", 2.0, 2.5), ("果", 2.5, 3.0)])
    early, core = split_at(c, 2.0)
    assert early.text == "三个" and core.text == "苹果" and core.words == (Word("苹", 2.0, 2.5), Word("果", 2.5, 3.0))


def test_piece_dict_and_context_text():
    """A whole piece's dict has no source_chunk_id; a split one has it. Context: the chunk text, stripped,
    falling back to the piece text."""
    w = whole_piece(chunk(4, 1.0, 2.0, " hi "))
    assert w.to_dict() == {"chunk_id": 4, "start": 1.0, "end": 2.0, "text": " hi "} and w.context_text() == "hi"
    p = Piece("4:core", 4, 1.5, 2.0, "there", (), "", 1.5)
    assert p.to_dict() == {"chunk_id": "4:core", "start": 1.5, "end": 2.0, "text": "there", "source_chunk_id": 4}
    assert p.context_text() == "there"


# ---------------------------------------------------------------- slots (spec §3)

def test_multi_turn_window_closes_at_the_next_question_and_last_at_answer_plus_tail():
    """Rows (q 10, a 12), (q 30, a 33), given out of order: slot 1 = [10, 12, 30), slot 2 = [30, 33, 33 + 60)."""
    rows = [{"question_time": 30, "answer_time": 33, "question_text": "Q2", "answer_text": "A2"},
            {"question_time": 10, "answer_time": 12, "question_text": "Q1", "answer_text": "A1",
             "question_type": " RealTime ", "is_interrupted": "yes"}]
    s1, s2 = build_slots(rows, "multi_turn", 60.0)
    assert (s1.slot_id, s1.start, s1.t_a, s1.end, s1.gt_answer) == (1, 10.0, 12.0, 30.0, "A1")
    assert (s2.slot_id, s2.start, s2.t_a, s2.end, s2.question_text) == (2, 30.0, 33.0, 93.0, "Q2")
    assert (s1.question_type, s1.is_interrupted, s1.turn_index) == ("realtime", True, 1)
    assert (s2.question_type, s2.is_interrupted, s2.boundary_type, s2.scene_type) == ("unknown", False, "Hard",
                                                                                        "multi_turn")


def test_multi_turn_skips_rows_without_times_and_reads_items():
    """{'items': [...]}: the row with no answer time is dropped; default tail is 60 s -> end 5 + 60 = 65."""
    gt = {"items": [{"question_time": "00:02", "answer_time": "00:05"}, {"question_time": 1}]}
    (s,) = build_slots(gt, "multi_turn")
    assert (s.start, s.t_a, s.end) == (2.0, 5.0, 65.0)
    assert build_slots("junk", "multi_turn") == [] and build_slots({"items": "x"}, "multi_turn") == []


def test_multi_turn_end_never_before_its_start():
    """Two questions at 10 (answers 12 and 11): sorted (10, 11), (10, 12); slot 1 ends at the next question 10
    = its start; slot 2 ends at 12 + 5."""
    rows = [{"question_time": 10, "answer_time": 12}, {"question_time": 10, "answer_time": 11}]
    s1, s2 = build_slots(rows, "multi_turn", 5.0)
    assert (s1.t_a, s1.end) == (11.0, 10.0) and (s2.t_a, s2.end) == (12.0, 17.0)


def test_1qna_steps_only_step_one_starts_at_the_question():
    """Question at 5, steps at 20 and 10 (sorted: 10, 20): step 1 = [5, 10, 20), step 2 = [20, 20, 20 + 30)."""
    gt = {"question_time": "00:05", "question_text": "How?", "inferred_knowledge": " know ",
          "answers": [{"answer_time": 20, "answer_text": "second", "label": "Warn"},
                      {"answer_time": 10, "answer_text": "first", "is_interrupted": True}]}
    s1, s2 = build_slots(gt, "1QnA", 30.0)
    assert (s1.start, s1.t_a, s1.end, s1.gt_answer, s1.step_index) == (5.0, 10.0, 20.0, "first", 1)
    assert (s2.start, s2.t_a, s2.end, s2.gt_answer, s2.step_index) == (20.0, 20.0, 50.0, "second", 2)
    assert (s1.question_type, s1.is_interrupted, s1.boundary_type) == ("step", True, "Soft")
    assert (s2.question_type, s2.label, s2.inferred_knowledge, s2.question_text) == ("warn", "Warn", "know", "How?")


def test_1qna_conversations_take_the_first_user_turn_and_prefix_knowledge():
    gt = {"inferred_knowledge": "K", "conversations": [
        {"from": "assistant", "timestamp": 9, "value": "step", "interrupted": "true"},
        {"from": "user", "timestamp": 3, "value": "Q?"}, {"from": "user", "timestamp": 4, "value": "later"}]}
    (s,) = build_slots(gt, "1QnA", 10.0)
    assert (s.start, s.t_a, s.end, s.gt_answer, s.is_interrupted) == (3.0, 9.0, 19.0, "step", True)
    assert s.question_text == "K\n\nQ?"
    with pytest.raises(ValueError, match="conversations"):
        build_slots({"question_time": 1}, "1QnA")
    with pytest.raises(ValueError, match="JSON object"):
        build_slots([], "1QnA")


def test_nested_inner_must_lie_strictly_inside_the_outer():
    """Outer (10, 30); a row asked at exactly 10 is not inside (10 < q is strict); inner (15, 30) may answer at
    the outer's answer time (a <= 30). Outer slot [10, 30, 30 + 5); inner slot [15, 30, 30)."""
    rows = [{"question_time": 10, "answer_time": 30}, {"question_time": 10, "answer_time": 20},
            {"question_time": 15, "answer_time": 30}]
    with pytest.raises(ValueError, match="nested pair"):
        build_slots(rows[:2], "nested", 5.0)
    outer, inner = build_slots([rows[0], rows[2]], "nested", 5.0)
    assert (outer.slot_id, outer.start, outer.t_a, outer.end, outer.nested_role) == (1, 10.0, 30.0, 35.0, "outer")
    assert (inner.slot_id, inner.start, inner.t_a, inner.end, inner.nested_role) == (2, 15.0, 30.0, 30.0, "inner")
    assert outer.nested_group_id == inner.nested_group_id == 1
    with pytest.raises(ValueError, match="at least two"):
        build_slots(rows[:1], "nested")


def test_nested_outer_window_closes_at_the_next_outer_question():
    """Pairs (10,30)+(12,20) and (40,60)+(45,50): outer 1 ends at the next outer's question 40; ids 1..4."""
    rows = [{"question_time": q, "answer_time": a} for q, a in ((10, 30), (12, 20), (40, 60), (45, 50))]
    slots = build_slots(rows, "nested", 5.0)
    assert [(s.slot_id, s.start, s.end, s.nested_role, s.nested_group_id) for s in slots] == [
        (1, 10.0, 40.0, "outer", 1), (2, 12.0, 30.0, "inner", 1), (3, 40.0, 65.0, "outer", 2),
        (4, 45.0, 60.0, "inner", 2)]


def test_unknown_scene_is_an_error():
    with pytest.raises(ValueError, match="scene_type must be one of"):
        build_slots([], "other")
    assert build_slots([], " multi_turn ") == []


def test_scene_map_and_video_dispatch(tmp_path):
    (tmp_path / "1q1a").mkdir()
    (tmp_path / "1q1a" / "video_json_map.json").write_text(json.dumps({"entries": [
        {"video": "./videos/1.mp4", "scene_type": " nested "}, {"video": "videos\\2.mp4", "scene_type": "multi_turn"},
        {"video": "", "scene_type": "nested"}, "junk"]}), encoding="utf-8")
    (tmp_path / "1q1a_math").mkdir()
    (tmp_path / "1q1a_math" / "video_json_map.json").write_text("{broken", encoding="utf-8")
    m = load_scene_map(tmp_path)
    assert m == {"1q1a/videos/1.mp4": "nested", "1q1a/videos/2.mp4": "multi_turn"}
    assert scene_from_video("x/1q1a/videos/1.mp4", m) == "nested"
    assert scene_from_video("x\\1q1a\\videos\\2.mp4", {"1q1a/videos/2.mp4": "1QnA"}) == "1QnA"
    assert scene_from_video("x/1q1a_math/videos/1.mp4", {"1q1a_math/videos/1.mp4": "nested"}) == "nested"
    assert scene_from_video("x/1QNA/v.mp4", {}) == "1QnA"
    assert scene_from_video("x/__nested2__/v.mp4", {}) == "nested"
    assert scene_from_video("x/other/v.mp4", {}) == "multi_turn"


def test_1qna_without_a_user_turn_keeps_the_question_time_and_skips_untimed_steps():
    """No user turn: the question time (00:04 = 4 s) and text stay; an assistant turn without a timestamp and a
    non-dict turn are skipped; no inferred knowledge -> the question text unchanged."""
    gt = {"question_time": "00:04", "question_text": "What next?", "conversations": [
        "junk", {"from": "assistant", "value": "untimed"}, {"from": "assistant", "timestamp": 6, "value": "cut"}]}
    (s,) = build_slots(gt, "1QnA", 2.0)
    assert (s.start, s.t_a, s.end, s.question_text, s.gt_answer) == (4.0, 6.0, 8.0, "What next?", "cut")
    assert s.question_type == "step" and s.label == "" and s.is_interrupted is False


def test_1qna_answers_list_reads_either_interrupt_key_and_missing_question_time_is_zero():
    gt = {"answers": ["junk", {"answer_time": 3, "answer_text": "a", "interrupted": "no", "is_interrupted": True},
                      {"answer_time": 5, "answer_text": "b", "is_interrupted": True}, {"answer_text": "untimed"}]}
    s1, s2 = build_slots(gt, "1QnA", 1.0)
    assert (s1.start, s1.t_a, s1.end, s1.is_interrupted) == (0.0, 3.0, 5.0, False)
    assert (s2.start, s2.end, s2.is_interrupted) == (5.0, 6.0, True)


def test_qa_rows_skip_non_objects_and_blank_types_read_unknown():
    rows = ["junk", {"question_time": 1, "answer_time": 2, "question_type": "  ", "answer_text": None}]
    (s,) = build_slots(rows, "multi_turn", 1.0)
    assert (s.question_type, s.gt_answer, s.question_text) == ("unknown", "", "")


def test_nested_inner_must_answer_by_the_outer_answer():
    """Outer (10, 30); a row (15, 31) answers after the outer -> not an inner: the video fails."""
    rows = [{"question_time": 10, "answer_time": 30}, {"question_time": 15, "answer_time": 31}]
    with pytest.raises(ValueError, match="nested pair"):
        build_slots(rows, "nested", 5.0)


def test_scene_map_ignores_odd_files(tmp_path):
    (tmp_path / "1qna").mkdir()
    (tmp_path / "1qna" / "video_json_map.json").write_text(json.dumps({"entries": {"video": "x"}}), encoding="utf-8")
    (tmp_path / "1q1a").mkdir()
    (tmp_path / "1q1a" / "video_json_map.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    assert load_scene_map(tmp_path) == {}
    assert scene_from_video("data/videos_bench/a.mp4", {"x": "nested"}) == "1QnA"
    assert scene_from_video("a/1q1a/v.mp4", {"1q1a/v.mp4": ""}) == "multi_turn"


def test_nested_inner_question_strictly_between_outer_question_and_answer():
    """Outer (10, 30): a duplicate (10, 30) is asked at the outer's own time, and (30, 30) at its answer time;
    neither is inside (10 < q < 30 is strict), so both videos fail with the reference's error text."""
    for second in ((10, 30), (30, 30)):
        rows = [{"question_time": 10, "answer_time": 30}, {"question_time": second[0], "answer_time": second[1]}]
        with pytest.raises(ValueError, match=r"^Failed to infer nested pair from QA rows\.$"):
            build_slots(rows, "nested", 5.0)


def test_slot_errors_carry_the_reference_texts():
    """A failed sample's record carries these texts verbatim (spec §2.6), so they are pinned exactly."""
    cases = [(([{"question_time": 1, "answer_time": 2}], "nested"), r"^scene_type=nested requires at least two QA rows\.$"),
             (([], "1QnA"), r"^scene_type=1QnA requires GT as a JSON object\.$"),
             (({"x": 1}, "1QnA"), r"^1QnA GT must contain conversations\[\] or answers\[\]\.$"),
             (([], "bad"), r"^scene_type must be one of: multi_turn, 1QnA, nested$")]
    for (gt, scene), text in cases:
        with pytest.raises(ValueError, match=text):
            build_slots(gt, scene)


def test_slot_to_dict_lists_every_field():
    s = Slot(1, 0.0, 2.0, 5.0, "Hard", "q", "a", "multi_turn", turn_index=1)
    d = s.to_dict()
    assert d["slot_id"] == 1 and d["t_a"] == 2.0 and d["turn_index"] == 1 and d["nested_role"] is None
    assert len(d) == 16


def test_split_pieces_keep_their_words_and_the_whole_chunk_text():
    """Both sides of a split keep their own aligned words and the original chunk text (the judge's context)."""
    c = chunk(3, 4.0, 7.0, "a b", [("a", 4.0, 4.5), ("b", 5.0, 5.5)])
    early, core = split_at(c, 5.0)
    assert early.words == (Word("a", 4.0, 4.5),) and core.words == (Word("b", 5.0, 5.5),)
    assert early.full_text == core.full_text == "a b" and core.context_text() == "a b"


def test_1qna_missing_question_texts_are_empty():
    """No question_text (answers form) and a user turn without a value (conversations form): question ''."""
    (s,) = build_slots({"answers": [{"answer_time": 3, "answer_text": "a"}]}, "1QnA", 1.0)
    assert s.question_text == "" and s.inferred_knowledge == ""
    (s,) = build_slots({"question_text": "old", "conversations": [{"from": "user", "timestamp": 1},
                                                                  {"from": "assistant", "timestamp": 3, "value": "a"}]},
                       "1QnA", 1.0)
    assert s.question_text == "" and s.start == 1.0


def test_1qna_missing_answer_texts_are_empty_and_blank_labels_read_step():
    """A step without text reads '' (never a placeholder); a whitespace-only label gives question type 'step'."""
    (s,) = build_slots({"conversations": [{"from": "assistant", "timestamp": 3}]}, "1QnA", 1.0)
    assert s.gt_answer == ""
    (s,) = build_slots({"answers": [{"answer_time": 3, "label": "   "}]}, "1QnA", 1.0)
    assert s.gt_answer == "" and s.question_type == "step" and s.label == "   "


def test_scene_map_reads_every_subset_past_missing_and_broken_ones(tmp_path):
    """1q1a has no map file, 1q1a_math's map is broken JSON, 1qna's map is fine: its entries are still read.
    Entries are skipped when not objects, or without a video or a scene type; './' is stripped from the video
    path (only leading '.' and '/' characters)."""
    (tmp_path / "1q1a_math").mkdir()
    (tmp_path / "1q1a_math" / "video_json_map.json").write_text("{broken", encoding="utf-8")
    (tmp_path / "1qna").mkdir()
    (tmp_path / "1qna" / "video_json_map.json").write_text(json.dumps({"entries": [
        "junk", {"scene_type": "nested"}, {"video": "v0.mp4"}, {"video": "./Xa.mp4", "scene_type": "1QnA"}]}),
        encoding="utf-8")
    assert load_scene_map(tmp_path) == {"1qna/Xa.mp4": "1QnA"}
    (tmp_path / "1q1a").mkdir()
    (tmp_path / "1q1a" / "video_json_map.json").write_text(json.dumps({"entries": 5}), encoding="utf-8")
    (tmp_path / "1q1a_math" / "video_json_map.json").write_text(json.dumps({"entries": [
        {"video": "m.mp4", "scene_type": "nested"}]}), encoding="utf-8")
    assert load_scene_map(tmp_path) == {"1qna/Xa.mp4": "1QnA", "1q1a_math/m.mp4": "nested"}


def test_scene_from_video_uses_the_last_subset_folder_in_the_path():
    """The map key starts at the last '1q1a/' of the path, which may be at position 0."""
    m = {"1q1a/videos/1.mp4": "nested"}
    assert scene_from_video("1q1a/videos/1.mp4", m) == "nested"
    assert scene_from_video("1q1a/copy/1q1a/videos/1.mp4", m) == "nested"


def test_1qna_untimed_answer_is_skipped_not_the_end():
    """answers form: an answer without a time between two timed ones is skipped; the later one still counts."""
    gt = {"answers": [{"answer_time": 3, "answer_text": "a"}, {"answer_text": "untimed"},
                      {"answer_time": 5, "answer_text": "b"}]}
    assert [s.gt_answer for s in build_slots(gt, "1QnA", 1.0)] == ["a", "b"]
