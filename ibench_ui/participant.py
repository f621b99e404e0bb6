"""The participant app: what a study link (`/study/?t=<token>`) opens, and nothing else.

It has one component, the session player, and only the session's server functions. The link's token becomes
a cookie on first load (ibench_ui.auth_routes); every call carries that cookie, and the cookie, not the page,
says which session it is (annotation.studies), so a participant can reach their own session and its media
only. There are no tabs, no event listeners in the API, no uploads and no live model."""
from __future__ import annotations

from typing import Any

import gradio as gr

from annotation.studies import link_of_session
from ibench_ui.auth_routes import link_id
from ibench_ui.context import AppContext
from ibench_ui.session import SESSION_FUNCTIONS, SESSION_JS, SESSION_MOUNT, SessionService, server_functions, \
    session_markup
from ibench_ui.static_route import link_tags, script_tags

# the study page's styles (static/): its head loads these and nothing of the studio's
PARTICIPANT_CSS = ("base.css", "session.css")
BAD_LINK = ("This study link is not valid or has been closed. Check that you opened the whole link; "
            "if it still fails, contact the study's organiser.")


class ParticipantService:
    """The session functions behind a link's cookie: each resolves the cookie first and ignores any session id
    or participant the page sends."""

    def __init__(self, ctx: AppContext, svc: SessionService):
        self.ctx, self.svc = ctx, svc

    def _scoped(self, req: Any, request: Any) -> dict | None:
        if not isinstance(req, dict):
            return None
        link = link_of_session(self.ctx.store, link_id(request))
        if link is None:
            return None
        out = {k: v for k, v in req.items() if k not in ("session_id", "participant", "model", "who")}
        out["session_id"] = link.session_id
        return out

    def call(self, name: str, req: Any, request: Any) -> dict:
        scoped = self._scoped(req, request)
        if scoped is None:
            return {"ok": False, "error": BAD_LINK}
        if name == "open_session":
            # the link's query (a crowd platform appends its participant id to it, e.g. PROLIFIC_PID)
            return self.svc.open_session({"session_id": scoped["session_id"], "query": scoped.get("query")})
        if name == "item_sets":
            return {"ok": True, "sets": {}}
        if name == "model_stop":
            return {"ok": True, "model": None, "stopped": False}
        if name == "hear":  # no live model for participants: their microphone (duplex) goes nowhere
            return {"ok": True, "heard": False}
        return getattr(self.svc, name)(scoped)


def participant_head() -> str:
    """The study page's `<head>`: its stylesheets (its scripts come with the session player's element)."""
    return link_tags(PARTICIPANT_CSS)


def build_participant_app(ctx: AppContext, svc: SessionService | None = None, routes: dict | None = None) -> gr.Blocks:
    """The study page; `routes`, when given, receives the hot functions the host also serves as plain JSON
    routes (see ibench_ui.host), each the same cookie-scoped function the page's server functions call."""
    svc = svc or SessionService(ctx, links=True)
    if not svc.links:
        raise ValueError("the participant app needs a SessionService(links=True)")
    ps = ParticipantService(ctx, svc)

    fns = server_functions(SESSION_FUNCTIONS, ps.call)
    if routes is not None:
        routes["respond"] = next(f for f in fns if f.__name__ == "respond")

    async def wait_model(req):  # no live model for participants: answer at once, never hold a request
        return {"ok": True, "events": [], "cursor": 0}

    with gr.Blocks(title="Study session") as demo:
        gr.HTML(session_markup(ctx, participant=True), elem_id="session-root", padding=False,
                head=script_tags(SESSION_JS), js_on_load=SESSION_MOUNT,
                server_functions=[*fns, wait_model])
    return demo
