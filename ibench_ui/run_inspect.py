"""Runs drill-down: what a model saw and said at each decision of one item, as inspect_ai's viewer shows
every sample: the frames (thumbnails, decoded on the server from the item's own video at the stored frame
times) and audio span it was given, the prompt, the raw reply, the parsed decision and its verdict (the
scorer's own per-response classification, scoring.classify), with a verdict filter and two runs side by side.

The page only ever sends a run id and an item id; both are looked up in the store, and images travel as
small inline JPEGs, never as a file path or URL the browser could choose."""
from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Optional

from annotation.store import Store
from ibench_ui.render import esc, fmt_time

MAX_THUMBS = 4
THUMB_PX = 96
FILTERS = ("all", "responded", "silent", "error")


@dataclass(frozen=True)
class Decision:
    """One model call of a run on one item, with the verdict of the response it produced (if any)."""
    t: float
    status: str
    error_kind: Optional[str]
    attempts: int
    latency_s: Optional[float]
    prompt: str
    raw_reply: str
    decision: Optional[str]
    text: str
    frame_times: tuple
    audio_span: Optional[tuple]
    verdict: str
    verdict_detail: str = ""

    @property
    def group(self) -> str:
        if self.status != "ok":
            return "error"
        return "responded" if self.decision not in (None, "", "silent", "wait") else "silent"


def _verdicts(ds, item_id: str, result: Optional[dict], report: Optional[dict]) -> dict[float, tuple[str, str]]:
    """Emission time -> (label, detail) of the stored prediction, read off the run's own report."""
    if not result or item_id not in ds:
        return {}
    from scoring.classify import classify
    try:
        vs = classify(ds.benchmark, ds.get(item_id), result.get("prediction"), report)
    except Exception as exc:  # noqa: BLE001 - an unclassifiable item is said so, not hidden
        return {-1.0: ("unscored", f"{type(exc).__name__}: {exc}")}
    return {round(float(v.t), 3): (v.label, v.detail or (f"delay {v.delay:.2f} s" if v.delay is not None else ""))
            for v in vs}


def decisions(store: Store, ds, run_id: str, item_id: str) -> list[Decision]:
    """Every stored call of `run_id` on `item_id`, in time order, each with its response's verdict."""
    result = store.run_items(run_id).get(item_id)
    run = store.get_run(run_id)
    verdicts = _verdicts(ds, item_id, result, run.report if run is not None and run.status == "done" else None)
    # which emission each call produced: its decision time (arrival timing keeps it as decision_t)
    by_tick: dict[float, float] = {}
    for e in (result or {}).get("emissions") or []:
        by_tick[round(float(e.get("decision_t", e["t"])), 3)] = round(float(e["t"]), 3)
    out = []
    for c in store.run_calls(run_id, item_id):
        t = round(float(c["t"]), 3)
        if c["status"] != "ok":
            verdict, detail = "error", c.get("error_kind") or c["status"]
        elif t in by_tick:
            verdict, detail = verdicts.get(by_tick[t], ("unscored", "no verdict for this response"))
        else:
            verdict, detail = "silent", ""
        out.append(Decision(t=float(c["t"]), status=c["status"], error_kind=c.get("error_kind"),
                            attempts=int(c.get("attempts") or 0), latency_s=c.get("latency_s"),
                            prompt=c.get("prompt") or "", raw_reply=c.get("raw_reply") or "",
                            decision=c.get("decision"), text=c.get("text") or "",
                            frame_times=tuple(c.get("frame_times") or ()),
                            audio_span=tuple(c["audio_span"]) if c.get("audio_span") else None,
                            verdict=verdict, verdict_detail=detail))
    return out


def pick_frames(times: tuple, k: int = MAX_THUMBS) -> list[float]:
    """Up to k of a decision's frame times, evenly spread and always including the last (the newest)."""
    if len(times) <= k:
        return list(times)
    step = (len(times) - 1) / (k - 1)
    return [times[round(i * step)] for i in range(k)]


class Thumbs:
    """Small JPEG data URIs of an item's frames, decoded once per (video, time) with the run sampler."""

    def __init__(self, video_path: Optional[str]):
        self.path = video_path
        self._sampler = None
        self._cache: dict[float, str] = {}

    def __call__(self, t: float) -> str:
        if t in self._cache:
            return self._cache[t]
        import cv2

        from runners.sampling import FrameSampler, SamplingError
        uri = ""
        try:
            if self._sampler is None and self.path:
                self._sampler = FrameSampler(self.path, max_long_side=THUMB_PX, cache_frames=32)
            if self._sampler is not None:
                _, rgb = self._sampler.frame_at(t)
                ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 70])
                if ok:
                    uri = "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")
        except (SamplingError, OSError, ValueError):
            uri = ""
        self._cache[t] = uri
        return uri

    def close(self) -> None:
        if self._sampler is not None:
            self._sampler.close()


def _cell(text: str, limit: int = 4000) -> str:
    return f'<pre class="ib-pre">{esc(text[:limit])}{"…" if len(text) > limit else ""}</pre>'


def decisions_table(ds, item_id: str, rows: list[Decision], flt: str = "all", elem_id: str = "drill-table") -> str:
    """One row per decision; a run of identical decisions is its first row with a "×N" button that unfolds the
    others, each a row with its own time, latency and tries (runs.js). Runs are found over every decision, so a
    verdict filter never joins decisions that were not one after another."""
    item = ds.get(item_id) if item_id in ds else None
    thumbs = Thumbs(item.stream.video_path if item else None)
    runs = repeats(rows)
    keep = lambda d: flt in ("all", "", None) or d.group == flt or d.verdict == flt  # noqa: E731
    shown = [(k, d) for k, d in enumerate(rows) if keep(d)]
    body = []
    group = -1
    try:
        for k, d in shown:
            first, count, last_t = runs[k]
            if first:
                group += 1
            if not first:  # one of the run folded under its first row: unfolded by that row's "×N"
                body.append(f'<tr class="ib-decision ib-repeat" data-t="{d.t:.3f}" data-verdict="{esc(d.verdict)}" '
                            f'data-group="{group}" hidden>{_when(d)}'
                            f'<td colspan="5">the same decision as above</td></tr>')
                continue
            frames = pick_frames(d.frame_times)
            imgs = "".join(f'<figure><img class="ib-thumb" alt="frame at {t:.2f} s" src="{thumbs(t)}">'
                           f'<figcaption>{t:.2f}s</figcaption></figure>' for t in frames)
            more = len(d.frame_times) - len(frames)
            given = imgs + (f'<span class="ib-more">+{more} more ({len(d.frame_times)} frames)</span>' if more > 0 else "")
            if d.audio_span:
                given += f'<div class="ib-audio">audio {fmt_time(d.audio_span[0])}–{fmt_time(d.audio_span[1])}</div>'
            parsed = esc(d.decision or "–") + (f': “{esc(d.text)}”' if d.text else "")
            if count > 1:
                parsed += (f' <button type="button" class="ib-times" data-group="{group}" aria-expanded="false" '
                           f'title="{count} identical decisions in a row, {esc(fmt_time(d.t))}–{esc(fmt_time(last_t))}:'
                           f' click to show each">×{count}</button>')
            body.append(f'<tr class="ib-decision ib-v-{esc(d.verdict)}" data-t="{d.t:.3f}" '
                        f'data-verdict="{esc(d.verdict)}" data-count="{count}" data-group="{group}">'
                        f'{_when(d, last_t if count > 1 else None)}'
                        f'<td class="ib-given">{given or "–"}</td><td>{_cell(d.prompt)}</td><td>{_cell(d.raw_reply)}</td>'
                        f'<td class="ib-parsed">{parsed}</td>'
                        f'<td class="ib-verdict"><b>{esc(d.verdict)}</b><br><small>{esc(d.verdict_detail)}</small></td></tr>')
    finally:
        thumbs.close()
    head = "".join(f"<th>{h}</th>" for h in ("time", "frames / audio given", "prompt", "raw reply",
                                             "parsed decision", "verdict"))
    return (f'<table class="ib-table ib-drill" id="{esc(elem_id)}" data-n="{len(shown)}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _when(d: Decision, until: Optional[float] = None) -> str:
    """A decision's time cell: its time (to the run's last, for a folded run), latency and tries."""
    lat = f"{d.latency_s * 1000:.0f} ms" if isinstance(d.latency_s, (int, float)) else "–"
    span = f"–{esc(fmt_time(until))}" if until is not None else ""
    return f'<td class="ib-t">{esc(fmt_time(d.t))}{span}<br><small>{lat}, {d.attempts} try</small></td>'


def _same(a: Decision, b: Decision) -> bool:
    """Two decisions a reader cannot tell apart but by their time, latency and tries: the same call outcome (and
    error kind), parsed decision, text, raw reply, verdict and verdict detail."""
    key = lambda d: (d.status, d.error_kind, d.decision, d.text, d.raw_reply, d.verdict, d.verdict_detail)  # noqa: E731
    return key(a) == key(b)


def repeats(rows: list[Decision]) -> list[tuple[bool, int, float]]:
    """Per row: (whether it starts a run of identical decisions, the run's length, the run's last time); identical
    as `_same` says, one after another (a model's "WAIT" at every tick is one row "×60")."""
    out: list[tuple[bool, int, float]] = []
    start = 0
    for k in range(1, len(rows) + 1):
        if k == len(rows) or not _same(rows[k], rows[start]):
            n = k - start
            out += [(True, n, rows[k - 1].t)] + [(False, n, rows[k - 1].t)] * (n - 1)
            start = k
    return out


def drill_html(store: Store, ctx, run_id: str, item_id: str, flt: str = "all", other_run: str = "") -> str:
    """The drill-down of one item of a run (and, beside it, of another run on the same item)."""
    run = store.get_run(str(run_id or "").strip())
    if run is None:
        return f'<p class="ib-error" id="drill-error">No run {esc(str(run_id)[:40])!s}.</p>'
    flt = flt if isinstance(flt, str) and flt else "all"
    try:
        ds = ctx.dataset(run.benchmark)
    except KeyError as exc:
        return f'<p class="ib-error" id="drill-error">{esc(exc)}</p>'
    if item_id not in store.run_items(run.id) and not store.run_calls(run.id, item_id):
        return f'<p class="ib-error" id="drill-error">Run {esc(run.id)} has no item {esc(str(item_id)[:80])}.</p>'
    panes = [(run, "drill-table")]
    other = store.get_run(str(other_run or "").strip()) if other_run else None
    if other is not None and other.id != run.id and other.benchmark == run.benchmark:
        panes.append((other, "drill-table-b"))
    html = []
    for r, eid in panes:
        rows = decisions(store, ds, r.id, item_id)
        counts = {}
        for d in rows:
            counts[d.verdict] = counts.get(d.verdict, 0) + 1
        summary = ", ".join(f"{v} {n}" for v, n in sorted(counts.items()))
        html.append(f'<div class="ib-pane"><h4>{esc(run_label(r))}</h4><p>{len(rows)} decision(s): {esc(summary)}</p>'
                    f'{decisions_table(ds, item_id, rows, flt, eid)}</div>')
    return f'<div class="ib-drill-panes" id="drill">{"".join(html)}</div>'


def run_label(run) -> str:
    """A run as people tell runs apart: when, what model, and the settings that make it differ."""
    import time as _time
    cfg = run.config or {}
    when = _time.strftime("%Y-%m-%d %H:%M", _time.localtime(run.created or 0))
    bits = [run.model_spec, run.benchmark, run.protocol]
    opts = cfg.get("options") or {}
    if opts:
        bits.append(" ".join(f"{k}={v}" for k, v in sorted(opts.items())))
    for key in ("limit", "timing", "on_error", "judge"):
        if cfg.get(key) not in (None, "", {}):
            bits.append(f"{key}={cfg[key]}")
    if cfg.get("items"):
        bits.append(f"{len(cfg['items'])} listed items")
    return f"{when} · " + " · ".join(str(b) for b in bits if b)
