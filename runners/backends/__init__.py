"""Model backends behind one interface (`respond(decision) -> Reply`) and `load_backend(spec)`.

Specs: `openai:<model>@<base_url>`, `realtime:<ws url>`, `hf:<path>`, `plugin:<module>:<Class>`,
`baseline:silent|always|periodic[:N]|motion`. An `openai:` or `realtime:` spec may name several servers of one
model, comma-separated (runners.backends.pool). Heavy packages are imported only when used."""
from __future__ import annotations

from runners.backends.base import Backend, BackendFailure, BackendUnavailable, Reply

# what a Ray worker asks the cluster's scheduler for (`--backend-option num_gpus=1`), not a backend's own option
RESOURCE_OPTIONS = frozenset({"num_cpus", "num_gpus"})


def load_backend(spec: str, **options) -> Backend:
    """Build a backend from its spec string; `options` go to its constructor (e.g. api_key_env,
    timeout, retries, concurrency, audio for openai; device, dtype for hf), resource requests left out."""
    options = {k: v for k, v in options.items() if k not in RESOURCE_OPTIONS}
    kind, _, rest = (spec or "").partition(":")
    if kind == "openai":
        model, sep, base_url = rest.rpartition("@")
        if not sep:
            model, base_url = rest, None
        from runners.backends.openai_backend import OpenAIBackend

        return OpenAIBackend(model, base_url or None, **options)
    if kind == "realtime":  # a duplex model over the OpenAI Realtime WebSocket protocol (streamed, not polled)
        from runners.backends.realtime import RealtimeBackend

        return RealtimeBackend(rest, **options)
    if kind == "hf":
        from runners.backends.hf_backend import HFBackend

        return HFBackend(rest, **options)
    if kind == "plugin":
        module, sep, cls = rest.rpartition(":")
        if not sep or not module or not cls:
            raise ValueError(f"plugin spec must be plugin:<module>:<Class>, got {spec!r}")
        from runners.backends.plugin import load_plugin

        return load_plugin(module, cls, **options)
    if kind == "baseline":
        name, _, arg = rest.partition(":")
        from runners.backends.baselines import make_baseline

        return make_baseline(name, arg or None, **options)
    raise ValueError(f"unknown backend spec {spec!r}; use openai:<model>@<base_url>, realtime:<ws url>, hf:<path>, "
                     f"plugin:<module>:<Class> or baseline:<silent|always|periodic[:N]|motion>")


__all__ = ["Backend", "BackendFailure", "BackendUnavailable", "RESOURCE_OPTIONS", "Reply", "load_backend"]
