"""Tiny random-initialised models built offline through the real library paths (test helpers).

LLaVA and Qwen2.5-VL (transformers) and a Whisper converted to CTranslate2 for faster-whisper,
following shared/notes/offline_models.md. Byte-level vocabularies, no merges, no hub access."""
from __future__ import annotations

from pathlib import Path


def byte_vocab() -> dict[str, int]:
    """The 256 printable stand-ins for bytes used by byte-level BPE, id = byte value."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars = {b: chr(b) for b in keep}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return {chars[b]: b for b in range(256)}


def _template(image_token: str) -> str:
    return ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
            "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
            "{% for part in message['content'] %}{% if part['type'] == 'image' %}" + image_token +
            "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}{% endif %}"
            "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_tiny_llava(out: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import (AutoModelForImageTextToText, CLIPVisionConfig, LlamaConfig, LlavaConfig,
                              LlavaProcessor, PreTrainedTokenizerFast)
    from transformers.models.llava import LlavaImageProcessorPil

    out = Path(out)
    tk = Tokenizer(models.BPE(vocab=byte_vocab(), merges=[]))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  bos_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>", "<image>"]})
    image_id = tok.convert_tokens_to_ids("<image>")
    vocab = ((len(tok) + 7) // 8) * 8
    cfg = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                       num_attention_heads=2, image_size=64, patch_size=16),
        text_config=LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                                num_key_value_heads=1, vocab_size=vocab, max_position_embeddings=4096,
                                eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                                bos_token_id=tok.bos_token_id),
        image_token_id=image_id, vision_feature_select_strategy="default")
    model = AutoModelForImageTextToText.from_config(cfg)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out)
    ip = LlavaImageProcessorPil(size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64})
    proc = LlavaProcessor(image_processor=ip, tokenizer=tok, patch_size=16, vision_feature_select_strategy="default",
                          num_additional_image_tokens=1, chat_template=_template("<image>"))
    proc.save_pretrained(out)
    return out


def build_tiny_qwen25vl(out: Path) -> Path:
    from transformers import AutoConfig, AutoModelForImageTextToText, Qwen2_5_VLProcessor, Qwen2Tokenizer
    from transformers.models.qwen2_vl import Qwen2VLImageProcessorPil, Qwen2VLVideoProcessor

    out = Path(out)
    tok = Qwen2Tokenizer(vocab=byte_vocab(), merges=[], unk_token=None, eos_token="<|im_end|>",
                         pad_token="<|endoftext|>", bos_token=None)
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                "<|image_pad|>", "<|video_pad|>"]
    tok.add_special_tokens({"additional_special_tokens": specials})
    ids = {s: tok.convert_tokens_to_ids(s) for s in specials}
    vocab = ((len(tok) + 7) // 8) * 8
    cfg = AutoConfig.for_model(
        "qwen2_5_vl",
        text_config={"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
                     "num_key_value_heads": 1, "vocab_size": vocab, "max_position_embeddings": 4096,
                     "rope_parameters": {"rope_type": "default", "mrope_section": [4, 6, 6], "rope_theta": 10000.0},
                     "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"], "bos_token_id": None},
        vision_config={"depth": 2, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "out_hidden_size": 64,
                       "window_size": 56, "fullatt_block_indexes": [1], "patch_size": 14, "spatial_merge_size": 2,
                       "temporal_patch_size": 2},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"])
    model = AutoModelForImageTextToText.from_config(cfg)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(out)
    ip = Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=112 * 112, patch_size=14, merge_size=2,
                                  temporal_patch_size=2)
    vp = Qwen2VLVideoProcessor(min_pixels=56 * 56, max_pixels=112 * 112, patch_size=14, merge_size=2,
                               temporal_patch_size=2)
    proc = Qwen2_5_VLProcessor(image_processor=ip, tokenizer=tok, video_processor=vp,
                               chat_template=_template("<|vision_start|><|image_pad|><|vision_end|>"))
    proc.save_pretrained(out)
    return out


WHISPER_SPECIALS = ["<|startoftranscript|>", "<|en|>", "<|translate|>", "<|transcribe|>", "<|startoflm|>",
                    "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]


def build_tiny_whisper(out: Path) -> Path:
    """An English-only random Whisper (d_model 64) converted to CTranslate2 int8 in `out`/ct2."""
    import ctranslate2
    from transformers import (GenerationConfig, WhisperConfig, WhisperFeatureExtractor,
                              WhisperForConditionalGeneration, WhisperTokenizer)

    out = Path(out)
    hf_dir, ct2_dir = out / "hf", out / "ct2"
    tok = WhisperTokenizer(vocab=byte_vocab(), merges=[], unk_token="<|endoftext|>", bos_token="<|endoftext|>",
                           eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": WHISPER_SPECIALS})
    sot = tok.convert_tokens_to_ids("<|startoftranscript|>")
    eot = tok.convert_tokens_to_ids("<|endoftext|>")
    nots = tok.convert_tokens_to_ids("<|notimestamps|>")
    cfg = WhisperConfig(vocab_size=len(tok) + 1501, num_mel_bins=80, d_model=64, encoder_layers=2, decoder_layers=2,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128,
                        max_source_positions=1500, max_target_positions=448, decoder_start_token_id=sot,
                        eos_token_id=eot, bos_token_id=eot, pad_token_id=eot, suppress_tokens=[],
                        begin_suppress_tokens=[32, eot])
    model = WhisperForConditionalGeneration(cfg)
    model.generation_config = GenerationConfig(decoder_start_token_id=sot, eos_token_id=eot, pad_token_id=eot,
                                               bos_token_id=eot, suppress_tokens=[], begin_suppress_tokens=[32, eot],
                                               no_timestamps_token_id=nots, max_length=448, is_multilingual=False)
    model.save_pretrained(hf_dir)
    tok.save_pretrained(hf_dir)
    WhisperFeatureExtractor(feature_size=80).save_pretrained(hf_dir)
    ctranslate2.converters.TransformersConverter(
        str(hf_dir), copy_files=["tokenizer.json", "preprocessor_config.json"]).convert(
        str(ct2_dir), quantization="int8", force=True)
    return ct2_dir


TEXT_TEMPLATE = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
                 "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def build_tiny_text_llm(out: Path) -> Path:
    """A random text-only Llama (hidden 64, 2 layers) with a byte-level tokenizer and a ChatML template,
    saved as safetensors in `out`/hf and as a float32 GGUF file `out`/tiny-llama-f32.gguf (llama.cpp's tensor
    names and q/k row order, written with the `gguf` package), so both load paths can be compared."""
    import numpy as np
    import gguf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(out)
    hf_dir = out / "hf"
    vocab = byte_vocab()
    merges = [("Ġ", "t"), ("t", "h")]  # a couple of real merges, so the GGUF merges list is not empty
    for a, b in merges:
        vocab[a + b] = len(vocab)
    tk = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  bos_token="<|endoftext|>")
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    tok.chat_template = TEXT_TEMPLATE
    n_vocab = len(tok)
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, vocab_size=n_vocab, max_position_embeddings=2048, rms_norm_eps=1e-5,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                      tie_word_embeddings=False)
    model = LlamaForCausalLM(cfg)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(hf_dir)
    tok.save_pretrained(hf_dir)

    w = gguf.GGUFWriter(str(out / "tiny-llama-f32.gguf"), "llama")
    w.add_name("tiny-llama")
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_rope_dimension_count(cfg.hidden_size // cfg.num_attention_heads)
    w.add_rope_freq_base(float(cfg.rope_parameters.get("rope_theta", 10000.0)))
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_vocab_size(n_vocab)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    inv = {i: t for t, i in tok.get_vocab().items()}
    specials = set(tok.all_special_ids)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list([inv[i] for i in range(n_vocab)])
    w.add_token_types([gguf.TokenType.CONTROL if i in specials else gguf.TokenType.NORMAL for i in range(n_vocab)])
    w.add_token_merges([f"{a} {b}" for a, b in merges])
    w.add_bos_token_id(tok.bos_token_id)
    w.add_eos_token_id(tok.eos_token_id)
    w.add_pad_token_id(tok.pad_token_id)
    w.add_add_bos_token(False)
    w.add_chat_template(TEXT_TEMPLATE)

    def permute(x: np.ndarray, heads: int) -> np.ndarray:  # llama.cpp's rotary row order for q and k
        return x.reshape(heads, 2, x.shape[0] // heads // 2, *x.shape[1:]).swapaxes(1, 2).reshape(x.shape)

    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    w.add_tensor("token_embd.weight", sd["model.embed_tokens.weight"])
    for i in range(cfg.num_hidden_layers):
        p = f"model.layers.{i}."
        w.add_tensor(f"blk.{i}.attn_norm.weight", sd[p + "input_layernorm.weight"])
        w.add_tensor(f"blk.{i}.attn_q.weight", permute(sd[p + "self_attn.q_proj.weight"], cfg.num_attention_heads))
        w.add_tensor(f"blk.{i}.attn_k.weight", permute(sd[p + "self_attn.k_proj.weight"], cfg.num_key_value_heads))
        w.add_tensor(f"blk.{i}.attn_v.weight", sd[p + "self_attn.v_proj.weight"])
        w.add_tensor(f"blk.{i}.attn_output.weight", sd[p + "self_attn.o_proj.weight"])
        w.add_tensor(f"blk.{i}.ffn_norm.weight", sd[p + "post_attention_layernorm.weight"])
        w.add_tensor(f"blk.{i}.ffn_gate.weight", sd[p + "mlp.gate_proj.weight"])
        w.add_tensor(f"blk.{i}.ffn_up.weight", sd[p + "mlp.up_proj.weight"])
        w.add_tensor(f"blk.{i}.ffn_down.weight", sd[p + "mlp.down_proj.weight"])
    w.add_tensor("output_norm.weight", sd["model.norm.weight"])
    w.add_tensor("output.weight", sd["lm_head.weight"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return out
