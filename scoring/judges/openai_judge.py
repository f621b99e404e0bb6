"""OpenAI-compatible chat judge: a retrying text transport over the `openai` package, and the binary judge on it.

The API key is read from the environment variable NAMED by `api_key_env` when the client is built;
it is never stored on our objects, logged, put in a repr, a judge name or a cache row."""
from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .base import JudgeUnavailable
from .cache import VerdictCache, verdict_key
from .prompts import DEFAULT_PROMPT_VERSION, PromptedJudge

log = logging.getLogger(__name__)

NO_KEY_PLACEHOLDER = "EMPTY"  # local OpenAI-compatible servers (vLLM, SGLang) accept any key
INSTALL_HINT = "pip install openai==3.57.0"


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - openai is a runtime requirement
        raise ImportError(f"the OpenAI judge needs the openai package: {INSTALL_HINT}") from exc
    return openai


@dataclass
class ChatTransport:
    """complete(system, user) -> reply text against an OpenAI-compatible Chat Completions endpoint.

    Retries with exponential backoff on 5xx, timeouts and connection errors (never on 4xx); raises
    JudgeUnavailable when the retries are exhausted or the request is refused."""
    model: str
    base_url: Optional[str] = None
    api_key_env: Optional[str] = None
    timeout: float = 60.0
    max_retries: int = 3
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    temperature: float = 0.0
    max_tokens: int = 512
    extra_body: Optional[dict] = None
    _client: Any = field(default=None, init=False, repr=False, compare=False)
    _lock: Any = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        """Identifies the judge model in cache keys: `openai:<model>@<base_url>` (no key)."""
        return f"openai:{self.model}@{self.base_url or 'api.openai.com'}"

    def _api_key(self) -> str:
        if not self.api_key_env:
            return NO_KEY_PLACEHOLDER
        value = os.environ.get(self.api_key_env)
        if not value:
            raise ValueError(f"judge {self.name}: environment variable {self.api_key_env} is not set; "
                             f"export it with the API key for this endpoint")
        return value

    def client(self) -> Any:
        """The lazily built openai.OpenAI client (our own retries, so the client's are off)."""
        with self._lock:
            if self._client is None:
                openai = _import_openai()
                self._client = openai.OpenAI(api_key=self._api_key(), base_url=self.base_url,
                                             timeout=self.timeout, max_retries=0)
            return self._client

    def _backoff(self, attempt: int) -> float:
        return min(self.backoff_max, self.backoff_base * (2 ** attempt))

    def complete(self, system: str, user: str) -> str:
        """One system + one user message -> `choices[0].message.content` ("" if null)."""
        openai = _import_openai()
        client = self.client()
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        last = "no attempt made"
        for attempt in range(self.max_retries + 1):
            if attempt:
                delay = self._backoff(attempt - 1)
                log.warning("judge %s: %s; retry %d/%d in %.2fs", self.name, last, attempt,
                            self.max_retries, delay)
                time.sleep(delay)
            try:
                resp = client.chat.completions.create(
                    model=self.model, messages=messages, temperature=self.temperature,
                    max_tokens=self.max_tokens, stream=False, extra_body=self.extra_body)
            except openai.APIStatusError as exc:
                if exc.status_code < 500:
                    raise JudgeUnavailable(f"judge {self.name}: HTTP {exc.status_code} from the endpoint "
                                           f"(not retried): {exc.message}") from None
                last = f"HTTP {exc.status_code}"
                continue
            except openai.APITimeoutError:
                last = f"timed out after {self.timeout}s"
                continue
            except openai.APIConnectionError as exc:
                last = f"connection error ({type(exc.__cause__ or exc).__name__})"
                continue
            choices = getattr(resp, "choices", None) or []
            if not choices or getattr(choices[0], "message", None) is None:
                raise JudgeUnavailable(f"judge {self.name}: reply without choices[0].message")
            return choices[0].message.content or ""
        raise JudgeUnavailable(f"judge {self.name}: {last}; gave up after {self.max_retries + 1} attempts")


class OpenAIJudge(PromptedJudge):
    """Binary (question, gt, pred) -> {0, 1} judge on an OpenAI-compatible endpoint, with our strict JSON prompts.

    Calling it returns the float or raises JudgeUnavailable; `.judge()` returns a JudgeResult."""

    def __init__(self, model: str, base_url: Optional[str] = None, api_key_env: Optional[str] = None, *,
                 prompt_version: str = DEFAULT_PROMPT_VERSION, trivial: bool = True,
                 transport: Optional[ChatTransport] = None, **transport_options: Any) -> None:
        self.transport = transport or ChatTransport(model=model, base_url=base_url,
                                                    api_key_env=api_key_env, **transport_options)
        super().__init__(complete=self.transport.complete, name=self.transport.name,
                         prompt_version=prompt_version, trivial=trivial)


RawTransport = Callable[[str, str, str, str, str], str]
"""(stage, sample_id, slot_id, system_prompt, user_prompt) -> raw reply text."""


def make_raw_transport(chat_transport: ChatTransport, cache: Optional[VerdictCache] = None,
                       prompt_version: str = "raw") -> RawTransport:
    """A raw-text transport for prompt-owning judges (OmniInteract); raises JudgeUnavailable on failure.

    With a cache, replies are stored under verdict_key(name, "<prompt_version>:<stage>", system, user)
    with score None, so identical prompts are not sent twice (ids are for logs only)."""

    def transport(stage: str, sample_id: str, slot_id: str, system_prompt: str, user_prompt: str) -> str:
        version = f"{prompt_version}:{stage}"
        key = verdict_key(chat_transport.name, version, system_prompt, user_prompt) if cache is not None else ""
        if cache is not None:
            row = cache.get(key)
            if row is not None and row.get("raw") is not None:
                return row["raw"]
        log.debug("judge %s: stage %s sample %s slot %s", chat_transport.name, stage, sample_id, slot_id)
        reply = chat_transport.complete(system_prompt, user_prompt)
        if cache is not None:
            cache.put(key, chat_transport.name, version, None, reply)
        return reply

    return transport
