"""Assemble the staff studio (a Gradio app of tabs) and serve it with the participant app (ibench_ui.host)."""
from __future__ import annotations

import sys
from typing import Optional

import gradio as gr

from ibench_ui import http_server
from ibench_ui.allowed_hosts import AllowedHosts, bracketed
from ibench_ui.auth_ui import build_annotation_tabs, build_header
from ibench_ui.browse import build_browse
from ibench_ui.compare import build_compare
from ibench_ui.context import AppContext
from ibench_ui.guard import Events
from ibench_ui.host import build_host, check_bind, free_port, is_loopback
from ibench_ui.leaderboard import build_leaderboard
from ibench_ui.runs import build_runs
from ibench_ui.session import build_session
from ibench_ui.static_route import link_tags, script_tags
from ibench_ui.tab_access import TabNotices

# the studio's styles (static/); each tab's script comes with the element that uses it
STUDIO_CSS = ("base.css", "session.css", "timeline.css", "runs.css")


def page_head() -> str:
    """The studio's styles and the sign-in script (static/signin.js: the form posts to /auth/signin)."""
    return link_tags(STUDIO_CSS) + script_tags(["signin.js"])


def build_studio(ctx: AppContext, routes: dict | None = None) -> tuple[gr.Blocks, Events]:
    """The studio and its events: a one-line header with the sign-in (every tab), then the tabs. Who may call
    each event function, and use each tab, is the role table's (ibench_ui.role_table), checked on the server;
    a tab the caller's role may not use says who it is for. The local single user (no accounts, loopback)
    passes every check. `routes`, when given, receives the Session tab's hot functions that the host also
    serves as plain JSON routes."""
    with gr.Blocks(title="ibench-ui") as demo:
        events = Events(ctx, gr.State(""))  # the page's sign-in counter, shared by tabs that show staff-only data
        signed_in = build_header(ctx, events, demo)
        notices = TabNotices(ctx)
        with gr.Tabs() as tabs:
            with gr.Tab("Browse", id="browse"), events.tab("browse"):
                notices.add("browse")
                build_browse(ctx, events, demo)
            with gr.Tab("Session", id="session"), events.tab("session"):
                notices.add("session")
                build_session(ctx, routes=routes)  # server functions: checked inside (study links have their own app)
            with gr.Tab("Runs", id="runs"), events.tab("runs"):
                notices.add("runs")
                build_runs(ctx, events)
            with gr.Tab("Compare", id="compare"), events.tab("compare"):
                notices.add("compare")
                open_compare = build_compare(ctx, events, demo, tabs)  # ?view=compare&benchmark=..&responders=..
            with gr.Tab("Leaderboard", id="leaderboard") as leaderboard_tab, events.tab("leaderboard"):
                notices.add("leaderboard")
                build_leaderboard(ctx, events, leaderboard_tab, open_compare)  # a clicked score opens Compare
            build_annotation_tabs(ctx, events, signed_in, notices)  # Annotation: Verify, Review, Agreement, Users
        notices.wire(events, demo)
        # a studio link with ?session=... opens the Session tab directly
        events.on(demo.load, _initial_tab, None, tabs, api_visibility="private", show_progress="hidden")
    events.assert_complete(demo)
    return demo, events


def build_app(ctx: AppContext, routes: dict | None = None) -> gr.Blocks:
    """The studio (see build_studio)."""
    return build_studio(ctx, routes)[0]


def _initial_tab(request: gr.Request):
    q = request.query_params if request is not None else {}
    if any(k in q for k in ("session", "participant")) or q.get("view") == "present":
        return gr.Tabs(selected="session")
    return gr.skip()


def web_app(ctx: AppContext, allowed: AllowedHosts):
    """The whole web host (ibench_ui.host) with this studio mounted at /, answering the `allowed` hosts."""
    return build_host(ctx, lambda routes: build_app(ctx, routes), page_head(), allowed)


def serve(ctx: AppContext, host: str = "127.0.0.1", port: Optional[int] = None,
          allowed: Optional[AllowedHosts] = None) -> int:
    """Serve the host app (participant app at /study/, media at /media/, studio at /) until stopped, to the
    `allowed` hosts (default: loopback names and `host`, with the port). Refuses (returns 2) to listen beyond
    loopback while no account exists."""
    ctx.loopback = is_loopback(host)
    why = check_bind(ctx, host)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    port = port or free_port(host)
    hint = "" if allowed or ctx.loopback else "; visitors on other machines: add the name they use"
    allowed = allowed or AllowedHosts.default(host, port, ctx.base_url)
    app = web_app(ctx, allowed)
    url = f"http://{bracketed(host)}:{port}"
    print(f"* ibench-ui on {url}/  (study links: {url}/study/?t=TOKEN)\n"
          f"  answering host names: {allowed.describe()} (--allowed-hosts{hint})", flush=True)
    http_server.run(app, host=host, port=port)
    return 0
