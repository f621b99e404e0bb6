"""The Annotation tab: a sign-in box above the Verify, Review, Agreement and Users sub-tabs.

The form posts to `/auth/signin` from static/signin.js, which sets an HttpOnly cookie (ibench_ui.auth_routes);
the page never holds a token. Every handler resolves the cookie on the server (ibench_ui.guard), so calling an
API route directly gives exactly the rights of the cookie's user and nothing more. After a sign-in or sign-out
the script presses the hidden #signin-refresh button: the status and every tab that depends on who is signed
in redraw, without a reload; a reload shows the same state (the page's load reads the cookie)."""
from __future__ import annotations

import time

import gradio as gr

from annotation import auth
from ibench_ui.auth_routes import caller_id
from ibench_ui.context import AppContext
from ibench_ui.guard import PUBLIC, SIGNED_IN, Events
from ibench_ui.handlers import error_html, ok_html, reports_to
from ibench_ui.render import esc, table_html
from ibench_ui.review import build_review
from ibench_ui.verify import build_agreement, build_verify


def status_html(ctx: AppContext, request, nobody: str = "Not signed in.") -> str:
    """The sign-in status line for the request's cookie (data-user and data-role for scripts and tests)."""
    u = ctx.local_user() or auth.user_for(ctx.store, caller_id(request))
    if u is None:
        return f'<div id="signin-status">{esc(nobody)}</div>'
    return (f'<div id="signin-status" data-user="{esc(u.name)}" data-role="{esc(u.role)}">Signed in as '
            f'<b>{esc(u.name)}</b> ({esc(u.role)}).</div>')


def build_annotation_tabs(ctx: AppContext, events: Events, demo: gr.Blocks) -> None:
    """Lay out the Annotation tab (sign-in + sub-tabs) inside the current Tabs context; `events.token` is the
    sign-in counter State, shared with other tabs that show staff-only data."""
    token = events.token
    with gr.Tab("Annotation", id="annotation", elem_id="tab-annotation"):
        with gr.Row(elem_id="signin-box"):
            gr.Textbox(label="User", elem_id="signin-name", scale=2, interactive=True)  # read by signin.js
            password = gr.Textbox(label="Password", type="password", elem_id="signin-password", scale=2,
                                  interactive=True)
            gr.Button("Sign in", variant="primary", elem_id="signin-button", scale=1)  # static/signin.js
            gr.Button("Sign out", elem_id="signout-button", scale=1)                  # static/signin.js
            refresh = gr.Button("Signed in", elem_id="signin-refresh", elem_classes=["ib-hidden"])
        who = gr.HTML('<div id="signin-status">Not signed in.</div>', elem_id="signin-status-box", js_on_load=None)
        with gr.Tabs():
            with gr.Tab("Verify", id="verify", elem_id="tab-verify"):
                refresh_verify = build_verify(ctx, events)
            with gr.Tab("Review", id="review", elem_id="tab-review"):
                refresh_review = build_review(ctx, events)
            with gr.Tab("Agreement", id="agreement", elem_id="tab-agreement"):
                build_agreement(ctx, events)
            with gr.Tab("Users", id="users", elem_id="tab-users"):
                build_users(ctx, events)

    def signed_in(request: gr.Request):
        """After the script's sign-in or sign-out: a new counter (tabs redraw), the status, an empty password."""
        return str(time.time_ns()), status_html(ctx, request, "Signed out."), ""

    def signin_status(request: gr.Request):
        return status_html(ctx, request)

    ev = events.on(refresh.click, signed_in, None, [token, who, password], roles=PUBLIC, api_visibility="private")
    events.on(demo.load, signin_status, None, who, roles=PUBLIC, api_visibility="private", show_progress="hidden")
    for refresh_on in (refresh_verify, refresh_review):  # a sign-in fills both queues
        refresh_on(ev.then)


def build_users(ctx: AppContext, events: Events) -> None:
    """Admin-only account management: create accounts and list them."""
    with gr.Row():
        uname = gr.Textbox(label="New user name", elem_id="users-name")
        role = gr.Dropdown(list(auth.ROLES), value="annotator", label="Role", elem_id="users-role")
        pw = gr.Textbox(label="Password (8+ characters)", type="password", elem_id="users-password")
        add = gr.Button("Create account", elem_id="users-add")
    listing = gr.HTML("", elem_id="users-list", js_on_load=None)
    msg = gr.HTML("", elem_id="users-msg", js_on_load=None)
    show = gr.Button("List accounts", elem_id="users-show")

    def users_table() -> str:
        rows = [(u["name"], u["role"], "active" if u["active"] else "disabled") for u in ctx.store.users()]
        return table_html(["user", "role", "state"], rows, "users-table")

    @reports_to(msg)
    def on_add(tok: str, n: str, r: str, p: str):
        admin = auth.require(ctx.store, tok, ("admin",))
        u = auth.create_user(ctx.store, (n or "").strip(), r, p or "")
        return {listing: users_table(), pw: "", msg: ok_html(f"{admin.name} created {u.name} ({u.role}).")}

    @reports_to(msg)
    def on_show(tok: str):
        auth.require(ctx.store, tok, ("admin",))
        return {listing: users_table(), msg: ""}

    # open to every account like the other sub-tabs: the admin check above answers in the tab
    events.on(add.click, on_add, [events.token, uname, role, pw], [listing, pw, msg], roles=SIGNED_IN,
              api_name="users_add")
    events.on(show.click, on_show, [events.token], [listing, msg], roles=SIGNED_IN, api_name="users_list")
