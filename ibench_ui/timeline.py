"""Fixed-height timeline of the responses on one item (a human's, a live model's, or both side by side),
optionally against the item's targets.

The same renderer serves the live view (responses only: targets would be lookahead) and the
after-item view (responses vs target windows and anchors). Its height never changes, so nothing
moves under the participant's pointer while rows are added. With a model responding, the track
splits into one labelled lane per responder (human lane on top); pushed model rows are rendered
here too (`model_mark_html`, `row_html`) so the page inserts exactly what the server would draw."""
from __future__ import annotations

from typing import Optional, Sequence

from annotation.model import Response, Target
from annotation.store import model_spec_of
from ibench_ui.render import esc, fmt_time

KIND_GLYPH = {"press": "▲", "text": "■", "speech": "●", "tool_call": "◆"}
HUMAN_LANE = "human"


def is_model(r: Response) -> bool:
    return str(r.responder or "").startswith("model:")


def lane_of(r: Response) -> str:
    """The lane a response is drawn in: "human" for every participant row, else `model:<spec>` (a live
    model's responder key `model:<spec>@<session>` without the session: one session, one lane per model)."""
    return f"model:{model_spec_of(r)}" if is_model(r) else HUMAN_LANE


def _pct(t: float, span: float) -> float:
    return max(0.0, min(100.0, 100.0 * float(t) / span)) if span > 0 else 0.0


def _span(duration: Optional[float], responses: Sequence[Response], targets: Sequence[Target]) -> float:
    """The time the track covers: the stream duration, else just past the last time shown."""
    if duration and duration > 0:
        return float(duration)
    times = [r.t for r in responses] + [t.anchor for t in targets if t.anchor is not None]
    times += [t.window[1] for t in targets if t.window and t.window[1] is not None]
    return max(times, default=0.0) + 1.0


def _target_marks(targets: Sequence[Target], span: float) -> str:
    out = []
    for tg in targets:
        tip = esc(f"target {tg.id} ({tg.kind}) {fmt_time(tg.anchor)}"
                  + (f": {tg.reference}" if isinstance(tg.reference, str) and tg.reference else ""))
        if tg.window is not None and tg.window[0] is not None:
            lo = _pct(tg.window[0], span)
            hi = _pct(tg.window[1] if tg.window[1] is not None else span, span)
            out.append(f'<div class="ib-tl-win" style="left:{lo:.3f}%;width:{max(hi - lo, 0.4):.3f}%" '
                       f'title="{tip}"></div>')
        if tg.anchor is not None:
            out.append(f'<div class="ib-tl-anchor" style="left:{_pct(tg.anchor, span):.3f}%" title="{tip}"></div>')
    return "".join(out)


def model_mark_html(r: Response, span: float) -> str:
    """One response's mark on the track (a model's or a human's)."""
    glyph = KIND_GLYPH.get(r.kind, "•")
    who = f"{model_spec_of(r)} " if is_model(r) else ""
    tip = esc(f"{who}{fmt_time(r.t)} {r.kind}" + (f": {r.text}" if r.text else ""))
    return (f'<div class="ib-tl-mark ib-k-{esc(r.kind)}" data-rid="{esc(r.id)}" style="left:{_pct(r.t, span):.3f}%" '
            f'title="{tip}">{glyph}</div>')


def _marks(responses: Sequence[Response], span: float) -> str:
    return "".join(model_mark_html(r, span) for r in responses)


def row_html(r: Response, editable: bool = True) -> str:
    """One list row; model rows carry their responder label and the server's emit wall time (ms)."""
    fix = ""
    model = is_model(r)
    if editable and r.kind == "speech" and not model:
        fix = f' <button type="button" class="ib-fix" data-rid="{esc(r.id)}" title="correct the transcript">✎</button>'
    text = f' <span class="ib-tl-text">{esc(r.text)}</span>' if r.text else ""
    extra, who = "", ""
    if model:
        emit = (r.meta or {}).get("emit_wall_ms")
        extra = (f' class="ib-tl-model" data-responder="{esc(r.responder)}"'
                 + (f' data-emit-ms="{float(emit):.1f}"' if isinstance(emit, (int, float)) else ""))
        who = f'<span class="ib-tl-who" title="{esc(r.responder)}">{esc(model_spec_of(r))}</span> '
    return (f'<li data-rid="{esc(r.id)}" data-t="{r.t:.3f}" data-kind="{esc(r.kind)}"{extra}>'
            f'<span class="ib-tl-t">{esc(fmt_time(r.t))}</span> {who}'
            f'<span class="ib-tl-k">{esc(KIND_GLYPH.get(r.kind, "•"))} {esc(r.kind)}</span>{text}{fix}</li>')


def _rows(responses: Sequence[Response], editable: bool) -> str:
    # newest media time first: no scrolling needed
    return "".join(row_html(r, editable) for r in sorted(responses, key=lambda x: x.t, reverse=True))


def _lanes(responses: Sequence[Response], lanes: Sequence[str], span: float) -> str:
    """One labelled strip per responder: the given `lanes` (in order), then any other responder seen."""
    order = list(dict.fromkeys(list(lanes) + [lane_of(r) for r in responses]))
    h = 100.0 / len(order)
    out = []
    for i, lane in enumerate(order):
        mine = [r for r in responses if lane_of(r) == lane]
        label = "you" if lane == HUMAN_LANE else lane[6:]
        cls = "ib-lane-human" if lane == HUMAN_LANE else "ib-lane-model"
        out.append(f'<div class="ib-tl-lane {cls}" data-lane="{esc(lane)}" style="top:{i * h:.3f}%;height:{h:.3f}%">'
                   f'<span class="ib-tl-lane-label" title="{esc(lane)}">{esc(label)}</span>{_marks(mine, span)}</div>')
    return "".join(out)


def timeline_html(responses: Sequence[Response], duration: Optional[float], targets: Sequence[Target] = (),
                  *, show_targets: bool = False, editable: bool = True, elem_id: str = "",
                  lanes: Sequence[str] = ()) -> str:
    """The timeline block: a track with response marks (and target windows when `show_targets`),
    a time axis and a fixed-height, scrolling list of the responses. With `lanes` (e.g. ["human",
    "model:baseline:motion"]) or any model row, the track has one lane per responder."""
    targets = tuple(targets) if show_targets else ()
    span = _span(duration, responses, targets)
    ident = f' id="{esc(elem_id)}"' if elem_id else ""
    split = any(is_model(r) for r in responses) or any(lane != HUMAN_LANE for lane in lanes)
    legend = ("<span class=\"ib-tl-legend\">▲ press ■ text ● speech"
              + (" ◆ tool call" if split else "")
              + (" · shaded: target window, line: target time" if show_targets else "") + "</span>")
    if split:
        track = f'<div class="ib-tl-track ib-tl-lanes">{_target_marks(targets, span)}{_lanes(responses, lanes, span)}</div>'
    else:
        track = f'<div class="ib-tl-track">{_target_marks(targets, span)}{_marks(responses, span)}</div>'
    return (f'<div class="ib-tl"{ident} data-n="{len(responses)}" data-span="{span:.3f}">'
            f'{track}'
            f'<div class="ib-tl-axis"><span>{esc(fmt_time(0))}</span>{legend}<span>{esc(fmt_time(span))}</span></div>'
            f'<div class="ib-tl-count">{len(responses)} response(s) logged</div>'
            f'<ol class="ib-tl-list">{_rows(responses, editable)}</ol></div>')
