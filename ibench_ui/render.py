"""HTML fragments shared by the tabs. Every dataset or user string goes through `esc`."""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Iterable, Optional

from annotation.model import Item
from scoring.bootstrap import figure_text


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def media_url(path: str | Path) -> str:
    """The opaque `/media/<id>` URL of an item's media file (ibench_ui.media_route serves it, with Range)."""
    from ibench_ui.media_route import media_url as _url
    return _url(path)


def video_html(item: Optional[Item], elem_id: str = "stream-video", controls: bool = True,
               role: str = "") -> str:
    """A plain HTML5 player for the item's stream, or a notice when the item has no playable media.
    `role` marks the player for the page script that keeps element ids unique (static/browse.js)."""
    if item is None:
        return f'<div class="ib-novideo" id="{esc(elem_id)}-empty">Choose an item.</div>'
    path = item.stream.video_path
    if not path or not Path(path).is_file():
        return f'<div class="ib-novideo">No playable video for {esc(item.id)} ({esc(path or "none")}).</div>'
    ctrl = " controls" if controls else ""
    marker = f' data-ib-player="{esc(role)}"' if role else ""
    return (f'<video id="{esc(elem_id)}" src="{esc(media_url(path))}" preload="auto" playsinline{ctrl}{marker} '
            f'data-item="{esc(item.id)}" class="ib-video"></video>')


def fmt_time(t: Optional[float]) -> str:
    if t is None:
        return "–"
    m, s = divmod(float(t), 60.0)
    return f"{int(m):02d}:{s:06.3f}"


def figure_cells(figures: dict) -> list[tuple[str, str]]:
    """A scorer's per-item figures (scoring.live.headline) as (name, text), as every table writes figures: numbers
    at one decimal (scoring.bootstrap.figure_text), counts whole, flags yes/no; missing and nested values left out."""
    out = []
    for name, v in figures.items():
        if v is None or isinstance(v, (dict, list, tuple)):
            continue
        if isinstance(v, bool):
            text = "yes" if v else "no"
        elif isinstance(v, int):
            text = str(v)
        elif isinstance(v, float):
            text = figure_text(v)
        else:
            text = str(v)
        out.append((str(name), text))
    return out


def table_html(headers: Iterable[str], rows: Iterable[Iterable[Any]], elem_id: str = "") -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    ident = f' id="{esc(elem_id)}"' if elem_id else ""
    return f'<table class="ib-table"{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def item_details_html(item: Item) -> str:
    """The item's request and targets with their times, for the Browse and Review tabs."""
    req = item.request
    lines = [f'<div class="ib-request"><b>Request</b> ({esc(req.modality)}, at {esc(fmt_time(req.time))}): '
             f'{esc(req.text)}</div>',
             f'<div class="ib-kind">kind: <code>{esc(item.kind)}</code> · stream: {esc(item.stream.id)} · '
             f'duration {esc(fmt_time(item.stream.duration))} · fps {esc(item.stream.fps)}</div>']
    rows = []
    for t in item.targets:
        win = "–" if t.window is None else f"[{fmt_time(t.window[0])}, {fmt_time(t.window[1])}{']' if t.window_closed else ')'}"
        rows.append((t.id, t.kind, fmt_time(t.anchor), win, t.label, t.reference if not isinstance(t.reference, dict)
                     else ", ".join(f"{k}={v}" for k, v in t.reference.items())))
    lines.append(table_html(["target", "kind", "anchor", "window", "label", "reference"], rows, "item-targets"))
    return "\n".join(lines)
