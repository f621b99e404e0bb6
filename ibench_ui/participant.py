"""The participant app: what a study link (`/study/?t=<token>`) opens, and nothing else.

It has one component, the session player, and only the session's server functions. Every call
carries the link's token; the token, not the page, says which session it is (annotation.studies),
so a participant can reach their own session and its media only. There are no tabs, no event
listeners in the API, no uploads and no live model."""
from __future__ import annotations

from typing import Any

import gradio as gr

from annotation.studies import resolve_token
from ibench_ui.context import AppContext
from ibench_ui.session import SESSION_JS, SESSION_MOUNT, SessionService, session_markup
from ibench_ui.static_route import link_tags, script_tags

# the study page's styles (static/): its head loads these and nothing of the studio's
PARTICIPANT_CSS = ("base.css", "session.css")
BAD_LINK = ("This study link is not valid or has been closed. Check that you opened the whole link; "
            "if it still fails, contact the study's organiser.")


class ParticipantService:
    """The session functions behind a token: each resolves the token first and ignores any session id
    or participant the page sends."""

    def __init__(self, ctx: AppContext, svc: SessionService):
        self.ctx, self.svc = ctx, svc

    def _scoped(self, req: Any) -> dict | None:
        if not isinstance(req, dict):
            return None
        link = resolve_token(self.ctx.store, req.get("t"))
        if link is None:
            return None
        out = {k: v for k, v in req.items() if k not in ("t", "session_id", "participant", "model", "who")}
        out["session_id"] = link.session_id
        return out

    def call(self, name: str, req: Any) -> dict:
        scoped = self._scoped(req)
        if scoped is None:
            return {"ok": False, "error": BAD_LINK}
        if name == "open_session":
            # the link's query (a crowd platform appends its participant id to it, e.g. PROLIFIC_PID)
            return self.svc.open_session({"session_id": scoped["session_id"], "query": scoped.get("query")})
        if name == "item_sets":
            return {"ok": True, "sets": {}}
        if name in ("clock", "model_stop"):
            return {"ok": True, "model": None, "stopped": False}
        if name == "hear":  # no live model for participants: their microphone goes nowhere
            return {"ok": True, "heard": False}
        return getattr(self.svc, name)(scoped)


def participant_head() -> str:
    """The study page's `<head>`: its stylesheets (its scripts come with the session player's element)."""
    return link_tags(PARTICIPANT_CSS)


def build_participant_app(ctx: AppContext, svc: SessionService | None = None, routes: dict | None = None) -> gr.Blocks:
    """The study page; `routes`, when given, receives the hot functions the host also serves as plain JSON
    routes (see ibench_ui.host), each the same token-scoped function the page's server functions call."""
    svc = svc or SessionService(ctx, links=True)
    if not svc.links:
        raise ValueError("the participant app needs a SessionService(links=True)")
    ps = ParticipantService(ctx, svc)

    # gr.HTML needs plain functions with distinct names (the names session.js calls)
    def open_session(req): return ps.call("open_session", req)
    def item_sets(req): return ps.call("item_sets", req)
    def respond(req): return ps.call("respond", req)
    def speak(req): return ps.call("speak", req)
    def correct(req): return ps.call("correct", req)
    def finish_item(req): return ps.call("finish_item", req)
    def asr_status(req): return ps.call("asr_status", req)
    def clock(req): return ps.call("clock", req)
    def model_stop(req): return ps.call("model_stop", req)
    def study_step(req): return ps.call("study_step", req)      # consent, practice (issue 14)
    def calibrate(req): return ps.call("calibrate", req)        # reaction-time calibration (issue 14)
    def model_check(req): return ps.call("model_check", req)
    def hear(req): return ps.call("hear", req)  # duplex microphone: answered, never used (no live model here)

    if routes is not None:
        routes["respond"] = respond

    async def wait_model(req):  # no live model for participants: answer at once, never hold a request
        return {"ok": True, "events": [], "cursor": 0}

    with gr.Blocks(title="Study session") as demo:
        gr.HTML(session_markup(ctx, participant=True), elem_id="session-root", padding=False,
                head=script_tags(SESSION_JS), js_on_load=SESSION_MOUNT,
                server_functions=[open_session, item_sets, respond, speak, correct, finish_item, asr_status,
                                  clock, wait_model, model_stop, study_step, calibrate, model_check, hear])
    return demo
