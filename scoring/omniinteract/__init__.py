"""OmniInteract scorer (IA-QTF1, IDS, NCCS) with parity to the reference implementation.

Public API: :func:`evaluate`, :func:`format_table`, :class:`OIConfig`, the judge transport
contract (:data:`Transport`, :class:`JudgeTransportError`, :func:`dry_run_transport`) and the
text-only data-prep truncation :func:`build_precise_chunks`.
"""
from .common import decay, normalize_chunks, parse_time, to_bool
from .config import OIConfig
from .evaluate import evaluate, format_table, score_item
from .judge import (PROMPT_VERSION, JudgeTransportError, Transport, dry_run_transport, parse_core_reply,
                    parse_early_reply, parse_partial_reply)
from .matching import match_chunks
from .slots import build_slots, scene_from_video
from .summary import aggregate, paper_metrics, summarize_sample
from .truncation import build_precise_chunks

__all__ = [
    "OIConfig", "evaluate", "format_table", "score_item", "PROMPT_VERSION", "JudgeTransportError", "Transport",
    "dry_run_transport", "parse_early_reply", "parse_core_reply", "parse_partial_reply", "parse_time", "to_bool",
    "decay", "normalize_chunks", "build_slots", "scene_from_video", "match_chunks", "summarize_sample",
    "aggregate", "paper_metrics", "build_precise_chunks",
]
