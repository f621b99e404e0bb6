"""Each tab's plain line saying who it is for, shown to a caller whose role may not use it (from the role table).

An annotator opening Compare reads "Compare is for reviewers and admins. You are signed in as ann (annotator).";
a visitor who did not sign in is told to sign in at the top of the page. A tab the caller may use shows nothing."""
from __future__ import annotations

from typing import Optional

import gradio as gr

from annotation import auth
from ibench_ui.context import AppContext
from ibench_ui.guard import Events, refusal
from ibench_ui.render import esc
from ibench_ui.role_table import ACCOUNTS, ANNOTATOR, REVIEWER, ADMIN, ELSEWHERE, TABS

PLURAL = {ANNOTATOR: "annotators", REVIEWER: "reviewers", ADMIN: "admins"}
SIGN_IN = "Sign in at the top of the page with the user name and password your admin gave you."


def who_for(roles: tuple[str, ...]) -> str:
    """The roles in plain words: "every signed-in account", "reviewers and admins", "admins"."""
    if set(ACCOUNTS) <= set(roles):
        return "every signed-in account (annotators, reviewers and admins)"
    return " and ".join(PLURAL[r] for r in (ANNOTATOR, REVIEWER, ADMIN) if r in roles)  # at most two here


def notice_html(ctx: AppContext, tab_id: str, token: Optional[str]) -> str:
    """The tab's line for the holder of sign-in session id `token`: "" when they may use the tab."""
    label, roles = TABS[tab_id]
    if refusal(ctx, token, roles) is None:
        return ""
    user = auth.user_for(ctx.store, token)
    you = SIGN_IN if user is None else " ".join(
        [f"You are signed in as {user.name} ({user.role}).", *([ELSEWHERE[tab_id]] if tab_id in ELSEWHERE else [])])
    return (f'<div class="ib-warn ib-tab-access" role="status" data-tab="{esc(tab_id)}">'
            f"{esc(label)} is for {esc(who_for(roles))}. {esc(you)}</div>")


class TabNotices:
    """The notice boxes, one per tab (`add` inside the tab), filled on the page load and on every sign-in."""

    def __init__(self, ctx: AppContext):
        self.ctx = ctx
        self.boxes: dict[str, gr.HTML] = {}

    def add(self, tab_id: str) -> None:
        """The current tab's notice box (#TAB-access); `tab_id` must be a tab of the role table."""
        if tab_id not in TABS:
            raise KeyError(f"role table: no tab {tab_id!r} in TABS")
        self.boxes[tab_id] = gr.HTML("", elem_id=f"{tab_id}-access", elem_classes=["ib-access-box"],
                                     js_on_load=None)  # takes no room while empty (static/base.css)

    def wire(self, events: Events, demo: gr.Blocks) -> None:
        """Fill every box on the page load and after each sign-in or sign-out (the sign-in counter changes)."""
        boxes = self.boxes

        def tab_notices(tok: str):
            return {box: notice_html(self.ctx, tab, tok) for tab, box in boxes.items()}

        for trigger in (demo.load, events.token.change):
            events.on(trigger, tab_notices, [events.token], list(boxes.values()), api_visibility="private",
                      show_progress="hidden")
