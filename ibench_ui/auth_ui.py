"""The Annotation tab: a sign-in box above the Verify, Review, Agreement and Users sub-tabs.

The session token lives in the page (gr.State) and is an input of every handler; each handler
resolves it on the server with `annotation.auth.require`, so calling an API route directly gives
exactly the rights of the token's user and nothing more."""
from __future__ import annotations

from typing import Optional

import gradio as gr

from annotation import auth
from ibench_ui.context import AppContext
from ibench_ui.render import esc, table_html

# the handlers' helpers live in ibench_ui.handlers, so Verify and Review need not import this module
from ibench_ui.handlers import GUARDED, IN_ORDER, error_html, guarded, ok_html  # noqa: F401


def build_annotation_tabs(ctx: AppContext, token: Optional[gr.State] = None) -> None:
    """Lay out the Annotation tab (sign-in + sub-tabs) inside the current Tabs context; `token` is the page's
    sign-in state, shared with other tabs that show staff-only data."""
    from ibench_ui.review import build_review
    from ibench_ui.verify import build_agreement, build_verify

    with gr.Tab("Annotation", id="annotation", elem_id="tab-annotation"):
        token = token if token is not None else gr.State("")
        with gr.Row(elem_id="signin-box"):
            name = gr.Textbox(label="User", elem_id="signin-name", scale=2)
            password = gr.Textbox(label="Password", type="password", elem_id="signin-password", scale=2)
            signin = gr.Button("Sign in", variant="primary", elem_id="signin-button", scale=1)
            signout = gr.Button("Sign out", elem_id="signout-button", scale=1)
        who = gr.HTML('<div id="signin-status">Not signed in.</div>', elem_id="signin-status-box", js_on_load=None)
        with gr.Tabs():
            with gr.Tab("Verify", id="verify", elem_id="tab-verify"):
                refresh_verify = build_verify(ctx, token)
            with gr.Tab("Review", id="review", elem_id="tab-review"):
                refresh_review = build_review(ctx, token)
            with gr.Tab("Agreement", id="agreement", elem_id="tab-agreement"):
                build_agreement(ctx, token)
            with gr.Tab("Users", id="users", elem_id="tab-users"):
                build_users(ctx, token)

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

    ev = signin.click(do_signin, [name, password], [token, who, password], api_name="sign_in")
    password.submit(do_signin, [name, password], [token, who, password], api_visibility="private")
    signout.click(do_signout, [token], [token, who], api_name="sign_out")
    for refresh, tab in ((refresh_verify, "verify"), (refresh_review, "review")):
        fn, inputs, outputs = refresh
        ev.then(fn, inputs, outputs, api_visibility="private", **IN_ORDER[tab])


def build_users(ctx: AppContext, token: gr.State) -> None:
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

    @guarded(3, 2)
    def on_add(tok: str, n: str, r: str, p: str):
        admin = auth.require(ctx.store, tok, ("admin",))
        u = auth.create_user(ctx.store, (n or "").strip(), r, p or "")
        return users_table(), "", ok_html(f"{admin.name} created {u.name} ({u.role}).")

    @guarded(2, 1)
    def on_show(tok: str):
        auth.require(ctx.store, tok, ("admin",))
        return users_table(), ""

    add.click(on_add, [token, uname, role, pw], [listing, pw, msg], api_name="users_add")
    show.click(on_show, [token], [listing, msg], api_name="users_list")
