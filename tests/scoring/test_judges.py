"""Model-free judge tests: result type, verdict keys and cache, strict parsing and re-ask logic, spec parsing."""
import json
import subprocess
import sys

import pytest

from scoring.judges import (CachingJudge, JudgeResult, JudgeUnavailable, MemoryVerdictCache, PromptedJudge,
                            PROMPTS, VerdictCache, build_judge, build_prompt, parse_judge_spec, parse_verdict,
                            tally, verdict_key)
from scoring.judges.base import trivial_verdict


def scripted(*replies):
    """A transport returning `replies` in order and recording the prompts; an Exception entry is raised."""
    calls = []

    def complete(system, user):
        calls.append((system, user))
        r = replies[len(calls) - 1]
        if isinstance(r, Exception):
            raise r
        return r

    complete.calls = calls
    return complete


# --- keys and cache -------------------------------------------------------------------------------

def test_verdict_key_is_canonical_and_separates_fields():
    k = verdict_key("openai:m@u", "ib-v2-containment", "q", "gt", "pred")
    assert len(k) == 64 and int(k, 16) >= 0
    assert k == verdict_key("openai:m@u", "ib-v2-containment", "q", "gt", "pred")
    assert k != verdict_key("openai:m@u", "ib-v1-equivalence", "q", "gt", "pred")
    assert k != verdict_key("openai:other@u", "ib-v2-containment", "q", "gt", "pred")
    # no ambiguity from concatenation: ("ab", "c") differs from ("a", "bc")
    assert verdict_key("j", "v", "ab", "c") != verdict_key("j", "v", "a", "bc")
    assert verdict_key("j", "v", {"b": 1, "a": 2}) == verdict_key("j", "v", {"a": 2, "b": 1})
    with pytest.raises(TypeError, match="JSON"):
        verdict_key("j", "v", object())


def test_memory_cache_implements_the_protocol():
    cache = MemoryVerdictCache()
    assert isinstance(cache, VerdictCache)
    assert cache.get("k") is None
    cache.put("k", "judge", "v1", 1.0, "raw")
    row = cache.get("k")
    assert {k: row[k] for k in ("key", "judge", "prompt_version", "score", "raw")} == \
        {"key": "k", "judge": "judge", "prompt_version": "v1", "score": 1.0, "raw": "raw"}
    row["score"] = 0.0
    assert cache.get("k")["score"] == 1.0  # callers get copies


def test_caching_judge_looks_up_before_and_stores_after():
    transport = scripted('{"score": 1, "reason": "ok"}', '{"score": 0, "reason": "no"}')
    cache = MemoryVerdictCache()
    judge = CachingJudge(PromptedJudge(transport, name="fake"), cache)
    assert judge("q", "red", "red ball") == 1.0
    assert judge("q", "red", "red ball") == 1.0
    assert len(transport.calls) == 1 and (judge.hits, judge.misses) == (1, 1)
    key = verdict_key("fake", "ib-v2-containment", "q", "red", "red ball")
    assert cache.get(key)["score"] == 1.0
    # a verdict already in the store (e.g. imported) is used without any call
    cache.put(verdict_key("fake", "ib-v2-containment", "q", "a", "b"), "fake", "ib-v2-containment", 0.0, "")
    assert judge("q", "a", "b") == 0.0 and len(transport.calls) == 1


# --- result type and counting ---------------------------------------------------------------------

def test_trivial_verdicts_and_tally_exclude_unobtainable():
    assert trivial_verdict(" ", None).score == 1.0
    assert trivial_verdict("red", "  ").score == 0.0
    assert trivial_verdict("red", "blue") is None
    t = tally([JudgeResult(1.0), JudgeResult(None, "", "down"), JudgeResult(0.0)])
    assert (t.n, t.n_scored, t.n_unavailable, t.mean) == (3, 2, 1, 0.5)
    assert tally([JudgeResult(None, "", "down")]).mean is None


# --- prompts and strict parsing -------------------------------------------------------------------

@pytest.mark.parametrize("raw,score", [
    ('{"score": 1, "reason": "same"}', 1.0),
    ('  {"score": 0}  ', 0.0),
    ('{"score": 1.0, "reason": "x"}', 1.0),
    ('```json\n{"score": 0, "reason": "x"}\n```', 0.0),
])
def test_parse_verdict_accepts_strict_json(raw, score):
    assert parse_verdict(raw) == (score, None)


@pytest.mark.parametrize("raw", [
    "", "1", "Score: 1", '{"score": 1} trailing', '{"reason": "x"}', '{"score": 0.5}', '{"score": 2}',
    '{"score": true}', '{"score": "1"}', '[{"score": 1}]', '{"score": 1, "reason": 3}',
    'Sure! {"score": 1, "reason": "x"}',
])
def test_parse_verdict_rejects_anything_else(raw):
    score, err = parse_verdict(raw)
    assert score is None and err


def test_prompts_are_versioned_and_filled():
    assert {"ib-v2-containment", "ib-v1-equivalence"} <= set(PROMPTS)
    system, user = build_prompt("ib-v1-equivalence", "Which {x}?", "red {y}", "blue")
    assert "JSON" in system and "Which {x}?" in user and "red {y}" in user and "blue" in user
    with pytest.raises(ValueError, match="ib-v2-containment"):
        build_prompt("ib-v9", "q", "a", "b")


def test_malformed_reply_gets_one_reask_then_none():
    t = scripted("yes", "still yes")
    judge = PromptedJudge(t, name="fake", prompt_version="ib-v1-equivalence")
    r = judge.judge("q", "red", "crimson")
    assert r.score is None and r.raw == "still yes" and "re-ask" in r.error
    assert len(t.calls) == 2 and t.calls[1][1].startswith(t.calls[0][1]) and "could not be read" in t.calls[1][1]
    assert (judge.stats.calls, judge.stats.reasks, judge.stats.unavailable) == (2, 1, 1)
    with pytest.raises(JudgeUnavailable, match="fake"):
        PromptedJudge(scripted("no", "no"), name="fake")("q", "a", "b")


def test_transport_failure_is_unobtainable_not_zero():
    judge = PromptedJudge(scripted(JudgeUnavailable("endpoint down")), name="fake")
    r = judge.judge("q", "red", "blue")
    assert r == JudgeResult(None, "", "endpoint down")
    assert judge.stats.unavailable == 1 and judge.stats.scored == 0


# --- specs ----------------------------------------------------------------------------------------

def test_parse_judge_spec_kinds():
    assert parse_judge_spec("lexical").kind == "lexical"
    s = parse_judge_spec("openai:Qwen/Qwen3-14B@http://127.0.0.1:8000/v1?key_env=MY_KEY&timeout=5")
    assert (s.kind, s.model, s.base_url, s.key_env, s.options) == \
        ("openai", "Qwen/Qwen3-14B", "http://127.0.0.1:8000/v1", "MY_KEY", {"timeout": "5"})
    s = parse_judge_spec("openai:gpt-4o")
    assert (s.base_url, s.key_env) == (None, "OPENAI_API_KEY")
    assert parse_judge_spec("openai:m@http://h/v1").key_env is None
    assert parse_judge_spec("hf:/models/judge?max_new_tokens=64").path == "/models/judge"
    assert parse_judge_spec("semantic").path is None
    s = parse_judge_spec("semantic:/m/minilm?threshold=0.7")
    assert (s.path, s.options) == ("/m/minilm", {"threshold": "0.7"})
    assert parse_judge_spec("semantic?threshold=0.5").options == {"threshold": "0.5"}
    assert parse_judge_spec("cache:results/*.jsonl,more/*.jsonl").arg == "results/*.jsonl,more/*.jsonl"
    s = parse_judge_spec("ensemble:gpt4o,qwen?strict")
    assert (s.kind, s.arg) == ("ensemble", "gpt4o,qwen?strict")


@pytest.mark.parametrize("bad,match", [
    ("", "unknown kind"), ("gpt", "unknown kind"), ("lexical:x", "no argument"), ("openai:", "expected"),
    ("openai:m@ftp://x", "http"), ("openai:m@http://h?key_env=sk-123", "NAME"), ("openai:m@http://h?foo=1", "foo"),
    ("hf:", "expected"), ("cache:", "expected"), ("semantically", "unknown kind"),
])
def test_parse_judge_spec_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        parse_judge_spec(bad)


def test_build_judge_wires_options_without_loading_anything():
    j = build_judge("openai:m@http://127.0.0.1:9/v1?timeout=2.5&retries=1&max_tokens=32&prompt=ib-v1-equivalence")
    assert (j.transport.timeout, j.transport.max_retries, j.transport.max_tokens) == (2.5, 1, 32)
    assert j.prompt_version == "ib-v1-equivalence" and j.name == "openai:m@http://127.0.0.1:9/v1"
    s = build_judge("semantic:/nowhere?threshold=0.75", cache=MemoryVerdictCache())
    assert isinstance(s, CachingJudge) and s.inner.threshold == 0.75 and "t0.75" in s.prompt_version
    assert build_judge("hf:/nowhere").name == "hf:/nowhere"
    for spec in ("lexical", "cache:x", "ensemble:a,b"):
        with pytest.raises(ValueError, match="built by the InteractionBench scorer"):
            build_judge(spec)
    with pytest.raises(ValueError, match="not a number"):
        build_judge("semantic?threshold=high")


def test_judges_package_imports_no_heavy_backend():
    code = ("import sys, scoring.judges, scoring.judges.spec, scoring.judges.semantic; "
            "print([m for m in ('openai', 'torch', 'transformers') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    assert json.loads(out.stdout.strip().replace("'", '"')) == []
