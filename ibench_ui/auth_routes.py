"""Sign-in as a cookie: `POST /auth/signin`, `POST /auth/signout`, and a study link's token exchanged for a
cookie on its first load (`GET /study/?t=…` answers 303 to `/study/` with the cookie set).

Both cookies are HttpOnly and SameSite=Strict (Secure when the public URL is https) and hold a random session
id whose hash the store keeps (annotation.auth, annotation.studies); the page never sees a token, and every
server function finds its caller in the request's cookie (`caller_id`, `link_id`). Failed sign-ins and failed
link tokens back off per account and per client (annotation.throttle): 429 with Retry-After, the right
password refused too while locked."""
from __future__ import annotations

from typing import Any, Optional
from urllib.parse import parse_qs, urlencode

import anyio
import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response

from annotation import auth, studies, throttle
from ibench_ui.context import AppContext

STUDIO_COOKIE = "ib_session"   # an account's sign-in, for the whole host
STUDY_COOKIE = "ib_study"      # a study link's session, for the participant app only
STUDY_PATH = studies.STUDY_PATH
SIGNIN_PATH, SIGNOUT_PATH = "/auth/signin", "/auth/signout"
WRONG = "Wrong user name or password (or the account is disabled)."
LOCKED = "Too many failed attempts: try again in {s} s."


def caller_id(request: Any) -> Optional[str]:
    """The studio sign-in session id the request's cookie carries (None without one)."""
    cookies = getattr(request, "cookies", None) or {}
    v = cookies.get(STUDIO_COOKIE)
    return v if isinstance(v, str) and v else None


def link_id(request: Any) -> Optional[str]:
    """The study link session id the request's cookie carries (None without one)."""
    cookies = getattr(request, "cookies", None) or {}
    v = cookies.get(STUDY_COOKIE)
    return v if isinstance(v, str) and v else None


def client_address(request: Any) -> str:
    client = getattr(request, "client", None)
    return getattr(client, "host", None) or "unknown"


def _secure(ctx: AppContext, scheme: str) -> bool:
    return ctx.base_url.startswith("https://") or scheme == "https"


def set_cookie(ctx: AppContext, resp: Response, name: str, value: str, max_age: float, path: str, scheme: str):
    resp.set_cookie(name, value, max_age=int(max_age), path=path, httponly=True, samesite="strict",
                    secure=_secure(ctx, scheme))


def _locked(wait: float) -> JSONResponse:
    s = throttle.retry_after(wait)
    return JSONResponse({"ok": False, "error": LOCKED.format(s=s), "retry_after": int(s)}, status_code=429,
                        headers={"Retry-After": s, "Cache-Control": "no-store"})


def signin(ctx: AppContext, body: Any, address: str, scheme: str) -> Response:
    """Check a name and password (unless a lockout is running) and set the sign-in cookie."""
    if not isinstance(body, dict) or not isinstance(body.get("name"), str) or not isinstance(body.get("password"), str):
        return JSONResponse({"ok": False, "error": "Send {\"name\": ..., \"password\": ...} as JSON."}, 400)
    name = body["name"].strip()[:64]
    keys = [(f"user:{name}", throttle.ACCOUNT), (f"client:{address}", throttle.CLIENT)]
    guard = throttle.Throttle(ctx.store, ctx.signin.lockout)
    wait = guard.locked(keys)
    if wait > 0:
        return _locked(wait)
    try:
        sid = auth.sign_in(ctx.store, name, body["password"], ttl=ctx.signin.max_age, idle=ctx.signin.idle)
    except PermissionError:
        wait = guard.failed(keys)
        return _locked(wait) if wait > 0 else JSONResponse({"ok": False, "error": WRONG}, 401)
    guard.succeeded(f"user:{name}")
    user = auth.user_for(ctx.store, sid)
    resp = JSONResponse({"ok": True, "user": user.name, "role": user.role}, headers={"Cache-Control": "no-store"})
    set_cookie(ctx, resp, STUDIO_COOKIE, sid, ctx.signin.max_age, "/", scheme)
    return resp


def signout(ctx: AppContext, request: Request) -> Response:
    """End every session of the caller's account and clear the cookie."""
    auth.sign_out(ctx.store, caller_id(request))
    resp = JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})
    resp.delete_cookie(STUDIO_COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(ctx, request.url.scheme))
    return resp


def add_auth_routes(app: FastAPI, ctx: AppContext) -> None:
    """The two sign-in routes on the host app (JSON bodies; argon2 runs in FastAPI's worker threads)."""

    @app.post(SIGNIN_PATH)
    async def signin_route(request: Request):
        body = json_body(await request.body())
        return await anyio.to_thread.run_sync(signin, ctx, body, client_address(request), request.url.scheme)

    @app.post(SIGNOUT_PATH)
    async def signout_route(request: Request):
        return await anyio.to_thread.run_sync(signout, ctx, request)


class StudyLinkCookies:
    """ASGI: `GET /study/?t=TOKEN` becomes a cookie. A valid token answers 303 to the same path without the
    token, with the study cookie set; a wrong one is counted against the client (429 while locked) and answers
    303 with any earlier study cookie cleared, so the page says the link is not valid rather than opening
    another link's session. Everything else passes through."""

    def __init__(self, app, ctx: AppContext):
        self.app, self.ctx = app, ctx

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path not in (STUDY_PATH, STUDY_PATH + "/") or scope["method"] != "GET":
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        if "t" not in query:  # a parameter merely ending in "t=" (?start=1) is the page's, not a link token
            return await self.app(scope, receive, send)
        token = query.pop("t")[0]
        # the rest of the query stays on the page's address: a crowd platform's participant id (e.g. PROLIFIC_PID)
        rest = urlencode(query, doseq=True)
        resp = await anyio.to_thread.run_sync(self._exchange, token, (scope.get("client") or ("unknown",))[0],
                                              scope.get("scheme", "http"), path + ("?" + rest if rest else ""))
        await resp(scope, receive, send)

    def _exchange(self, token: str, address: str, scheme: str, target: str) -> Response:
        keys = [(f"link:{address}", throttle.LINK)]
        guard = throttle.Throttle(self.ctx.store, self.ctx.signin.lockout)
        wait = guard.locked(keys)
        if wait > 0:
            s = throttle.retry_after(wait)
            return PlainTextResponse(LOCKED.format(s=s), status_code=429, headers={"Retry-After": s})
        sid = studies.open_link_session(self.ctx.store, token, self.ctx.signin.link_max_age)
        if sid is None:
            wait = guard.failed(keys)
            if wait > 0:
                s = throttle.retry_after(wait)
                return PlainTextResponse(LOCKED.format(s=s), status_code=429, headers={"Retry-After": s})
        resp = RedirectResponse(target, status_code=303, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
        if sid is None:
            resp.delete_cookie(STUDY_COOKIE, path=STUDY_PATH, httponly=True, samesite="strict",
                               secure=_secure(self.ctx, scheme))
        else:
            set_cookie(self.ctx, resp, STUDY_COOKIE, sid, self.ctx.signin.link_max_age, STUDY_PATH, scheme)
        return resp


def json_body(raw: bytes) -> Any:
    """A request body as JSON (None when it is not JSON: the caller refuses it)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
