"""The Annotation tab: a sign-in box above the Verify, Review, Agreement and Users sub-tabs.

The session token lives in the page (gr.State) and is an input of every handler; each handler
resolves it on the server with `annotation.auth.require`, so calling an API route directly gives
exactly the rights of the token's user and nothing more."""
from __future__ import annotations

import gradio as gr

from annotation import auth
from ibench_ui.context import AppContext
from ibench_ui.guard import PUBLIC, SIGNED_IN, Events
from ibench_ui.handlers import error_html, ok_html, reports_to
from ibench_ui.render import esc, table_html
from ibench_ui.review import build_review
from ibench_ui.verify import build_agreement, build_verify


def build_annotation_tabs(ctx: AppContext, events: Events) -> None:
    """Lay out the Annotation tab (sign-in + sub-tabs) inside the current Tabs context; `events.token` is the
    page's sign-in state, shared with other tabs that show staff-only data."""
    token = events.token
    with gr.Tab("Annotation", id="annotation", elem_id="tab-annotation"):
        with gr.Row(elem_id="signin-box"):
            name = gr.Textbox(label="User", elem_id="signin-name", scale=2)
            password = gr.Textbox(label="Password", type="password", elem_id="signin-password", scale=2)
            signin = gr.Button("Sign in", variant="primary", elem_id="signin-button", scale=1)
            signout = gr.Button("Sign out", elem_id="signout-button", scale=1)
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

    def do_signin(user_name: str, pw: str):
        try:
            tok = auth.sign_in(ctx.store, (user_name or "").strip(), pw or "")
        except PermissionError as exc:
            return "", f'<div id="signin-status">{error_html(exc)}</div>', ""
        u = auth.user_for(ctx.store, tok)
        # data-token: the page's Session tab sends it with each server function (they have no gr.State input)
        return tok, (f'<div id="signin-status" data-user="{esc(u.name)}" data-role="{esc(u.role)}" '
                     f'data-token="{esc(tok)}">Signed in as '
                     f'<b>{esc(u.name)}</b> ({esc(u.role)}).</div>'), ""

    def do_signout(tok: str):
        auth.sign_out(ctx.store, tok)
        return "", '<div id="signin-status">Signed out.</div>'

    ev = events.on(signin.click, do_signin, [name, password], [token, who, password], roles=PUBLIC, api_name="sign_in")
    events.on(password.submit, do_signin, [name, password], [token, who, password], roles=PUBLIC,
              api_visibility="private")
    events.on(signout.click, do_signout, [token], [token, who], roles=PUBLIC, api_name="sign_out")
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
