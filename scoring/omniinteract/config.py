"""OIConfig: the reference scorer's knobs plus the opt-in ``fixed`` flag."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence


@dataclass(frozen=True)
class OIConfig:
    """Scoring settings; defaults reproduce the reference run (`run_eval.py` defaults).

    ``fixed=True`` opts into corrections of known reference bugs (see docs/scoring.md).
    """

    last_slot_tail_sec: float = 60.0
    w_ack: float = 0.2
    decay_alpha: float = 1.0
    decay_gamma: float = 1.0
    core_quality_threshold: float = 0.5
    partial_quality_threshold: float = 0.5
    count_unmatched_as_fp: bool = True
    model_json_name: Optional[str] = None
    no_interrupted_output_eval: bool = False
    limit: int = 0
    fixed: bool = False

    @classmethod
    def from_cli_args(cls, args: Sequence[str], base: Optional["OIConfig"] = None) -> "OIConfig":
        """Apply reference CLI flags (e.g. ``["--w_ack", "0.3", "--no_unmatched_fp"]``) to a config."""
        cfg = base or cls()
        floats = {
            "--last_slot_tail_sec": "last_slot_tail_sec",
            "--w_ack": "w_ack",
            "--decay_alpha": "decay_alpha",
            "--decay_gamma": "decay_gamma",
            "--core_quality_threshold": "core_quality_threshold",
            "--partial_quality_threshold": "partial_quality_threshold",
        }
        # Flags that do not change any number (transport, scheduling, resuming).
        ignored_with_value = {"--judge_api_url", "--judge_api_model", "--judge_api_key",
                              "--judge_api_timeout_sec", "--judge_max_tokens", "--judge_temperature",
                              "--num_workers", "--out_dir", "--output_root", "--batch_summary_json"}
        ignored_flags = {"--skip_existing"}
        items = list(args)
        i = 0
        while i < len(items):
            raw = str(items[i])
            name, eq, inline = raw.partition("=")

            def value() -> str:
                nonlocal i
                if eq:
                    return inline
                if i + 1 >= len(items):
                    raise ValueError(f"OmniInteract option {name} needs a value")
                i += 1
                return str(items[i])

            if name in floats:
                cfg = replace(cfg, **{floats[name]: float(value())})
            elif name == "--model_json_name":
                cfg = replace(cfg, model_json_name=value() or None)
            elif name == "--limit":
                cfg = replace(cfg, limit=int(value()))
            elif name == "--no_unmatched_fp":
                cfg = replace(cfg, count_unmatched_as_fp=False)
            elif name == "--no_interrupted_output_eval":
                cfg = replace(cfg, no_interrupted_output_eval=True)
            elif name in ignored_with_value:
                value()
            elif name in ignored_flags:
                pass
            else:
                raise ValueError(
                    f"OmniInteract option {raw!r} is not supported; known: "
                    + ", ".join(sorted([*floats, "--model_json_name", "--limit", "--no_unmatched_fp",
                                        "--no_interrupted_output_eval"]))
                )
            i += 1
        return cfg
