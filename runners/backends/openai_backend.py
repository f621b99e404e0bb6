"""OpenAI-compatible chat backend (vLLM, SGLang, hosted APIs) through the `openai` package.

Frames go as base64 JPEG data URLs; audio parts as `input_audio` when `audio=True`. The API key is
read from the environment variable NAMED by `api_key_env` and is never logged or stored."""
from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from typing import Any, Optional

from runners.backends.base import (Backend, BackendFailure, Reply, jpeg_data_url, missing_dependency,
                                   wav_base64)
from runners.protocols.base import Decision

log = logging.getLogger(__name__)

_SEMAPHORES: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_SEM_LOCK = threading.Lock()


def _shared_semaphore(base_url: str, limit: int) -> threading.BoundedSemaphore:
    """One concurrency limit per server URL, shared by every backend instance in the process."""
    with _SEM_LOCK:
        key = (base_url, limit)
        if key not in _SEMAPHORES:
            _SEMAPHORES[key] = threading.BoundedSemaphore(limit)
        return _SEMAPHORES[key]


class OpenAIBackend(Backend):
    """`openai:<model>@<base_url>`. Retries 5xx, 429, timeouts and connection errors with exponential
    backoff; 4xx other than 429 fail at once; malformed replies become an empty Reply with `error`."""

    def __init__(self, model: str, base_url: Optional[str] = None, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 60.0, retries: int = 3, backoff: float = 0.5, concurrency: int = 4,
                 max_tokens: Optional[int] = None, temperature: float = 0.0, audio: bool = False,
                 jpeg_quality: int = 85, extra_body: Optional[dict] = None, native_tools: bool = False):
        if not model:
            raise ValueError("openai backend: a model name is required (openai:<model>@<base_url>)")
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.supports_audio = bool(audio)
        self.jpeg_quality = jpeg_quality
        self.extra_body = extra_body
        self.native_tools = native_tools
        self.name = f"openai:{model}@{self.base_url or 'default'}"
        self._sem = _shared_semaphore(self.base_url or "default", max(1, int(concurrency)))
        self._client = None
        self._lock = threading.Lock()

    def _get_client(self):
        with self._lock:
            if self._client is None:
                try:
                    import openai
                except ImportError as exc:
                    raise missing_dependency("the openai backend", "openai", exc) from None
                key = os.environ.get(self.api_key_env) if self.api_key_env else None
                if not key and not self.base_url:
                    raise ValueError(f"openai backend: set the environment variable {self.api_key_env} "
                                     f"(api_key_env) or give a base_url of a local server")
                self._client = openai.OpenAI(base_url=self.base_url, api_key=key or "EMPTY",
                                             timeout=self.timeout, max_retries=0)
            return self._client

    # -- rendering ----------------------------------------------------------------------------
    def render(self, decision: Decision) -> list[dict]:
        """The Decision's chat in OpenAI wire format (images as data URLs)."""
        out = []
        for m in decision.messages:
            parts = []
            for p in m["content"]:
                kind = p.get("type")
                if kind == "text":
                    parts.append({"type": "text", "text": p["text"]})
                elif kind == "image":
                    parts.append({"type": "image_url",
                                  "image_url": {"url": jpeg_data_url(p["frame"].image, self.jpeg_quality)}})
                elif kind == "audio" and self.supports_audio:
                    parts.append({"type": "input_audio",
                                  "input_audio": {"data": wav_base64(p["chunk"]), "format": "wav"}})
            if m["role"] != "user" and all(p["type"] == "text" for p in parts):
                out.append({"role": m["role"], "content": "\n".join(p["text"] for p in parts)})
            else:
                out.append({"role": m["role"], "content": parts})
        return out

    # -- calling ------------------------------------------------------------------------------
    def respond(self, decision: Decision) -> Reply:
        import openai

        client = self._get_client()
        kwargs: dict[str, Any] = {"model": self.model, "messages": self.render(decision),
                                  "temperature": self.temperature,
                                  "max_tokens": self.max_tokens or decision.max_new_tokens}
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        if self.native_tools and decision.tools:
            kwargs["tools"] = [{"type": "function", "function": {
                "name": t["name"], "description": t.get("description", ""),
                "parameters": t.get("parameters") or {"type": "object", "properties": {}}}} for t in decision.tools]
        started = time.perf_counter()
        last: Optional[Exception] = None
        for attempt in range(self.retries + 1):
            try:
                with self._sem:
                    resp = client.chat.completions.create(**kwargs)
                return self._reply(resp, time.perf_counter() - started)
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                last = exc
            except openai.RateLimitError as exc:
                last = exc
            except openai.APIStatusError as exc:
                if exc.status_code < 500:
                    raise BackendFailure(f"{self.name}: HTTP {exc.status_code} ({_short(exc)})") from None
                last = exc
            except openai.APIResponseValidationError as exc:
                return Reply("", time.perf_counter() - started, None, f"malformed reply: {_short(exc)}")
            except (ValueError, json.JSONDecodeError) as exc:
                return Reply("", time.perf_counter() - started, None, f"malformed reply: {_short(exc)}")
            if attempt < self.retries:
                delay = self.backoff * (2 ** attempt) * (0.75 + 0.5 * random.random())
                log.info("%s: attempt %d failed (%s); retrying in %.2fs", self.name, attempt + 1,
                         type(last).__name__, delay)
                time.sleep(delay)
        raise BackendFailure(f"{self.name}: failed after {self.retries + 1} attempts: "
                             f"{type(last).__name__}: {_short(last)}")

    def _reply(self, resp: Any, latency: float) -> Reply:
        """Text from a completion; anything that is not a well-formed completion is a malformed reply."""
        try:
            if isinstance(resp, (str, bytes)):
                raise ValueError("body is not a chat completion")
            choice = resp.choices[0]
            message = choice.message
            text = message.content if isinstance(message.content, str) else ""
            calls = getattr(message, "tool_calls", None) or []
            if calls:  # native tool calls become the JSON line parse_tool_call reads
                fn = calls[0].function
                try:
                    args = json.loads(fn.arguments or "{}")
                except ValueError:
                    args = {"raw": fn.arguments}
                text = json.dumps({"tool": fn.name, "args": args}, ensure_ascii=False)
            raw = resp.model_dump() if hasattr(resp, "model_dump") else None
            if message.content is None and not calls:
                return Reply("", latency, raw, "malformed reply: message has no content")
            return Reply(text, latency, raw)
        except (AttributeError, IndexError, TypeError, ValueError) as exc:
            return Reply("", latency, None, f"malformed reply: {type(exc).__name__}: {exc}")

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                try:
                    self._client.close()
                except Exception:
                    pass
                self._client = None


def _short(exc: Optional[Exception], n: int = 200) -> str:
    s = str(exc) if exc is not None else ""
    return s if len(s) <= n else s[:n] + "..."
