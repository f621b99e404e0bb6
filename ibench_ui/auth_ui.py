"""The page header's sign-in (on every tab) and the Annotation tab: Verify, Review, Agreement and Users.

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
from ibench_ui.guard import Events
from ibench_ui.handlers import ok_html, reports_to
from ibench_ui.render import esc, table_html
from ibench_ui.review import build_review
from ibench_ui.tab_access import TabNotices
from ibench_ui.verify import build_agreement, build_verify

NOT_SIGNED_IN = "Not signed in."  # what to do is each tab's line (ibench_ui.tab_access), the header stays one line


def status_html(ctx: AppContext, request, nobody: str = NOT_SIGNED_IN) -> str:
    """The header's status line for the request's cookie (data-user and data-role for scripts, styles and tests;
    the styles hide the form while it names a user, and the Sign out button unless it names an account)."""
    local = ctx.local_user()
    u = local or auth.user_for(ctx.store, caller_id(request))
    if u is None:
        return f'<div id="signin-status">{esc(nobody)}</div>'
    said = "Working on this machine as" if local is not None else "Signed in as"
    mark = ' data-local="1"' if local is not None else ""
    return (f'<div id="signin-status" data-user="{esc(u.name)}" data-role="{esc(u.role)}"{mark}>{said} '
            f'<b>{esc(u.name)}</b> ({esc(u.role)})<span class="ib-signout-sep"> ·</span></div>')


def build_header(ctx: AppContext, events: Events, demo: gr.Blocks):
    """The page header above the tabs, one line: the title and the sign-in form, or once signed in "Signed in as
    NAME (role) · Sign out". Returns the dependency that runs after each sign-in or sign-out (chain redraws on
    its `.then`); `events.token` changes then too."""
    with gr.Row(elem_id="ib-header", equal_height=True):
        gr.HTML('<div id="ib-title"><b>ibench-ui</b> <span>real-time interaction benchmarks</span></div>',
                elem_id="ib-title-box", js_on_load=None)
        with gr.Row(elem_id="signin-box", equal_height=True):
            gr.Textbox(show_label=False, placeholder="User", elem_id="signin-name", container=False,
                       interactive=True, min_width=110)  # read by signin.js
            password = gr.Textbox(show_label=False, placeholder="Password", type="password",
                                  elem_id="signin-password", container=False, interactive=True, min_width=110)
            # both buttons start disabled: Gradio adds the head's scripts without waiting for them, so on a slow
            # page a click could come before static/signin.js listens; the script enables them once it does
            gr.Button("Sign in", variant="primary", size="sm", elem_id="signin-button", min_width=70,
                      interactive=False)
            who = gr.HTML(f'<div id="signin-status">{esc(NOT_SIGNED_IN)}</div>', elem_id="signin-status-box",
                          js_on_load=None)
            gr.Button("Sign out", size="sm", elem_id="signout-button", min_width=70, interactive=False)
            refresh = gr.Button("Signed in", elem_id="signin-refresh", elem_classes=["ib-hidden"])

    def signed_in(request: gr.Request):
        """After the script's sign-in or sign-out: a new counter (tabs redraw), the status, an empty password."""
        return str(time.time_ns()), status_html(ctx, request, "Signed out."), ""

    def signin_status(request: gr.Request):
        return status_html(ctx, request)

    ev = events.on(refresh.click, signed_in, None, [events.token, who, password], api_visibility="private")
    events.on(demo.load, signin_status, None, who, api_visibility="private", show_progress="hidden")
    return ev


def build_annotation_tabs(ctx: AppContext, events: Events, signed_in, notices: TabNotices) -> None:
    """Lay out the Annotation tab (the Verify, Review, Agreement and Users sub-tabs, each with its line saying
    who it is for) inside the current Tabs context; `signed_in` is build_header's dependency (a sign-in fills
    the Verify and Review queues)."""
    with gr.Tab("Annotation", id="annotation", elem_id="tab-annotation"):
        with gr.Tabs():
            with gr.Tab("Verify", id="verify", elem_id="tab-verify"), events.tab("verify"):
                notices.add("verify")
                refresh_verify = build_verify(ctx, events)
            with gr.Tab("Review", id="review", elem_id="tab-review"), events.tab("review"):
                notices.add("review")
                refresh_review = build_review(ctx, events)
            with gr.Tab("Agreement", id="agreement", elem_id="tab-agreement"), events.tab("agreement"):
                notices.add("agreement")
                build_agreement(ctx, events)
            with gr.Tab("Users", id="users", elem_id="tab-users"), events.tab("users"):
                notices.add("users")
                build_users(ctx, events)
    for tab_id, refresh_on in (("verify", refresh_verify), ("review", refresh_review)):  # a sign-in fills both queues
        with events.tab(tab_id):
            refresh_on(signed_in.then)


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

    # admins only, by the role table's guard; the admin check above stays as the service's own
    events.on(add.click, on_add, [events.token, uname, role, pw], [listing, pw, msg],
              api_name="users_add")
    events.on(show.click, on_show, [events.token], [listing, msg], api_name="users_list")
