"""TransformersJudge on a tiny random-initialised causal LM built in tmp_path: the pipeline runs end to end."""
import pytest

from scoring.judges import CachingJudge, JudgeResult, MemoryVerdictCache, TransformersJudge, build_judge

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_tiny_causal_lm(out_dir):
    """A byte-level BPE tokenizer (256 bytes, no merges, ChatML specials) and a 2-layer random Llama."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedTokenizerFast

    vocab = {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    tk = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  bos_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    tok.chat_template = CHATML
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(tok) + 4, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id)
    AutoModelForCausalLM.from_config(cfg).save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return str(out_dir)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    import torch  # noqa: F401
    import transformers  # noqa: F401
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_causal_lm"))


def build_fixed_reply_lm(out_dir, reply: str):
    """A tiny Llama whose greedy reply is `reply`, whatever the prompt: the reply is token 0 of the vocabulary
    and the final norm's weight is zero, so every logit is 0 and argmax picks token 0 (one new token)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedTokenizerFast

    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False)
    encoded_reply = "".join(piece for piece, _ in byte_level.pre_tokenize_str(reply))
    vocab = {encoded_reply: 0}
    for ch in sorted(pre_tokenizers.ByteLevel.alphabet()):
        vocab.setdefault(ch, len(vocab))
    tk = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tk.pre_tokenizer = byte_level
    tk.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  bos_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    tok.chat_template = CHATML
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=2048,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id)
    model = AutoModelForCausalLM.from_config(cfg)
    with torch.no_grad():
        model.model.norm.weight.zero_()
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return str(out_dir)


@pytest.mark.model
def test_a_well_formed_model_reply_is_the_verdict(tmp_path):
    reply = '{"score": 1, "reason": "same colour"}'
    path = build_fixed_reply_lm(tmp_path / "yes", reply)
    judge = TransformersJudge(path, max_new_tokens=1)
    r = judge.judge("What colour is the ball?", "red", "It is red.")
    assert (r.score, r.error, r.raw) == (1.0, None, reply)
    assert (judge.stats.calls, judge.stats.reasks, judge.stats.scored, judge.stats.unavailable) == (1, 0, 1, 0)
    assert judge.name == f"hf:{path}"


@pytest.mark.model
def test_a_malformed_model_reply_is_re_asked_once_then_unavailable(tmp_path):
    path = build_fixed_reply_lm(tmp_path / "junk", "the ball is red")
    judge = TransformersJudge(path, max_new_tokens=1)
    r = judge.judge("What colour is the ball?", "red", "It is red.")
    assert r.score is None and r.raw == "the ball is red"
    assert r.error.startswith("malformed reply after one re-ask: not JSON")
    assert (judge.stats.calls, judge.stats.reasks, judge.stats.scored, judge.stats.unavailable) == (2, 1, 0, 1)


@pytest.mark.model
def test_transport_generates_text_greedily_and_deterministically(tiny_lm):
    judge = TransformersJudge(tiny_lm, max_new_tokens=6)
    a = judge.transport.complete("sys", "user text")
    b = judge.transport.complete("sys", "user text")
    assert isinstance(a, str) and a == b


@pytest.mark.model
def test_built_from_spec_and_cached(tiny_lm):
    judge = build_judge(f"hf:{tiny_lm}?max_new_tokens=4", cache=MemoryVerdictCache())
    assert isinstance(judge, CachingJudge) and judge.inner.transport.max_new_tokens == 4
    assert isinstance(judge.judge("q", "red", "blue"), JudgeResult)


def test_bad_model_path_names_the_path(tmp_path):
    import transformers  # noqa: F401
    judge = TransformersJudge(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="missing"):
        judge.judge("q", "red", "blue")
