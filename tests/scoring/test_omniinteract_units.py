"""Unit tests of OmniInteract helpers, judge parsing, failure handling, fixed mode and output helpers."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scoring.omniinteract import (JudgeTransportError, OIConfig, build_slots, decay, dry_run_transport, evaluate,
                                  format_table, normalize_chunks, parse_core_reply, parse_early_reply,
                                  parse_partial_reply, parse_time, scene_from_video, to_bool)
from scoring.omniinteract.matching import match_chunks


@pytest.mark.parametrize("value,expected", [
    ("00:09.5", 9.5), ("0:00:05", 5.0), ("1:02:03", 3723.0), ("25", 25.0), (" 8.5 ", 8.5), (7, 7.0),
    (True, 1.0), ("", None), ("a:b", None), ("1:2:3:4", None), (None, None), ([1], None),
])
def test_parse_time(value: Any, expected: Any) -> None:
    assert parse_time(value) == expected


@pytest.mark.parametrize("value,expected", [
    (True, True), (0, False), (2, True), ("YES", True), (" t ", True), ("false", False), (None, False), ("2", False),
])
def test_to_bool(value: Any, expected: bool) -> None:
    assert to_bool(value) is expected


def test_decay_linear_and_degenerate() -> None:
    assert decay(5, 0, 10) == 0.5
    assert decay(-1, 0, 10) == 1.0 and decay(10, 0, 10) == 0.0
    assert decay(3, 3, 3) == 1.0 and decay(3.1, 3, 2) == 0.0


@pytest.mark.parametrize("raw,category,score", [
    ('{"flag": "Neutral", "score": 0.4}', "neutral", 0.4),
    ("Neutral, the model just acknowledges.", "neutral", 1.0),
    ('{"flag": "Neutral"}', "neutral", 1.0),
    ('{"flag": "Neutral", "score": null}', "neutral", 1.0),
    ('{"flag": "FP-Hallucination", "score": 0.9}', "hallucination", 0.0),
    ("not a hallucination", "hallucination", 0.0),
    ('{"flag": "maybe", "score": 0.9}', "neutral", 0.0),
    ('{"score": 0.9}', "neutral", 0.0),
    ("", "neutral", 0.0),
    ('{"flag": "Neutral", "score": "3"}', "neutral", 1.0),
])
def test_parse_early_reply(raw: str, category: str, score: float) -> None:
    v = parse_early_reply(raw)
    assert (v.category, v.score) == (category, score)


@pytest.mark.parametrize("raw,score,trigger", [
    ('```json\n{"score": 0.7, "trigger_phrase": "“red”"}\n```', 0.7, "“red”"),
    ('{"score": "0.6", "trigger_phrase": "x"}', 0.6, "x"),
    ('{"trigger_phrase": "x"}', 0.0, "x"),
    ('{"score": "high"} slot 2 was fine', 1.0, ""),
    ("score: 0.3", 0.3, ""),
    ("no number here", 0.0, ""),
    ('{"score": -2}', 0.0, ""),
])
def test_parse_core_reply(raw: str, score: float, trigger: str) -> None:
    v = parse_core_reply(raw)
    assert v.score == score and v.trigger_phrase == trigger


def test_parse_partial_reply() -> None:
    v = parse_partial_reply('{"score": 0.8, "hallucination": "yes"}')
    assert (v.score, v.hallucination) == (0.8, True)
    v = parse_partial_reply("0.9 great")
    assert (v.score, v.hallucination) == (0.0, False)


def test_dry_run_transport_is_neutral_zero() -> None:
    assert parse_early_reply(dry_run_transport("early", "s", 1, "", "")).score == 0.0
    assert parse_core_reply(dry_run_transport("core", "s", 1, "", "")).score == 0.0
    assert parse_partial_reply(dry_run_transport("interrupted_partial", "s", 1, "", "")).score == 0.0


def test_config_from_cli_args() -> None:
    cfg = OIConfig.from_cli_args(["--w_ack", "0.3", "--no_unmatched_fp", "--last_slot_tail_sec=30",
                                  "--no_interrupted_output_eval", "--model_json_name", "wav_transcript.json",
                                  "--skip_existing"])
    assert cfg.w_ack == 0.3 and cfg.last_slot_tail_sec == 30.0 and not cfg.count_unmatched_as_fp
    assert cfg.no_interrupted_output_eval and cfg.model_json_name == "wav_transcript.json"
    with pytest.raises(ValueError, match="--bogus"):
        OIConfig.from_cli_args(["--bogus"])


def test_scene_dispatch_fallbacks() -> None:
    m = {"1q1a/videos/0001.mp4": "nested"}
    assert scene_from_video("data/1q1a/videos/0001.mp4", m) == "nested"
    assert scene_from_video("data/1q1a/videos/0002.mp4", m) == "multi_turn"
    assert scene_from_video("data/1q1a/nested/0003.mp4", m) == "nested"
    assert scene_from_video("data/1qna/videos_bench/egoper/x.mp4", m) == "1QnA"


def test_nested_pairing_and_failure() -> None:
    rows = [{"question_time": "00:10", "answer_time": "00:30", "question_type": "proactive"},
            {"question_time": "00:12", "answer_time": "00:40"},  # not contained: dropped
            {"question_time": "00:15", "answer_time": "00:20", "question_type": "realtime"}]
    slots = build_slots(rows, "nested", 60)
    assert [(s.nested_role, s.start, s.t_a, s.end) for s in slots] == [("outer", 10, 30, 90), ("inner", 15, 20, 30)]
    with pytest.raises(ValueError, match="nested pair"):
        build_slots(rows[:2], "nested", 60)


def test_cross_boundary_split_english_drops_punctuation() -> None:
    slots = build_slots([{"question_time": 0, "answer_time": 2}], "multi_turn", 60)
    chunks = normalize_chunks({"chunks": [{"text": "Well, the answer is 4.", "timestamp": [1, 3], "aligned_words": [
        {"text": "Well", "start": 1.0, "end": 1.4}, {"text": "the", "start": 1.5, "end": 1.9},
        {"text": "answer", "start": 2.0, "end": 2.4}, {"text": "is", "start": 2.5, "end": 2.6},
        {"text": "4", "start": 2.7, "end": 2.9}]}]})
    (m,), unmatched = match_chunks(slots, chunks)
    assert not unmatched
    assert [p.text for p in m.early] == ["Well the"] and [p.chunk_id for p in m.core] == ["0:core"]
    assert m.core[0].text == "answer is 4" and m.core[0].effective_start_hint == 2


# --- end-to-end on a tiny hand-built layout --------------------------------------------------------

def _write(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")


def _layout(root: Path) -> None:
    _write(root / "data/1q1a/video_json_map.json", {"entries": [
        {"video": "videos/0001.mp4", "scene_type": "multi_turn"}, {"video": "videos/0002.mp4", "scene_type": "nested"}]})
    _write(root / "data/1q1a/annotations/0001.json", [
        {"question_time": "00:05", "answer_time": "00:08", "answer_text": "三个", "question_type": "realtime"}])
    _write(root / "data/1q1a/annotations/0002.json", [
        {"question_time": "00:10", "answer_time": "00:30", "answer_text": "下雨", "question_type": "realtime"},
        {"question_time": "00:15", "answer_time": "00:20", "answer_text": "杯子", "question_type": "proactive"}])
    out = root / "outputs/m"
    _write(out / "1q1a/videos__0001/precise_truncation.json", {"chunks": [
        {"text": "三个", "timestamp": [9, 10]}, {"text": "再见", "timestamp": [200, 201]}]})
    _write(out / "1q1a/videos__0002/wav_transcript.json", {"chunks": [
        {"text": "杯子", "timestamp": [21, 22]}, {"text": "下雨", "timestamp": [31, 32]}]})
    _write(out / "batch_summary.json", {"results": [
        {"video": "data/1q1a/videos/0001.mp4", "output_dir": "outputs/m/1q1a/videos__0001", "status": "ok"},
        {"video": "data/1q1a/videos/0002.mp4", "output_dir": "outputs/m/1q1a/videos__0002", "status": "ok"},
        {"video": "data/1q1a/videos/0003.mp4", "output_dir": "outputs/m/1q1a/videos__0003", "status": "ok"}]})


def _good(stage: str, sample_id: str, slot_id: int, system_prompt: str, user_prompt: str) -> str:
    if stage == "core":
        return '{"score": 1.0, "trigger_phrase": ""}'
    return '{"flag": "Neutral", "score": 1.0}'


def test_judge_failure_is_reference_compatible_by_default_and_excluded_when_fixed(tmp_path: Path) -> None:
    _layout(tmp_path)

    def failing(stage: str, sample_id: str, slot_id: int, system_prompt: str, user_prompt: str) -> str:
        if sample_id.endswith("0002") and slot_id == 2:
            raise JudgeTransportError("HTTP 500")
        return _good(stage, sample_id, slot_id, system_prompt, user_prompt)

    ref = evaluate(tmp_path, tmp_path / "outputs/m", failing)
    kinds = sorted((s["sample_id"] or "", s["item_kind"], s["status"]) for s in ref["samples"])
    assert kinds == [("", "passthrough", "missing_input"),
                     ("1q1a__videos__0001", "summarized", "ok"),
                     ("1q1a__videos__0002", "passthrough", "failed"),
                     ("1q1a__videos__0002", "summarized", "failed")]
    s = ref["summary"]
    assert (s["num_items"], s["success"], s["failed_or_skipped"]) == (4, 2, 2)
    assert s["num_slots"] == 2  # the failed sample's first (outer) slot still counts
    assert s["Global_FP"] == 1  # unmatched chunk of the ok sample only

    fixed = evaluate(tmp_path, tmp_path / "outputs/m", failing, OIConfig(fixed=True))
    f = fixed["summary"]
    assert (f["num_items"], f["success"], f["failed_or_skipped"], f["num_slots"]) == (3, 1, 2, 1)


def test_fixed_mode_uses_roles_and_raw_quality(tmp_path: Path) -> None:
    _layout(tmp_path)
    ref_res = evaluate(tmp_path, tmp_path / "outputs/m", _good)
    ref = ref_res["summary"]["paper_metrics"]
    fixed = evaluate(tmp_path, tmp_path / "outputs/m", _good, OIConfig(fixed=True))["summary"]["paper_metrics"]
    plain = next(s for s in ref_res["samples"] if s["sample_id"] == "1q1a__videos__0001")
    plain_tp = plain["sample_summary"]["summary"]["by_question_type"]["realtime"]["Global_TP"]
    # Nested rows are mislabelled (outer realtime, inner proactive): label arithmetic mixes them in.
    assert ref["exp_f1"]["realtime"]["Global_TP"] != pytest.approx(plain_tp)
    assert fixed["exp_f1"]["realtime"]["Global_TP"] == pytest.approx(plain_tp)
    assert fixed["exp_f1"]["realtime"]["num_slots"] == 1 and fixed["exp_f1"]["proactive"]["num_slots"] == 0
    assert ref["exp_nested"]["NCCS"] <= 0.8 < fixed["exp_nested"]["NCCS"] <= 1.0


def test_manifest_input_and_out_dir(tmp_path: Path) -> None:
    _layout(tmp_path)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"sample_id": "a", "gt_json": "data/1q1a/annotations/0001.json",
                                    "model_json": "outputs/m/1q1a/videos__0001/precise_truncation.json",
                                    "scene_type": "multi_turn"}) + "\n", encoding="utf-8")
    res = evaluate(tmp_path, tmp_path / "outputs/m", dry_run_transport, manifest=manifest, out_dir=tmp_path / "ev")
    assert [s["sample_id"] for s in res["samples"]] == ["a"]
    # dry run: core quality 0 -> low-quality FP and FN; the chunk at 200 s is unmatched -> +1 FP
    assert res["summary"]["Global_FN"] == 1 and res["summary"]["Global_FP"] == 2
    assert (tmp_path / "ev/a.unified_eval.json").exists() and (tmp_path / "ev/unified_eval_summary.json").exists()


def test_format_table_lists_paper_columns(tmp_path: Path) -> None:
    _layout(tmp_path)
    table = format_table(evaluate(tmp_path, tmp_path / "outputs/m", _good)["summary"])
    for label in ("Realtime", "Proactive", "Nested", "1Q1A", "1QnA", "All", "NOR", "PAQ", "CSM-SR", "CSM-AS", "NCCS"):
        assert label in table


def test_scoring_package_imports_no_heavy_modules() -> None:
    """Every module of the scoring package, imported in a fresh interpreter, pulls in none of the heavy
    libraries (a judge backend imports its own lazily, inside the backend)."""
    code = ("import importlib, pkgutil, sys, scoring\n"
            "for m in pkgutil.walk_packages(scoring.__path__, 'scoring.'):\n"
            "    importlib.import_module(m.name)\n"
            "print(' '.join(sorted(sys.modules)))\n")
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "scoring.omniinteract.scoring" in loaded and "scoring.interactionbench.scorer" in loaded  # the walk did run
    heavy = {"torch", "openai", "gradio", "transformers", "pandas", "argon2", "sqlite_utils", "cv2", "av",
             "faster_whisper", "plotly", "matplotlib", "requests", "httpx"}
    assert not (heavy & loaded), sorted(heavy & loaded)
