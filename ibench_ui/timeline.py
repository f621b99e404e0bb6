"""Fixed-height timeline of a participant's responses on one item, optionally against the item's targets.

The same renderer serves the live view (responses only: targets would be lookahead) and the
after-item view (responses vs target windows and anchors). Its height never changes, so nothing
moves under the participant's pointer while rows are added."""
from __future__ import annotations

from typing import Optional, Sequence

from annotation.model import Response, Target
from ibench_ui.render import esc, fmt_time

KIND_GLYPH = {"press": "▲", "text": "■", "speech": "●", "tool_call": "◆"}


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


def _response_marks(responses: Sequence[Response], span: float) -> str:
    out = []
    for r in responses:
        glyph = KIND_GLYPH.get(r.kind, "•")
        tip = esc(f"{fmt_time(r.t)} {r.kind}" + (f": {r.text}" if r.text else ""))
        out.append(f'<div class="ib-tl-mark ib-k-{esc(r.kind)}" style="left:{_pct(r.t, span):.3f}%" '
                   f'title="{tip}">{glyph}</div>')
    return "".join(out)


def _rows(responses: Sequence[Response], editable: bool) -> str:
    items = []
    for r in sorted(responses, key=lambda x: x.t, reverse=True):  # newest media time first: no scrolling needed
        fix = ""
        if editable and r.kind == "speech":
            fix = f' <button type="button" class="ib-fix" data-rid="{esc(r.id)}" title="correct the transcript">✎</button>'
        text = f' <span class="ib-tl-text">{esc(r.text)}</span>' if r.text else ""
        items.append(f'<li data-rid="{esc(r.id)}" data-t="{r.t:.3f}" data-kind="{esc(r.kind)}">'
                     f'<span class="ib-tl-t">{esc(fmt_time(r.t))}</span> '
                     f'<span class="ib-tl-k">{esc(KIND_GLYPH.get(r.kind, "•"))} {esc(r.kind)}</span>{text}{fix}</li>')
    return "".join(items)


def timeline_html(responses: Sequence[Response], duration: Optional[float], targets: Sequence[Target] = (),
                  *, show_targets: bool = False, editable: bool = True, elem_id: str = "") -> str:
    """The timeline block: a track with response marks (and target windows when `show_targets`),
    a time axis and a fixed-height, scrolling list of the responses."""
    targets = tuple(targets) if show_targets else ()
    span = _span(duration, responses, targets)
    ident = f' id="{esc(elem_id)}"' if elem_id else ""
    legend = ("<span class=\"ib-tl-legend\">▲ press ■ text ● speech"
              + (" · shaded: target window, line: target time" if show_targets else "") + "</span>")
    return (f'<div class="ib-tl"{ident} data-n="{len(responses)}">'
            f'<div class="ib-tl-track">{_target_marks(targets, span)}{_response_marks(responses, span)}</div>'
            f'<div class="ib-tl-axis"><span>{esc(fmt_time(0))}</span>{legend}<span>{esc(fmt_time(span))}</span></div>'
            f'<div class="ib-tl-count">{len(responses)} response(s) logged</div>'
            f'<ol class="ib-tl-list">{_rows(responses, editable)}</ol></div>')
