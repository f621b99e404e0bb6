"""What happened during a run, beside its score: calls, retries, failures by kind, skipped ticks, latency,
format compliance, and which items the --on-error policy left out. Read from the stored per-item results,
so a resumed run reports the same counts as an uninterrupted one."""
from __future__ import annotations

from collections import Counter
from typing import Optional

import numpy as np

ON_ERROR = ("exclude", "silence", "fail")
COMPLIANCE_THRESHOLD = 0.9


class RunFailed(RuntimeError):
    """A run that cannot give a score under its policy; the message is one line for the user."""


def error_ticks(trace) -> list[dict]:
    """The ticks whose model call failed, with the failure's kind ([{"t", "kind"}])."""
    return [{"t": c.t, "kind": c.error_kind} for c in trace.calls if c.status == "error"]


def call_counts(trace) -> dict:
    """The per-item counts a run's health is built from (stored with each run item)."""
    n_ok = sum(1 for c in trace.calls if c.status == "ok")
    return {"timing": trace.timing, "n_polls": trace.n_polls, "n_ok": n_ok, "n_errors": trace.n_errors,
            "errors_by_kind": trace.errors_by_kind(), "error_ticks": error_ticks(trace),
            "n_retries": trace.n_retries, "n_reused": trace.n_reused, "skipped_ticks": trace.skipped_ticks,
            "n_compliant": trace.n_compliant, "compliance": round(trace.n_compliant / n_ok, 4) if n_ok else None,
            "latencies": [round(x, 4) for x in trace.poll_latencies],
            **({"endpoints": endpoint_counts(a for c in trace.calls for a in c.endpoints)}
               if any(c.endpoints for c in trace.calls) else {})}


def endpoint_counts(attempts) -> dict:
    """Per endpoint of a pool, from [url, ok, latency_s, kind] attempts: attempts, failures by kind and latencies
    (a replayed call keeps its attempts, so a resumed item counts as an uninterrupted one)."""
    out: dict = {}
    for url, ok, latency, kind in attempts:
        e = out.setdefault(url, {"attempts": 0, "errors": 0, "errors_by_kind": {}, "latencies": []})
        e["attempts"] += 1
        e["latencies"].append(round(float(latency), 4))
        if not ok:
            e["errors"] += 1
            e["errors_by_kind"][kind or "backend"] = e["errors_by_kind"].get(kind or "backend", 0) + 1
    return out


def item_has_errors(result: dict) -> bool:
    return bool(result.get("n_errors") or result.get("failed"))


def scored_items(item_ids: list[str], results: dict, on_error: str) -> tuple[list[str], list[str]]:
    """(ids scored, ids excluded) under the policy: `exclude` leaves out every item with a failed call,
    `silence` scores failed calls as silence, `fail` refuses to score a run that has any failed call."""
    if on_error not in ON_ERROR:
        raise ValueError(f"--on-error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
    present = [i for i in item_ids if i in results]
    bad = [i for i in present if item_has_errors(results[i])]
    if on_error == "fail" and bad:
        counts = Counter()
        for i in bad:
            counts.update(results[i].get("errors_by_kind") or {})
        raise RunFailed(f"{len(bad)} item(s) had failed model calls ({_kinds(counts)}) and --on-error is fail; "
                        "resume the run to retry them, or choose --on-error exclude|silence")
    if on_error == "exclude":
        return [i for i in present if i not in bad], bad
    return present, []


def summarise(results: dict, item_ids: list[str], *, timing: str, on_error: str, interval: Optional[float],
              excluded: list[str], threshold: float = COMPLIANCE_THRESHOLD) -> dict:
    """The run-health block of report.json (and of the printed table)."""
    rs = [results[i] for i in item_ids if i in results]
    kinds: Counter = Counter()
    lats: list[float] = []
    for r in rs:
        kinds.update(r.get("errors_by_kind") or {})
        lats.extend(float(x) for x in r.get("latencies") or [])
    n_ok = sum(int(r.get("n_ok") or 0) for r in rs)
    n_compliant = sum(int(r.get("n_compliant") or 0) for r in rs)
    compliance = round(n_compliant / n_ok, 4) if n_ok else None
    endpoints = _endpoints(rs)
    out = {
        "timing": timing, "on_error": on_error,
        "calls": sum(int(r.get("n_polls") or 0) for r in rs), "ok": n_ok,
        "errors": sum(int(r.get("n_errors") or 0) for r in rs), "errors_by_kind": dict(sorted(kinds.items())),
        "retries": sum(int(r.get("n_retries") or 0) for r in rs),
        "skipped_ticks": sum(int(r.get("skipped_ticks") or 0) for r in rs),
        "reused_calls": sum(int(r.get("n_reused") or 0) for r in rs),
        "items": len(rs), "items_with_errors": sum(1 for r in rs if item_has_errors(r)),
        "excluded_items": list(excluded),
        "latency_p50": _pct(lats, 50), "latency_p95": _pct(lats, 95),
        "latency_max": round(max(lats), 4) if lats else None,
        "realtime_factor": round(float(np.mean(lats)) / interval, 3) if lats and interval else None,
        "compliant": n_compliant, "compliance": compliance, "compliance_threshold": threshold,
        "compliance_flag": compliance is not None and compliance < threshold,
        "per_item": {iid: {"calls": int(results[iid].get("n_polls") or 0),
                           "errors": int(results[iid].get("n_errors") or 0),
                           "skipped_ticks": int(results[iid].get("skipped_ticks") or 0),
                           "compliance": results[iid].get("compliance"),
                           "excluded": iid in excluded}
                     for iid in item_ids if iid in results},
    }
    if endpoints:
        out["endpoints"] = endpoints
    if any(r.get("worker_retries") for r in rs):
        out["worker_retries"] = {i: int(results[i]["worker_retries"]) for i in item_ids
                                 if i in results and results[i].get("worker_retries")}
    return out


def _endpoints(rs: list[dict]) -> dict:
    """Per endpoint of a pool over the run: attempts, errors by kind, latency p50/p95."""
    acc: dict = {}
    for r in rs:
        for url, e in (r.get("endpoints") or {}).items():
            a = acc.setdefault(url, {"attempts": 0, "errors": 0, "kinds": Counter(), "lats": []})
            a["attempts"] += int(e["attempts"])
            a["errors"] += int(e["errors"])
            a["kinds"].update(e.get("errors_by_kind") or {})
            a["lats"].extend(float(x) for x in e.get("latencies") or [])
    return {url: {"attempts": a["attempts"], "errors": a["errors"], "errors_by_kind": dict(sorted(a["kinds"].items())),
                  "latency_p50": _pct(a["lats"], 50), "latency_p95": _pct(a["lats"], 95)}
            for url, a in sorted(acc.items())}


def check_any_call_succeeded(health: dict, first_error: Optional[str] = None) -> None:
    """Every call failed: there is nothing to score, say so in one line."""
    if health["calls"] and not health["ok"]:
        detail = f"; first: {first_error}" if first_error else ""
        raise RunFailed(f"every model call failed ({health['errors']} of {health['calls']}: "
                        f"{_kinds(Counter(health['errors_by_kind']))}){detail}")


def format_health(h: dict) -> str:
    """The lines printed under the score table."""
    lat = ("latency p50 {} s, p95 {} s, max {} s, realtime factor {}".format(
        h["latency_p50"], h["latency_p95"], h["latency_max"], h["realtime_factor"])
        if h.get("latency_p50") is not None else "latency: no calls")
    lines = [f"timing: {h['timing']} | calls {h['calls']}, ok {h['ok']}, retries {h['retries']}, "
             f"errors {h['errors']}" + (f" ({_kinds(Counter(h['errors_by_kind']))})" if h["errors"] else "")
             + f", skipped ticks {h['skipped_ticks']}" + (f", reused {h['reused_calls']}" if h.get("reused_calls") else ""),
             lat,
             f"on error: {h['on_error']} | items with errors {h['items_with_errors']}, "
             f"excluded {len(h['excluded_items'])}" + (f" ({', '.join(h['excluded_items'][:5])}"
                                                       + (", ..." if len(h['excluded_items']) > 5 else "") + ")"
                                                       if h["excluded_items"] else "")]
    for url, e in (h.get("endpoints") or {}).items():
        lines.append(f"endpoint {url}: attempts {e['attempts']}, errors {e['errors']}"
                     + (f" ({_kinds(Counter(e['errors_by_kind']))})" if e["errors"] else "")
                     + f", latency p50 {e['latency_p50']} s, p95 {e['latency_p95']} s")
    if h.get("worker_retries"):
        n = sum(h["worker_retries"].values())
        lines.append(f"ray: {n} item attempt(s) retried after a worker died ({', '.join(list(h['worker_retries'])[:5])})")
    if h.get("compliance") is not None:
        pct = 100 * h["compliance"]
        flag = (f"  << FLAG: below {100 * h['compliance_threshold']:.0f} %: the model did not follow the reply "
                "format; its replies were read by the fallback rules") if h["compliance_flag"] else ""
        lines.append(f"format compliance: {h['compliant']}/{h['ok']} replies ({pct:.1f} %){flag}")
    return "\n".join(lines)


def _pct(xs: list[float], q: float) -> Optional[float]:
    return round(float(np.percentile(xs, q)), 4) if xs else None


def _kinds(counts: Counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
