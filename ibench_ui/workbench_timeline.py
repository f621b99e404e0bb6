"""The annotator's workbench timeline shared by Verify and Review (and open to Compare): the stream's
waveform from server-computed peaks, zoom/pan, mm:ss.mmm ticks, playhead, windows and anchors as handles
that staff can drag, marks as points, a loop region and playback rate 0.25-2x, driven by
`static/timeline.js` in the page. The server decides what the page may see: a blind view gets no targets."""
from __future__ import annotations

import json
from typing import Iterable, Optional, Sequence

import gradio as gr

from annotation import registry
from annotation.model import Item
from ibench_ui.render import esc
from ibench_ui.static_route import script_tags
from ibench_ui.waveform import PEAKS_PER_SECOND, file_peaks_b64

RATES = ["0.25", "0.5", "0.75", "1", "1.25", "1.5", "2"]
# every key's meaning, per view: the player and timeline keys both views share, then the view's own
PLAYER_KEYS = [
    ("Space / k", "play / pause"), ("← / →", "−1 s / +1 s"), ("Shift+← / Shift+→", "−0.1 s / +0.1 s"),
    (", / .", "−1 frame / +1 frame"), ("< / >", "slower / faster (0.25–2x)"),
    ("+ / − / 0", "zoom in / out / fit"), ("l", "loop the highlighted region"),
    ("click timeline", "seek there"), ("? / F1", "show / hide this sheet"), ("Escape", "close this sheet"),
]
VIEW_KEYS = {
    "verify": [
        ("m", "mark now: the player's time at the key press, less your reaction-time offset"),
        ("Enter", "submit the mark (during the prefix walk: this interval is not yet satisfied)"),
        ("u", "withdraw my mark (until a reviewer decides on it)"),
        ("j", "next unverified item after this one (wraps); if this item is unfinished, the first j says "
              "what is left and a second j leaves it (it stays in your queue)"),
        ("p", "previous item in your queue (finished or not)"),
        ("w", "start / resume the prefix walk"), ("n / y", "prefix interval: not yet / already satisfied"),
        ("b / Backspace", "prefix walk: back one interval"), ("r", "replay the interval exactly"),
    ],
    "review": [
        ("[ / ]", "previous / next target"), ("j", "next item in the filtered queue"),
        ("drag a green edge or red anchor", "propose a new time (staff)"),
    ],
}
TIER_H = 16  # px per labelled tier row under the waveform
WAVE_H = 44  # px of the waveform band (ticks above it)


def media_t(item: Item, t: float) -> float:
    """Where a benchmark time sits on the media clock (the registry's shift: ProactiveBench seconds are 1-based)."""
    return registry.get(item.benchmark).media_time(t)


def duration_of(item: Item) -> float:
    dur = float(item.stream.duration or 0.0)
    if dur:
        return dur
    ends = [t.window[1] for t in item.targets if t.window and t.window[1] is not None]
    return max([item.request.time, *[t.anchor or 0 for t in item.targets], *ends, 1.0]) + 1.0


def target_shapes(item: Item, editable_fields: Iterable[str] = ()) -> list[dict]:
    """Windows and anchors on the media clock, each with the review field a drag would change (if any)."""
    fields = set(editable_fields)
    out = []
    for t in item.targets:
        win = None
        if t.window is not None:
            end = t.window[1]
            win = [media_t(item, t.window[0]), None if end is None else float(end)]
        wf, af = f"target.{t.id}.window", f"target.{t.id}.anchor"
        out.append({"id": t.id, "anchor": None if t.anchor is None else media_t(item, t.anchor), "window": win,
                    "window_field": wf if wf in fields else None, "anchor_field": af if af in fields else None})
    return out


def keys_sheet(prefix: str) -> str:
    """The key sheet of one view as an overlay (fixed, centred; `?` toggles it, Escape or Close shuts it)."""
    keys = VIEW_KEYS.get(prefix, []) + PLAYER_KEYS
    rows = "".join(f"<tr><td><kbd>{esc(k)}</kbd></td><td>{esc(v)}</td></tr>" for k, v in keys)
    return (f'<div class="ib-wb-keys" id="{esc(prefix)}-keys" role="dialog" aria-modal="true" '
            f'aria-label="Keyboard shortcuts" hidden><div class="ib-wb-keys-box"><b>Keyboard</b> (outside text boxes)'
            f'<button data-act="keys-close" title="close (Escape)">Close</button><table>{rows}</table></div></div>')


def workbench_html(item: Optional[Item], video_id: str, *, show_targets: bool = True,
                   editable_fields: Iterable[str] = (), marks: Iterable[dict] = (),
                   region: Optional[tuple[float, float]] = None, view: Optional[tuple[float, float]] = None,
                   extra: str = "", tiers: Sequence[tuple[str, str]] = (),
                   target_ids: Optional[Iterable[str]] = None) -> str:
    """The timeline under a player. `show_targets=False` is the blind view (no target time reaches the page);
    `editable_fields` makes those windows/anchors draggable (staff); `region` is the highlighted interval.
    `tiers` are the labelled rows (key, label) under the waveform, ELAN-like: "targets" holds the windows
    and anchors, any other key the marks whose "tier" names it (default: the targets tier and "marks").
    `target_ids` keeps only those targets (a verifier's revealed events)."""
    prefix = video_id.split("-")[0]
    if item is None:
        return f'<div class="ib-wb-empty" data-video-none="{esc(video_id)}"></div>'
    dur = duration_of(item)
    shapes = target_shapes(item, editable_fields) if show_targets else []
    if target_ids is not None:
        keep = set(target_ids)
        shapes = [sh for sh in shapes if sh["id"] in keep]
    tiers = list(tiers) or ([("targets", "targets")] if show_targets else []) + [("marks", "marks")]
    stops = sorted({round(x, 3) for s in shapes for x in ([s["anchor"]] if s["anchor"] is not None else [])
                    + ([s["window"][0]] if s["window"] else [])})
    audio = getattr(item.stream, "audio_path", None) or item.stream.video_path
    pk = file_peaks_b64(audio)
    attrs = {"video": video_id, "prefix": prefix, "duration": f"{dur:.3f}", "fps": str(item.stream.fps or 25),
             "peaks": pk, "pps": str(PEAKS_PER_SECOND) if pk else "0", "targets": json.dumps(shapes),
             "stops": json.dumps(stops), "marks": json.dumps(list(marks)),
             "region": json.dumps(list(region)) if region else "", "view": json.dumps(list(view)) if view else "",
             "editable": "1" if show_targets and any(s["window_field"] or s["anchor_field"] for s in shapes) else "0",
             "item": item.id, "nowave": "no audio track" if not pk else "",
             "tiers": json.dumps([list(t) for t in tiers])}
    data = " ".join(f'data-{k}="{esc(v)}"' for k, v in attrs.items())
    rates = "".join(f'<option value="{r}"{" selected" if r == "1" else ""}>{r}x</option>' for r in RATES)
    bar = ('<div class="ib-wb-bar">'
           '<button data-act="zoom-out" title="zoom out (-)">Zoom −</button>'
           '<button data-act="zoom-in" title="zoom in (+)">Zoom +</button>'
           '<button data-act="fit" title="whole stream (0)">Fit</button>'
           '<button data-act="pan-left" title="pan left">Pan left</button>'
           '<button data-act="pan-right" title="pan right">Pan right</button>'
           '<button data-act="loop" aria-pressed="false" title="loop the highlighted region (l)">Loop</button>'
           f'<label>Rate <select class="ib-wb-rate" aria-label="playback rate">{rates}</select></label>'
           '<button data-act="keys" title="keyboard shortcuts (?)">Keys ?</button>'
           f'<span id="{esc(video_id)}-clock" class="ib-clock">t = 0.000 s</span></div>')
    height = 16 + WAVE_H + TIER_H * len(tiers) + 4
    return (f'<div class="ib-wb" {data} style="--ib-wb-h:{height}px">{bar}<canvas class="ib-wb-canvas" id="{esc(prefix)}-timeline-canvas" '
            f'aria-label="timeline"></canvas>{keys_sheet(prefix)}{extra}</div>')


def build_controls(video_id: str, with_targets: bool) -> None:
    """Step buttons with text labels (no glyphs a font may lack) and the script that drives the timeline
    (static/timeline.js, loaded with an empty element of its own)."""
    prefix = video_id.split("-")[0]
    with gr.Row():
        # (label, ibPlayer method, its argument after the video id, element id suffix)
        specs = [("Prev target", "target", "-1", "prev-target")] if with_targets else []
        specs += [("−1 s", "step", "-1", "back-1s"), ("−0.1 s", "step", "-0.1", "back-01"),
                  ("−1 frame", "frame", "-1", "back-frame"), ("Play / pause", "toggle", "", "play"),
                  ("+1 frame", "frame", "1", "fwd-frame"), ("+0.1 s", "step", "0.1", "fwd-01"),
                  ("+1 s", "step", "1", "fwd-1s")]
        if with_targets:
            specs.append(("Next target", "target", "1", "next-target"))
        for label, method, arg, suffix in specs:
            b = gr.Button(label, size="sm", min_width=70, elem_id=f"{prefix}-{suffix}")
            b.click(None, None, None, js=f"() => window.ibPlayer.{method}('{video_id}'{', ' + arg if arg else ''})")
    gr.HTML("", head=script_tags(["timeline.js"]), elem_id=f"{prefix}-wb-assets")  # its CSS is in the page's head


def pick_table(headers: Iterable[str], rows: Iterable[tuple], elem_id: str, picker: str,
               current: Optional[str] = None) -> str:
    """A queue table whose rows are clickable: each row's first cell is the value handed to the hidden
    picker button `picker` (see timeline.js); the current row is highlighted."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for r in rows:
        key = str(r[0])
        cur = ' class="cur"' if current is not None and key == current else ""
        cells = "".join(f"<td>{esc(c)}</td>" for c in r[1:])
        body.append(f'<tr data-pick="{esc(key)}"{cur} tabindex="0">{cells}</tr>')
    return (f'<table class="ib-table" id="{esc(elem_id)}" data-picker="{esc(picker)}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def hidden_picker(prefix: str, name: str = "pick"):
    """A hidden button and textbox that carry a clicked queue row's value to the server."""
    box = gr.Textbox(elem_id=f"{prefix}-{name}-box", elem_classes=["ib-hidden"], show_label=False, container=False)
    btn = gr.Button(f"{name}", elem_id=f"{prefix}-{name}-apply", elem_classes=["ib-hidden"])
    btn.click(None, None, [box], js="() => window.ibTimeline.pick()",
              show_progress="hidden")
    return box


def picked(value: str) -> str:
    """The row key from a picker value ('key|nonce')."""
    return (value or "").rsplit("|", 1)[0]


def picked_item_update(ctx, benchmark: str, value: str):
    """The item dropdown update for a clicked queue row; the id must name a loaded item (it came from a page)."""
    iid = picked(value).split("|", 1)[0]
    if not iid:
        return gr.update()
    ctx.item(benchmark, iid)
    return gr.update(value=iid)
