"""Assemble the staff studio (a Gradio app of tabs) and serve it with the participant app (ibench_ui.host)."""
from __future__ import annotations

import sys
from typing import Optional

import gradio as gr

from annotation.auth import ANYONE, STAFF
from ibench_ui.auth_ui import build_annotation_tabs
from ibench_ui.browse import build_browse
from ibench_ui.compare import build_compare
from ibench_ui.context import AppContext
from ibench_ui.guard import guard_functions
from ibench_ui.leaderboard import build_leaderboard
from ibench_ui.runs import build_runs
from ibench_ui.session import build_session
from ibench_ui.static_route import link_tags

# the studio's styles (static/); each tab's script comes with the element that uses it
STUDIO_CSS = ("base.css", "session.css", "timeline.css", "runs.css")


def page_head() -> str:
    return link_tags(STUDIO_CSS)


def build_app(ctx: AppContext, routes: dict | None = None) -> gr.Blocks:
    """The studio. Each tab's event functions are wrapped with a server-side role check (ibench_ui.guard):
    Browse, Runs and the Annotation tabs need a signed-in account (they check finer roles inside), Compare
    and Leaderboard show everyone's responses and need a reviewer or admin. The local single user (no
    accounts, loopback) passes every check. `routes`, when given, receives the Session tab's hot functions
    that the host also serves as plain JSON routes."""
    with gr.Blocks(title="ibench-ui") as demo:
        gr.Markdown("# ibench-ui — real-time interaction benchmarks")
        token = gr.State("")  # the page's annotation sign-in, shared by tabs that show staff-only data
        marks: list[tuple[int, tuple[str, ...]]] = []

        def mark(roles):  # every function registered since the previous mark belongs to the tab just built
            marks.append((len(demo.fns), roles))

        with gr.Tabs() as tabs:
            mark(ANYONE)
            with gr.Tab("Browse", id="browse"):
                build_browse(ctx, token, demo)
            mark(ANYONE)
            with gr.Tab("Session", id="session"):
                build_session(ctx, routes=routes)  # server functions: checked inside (study links have their own app)
            with gr.Tab("Runs", id="runs"):
                build_runs(ctx, token)
            mark(ANYONE)
            with gr.Tab("Compare", id="compare"):
                build_compare(ctx, demo, tabs, token)  # ?view=compare&benchmark=..&responders=.. opens it
            mark(STAFF)
            with gr.Tab("Leaderboard", id="leaderboard") as leaderboard_tab:
                build_leaderboard(ctx, leaderboard_tab)
            mark(STAFF)
            build_annotation_tabs(ctx, token)  # Annotation: sign-in, Verify, Review, Agreement, Users
            mark(ANYONE)
        # a studio link with ?session=... opens the Session tab directly
        demo.load(_initial_tab, None, tabs, api_visibility="private", show_progress="hidden")
        mark(ANYONE)
    fids = sorted(demo.fns)
    start = 0
    for end, roles in marks:
        guard_functions(demo, ctx, token, fids[start:end], roles)
        start = end
    guard_functions(demo, ctx, token, fids[start:], ANYONE)  # anything registered later fails closed too
    return demo


def _initial_tab(request: gr.Request):
    q = request.query_params if request is not None else {}
    if any(k in q for k in ("session", "participant")):
        return gr.Tabs(selected="session")
    return gr.skip()


def serve(ctx: AppContext, host: str = "127.0.0.1", port: Optional[int] = None) -> int:
    """Serve the host app (participant app at /study/, media at /media/, studio at /) until stopped.
    Refuses (returns 2) to listen beyond loopback while no account exists."""
    import uvicorn

    from ibench_ui.host import build_host, check_bind, free_port, is_loopback

    ctx.loopback = is_loopback(host)
    why = check_bind(ctx, host)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    port = port or free_port(host)
    app = build_host(ctx)
    print(f"* ibench-ui on http://{host}:{port}/  (study links: http://{host}:{port}/study/?t=TOKEN)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=3)
    return 0
