"""Local transformers backend, greedy decoding with the model's own chat template.

A vision-language model (LLaVA-style, Qwen2/2.5-VL, which need torchvision) goes through AutoProcessor +
AutoModelForImageTextToText with {"type": "image", "image": PIL} parts. A text-only model (its config is a
causal LM) goes through AutoTokenizer + AutoModelForCausalLM, and the frames it cannot see become one line
saying how many frames at which times the protocol would have shown. `hf:<file>.gguf` loads a GGUF file
(quantised or not) through transformers' `gguf_file=` path, dequantised to torch (text-only)."""
from __future__ import annotations

import threading
import time
from typing import Optional

from runners.backends.base import Backend, BackendFailure, Reply, missing_dependency
from runners.protocols.base import Decision

_DTYPES = ("auto", "float32", "float16", "bfloat16")


class HFBackend(Backend):
    """`hf:<path>`: a local model directory (or a hub name when the hub is reachable)."""

    def __init__(self, path: str, *, device: str = "cpu", dtype: str = "auto", max_new_tokens: Optional[int] = None,
                 trust_remote_code: bool = False, local_files_only: Optional[bool] = None, audio: bool = False):
        if not path:
            raise ValueError("hf backend: a model path is required (hf:<path>)")
        if dtype not in _DTYPES:
            raise ValueError(f"hf backend: dtype must be one of {_DTYPES}, got {dtype!r}")
        self.path = path
        self.device = device
        self.dtype = dtype
        self.max_new_tokens = max_new_tokens
        self.trust_remote_code = trust_remote_code
        self.local_files_only = local_files_only
        self.supports_audio = audio
        self.name = f"hf:{path}"
        self._model = None
        self._processor = None
        self.text_only: Optional[bool] = None  # known after load()
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load processor (or tokenizer) and model once; errors name the package to install."""
        if self._model is not None:
            return
        try:
            import torch
            from transformers import (AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText, AutoProcessor,
                                      AutoTokenizer)
        except ImportError as exc:
            raise missing_dependency("the hf backend", "torch transformers torchvision pillow", exc) from None
        import os

        where, gguf_file = self.path, None
        if self.path.lower().endswith(".gguf"):
            if not os.path.isfile(self.path):
                raise FileNotFoundError(f"hf backend: GGUF file {self.path} not found")
            where, gguf_file = os.path.dirname(os.path.abspath(self.path)), os.path.basename(self.path)
        local = self.local_files_only
        if local is None:
            local = os.path.isdir(where)
        kw = {"trust_remote_code": self.trust_remote_code, "local_files_only": local}
        if gguf_file:
            kw["gguf_file"] = gguf_file
        dtype = "auto" if self.dtype == "auto" else getattr(torch, self.dtype)
        self.text_only = bool(gguf_file) or not _is_vision_language(AutoConfig.from_pretrained(where, **kw))
        try:
            if self.text_only:
                self._processor = AutoTokenizer.from_pretrained(where, **kw)
                model = AutoModelForCausalLM.from_pretrained(where, dtype=dtype, **kw)
            else:
                self._processor = AutoProcessor.from_pretrained(where, **kw)
                model = AutoModelForImageTextToText.from_pretrained(where, dtype=dtype, **kw)
        except ImportError as exc:
            what = "accelerate gguf" if gguf_file else "torchvision"
            raise missing_dependency(f"the model at {self.path}", what, exc) from None
        except ValueError as exc:
            if "accelerate" in str(exc) or "gguf" in str(exc).lower():
                raise missing_dependency(f"the model at {self.path}", "accelerate gguf", exc) from None
            raise
        model.to(self.device)
        model.eval()
        self._model = model

    def render(self, decision: Decision) -> list[dict]:
        """The Decision's chat with PIL images, in the structure HF chat templates expect."""
        from PIL import Image
        import numpy as np

        out = []
        for m in decision.messages:
            parts = []
            for p in m["content"]:
                if p["type"] == "text":
                    parts.append({"type": "text", "text": p["text"]})
                elif p["type"] == "image":
                    parts.append({"type": "image", "image": Image.fromarray(np.ascontiguousarray(p["frame"].image))})
                elif p["type"] == "audio" and self.supports_audio:
                    parts.append({"type": "audio", "audio": p["chunk"].samples})
            out.append({"role": m["role"], "content": parts})
        return out

    @staticmethod
    def render_text(decision: Decision) -> list[dict]:
        """The chat for a text-only model: text parts kept; images and audio the model cannot take replaced by
        one line naming what the protocol would have shown (how many frames, at which stream times)."""
        out = []
        for m in decision.messages:
            texts, stamps, audio = [], [], []
            for p in m["content"]:
                if p["type"] == "text":
                    texts.append(p["text"])
                elif p["type"] == "image":
                    stamps.append(p["frame"].t)
                elif p["type"] == "audio":
                    audio.append((p["chunk"].t0, p["chunk"].t1))
            notes = []
            if stamps:
                notes.append(f"[{len(stamps)} video frame(s) at t = {', '.join(f'{t:.2f}' for t in stamps)} s are "
                             "not shown: this model reads text only]")
            if audio:
                notes.append(f"[audio from {audio[0][0]:.1f} s to {audio[-1][1]:.1f} s is not given: this model "
                             "reads text only]")
            out.append({"role": m["role"], "content": "\n".join(notes + texts)})
        return out

    def respond(self, decision: Decision) -> Reply:
        self.load()
        import torch

        started = time.perf_counter()
        with self._lock:
            try:
                inputs = self._processor.apply_chat_template(
                    self.render_text(decision) if self.text_only else self.render(decision),
                    add_generation_prompt=True, tokenize=True, return_dict=True, return_tensors="pt")
                inputs = inputs.to(self._model.device)
                with torch.inference_mode():
                    out = self._model.generate(**inputs, do_sample=False,
                                               max_new_tokens=self.max_new_tokens or decision.max_new_tokens)
                new = out[:, inputs["input_ids"].shape[1]:]
                text = self._processor.batch_decode(new, skip_special_tokens=True)[0]
            except (RuntimeError, ValueError, TypeError) as exc:
                raise BackendFailure(f"{self.name}: generation failed: {type(exc).__name__}: {exc}") from exc
        return Reply(text.strip(), time.perf_counter() - started, {"new_tokens": int(new.shape[1])})

    def close(self) -> None:
        self._model = None
        self._processor = None


def _is_vision_language(config) -> bool:
    """Whether transformers maps this config to an image-text-to-text model (else: a causal LM)."""
    from transformers import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING

    return type(config) in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING
