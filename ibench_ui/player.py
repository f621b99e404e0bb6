"""Frame-accurate player controls shared by the Review and Verify tabs: browser-side navigation
(±1 frame, ±0.1 s, ±1 s, next/previous target, speed) with keyboard shortcuts, and the timeline bar.

Navigation runs in the page (no server round trip); the server only renders the timeline, whose
`data-*` attributes (fps, duration, target times) the script reads."""
from __future__ import annotations

import json
from typing import Optional

import gradio as gr

from annotation.model import Item
from ibench_ui.render import esc, fmt_time

SPEEDS = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0]
SHORTCUTS = ("Keys (outside text boxes): ←/→ ±1 s · Shift+←/→ ±0.1 s · , / . ±1 frame · [ / ] previous/next "
             "target · k play/pause")

PLAYER_JS = r"""
if (!window.ibPlayer) {
  const P = window.ibPlayer = {
    ids: ["review-video", "verify-video"],
    video(id) { return document.getElementById(id); },
    bar(id) { return document.querySelector(`[data-video="${id}"]`); },
    fps(id) { const b = this.bar(id); return (b && parseFloat(b.dataset.fps)) || 25; },
    seek(id, t) { const v = this.video(id); if (!v) return; const d = isFinite(v.duration) ? v.duration : 1e9;
                  v.currentTime = Math.max(0, Math.min(d, t)); },
    step(id, dt) { const v = this.video(id); if (!v) return; v.pause(); this.seek(id, v.currentTime + dt); },
    frame(id, k) { const v = this.video(id); if (!v) return; v.pause(); const f = this.fps(id);
                   const i = Math.max(0, Math.floor(v.currentTime * f + 1e-6) + k); this.seek(id, i / f + 0.25 / f); },
    target(id, dir) { const v = this.video(id), b = this.bar(id); if (!v || !b || !b.dataset.targets) return;
                      const ts = JSON.parse(b.dataset.targets); const t = v.currentTime;
                      const n = dir > 0 ? ts.find(x => x > t + 0.01) : [...ts].reverse().find(x => x < t - 0.01);
                      if (n !== undefined) { v.pause(); this.seek(id, n); } },
    speed(id, r) { const v = this.video(id); if (v) v.playbackRate = parseFloat(r); },
    toggle(id) { const v = this.video(id); if (!v) return; if (v.paused) { v.play(); } else { v.pause(); } },
    now(id) { const v = this.video(id); return v ? Math.round(v.currentTime * 1000) / 1000 : null; },
    playRange(id, s, e) { const v = this.video(id); if (!v) return; v.currentTime = s; v.play();
                          const stop = () => { if (v.currentTime >= e) { v.pause(); v.removeEventListener("timeupdate", stop); } };
                          v.addEventListener("timeupdate", stop); },
    active() { for (const id of this.ids) { const v = this.video(id); if (v && v.offsetParent !== null) return id; } return null; },
  };
  document.addEventListener("keydown", (e) => {
    const tag = ((e.target && e.target.tagName) || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || (e.target && e.target.isContentEditable)) return;
    const id = P.active(); if (!id) return;
    let done = true;
    switch (e.key) {
      case "ArrowLeft": P.step(id, e.shiftKey ? -0.1 : -1); break;
      case "ArrowRight": P.step(id, e.shiftKey ? 0.1 : 1); break;
      case ",": P.frame(id, -1); break;
      case ".": P.frame(id, 1); break;
      case "[": P.target(id, -1); break;
      case "]": P.target(id, 1); break;
      case "k": P.toggle(id); break;
      default: done = false;
    }
    if (done) e.preventDefault();
  });
  document.addEventListener("click", (e) => {
    const b = e.target.closest && e.target.closest("[data-video]"); if (!b) return;
    const id = b.dataset.video, el = e.target.closest("[data-seek]");
    if (el) { P.seek(id, parseFloat(el.dataset.seek)); return; }
    const track = e.target.closest(".ib-track"); const d = parseFloat(b.dataset.duration);
    if (track && d) { const r = track.getBoundingClientRect(); P.seek(id, d * (e.clientX - r.left) / r.width); }
  });
  setInterval(() => {
    for (const id of P.ids) {
      const v = P.video(id); if (!v) continue;
      const out = document.getElementById(id + "-clock"), b = P.bar(id), f = P.fps(id);
      if (out) out.textContent = `t = ${v.currentTime.toFixed(3)} s · frame ${Math.floor(v.currentTime * f + 1e-6)} · ${v.playbackRate}×`;
      const head = b && b.querySelector(".ib-playhead"); const d = (b && parseFloat(b.dataset.duration)) || v.duration;
      if (head && d) head.style.left = Math.min(100, 100 * v.currentTime / d) + "%";
    }
  }, 100);
}
"""


def media_t(item: Item, t: float) -> float:
    """Where a benchmark time sits on the media clock (ProactiveBench seconds are 1-based intervals)."""
    return float(t) - 1.0 if item.benchmark == "proactivebench" else float(t)


def _pct(t: float, dur: float) -> str:
    return f"{max(0.0, min(100.0, 100.0 * t / dur)):.3f}%" if dur else "0%"


def timeline_html(item: Optional[Item], video_id: str, show_targets: bool = True) -> str:
    """The bar under the video: request, windows and anchors (only when `show_targets`), and a playhead."""
    if item is None:
        return f'<div data-video="{esc(video_id)}"></div>'
    dur = float(item.stream.duration or 0.0)
    if not dur:
        ends = [t.window[1] for t in item.targets if t.window and t.window[1] is not None]
        dur = max([item.request.time, *[t.anchor or 0 for t in item.targets], *ends, 1.0]) + 1.0
    fps = item.stream.fps or 25
    marks = []
    rows = []
    seek_times: list[float] = []
    rq = item.request.time if item.request.modality != "standing" else 0.0
    marks.append(f'<div class="ib-req" data-seek="{rq:.3f}" title="request: {esc(item.request.text)}" '
                 f'style="position:absolute;left:{_pct(rq, dur)};top:0;bottom:0;width:3px;background:#1f6feb;'
                 f'cursor:pointer"></div>')
    if show_targets:
        for t in item.targets:
            if t.window is not None:
                s = media_t(item, t.window[0])
                e = t.window[1] if t.window[1] is not None else dur
                e = float(e) if item.benchmark != "proactivebench" or t.window[1] is None else float(e)
                marks.append(f'<div class="ib-win" data-seek="{s:.3f}" title="{esc(t.id)}: window" '
                             f'style="position:absolute;left:{_pct(s, dur)};width:calc({_pct(e, dur)} - {_pct(s, dur)});'
                             f'top:8px;bottom:8px;background:rgba(46,160,67,.35);cursor:pointer"></div>')
                seek_times.append(s)
            if t.anchor is not None:
                a = media_t(item, t.anchor)
                marks.append(f'<div class="ib-anchor" data-seek="{a:.3f}" title="{esc(t.id)}: {esc(t.reference)}" '
                             f'style="position:absolute;left:{_pct(a, dur)};top:0;bottom:0;width:3px;'
                             f'background:#d1242f;cursor:pointer"></div>')
                seek_times.append(a)
            win = "–" if t.window is None else (f"[{fmt_time(t.window[0])}, {fmt_time(t.window[1])}"
                                                f"{']' if t.window_closed else ')'}")
            at = "–" if t.anchor is None else (f'<a href="#" data-seek="{media_t(item, t.anchor):.3f}" '
                                               f'onclick="return false">{esc(fmt_time(t.anchor))}</a>')
            ref = t.reference if isinstance(t.reference, str) or t.reference is None else json.dumps(t.reference)
            rows.append(f"<tr><td>{esc(t.id)}</td><td>{esc(t.kind)}</td><td>{at}</td><td>{esc(win)}</td>"
                        f"<td>{esc(ref)}</td></tr>")
    marks.append('<div class="ib-playhead" style="position:absolute;top:-3px;bottom:-3px;width:2px;left:0;'
                 'background:#000;pointer-events:none"></div>')
    data_targets = esc(json.dumps(sorted(set(round(x, 3) for x in seek_times)))) if show_targets else ""
    table = ""
    if show_targets:
        table = ('<table class="ib-table" id="' + esc(video_id) + '-targets"><thead><tr><th>target</th><th>kind</th>'
                 '<th>time</th><th>window</th><th>reference answer</th></tr></thead><tbody>' + "".join(rows)
                 + "</tbody></table>")
    return (f'<div class="ib-timeline" data-video="{esc(video_id)}" data-fps="{fps}" data-duration="{dur:.3f}" '
            f'data-targets="{data_targets}">'
            f'<div class="ib-track" style="position:relative;height:30px;background:#eee;border:1px solid #bbb;'
            f'cursor:crosshair;margin:4px 0">{"".join(marks)}</div>{table}</div>')


def build_controls(video_id: str, with_targets: bool) -> None:
    """Navigation buttons, the speed selector and the clock for one player (all browser-side)."""
    P = "window.ibPlayer"
    with gr.Row():
        specs = []
        if with_targets:
            specs.append(("⏮ target", f"{P}.target('{video_id}', -1)", "prev-target"))
        specs += [("−1 s", f"{P}.step('{video_id}', -1)", "back-1s"), ("−0.1 s", f"{P}.step('{video_id}', -0.1)", "back-01"),
                  ("−1 frame", f"{P}.frame('{video_id}', -1)", "back-frame"), ("⏯", f"{P}.toggle('{video_id}')", "play"),
                  ("+1 frame", f"{P}.frame('{video_id}', 1)", "fwd-frame"), ("+0.1 s", f"{P}.step('{video_id}', 0.1)", "fwd-01"),
                  ("+1 s", f"{P}.step('{video_id}', 1)", "fwd-1s")]
        if with_targets:
            specs.append(("target ⏭", f"{P}.target('{video_id}', 1)", "next-target"))
        prefix = video_id.split("-")[0]
        for label, js, suffix in specs:
            b = gr.Button(label, size="sm", min_width=60, elem_id=f"{prefix}-{suffix}")
            b.click(None, None, None, js=f"() => {{ {js}; }}")
        speed = gr.Dropdown([str(s) for s in SPEEDS], value="1.0", label="Speed", elem_id=f"{prefix}-speed",
                            min_width=90, scale=0)
        speed.change(None, [speed], None, js=f"(r) => {{ {P}.speed('{video_id}', r); }}")
    gr.HTML(f'<div id="{video_id}-clock" style="font-family:monospace">t = 0.000 s</div>'
            f'<div style="font-size:.85em;color:#666">{esc(SHORTCUTS)}</div>',
            js_on_load=PLAYER_JS, elem_id=f"{prefix}-clock-box")
