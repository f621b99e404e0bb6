"""Local transformers VLM backend: AutoProcessor + AutoModelForImageTextToText, the model's own chat
template with {"type": "image", "image": PIL} parts, greedy decoding. Works for LLaVA-style models
and Qwen2/2.5-VL (which need torchvision)."""
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
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load processor and model (once); errors name the package to install."""
        if self._model is not None:
            return
        try:
            import torch
            from transformers import AutoModelForImageTextToText, AutoProcessor
        except ImportError as exc:
            raise missing_dependency("the hf backend", "torch transformers torchvision pillow", exc) from None
        import os

        local = self.local_files_only
        if local is None:
            local = os.path.isdir(self.path)
        kw = {"trust_remote_code": self.trust_remote_code, "local_files_only": local}
        try:
            self._processor = AutoProcessor.from_pretrained(self.path, **kw)
        except ImportError as exc:
            raise missing_dependency(f"the processor of {self.path}", "torchvision", exc) from None
        dtype = "auto" if self.dtype == "auto" else getattr(torch, self.dtype)
        model = AutoModelForImageTextToText.from_pretrained(self.path, dtype=dtype, **kw)
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

    def respond(self, decision: Decision) -> Reply:
        self.load()
        import torch

        started = time.perf_counter()
        with self._lock:
            try:
                inputs = self._processor.apply_chat_template(
                    self.render(decision), add_generation_prompt=True, tokenize=True, return_dict=True,
                    return_tensors="pt")
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
