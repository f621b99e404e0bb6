"""Judge spec strings -> a tagged `JudgeSpec`, and building the model-backed judges from one.

Grammar: `lexical` | `openai:<model>[@<base_url>][?key_env=NAME&timeout=S&retries=N&max_tokens=N&prompt=V]`
| `hf:<path>[?max_new_tokens=N&prompt=V]` | `semantic[:<path>][?threshold=T]` | `cache:<rest>` | `ensemble:<rest>`.
`cache:` and `ensemble:` are passed through verbatim for the InteractionBench stored-verdict judges."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, Optional
from urllib.parse import parse_qsl

KINDS = ("lexical", "openai", "hf", "semantic", "cache", "ensemble")
_OPTIONS = {
    "openai": {"key_env", "timeout", "retries", "max_tokens", "prompt"},
    "hf": {"max_new_tokens", "prompt"},
    "semantic": {"threshold"},
}
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class JudgeSpec:
    """A parsed judge spec: `kind` tags which other fields are meaningful; `text` is the original string."""
    kind: str
    text: str
    model: Optional[str] = None      # openai
    base_url: Optional[str] = None   # openai; None = api.openai.com
    key_env: Optional[str] = None    # openai; the NAME of the env var holding the key
    path: Optional[str] = None       # hf, semantic
    arg: Optional[str] = None        # cache, ensemble: everything after the colon, verbatim
    options: Dict[str, str] = field(default_factory=dict)


def _split_options(kind: str, body: str, text: str) -> tuple:
    head, sep, query = body.partition("?")
    opts: Dict[str, str] = {}
    if sep:
        for k, v in parse_qsl(query, keep_blank_values=True, strict_parsing=False):
            if k not in _OPTIONS.get(kind, set()):
                raise ValueError(f"judge spec {text!r}: unknown option {k!r} for {kind}; "
                                 f"allowed: {', '.join(sorted(_OPTIONS.get(kind, ()))) or 'none'}")
            opts[k] = v
    return head, opts


def parse_judge_spec(spec: str) -> JudgeSpec:
    """Parse a judge spec string; raises ValueError naming the spec and the expected form."""
    text = (spec or "").strip()
    kind, colon, body = text.partition(":")
    kind = kind.strip().lower()
    if kind == "lexical":
        if colon:
            raise ValueError(f"judge spec {text!r}: 'lexical' takes no argument")
        return JudgeSpec("lexical", text)
    if kind in ("cache", "ensemble"):
        if not body.strip():
            raise ValueError(f"judge spec {text!r}: expected {kind}:<argument>")
        return JudgeSpec(kind, text, arg=body)
    if kind == "openai":
        head, opts = _split_options(kind, body, text)
        model, at, base_url = head.partition("@")
        if not model.strip():
            raise ValueError(f"judge spec {text!r}: expected openai:<model>@<base_url>[?key_env=NAME]")
        if at and not re.match(r"^https?://", base_url):
            raise ValueError(f"judge spec {text!r}: base URL {base_url!r} must start with http:// or https://")
        key_env = opts.pop("key_env", None)
        if key_env is not None and not _ENV_NAME.match(key_env):
            raise ValueError(f"judge spec {text!r}: key_env must be an environment variable NAME, "
                             f"not {key_env!r} (never put the key itself in a spec)")
        if key_env is None and not at:
            key_env = "OPENAI_API_KEY"  # the hosted API always needs a key
        return JudgeSpec("openai", text, model=model.strip(), base_url=base_url or None,
                         key_env=key_env, options=opts)
    if kind == "hf":
        head, opts = _split_options(kind, body, text)
        if not head.strip():
            raise ValueError(f"judge spec {text!r}: expected hf:<model dir>")
        return JudgeSpec("hf", text, path=head.strip(), options=opts)
    if text.lower().startswith("semantic") and text[8:9] in ("", ":", "?"):
        rest = text[8:]
        head, opts = _split_options("semantic", rest[1:] if rest.startswith(":") else rest, text)
        return JudgeSpec("semantic", text, path=head.strip() or None, options=opts)
    raise ValueError(f"judge spec {text!r}: unknown kind {kind!r}; expected one of "
                     "lexical, openai:<model>@<base_url>, hf:<path>, semantic[:<path>], cache:..., ensemble:...")


def _num(spec: JudgeSpec, key: str, conv: Any) -> Dict[str, Any]:
    if key not in spec.options:
        return {}
    try:
        return {key: conv(spec.options[key])}
    except ValueError:
        raise ValueError(f"judge spec {spec.text!r}: option {key}={spec.options[key]!r} is not a number") from None


def build_judge(spec: "JudgeSpec | str", cache: Any = None, prompt_version: Optional[str] = None) -> Any:
    """Build an openai/hf/semantic judge (wrapped in CachingJudge when a cache is given).

    `lexical`, `cache:` and `ensemble:` are built by the InteractionBench scorer; asking here raises ValueError."""
    from .cache import CachingJudge
    from .prompts import DEFAULT_PROMPT_VERSION

    s = parse_judge_spec(spec) if isinstance(spec, str) else spec
    version = s.options.get("prompt") or prompt_version or DEFAULT_PROMPT_VERSION
    if s.kind == "openai":
        from .openai_judge import OpenAIJudge
        kw: Dict[str, Any] = {}
        kw.update(_num(s, "timeout", float))
        kw.update({"max_retries": v for v in _num(s, "retries", int).values()})
        kw.update(_num(s, "max_tokens", int))
        judge: Any = OpenAIJudge(s.model or "", s.base_url, s.key_env, prompt_version=version, **kw)
    elif s.kind == "hf":
        from .transformers_judge import TransformersJudge
        judge = TransformersJudge(s.path or "", prompt_version=version, **_num(s, "max_new_tokens", int))
    elif s.kind == "semantic":
        from .semantic import SemanticJudge
        judge = SemanticJudge(model_path=s.path, **_num(s, "threshold", float))
    else:
        raise ValueError(f"judge spec {s.text!r}: {s.kind} judges are built by the InteractionBench scorer")
    return CachingJudge(judge, cache) if cache is not None else judge
