"""The server-side model registry: the only models a browser can start, chosen by NAME.

An admin lists models in a TOML file (`python app.py --models FILE`): name -> spec and backend
options, plus the base URLs and key-variable names those specs may use (an `openai:` or `realtime:` spec may name
a pool of servers, `url1,url2,...`, each of them listed). A browser sends a name;
it never sends a spec, module, path, URL or environment-variable name (docs/security.md). With
no file the registry holds the weight-free baselines, so the local single user can demo at once.
The CLI (`python app.py run --model SPEC`) is the machine's own user and keeps every spec form."""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

DEFAULT_MODELS = ("baseline:motion", "baseline:silent", "baseline:always", "baseline:periodic:1",
                  "baseline:periodic:2", "baseline:periodic:3", "baseline:periodic:5", "baseline:periodic:10")
_NAME = re.compile(r"^[A-Za-z0-9_.:@+-]{1,80}$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OPTION_TYPES = (str, int, float, bool)
_TOP_KEYS = {"allowed_base_urls", "allowed_key_envs", "models", "judges"}


class UnknownModel(ValueError):
    """A browser asked for a model name the admin did not configure."""


@dataclass(frozen=True)
class ModelEntry:
    name: str
    spec: str
    options: dict = field(default_factory=dict)  # backend constructor options (api_key_env, timeout...)


@dataclass(frozen=True)
class ModelRegistry:
    """Configured models and judges by name; built once at start-up, read-only afterwards."""
    models: dict[str, ModelEntry]
    judges: dict[str, str] = field(default_factory=dict)  # name -> judge spec
    source: str = "built-in baselines"

    @classmethod
    def default(cls) -> "ModelRegistry":
        return cls({n: ModelEntry(n, n) for n in DEFAULT_MODELS})

    @classmethod
    def load(cls, path: str | Path) -> "ModelRegistry":
        """Read and check a registry file; ValueError naming the file and the field that is wrong."""
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"{p}: cannot read the model registry ({exc.strerror or exc})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{p}: not valid TOML ({exc})") from None
        return cls.from_dict(data, str(p))

    @classmethod
    def from_dict(cls, data: dict, source: str = "registry") -> "ModelRegistry":
        unknown = set(data) - _TOP_KEYS
        if unknown:
            raise ValueError(f"{source}: unknown key(s) {', '.join(sorted(unknown))}; "
                             f"expected {', '.join(sorted(_TOP_KEYS))}")
        urls = data.get("allowed_base_urls", [])
        envs = data.get("allowed_key_envs", [])
        if not isinstance(urls, list) or not all(isinstance(u, str) and re.match(r"^(https?|wss?)://", u) for u in urls):
            raise ValueError(f"{source}: allowed_base_urls must be a list of http(s) or ws(s) URLs")
        if not isinstance(envs, list) or not all(isinstance(e, str) and _ENV.match(e) for e in envs):
            raise ValueError(f"{source}: allowed_key_envs must be a list of environment-variable names")
        allowed_urls = {u.rstrip("/") for u in urls}
        models: dict[str, ModelEntry] = {}
        table = data.get("models", {})
        if not isinstance(table, dict) or not table:
            raise ValueError(f"{source}: [models] must name at least one model (name -> spec)")
        for name, body in table.items():
            where = f"{source}: models.{name}"
            if not _NAME.match(name):
                raise ValueError(f"{where}: a model name is 1-80 letters, digits or _ . : @ + -")
            if isinstance(body, str):
                body = {"spec": body}
            if not isinstance(body, dict) or not isinstance(body.get("spec"), str) or set(body) - {"spec", "options"}:
                raise ValueError(f"{where}: expected a spec string or a table with 'spec' and 'options'")
            options = body.get("options", {})
            if not isinstance(options, dict) or not all(isinstance(v, _OPTION_TYPES) for v in options.values()):
                raise ValueError(f"{where}.options: a table of plain values")
            spec = body["spec"].strip()
            _check_spec(where, spec, options, allowed_urls, set(envs))
            opts = dict(options)
            if spec.startswith("openai:") and "api_key_env" not in opts:
                opts["api_key_env"] = None  # no variable named: send no key (never the backend's $OPENAI_API_KEY)
            models[name] = ModelEntry(name, spec, opts)
        judges: dict[str, str] = {}
        jt = data.get("judges", {})
        if not isinstance(jt, dict):
            raise ValueError(f"{source}: [judges] must be a table name -> judge spec")
        for name, spec in jt.items():
            where = f"{source}: judges.{name}"
            if not _NAME.match(name) or not isinstance(spec, str):
                raise ValueError(f"{where}: expected name = \"judge spec\"")
            _check_judge(where, spec.strip(), allowed_urls, set(envs))
            judges[name] = spec.strip()
        return cls(models, judges, source)

    # ---- lookups (the browser's side: names only)
    def names(self) -> list[str]:
        return list(self.models)

    def judge_names(self) -> list[str]:
        return list(self.judges)

    def resolve(self, name: Any) -> ModelEntry:
        """The configured model called `name`; UnknownModel for anything else (a spec is not a name)."""
        if isinstance(name, str) and name.strip() in self.models:
            return self.models[name.strip()]
        shown = str(name)[:80] if isinstance(name, (str, int, float)) else type(name).__name__
        raise UnknownModel(f"Model {shown!r} is not one of the models configured on this server "
                           f"({', '.join(self.names())}); an admin adds models with --models FILE.")

    def resolve_judge(self, name: Any) -> Optional[str]:
        """The judge spec configured as `name`; None for "" (the benchmark's reference default)."""
        if name in (None, ""):
            return None
        if isinstance(name, str) and name.strip() in self.judges:
            return self.judges[name.strip()]
        shown = str(name)[:80] if isinstance(name, (str, int, float)) else type(name).__name__
        raise UnknownModel(f"Judge {shown!r} is not configured on this server; choose one of: "
                           f"{', '.join(self.judge_names()) or '(none: leave it empty for the reference default)'}.")

    def options_for_spec(self, spec: str) -> dict:
        """Backend options of the entry with this spec (live sessions store the spec as their responder)."""
        for e in self.models.values():
            if e.spec == spec:
                return dict(e.options)
        return {}


def _check_spec(where: str, spec: str, options: dict, urls: set[str], envs: set[str]) -> None:
    kind = spec.partition(":")[0]
    if kind not in ("baseline", "openai", "hf", "plugin", "realtime"):
        raise ValueError(f"{where}: spec {spec!r} must start with baseline:, openai:, hf:, plugin: or realtime:")
    if kind in ("openai", "realtime"):  # one URL or a pool (url1,url2,...): every one must be listed
        from runners.backends.pool import check_urls, split_urls
        rest = spec[len(kind) + 1:]
        at, base = ("@", rest) if kind == "realtime" else rest.rpartition("@")[1:]
        pool = split_urls(base) if at else []
        what = "realtime URL" if kind == "realtime" else "base URL"
        for url in pool or [""]:  # the whole realtime URL (query included) is listed: a realtime model is a URL
            if not url or url.rstrip("/") not in urls:
                raise ValueError(f"{where}: {what} {url or '(none)'!r} is not in allowed_base_urls")
        why = check_urls(kind, pool)
        if why:
            raise ValueError(f"{where}: {why}")
    env = options.get("api_key_env")
    if env is not None and (not isinstance(env, str) or env not in envs):
        raise ValueError(f"{where}.options.api_key_env: {env!r} is not in allowed_key_envs")


def _check_judge(where: str, spec: str, urls: set[str], envs: set[str]) -> None:
    from scoring.judges import parse_judge_spec
    try:
        js = parse_judge_spec(spec)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    if js.kind == "openai":
        if not js.base_url or js.base_url.rstrip("/") not in urls:
            raise ValueError(f"{where}: base URL {js.base_url or '(hosted API)'!r} is not in allowed_base_urls")
        if js.key_env and js.key_env not in envs:
            raise ValueError(f"{where}: key_env {js.key_env!r} is not in allowed_key_envs")
