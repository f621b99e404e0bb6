"""Browse tab: pick benchmark -> item, play its stream, list its request and targets with times."""
from __future__ import annotations

from typing import Optional

import gradio as gr

from ibench_ui.context import AppContext, find_item
from ibench_ui.guard import Events
from ibench_ui.render import esc, item_details_html, video_html
from ibench_ui.static_route import script_tags


def _item_choices(ctx: AppContext, benchmark: str) -> list[tuple[str, str]]:
    ds = ctx.dataset(benchmark)
    return [(f"{it.id} · {it.kind}", it.id) for it in ds.items]


def targets_visible(ctx: AppContext, token: str) -> bool:
    """Target times are open while the app has no annotator accounts; once it has, only reviewers and admins
    see them, so an annotator cannot look up a proposed time before marking it blind."""
    from annotation import auth
    if not ctx.store.users():
        return True
    user = auth.user_for(ctx.store, token)
    return user is not None and user.role in auth.STAFF


def _details_html(ctx: AppContext, token: str, item) -> str:
    if item is None:
        return ""
    if targets_visible(ctx, token):
        return item_details_html(item)
    return (f'<div class="ib-request"><b>Request</b>: {esc(item.request.text)}</div>'
            '<p id="targets-hidden">Target times are hidden while annotation accounts exist: sign in as a reviewer '
            'or admin (at the top of the page) to see them.</p>')


# what the player says before the page load fills it (a visitor who did not sign in keeps reading it)
NO_ITEM_YET = '<div class="ib-novideo" id="stream-video-empty">Sign in at the top of the page to browse the items.</div>'


def build_browse(ctx: AppContext, events: Events, demo: Optional[gr.Blocks] = None) -> None:
    """Lay out the Browse tab inside the current Blocks context; every account may use it. The page's first
    content comes from a load event (role-checked), never from the initial values, which anyone can read in
    /config."""
    token = events.token
    first = ctx.benchmarks()[0]
    choices = _item_choices(ctx, first)
    with gr.Row():
        # with a load event both start locked and the load unlocks them with the first item's player: a choice
        # made before the load's reply would otherwise be overwritten by it (the dropdown naming one item, the
        # player showing another)
        unlocked = demo is None
        bench = gr.Dropdown(ctx.benchmarks(), value=first, label="Benchmark", elem_id="browse-benchmark",
                            interactive=unlocked)
        item = gr.Dropdown(choices, value=choices[0][1] if choices else None, label="Item", elem_id="browse-item",
                           interactive=unlocked)
    with gr.Row():
        with gr.Column(scale=3):
            player = gr.HTML(NO_ITEM_YET, elem_id="browse-player", head=script_tags(["browse.js"]),
                             js_on_load="ibBrowse.mount()")
        with gr.Column(scale=2):
            details = gr.HTML("", elem_id="browse-details", js_on_load=None)
    problems = gr.HTML("", elem_id="browse-problems", js_on_load=None)

    def on_bench(b: str, tok: str):
        ch = _item_choices(ctx, b)
        first_id = ch[0][1] if ch else None
        it = find_item(ctx, b, first_id) if first_id else None
        return {item: gr.update(choices=ch, value=first_id), player: video_html(it, role="browse"),
                details: _details_html(ctx, tok, it), problems: _problems_html(ctx, b)}

    def on_item(b: str, item_id: str, tok: str):
        it = find_item(ctx, b, item_id) if item_id else None
        if it is None:
            return {player: video_html(None), details: f"<p>No item {esc(item_id)} in {esc(b)}.</p>"}
        return {player: video_html(it, role="browse"), details: _details_html(ctx, tok, it)}

    def on_load(b: str, item_id: str, tok: str):
        b = b if b in ctx.benchmarks() else first
        return {**on_item(b, item_id, tok), problems: _problems_html(ctx, b), bench: gr.update(interactive=True),
                item: gr.update(interactive=True)}

    events.on(bench.change, on_bench, [bench, token], [item, player, details, problems])
    events.on(item.change, on_item, [bench, item, token], [player, details])
    if demo is not None:
        for trigger in (demo.load, token.change):  # a sign-in redraws (and unlocks) what the load may have refused
            events.on(trigger, on_load, [bench, item, token], [player, details, problems, bench, item],
                      api_visibility="private", show_progress="hidden")


def _problems_html(ctx: AppContext, benchmark: str) -> str:
    ds = ctx.dataset(benchmark)
    if not ds.problems:
        return f'<p class="ib-ok">{len(ds)} items, no problems found in {esc(benchmark)}.</p>'
    lis = "".join(f"<li>{esc(p)}</li>" for p in ds.problems[:50])
    more = f"<li>… {len(ds.problems) - 50} more</li>" if len(ds.problems) > 50 else ""
    # no absolute path leaves the server: problems name the benchmark (the CLI `validate` prints full paths)
    return f"<details><summary>{len(ds.problems)} problem(s) in {esc(benchmark)}</summary><ul>{lis}{more}</ul></details>"
