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
from dataclasses import replace
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Optional

from runners.backends.base import (Backend, BackendFailure, Reply, jpeg_data_url, missing_dependency,
                                   wav_base64)
from runners.backends.pool import DEFAULT_COOLDOWN, Attempt, shared_pool, split_urls
from runners.protocols.base import Decision

log = logging.getLogger(__name__)

class OpenAIBackend(Backend):
    """`openai:<model>@<base_url>`. Retries 5xx, 429, timeouts, connection errors and malformed bodies with
    exponential backoff (a 429's Retry-After is honoured, capped at `max_retry_after`); other 4xx fail at once.
    A call that still fails raises BackendFailure (kind http_<status> | timeout | connection), or returns an
    empty Reply with `error` (kind malformed); either way it is a failed call, never a silent reply.

    `base_url` may name several servers of one model (`url1,url2,...`): every attempt goes to the least loaded
    healthy one (at most `concurrency` calls at once each), a server that failed is left out for
    `endpoint_cooldown` seconds and the retry goes to another at once; each attempt is recorded per endpoint."""

    def __init__(self, model: str, base_url: Optional[str] = None, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 60.0, retries: int = 3, backoff: float = 0.5, concurrency: int = 4,
                 max_tokens: Optional[int] = None, temperature: float = 0.0, audio: bool = False,
                 jpeg_quality: int = 85, extra_body: Optional[dict] = None, native_tools: bool = False,
                 max_retry_after: float = 120.0, endpoint_cooldown: float = DEFAULT_COOLDOWN):
        if not model:
            raise ValueError("openai backend: a model name is required (openai:<model>@<base_url>)")
        self.model = model
        self.base_urls = split_urls(base_url) if base_url else [os.environ.get("OPENAI_BASE_URL") or None]
        self.base_url = self.base_urls[0]  # the first server (the one a reachability check asks)
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
        self.max_retry_after = float(max_retry_after)
        # called with (seconds, message) before every retry wait, so progress can say why it stands still
        self.on_wait: Optional[Callable[[float, str], None]] = None
        self.name = f"openai:{model}@{','.join(u or 'default' for u in self.base_urls)}"
        self.pool = shared_pool([u or "default" for u in self.base_urls], max(1, int(concurrency)),
                                 float(endpoint_cooldown))
        self._clients: dict = {}
        self._lock = threading.Lock()

    def _get_client(self, endpoint: str):
        with self._lock:
            if endpoint not in self._clients:
                try:
                    import openai
                except ImportError as exc:
                    raise missing_dependency("the openai backend", "openai", exc) from None
                base_url = None if endpoint == "default" else endpoint
                key = os.environ.get(self.api_key_env) if self.api_key_env else None
                if not key and not base_url:
                    raise ValueError(f"openai backend: set the environment variable {self.api_key_env} "
                                     f"(api_key_env) or give a base_url of a local server")
                self._clients[endpoint] = openai.OpenAI(base_url=base_url, api_key=key or "EMPTY",
                                                        timeout=self.timeout, max_retries=0)
            return self._clients[endpoint]

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

        self._get_client(self.pool.urls[0])  # a missing key or package is refused before any call
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
        last, kind, delay_hint = "", "backend", None
        pooled = len(self.pool.urls) > 1
        tried: list[Attempt] = []

        def attempts() -> tuple:
            return tuple(a.to_json() for a in tried) if pooled else ()

        for attempt in range(self.retries + 1):
            endpoint = self.pool.acquire()
            sent, kind = time.perf_counter(), None
            try:
                resp = self._get_client(endpoint).chat.completions.create(**kwargs)
                reply = self._reply(resp, time.perf_counter() - started)
                if reply.error is None:
                    tried.append(Attempt(endpoint, True, time.perf_counter() - sent))
                    return replace(reply, attempts=attempt + 1, endpoints=attempts())
                last, kind, delay_hint = reply.error, "malformed", None  # a garbled body is worth another try
            except openai.APITimeoutError as exc:
                last, kind, delay_hint = _short(exc), "timeout", None
            except openai.APIConnectionError as exc:
                last, kind, delay_hint = _short(exc), "connection", None
            except openai.APIStatusError as exc:
                last, kind = f"HTTP {exc.status_code} ({_short(exc)})", f"http_{exc.status_code}"
                if exc.status_code < 500 and exc.status_code != 429:
                    tried.append(Attempt(endpoint, False, time.perf_counter() - sent, kind))
                    raise BackendFailure(f"{self.name}: {last}", kind=kind, attempts=attempt + 1,
                                         endpoints=attempts()) from None
                delay_hint = retry_after(exc.response)
            except openai.APIResponseValidationError as exc:
                last, kind, delay_hint = f"malformed reply: {_short(exc)}", "malformed", None
            except (ValueError, json.JSONDecodeError) as exc:
                last, kind, delay_hint = f"malformed reply: {_short(exc)}", "malformed", None
            finally:
                # the server's own failures take it out of the pool for a while; a bad request does not
                self.pool.release(endpoint, ok=kind not in SERVER_FAILURES and not (kind or "").startswith("http_5"))
            tried.append(Attempt(endpoint, False, time.perf_counter() - sent, kind))
            if attempt < self.retries:
                if pooled and self.pool.healthy():  # another server is up: try it now instead of waiting
                    continue
                if delay_hint is not None:
                    delay, why = min(delay_hint, self.max_retry_after), "Retry-After"
                else:
                    delay, why = self.backoff * (2 ** attempt) * (0.75 + 0.5 * random.random()), "backoff"
                log.info("%s: attempt %d failed (%s); retrying in %.2fs", self.name, attempt + 1, kind, delay)
                self._notify_wait(delay, f"{kind}: waiting {delay:.1f} s ({why}) before attempt {attempt + 2}")
                time.sleep(delay)
        if kind == "malformed":  # every attempt came back garbled: a failed call, counted as such
            return Reply("", time.perf_counter() - started, None, last, self.retries + 1, "malformed",
                         attempts())
        raise BackendFailure(f"{self.name}: failed after {self.retries + 1} attempts: {last}", kind=kind,
                             attempts=self.retries + 1, endpoints=attempts())

    def _notify_wait(self, seconds: float, message: str) -> None:
        hook = self.on_wait
        if hook is not None:
            try:
                hook(seconds, message)
            except Exception:  # a progress display never breaks a call
                log.debug("on_wait hook failed", exc_info=True)

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
            for client in self._clients.values():
                try:
                    client.close()
                except Exception:
                    pass
            self._clients.clear()


SERVER_FAILURES = frozenset({"timeout", "connection", "http_429"})  # (and every http_5xx)


def retry_after(response: Any) -> Optional[float]:
    """Seconds a server asked us to wait: `retry-after-ms`, `retry-after` as seconds or as an HTTP date."""
    headers = getattr(response, "headers", None) or {}
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _short(exc: Optional[Exception], n: int = 200) -> str:
    s = str(exc) if exc is not None else ""
    return s if len(s) <= n else s[:n] + "..."
