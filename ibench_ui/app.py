"""Assemble the Gradio app from its tabs and launch it."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import gradio as gr

from ibench_ui.browse import build_browse
from ibench_ui.context import AppContext

CSS = """
.ib-table { border-collapse: collapse; font-size: 0.9em; }
.ib-table td, .ib-table th { border: 1px solid #ccc; padding: 2px 6px; }
.ib-novideo { padding: 2em; background: #222; color: #eee; text-align: center; }
"""


def build_app(ctx: AppContext) -> gr.Blocks:
    with gr.Blocks(title="ibench-ui") as demo:
        gr.Markdown("# ibench-ui — real-time interaction benchmarks")
        with gr.Tabs():
            with gr.Tab("Browse", id="browse"):
                build_browse(ctx)
    return demo


def serve(ctx: AppContext, host: str = "127.0.0.1", port: Optional[int] = None, block: bool = True):
    """Launch the app; media is served from the dataset roots only (allowed_paths)."""
    demo = build_app(ctx)
    demo.queue(default_concurrency_limit=16)
    return demo.launch(server_name=host, server_port=port, allowed_paths=ctx.media_roots(), css=CSS,
                       prevent_thread_lock=not block, quiet=not block, footer_links=["api"])
