"""Assemble the Gradio app from its tabs and launch it."""
from __future__ import annotations

from typing import Optional

import gradio as gr

from ibench_ui.browse import build_browse
from ibench_ui.compare import build_compare
from ibench_ui.leaderboard import build_leaderboard
from ibench_ui.auth_ui import build_annotation_tabs
from ibench_ui.context import AppContext
from ibench_ui.render import BROWSE_PLAYER_JS
from ibench_ui.runs import RUNS_CSS, build_runs
from ibench_ui.session import build_session, session_head

CSS = """
.ib-table { border-collapse: collapse; font-size: 0.9em; }
.ib-table td, .ib-table th { border: 1px solid #ccc; padding: 2px 6px; }
.ib-novideo { padding: 2em; background: #222; color: #eee; text-align: center; }
"""


def build_app(ctx: AppContext) -> gr.Blocks:
    with gr.Blocks(title="ibench-ui") as demo:
        gr.Markdown("# ibench-ui — real-time interaction benchmarks")
        token = gr.State("")  # the page's annotation sign-in, shared by tabs that show staff-only data
        with gr.Tabs() as tabs:
            with gr.Tab("Browse", id="browse"):
                build_browse(ctx, token)
            with gr.Tab("Session", id="session"):
                build_session(ctx)
            with gr.Tab("Runs", id="runs"):
                build_runs(ctx)
            with gr.Tab("Compare", id="compare"):
                build_compare(ctx, demo, tabs)  # ?view=compare&benchmark=..&responders=.. opens it
            with gr.Tab("Leaderboard", id="leaderboard") as leaderboard_tab:
                build_leaderboard(ctx, leaderboard_tab)
            build_annotation_tabs(ctx, token)  # Annotation: sign-in, Verify, Review, Agreement, Users
        # a study link (?participant=...&benchmark=... or ?session=...) opens the Session tab directly
        demo.load(_initial_tab, None, tabs, api_visibility="private", show_progress="hidden")
    return demo


def _initial_tab(request: gr.Request):
    q = request.query_params if request is not None else {}
    if any(k in q for k in ("session", "participant")):
        return gr.Tabs(selected="session")
    return gr.skip()


def serve(ctx: AppContext, host: str = "127.0.0.1", port: Optional[int] = None, block: bool = True):
    """Launch the app; media is served from the dataset roots only (allowed_paths)."""
    demo = build_app(ctx)
    demo.queue(default_concurrency_limit=16)
    return demo.launch(server_name=host, server_port=port, allowed_paths=ctx.media_roots(), css=CSS + RUNS_CSS, head=session_head() + BROWSE_PLAYER_JS,
                       prevent_thread_lock=not block, quiet=not block, footer_links=["api"])
