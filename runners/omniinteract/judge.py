"""OmniInteract's judge transport from a judge spec: the reference's dry run, stored replies or an LLM."""
from __future__ import annotations

from typing import Optional


def transport(spec: Optional[str], store=None):
    """The OmniInteract judge transport for a spec; no spec gives the reference's dry run (neutral / 0)."""
    from scoring.omniinteract.judge import dry_run_transport
    if not spec:
        return dry_run_transport
    if spec.startswith("replay:"):
        from scoring.omniinteract.replay import ReplayTransport
        return ReplayTransport.from_file(spec[len("replay:"):])
    from scoring.judges import ChatTransport, make_raw_transport, parse_judge_spec
    js = parse_judge_spec(spec)
    if js.kind != "openai":
        raise ValueError(f"OmniInteract needs an LLM judge (openai:<model>@<base_url>) or stored replies "
                         f"(replay:<file.json>); got {spec!r}")
    return make_raw_transport(ChatTransport(js.model, base_url=js.base_url, api_key_env=js.key_env), cache=store)
