"""Judge backends shared by the scorers: result type, verdict cache, OpenAI-compatible, transformers and
semantic judges, and judge spec parsing. Nothing here imports openai, torch or transformers at import time."""
from .base import JudgeResult, JudgeTally, JudgeUnavailable, ResultJudge, score_or_raise, tally, trivial_verdict
from .cache import CachingJudge, MemoryVerdictCache, VerdictCache, verdict_key
from .openai_judge import ChatTransport, OpenAIJudge, make_raw_transport
from .prompts import (DEFAULT_PROMPT_VERSION, PROMPTS, JudgeStats, PromptedJudge, PromptSpec, build_prompt,
                      parse_verdict)
from .semantic import SemanticJudge
from .spec import JudgeSpec, build_judge, parse_judge_spec
from .transformers_judge import TransformersJudge, TransformersTransport

__all__ = [
    "JudgeResult", "JudgeTally", "JudgeUnavailable", "ResultJudge", "score_or_raise", "tally", "trivial_verdict",
    "CachingJudge", "MemoryVerdictCache", "VerdictCache", "verdict_key",
    "ChatTransport", "OpenAIJudge", "make_raw_transport",
    "DEFAULT_PROMPT_VERSION", "PROMPTS", "JudgeStats", "PromptedJudge", "PromptSpec", "build_prompt", "parse_verdict",
    "SemanticJudge", "JudgeSpec", "build_judge", "parse_judge_spec",
    "TransformersJudge", "TransformersTransport",
]
