"""The web host: one FastAPI app with each audience mounted apart (DESIGN.md "Audiences and trust").

  /study/     the participant app (ibench_ui.participant): a study link's session, nothing else
  /media/<id> item media by opaque id, with HTTP Range (ibench_ui.media_route)
  /ib-static/<name>
              the pages' own JS and CSS, a fixed list of files (ibench_ui.static_route)
  /           the staff studio (ibench_ui.app): every function checks the caller's role on the server
  /auth/signin, /auth/signout
              sign-in as an HttpOnly cookie (ibench_ui.auth_routes); /study/?t=TOKEN trades a link for one
  /api/respond, /study/api/respond
              the response path (a press or typed answer) as a plain JSON route: the same checked
              function the page's Gradio server function calls, without Gradio's per-call dispatch,
              so many participants answering at once are not held up by it (issue 14, load)

Around all of it: the HTTP policy (ibench_ui.http_policy) answers only the route table's routes
(ibench_ui.routes) for allowed hosts, checks every state-changing request's origin and content type, and
adds the security headers; inside it, request bodies are size-limited."""
from __future__ import annotations

import ipaddress
import socket
from typing import Callable, Optional

import anyio
import gradio as gr
import orjson
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response

from ibench_ui.allowed_hosts import AllowedHosts
from ibench_ui.auth_routes import StudyLinkCookies, add_auth_routes
from ibench_ui.context import AppContext
from ibench_ui.http_policy import HttpPolicy
from ibench_ui.media_route import add_media_route
from ibench_ui.static_route import STATIC_PREFIX, static_response

RESPOND_THREADS = 64  # worker threads for the response route: enough waiters for the store's group commit

MAX_BODY = 12 * 2**20  # bytes: a 30 s, 48 kHz voice clip in base64 is under 4 MB
STUDY_MOUNT = "/study"
NO_ADMIN = ("refusing to listen on {host}: there are no accounts in {db}, so anyone who can reach this address "
            "would act as admin. Create the first admin, then start again:\n"
            "    python app.py users add NAME --role admin --db {db}\n"
            "(or bind to 127.0.0.1 for a single user on this machine).")


def is_loopback(host: str) -> bool:
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: 413 for bodies over MAX_BODY (declared or streamed)."""

    def __init__(self, app, max_body: int = MAX_BODY):
        self.app, self.max_body = app, max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        try:
            too_big = declared is not None and int(declared) > self.max_body
        except ValueError:
            too_big = True
        if too_big:
            return await PlainTextResponse("Request body too large.", status_code=413)(scope, receive, send)
        seen = 0
        started = False

        async def limited_receive():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_body:
                    raise _TooLarge()
            return msg

        async def tracking_send(msg):
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await PlainTextResponse("Request body too large.", status_code=413)(scope, receive, send)


class _TooLarge(Exception):
    pass


class FastRoutes:
    """ASGI, just inside the HTTP policy (which has already checked the method, host, origin and content type):
    a POST to one of `routes` (path -> checked session function, which answers every body, refusals included,
    with a JSON object) is answered here, in a worker thread, ahead of FastAPI's routing, telemetry and
    middleware; every other request goes on to `app` unchanged. The response path
    is the one many participants hit at once, so it carries no per-call work it does not need."""

    def __init__(self, app, routes: dict, limiter, max_body: int = MAX_BODY):
        self.app, self.routes, self.limiter, self.max_body = app, routes, limiter, max_body

    async def __call__(self, scope, receive, send):
        fn = self.routes.get(scope.get("path")) if scope["type"] == "http" else None
        if fn is None:
            return await self.app(scope, receive, send)
        body, more = bytearray(), True
        while more:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
            if len(body) > self.max_body:
                return await PlainTextResponse("Request body too large.", status_code=413)(scope, receive, send)
        try:
            req = orjson.loads(body)
        except orjson.JSONDecodeError:
            req = None  # the function refuses a body that is not a JSON object
        try:
            out = orjson.dumps(await anyio.to_thread.run_sync(fn, req, Request(scope), limiter=self.limiter))
        except Exception:  # noqa: BLE001 - logged for the operator; the page gets a reply, not the server's insides
            import logging
            logging.getLogger(__name__).exception("route %s failed", scope.get("path"))
            out, status = orjson.dumps({"ok": False, "error": "The server could not handle this request; nothing "
                                                               "was logged."}), 500
        else:
            status = 200
        await Response(out, status_code=status, media_type="application/json",
                       headers={"Cache-Control": "no-store"})(scope, receive, send)


def build_host(ctx: AppContext, build_studio: Callable[[dict], gr.Blocks], studio_head: str,
               allowed: AllowedHosts) -> HttpPolicy:
    """The web app: the FastAPI app with the media route, the participant app and the studio mounted,
    behind the plain response routes (FastRoutes), behind the HTTP policy for the `allowed` hosts (HttpPolicy).
    `build_studio(routes)` builds the staff studio
    (ibench_ui.app, which calls this: so the host never imports it back), filling `routes`; `studio_head` is its
    pages' head (the study page has its own, ibench_ui.participant)."""
    from ibench_ui.participant import build_participant_app, participant_head

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    add_media_route(app, ctx)  # GET /media/{mid} (ibench_ui.media_route)

    @app.get(STATIC_PREFIX + "{name:path}")  # every path under the prefix ends here: listed files, else 404
    async def static(name: str, request: Request):
        return static_response(name, request.query_params.get("v", ""), request.headers.get("if-none-match"))

    add_auth_routes(app, ctx)  # POST /auth/signin, /auth/signout (ibench_ui.auth_routes)
    participant_routes: dict = {}
    studio_routes: dict = {}
    participant = build_participant_app(ctx, routes=participant_routes)
    participant.queue(default_concurrency_limit=16)
    studio = build_studio(studio_routes)
    studio.queue(default_concurrency_limit=16)
    gr.mount_gradio_app(app, participant, path=STUDY_MOUNT, head=participant_head(), footer_links=[],
                        show_error=False)  # gr.Error replies are shown; other exceptions say nothing of the server
    gr.mount_gradio_app(app, studio, path="", head=studio_head, footer_links=["api"],
                        show_error=False)  # gr.Error replies are shown; other exceptions say nothing of the server
    app.add_middleware(StudyLinkCookies, ctx=ctx)  # GET /study/?t=TOKEN: the link's token becomes a cookie
    app.add_middleware(Guard)
    fast = {f"{STUDY_MOUNT}/api/respond": participant_routes["respond"], "/api/respond": studio_routes["respond"]}
    return HttpPolicy(FastRoutes(app, fast, anyio.CapacityLimiter(RESPOND_THREADS)), allowed)


def free_port(host: str, start: int = 7860, tries: int = 100) -> int:
    """Gradio's rule: 7860, or the next free port."""
    for port in range(start, start + tries):
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
            try:
                s.bind((host, port))
                return port
            except OSError:
                continue
    raise OSError(f"no free port in {start}-{start + tries - 1} on {host}")


def check_bind(ctx: AppContext, host: str) -> Optional[str]:
    """Why the app must not start on `host` (None when it may)."""
    if not is_loopback(host) and not ctx.store.users():
        return NO_ADMIN.format(host=host, db=ctx.store.path)
    return None
