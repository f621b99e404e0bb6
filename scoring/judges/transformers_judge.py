"""Local transformers causal-LM judge: chat template, greedy decoding, the same prompts and parser as the OpenAI judge.

torch and transformers are imported only when the model is first loaded."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Optional

from .base import JudgeUnavailable
from .prompts import DEFAULT_PROMPT_VERSION, PromptedJudge

INSTALL_HINT = "pip install transformers==5.24.0 torch"


def _import_transformers() -> Any:
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError as exc:
        raise ImportError(f"the transformers judge needs torch and transformers: {INSTALL_HINT}") from exc
    return transformers


@dataclass
class TransformersTransport:
    """complete(system, user) -> greedy reply of a local causal LM loaded from `model_path`."""
    model_path: str
    max_new_tokens: int = 512
    device: str = "cpu"
    enable_thinking: bool = False
    _tok: Any = field(default=None, init=False, repr=False, compare=False)
    _model: Any = field(default=None, init=False, repr=False, compare=False)
    _lock: Any = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return f"hf:{self.model_path}"

    def load(self) -> None:
        """Load tokenizer and model once (thread-safe); a bad path raises naming the path."""
        if self._model is not None:
            return
        transformers = _import_transformers()
        try:
            tok = transformers.AutoTokenizer.from_pretrained(self.model_path)
            model = transformers.AutoModelForCausalLM.from_pretrained(self.model_path)
        except (OSError, ValueError) as exc:
            raise ValueError(f"judge {self.name}: cannot load a causal LM from {self.model_path!r}: {exc}") from exc
        model.to(self.device).eval()
        if getattr(tok, "chat_template", None) is None:
            raise ValueError(f"judge {self.name}: the tokenizer in {self.model_path!r} has no chat_template")
        self._tok, self._model = tok, model

    def complete(self, system: str, user: str) -> str:
        import torch

        with self._lock:
            self.load()
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            try:
                inputs = self._tok.apply_chat_template(
                    messages, add_generation_prompt=True, tokenize=True, return_dict=True,
                    return_tensors="pt", enable_thinking=self.enable_thinking).to(self.device)
                pad = self._tok.pad_token_id if self._tok.pad_token_id is not None else self._tok.eos_token_id
                with torch.no_grad():
                    out = self._model.generate(**inputs, max_new_tokens=self.max_new_tokens,
                                               do_sample=False, pad_token_id=pad)
            except RuntimeError as exc:  # e.g. out of memory, context too long
                raise JudgeUnavailable(f"judge {self.name}: generation failed: {exc}") from exc
            new = out[0, inputs["input_ids"].shape[1]:]
            return self._tok.decode(new, skip_special_tokens=True)


class TransformersJudge(PromptedJudge):
    """Binary (question, gt, pred) judge on a local causal LM; same prompts, parsing and re-ask as OpenAIJudge."""

    def __init__(self, model_path: str, *, prompt_version: str = DEFAULT_PROMPT_VERSION, trivial: bool = True,
                 transport: Optional[TransformersTransport] = None, **transport_options: Any) -> None:
        self.transport = transport or TransformersTransport(model_path=model_path, **transport_options)
        super().__init__(complete=self.transport.complete, name=self.transport.name,
                         prompt_version=prompt_version, trivial=trivial)
