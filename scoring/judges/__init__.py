"""Judge backends shared by the scorers: result type, verdict cache, OpenAI-compatible, transformers and
semantic judges, and judge spec parsing. Nothing here imports openai, torch or transformers at import time,
and each submodule is imported only when one of its names is first used (module __getattr__), so a scorer
that needs only `base` does not pay for the HTTP, prompt and cache modules."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_WHERE = {
    "base": ("JudgeResult", "JudgeTally", "JudgeUnavailable", "ResultJudge", "score_or_raise", "tally",
             "trivial_verdict"),
    "cache": ("CachingJudge", "MemoryVerdictCache", "VerdictCache", "verdict_key"),
    "openai_judge": ("ChatTransport", "OpenAIJudge", "make_raw_transport"),
    "prompts": ("DEFAULT_PROMPT_VERSION", "PROMPTS", "JudgeStats", "PromptedJudge", "PromptSpec", "build_prompt",
                "parse_verdict"),
    "semantic": ("SemanticJudge",),
    "spec": ("JudgeSpec", "build_judge", "parse_judge_spec"),
    "transformers_judge": ("TransformersJudge", "TransformersTransport"),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [name for names in _WHERE.values() for name in names]


def __getattr__(name: str) -> Any:
    """`from scoring.judges import X` imports X's submodule on first use and keeps X here."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and editors
    from .base import (JudgeResult, JudgeTally, JudgeUnavailable, ResultJudge, score_or_raise, tally,  # noqa: F401
                       trivial_verdict)
    from .cache import CachingJudge, MemoryVerdictCache, VerdictCache, verdict_key  # noqa: F401
    from .openai_judge import ChatTransport, OpenAIJudge, make_raw_transport  # noqa: F401
    from .prompts import (DEFAULT_PROMPT_VERSION, PROMPTS, JudgeStats, PromptedJudge, PromptSpec,  # noqa: F401
                          build_prompt, parse_verdict)
    from .semantic import SemanticJudge  # noqa: F401
    from .spec import JudgeSpec, build_judge, parse_judge_spec  # noqa: F401
    from .transformers_judge import TransformersJudge, TransformersTransport  # noqa: F401
