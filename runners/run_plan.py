"""A run request made concrete, the same from `python app.py run` and the Runs tab (so a run started in one
resumes from the other): the RunSpec with its resolved data folder, protocol and options, and the loaded backend."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from annotation.loaders import demo_dir
from runners.batch import RunSpec


TUNABLE_PROTOCOLS = ("sliding", "cumulative", "interleaved", "blind")


def resolve_options(protocol: str, options: dict, backend) -> dict:
    """Explicit options win. Without any, a backend's `protocol_hints` (e.g. the motion baseline's denser ticks)
    apply to InteractionBench's polling protocols only; the fixed 1-s protocols keep their paper timing. The
    result is stored with the run, so what was scored is always on record."""
    if options or protocol not in TUNABLE_PROTOCOLS:
        return options
    return dict(getattr(backend, "protocol_hints", {}) or {})


def prepare_run(benchmark: str, model: str, data_dir=None, protocol: Optional[str] = None,
                options: Optional[dict] = None, backend_options: Optional[dict] = None,
                items: Optional[tuple[str, ...]] = None, limit: Optional[int] = None,
                judge: Optional[str] = None, timing: str = "decision", on_error: str = "exclude", load: bool = True):
    """The RunSpec and loaded backend for a run request, the same from the CLI and the Runs tab, so a run
    started in one resumes from the other (the data folder is resolved, the paper protocol is the default).
    load=False: no backend here (None), for a model that loads only on the cluster's workers (hf: with --ray)."""
    from runners.backends import load_backend
    from runners.protocols import DEFAULT_FOR_BENCHMARK
    from runners.protocols.base import TIMINGS
    from runners.run_health import ON_ERROR
    if timing not in TIMINGS:
        raise ValueError(f"--timing must be one of {', '.join(TIMINGS)}, got {timing!r}")
    if on_error not in ON_ERROR:
        raise ValueError(f"--on-error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
    backend_options = dict(backend_options or {})
    backend = load_backend(model, **backend_options) if load else None
    protocol = protocol or DEFAULT_FOR_BENCHMARK[benchmark]
    spec = RunSpec(benchmark=benchmark, model=model,
                   data_dir=str(Path(data_dir).resolve()) if data_dir else str(demo_dir(benchmark)),
                   protocol=protocol, options=resolve_options(protocol, dict(options or {}), backend),
                   items=items, limit=limit, judge=judge, backend_options=backend_options, timing=timing,
                   on_error=on_error)
    return spec, backend
