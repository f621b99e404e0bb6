"""Verdict cache: the protocol the SQLite store implements, an in-memory cache, keys, and a caching wrapper.

Rows look like `annotation.model.Verdict`: key, judge, prompt_version, score, raw, created."""
from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Protocol, runtime_checkable

from .base import JudgeResult, ResultJudge, score_or_raise


@runtime_checkable
class VerdictCache(Protocol):
    """Where verdicts persist; `get` returns the stored row as a dict or None."""

    def get(self, key: str) -> Optional[dict]: ...

    def put(self, key: str, judge: str, prompt_version: str, score: Optional[float], raw: str) -> None: ...


def verdict_key(judge_name: str, prompt_version: str, *inputs: Any) -> str:
    """sha256 hex of a canonical JSON of (judge, prompt version, inputs); inputs must be JSON values."""
    payload = {"judge": judge_name, "prompt_version": prompt_version, "inputs": list(inputs)}
    try:
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"verdict_key: inputs for judge {judge_name} must be plain JSON values: {exc}") from exc
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MemoryVerdictCache:
    """A thread-safe dict-backed VerdictCache, for tests and one-off runs."""

    def __init__(self) -> None:
        self._rows: Dict[str, dict] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Optional[dict]:
        with self._lock:
            row = self._rows.get(key)
            return dict(row) if row is not None else None

    def put(self, key: str, judge: str, prompt_version: str, score: Optional[float], raw: str) -> None:
        row = {"key": key, "judge": judge, "prompt_version": prompt_version,
               "score": score, "raw": raw, "created": time.time()}
        with self._lock:
            self._rows[key] = row

    def rows(self) -> list:
        """All stored rows (copies), in insertion order."""
        with self._lock:
            return [dict(r) for r in self._rows.values()]

    def __len__(self) -> int:
        return len(self._rows)


@dataclass
class CachingJudge:
    """Wraps a ResultJudge: looks the verdict up before calling, stores it after.

    Unobtainable verdicts are not stored, so a later run asks again."""
    inner: ResultJudge
    cache: VerdictCache
    hits: int = field(default=0, init=False)
    misses: int = field(default=0, init=False)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def prompt_version(self) -> str:
        return self.inner.prompt_version

    def key(self, question: str, gt: str, pred: str) -> str:
        return verdict_key(self.name, self.prompt_version, question, gt, pred)

    def judge(self, question: str, gt: str, pred: str) -> JudgeResult:
        key = self.key(question, gt, pred)
        row = self.cache.get(key)
        if row is not None and row.get("score") is not None:
            self.hits += 1
            return JudgeResult(float(row["score"]), row.get("raw") or "", None)
        self.misses += 1
        result = self.inner.judge(question, gt, pred)
        if result.score is not None:
            self.cache.put(key, self.name, self.prompt_version, result.score, result.raw)
        return result

    def __call__(self, question: str, gt: str, pred: str) -> float:
        return score_or_raise(self.judge(question, gt, pred), self.name)
