"""`plugin:<module>:<Class>`: a user's Python class as a backend. The module is a dotted import
path or a .py file. The class takes keyword options and has `respond(decision)` returning a Reply,
a string, or a dict {"text", "raw"?}."""
from __future__ import annotations

import importlib
import importlib.util
import time
from pathlib import Path

from runners.backends.base import Backend, Reply
from runners.protocols.base import Decision


def load_class(module: str, cls: str) -> type:
    """Import `cls` from a dotted module path or a .py file path; errors name the module and class."""
    if module.endswith(".py") or "/" in module:
        path = Path(module)
        if not path.is_file():
            raise ImportError(f"plugin backend: file {module} not found")
        spec = importlib.util.spec_from_file_location(f"ibench_plugin_{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    else:
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(f"plugin backend: cannot import module {module!r} ({exc})") from None
    try:
        return getattr(mod, cls)
    except AttributeError:
        raise ImportError(f"plugin backend: module {module!r} has no class {cls!r}") from None


class PluginBackend(Backend):
    """Adapts a plugin object to the Backend interface (measures latency when the plugin does not)."""

    def __init__(self, obj, name: str):
        if not callable(getattr(obj, "respond", None)):
            raise TypeError(f"plugin backend {name}: the class has no respond(decision) method")
        self.obj = obj
        self.name = name
        self.supports_audio = bool(getattr(obj, "supports_audio", False))

    def respond(self, decision: Decision) -> Reply:
        started = time.perf_counter()
        out = self.obj.respond(decision)
        latency = time.perf_counter() - started
        if isinstance(out, Reply):
            return out
        if isinstance(out, dict):
            return Reply(str(out.get("text") or ""), float(out.get("latency_s", latency)), out.get("raw"))
        return Reply("" if out is None else str(out), latency, out)

    def reset(self) -> None:
        if callable(getattr(self.obj, "reset", None)):
            self.obj.reset()

    def close(self) -> None:
        if callable(getattr(self.obj, "close", None)):
            self.obj.close()


def load_plugin(module: str, cls: str, **options) -> PluginBackend:
    klass = load_class(module, cls)
    return PluginBackend(klass(**options), f"plugin:{module}:{cls}")
