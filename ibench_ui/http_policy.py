"""The host's HTTP policy, outermost of the web app (ibench_ui.host): what every request must be before any
route, ours or Gradio's, sees it, and what every response carries.

- `Host` must be one of the allowed hosts (ibench_ui.allowed_hosts), else 400; `X-Forwarded-Host` and
  `X-Gradio-Server` are dropped, so the API root Gradio writes into the page is this host, never a header's.
- The method and path must be in the route table (ibench_ui.routes), else 404; so is a `deep_link` query.
- A state-changing request (any method but GET and HEAD) must come from this host's own page: an `Origin`
  (or, without one, a `Referer`) naming this host, else 403, and a JSON body, else 415. Another site's form or
  no-cors fetch can send neither. This holds for the local single user too.
- The body must arrive within BODY_TIMEOUT seconds, else 408 (uvicorn has no such deadline; the header
  deadline is ibench_ui.http_server's).
- Every response carries the security headers (ibench_ui.page_headers); a Gradio route that fails with 500
  (an unknown component, function or body shape) answers 400 with a generic message instead, logged here."""
from __future__ import annotations

import logging
from typing import Optional
from urllib.parse import parse_qsl, urlsplit

import anyio

from ibench_ui.allowed_hosts import AllowedHosts, split_host
from ibench_ui.page_headers import OTHER_POLICY, page_policy, with_headers
from ibench_ui.routes import PAGES, REFUSED_QUERY, RouteTable, is_gradio

BODY_TIMEOUT = 60.0  # seconds for a whole request body: 12 MB (the body limit) over a slow 2 Mbit/s uplink
DROPPED = frozenset({b"x-forwarded-host", b"x-gradio-server"})
SAFE_METHODS = ("GET", "HEAD")
GENERIC = b"This request could not be handled."
SLOW = b"The request body came too slowly."
log = logging.getLogger(__name__)


class _SlowBody(Exception):
    pass


def same_origin(value: bytes, host: bytes) -> bool:
    """Whether an Origin or Referer value names `host` (scheme's default port left out on either side)."""
    try:
        parts = urlsplit(value.decode("latin-1"))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        return _netloc(parts.netloc, parts.scheme) == _netloc(host.decode("latin-1"), parts.scheme)
    except ValueError:
        return False


def _netloc(value: str, scheme: str) -> tuple[str, Optional[int]]:
    name, port = split_host(value)
    return name, None if port == {"http": 80, "https": 443}[scheme] else port


class HttpPolicy:
    """ASGI middleware applying the rules in this module's docstring."""

    def __init__(self, app, allowed: AllowedHosts, table: Optional[RouteTable] = None,
                 body_timeout: float = BODY_TIMEOUT):
        self.app, self.allowed, self.table, self.body_timeout = app, allowed, table or RouteTable(), body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":  # no route of ours is a WebSocket
            return await send({"type": "websocket.close", "code": 1008})
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = origin = referer = ctype = None
        kept = []
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
            elif name == b"origin":
                origin = value
            elif name == b"referer":
                referer = value
            elif name == b"content-type":
                ctype = value
            elif name in DROPPED:
                continue
            kept.append((name, value))
        refusal = self._refusal(scope, host, origin, referer, ctype)
        if refusal is not None:
            return await _reply(send, *refusal)
        if scope["path"] in PAGES:  # the page as sent, uncompressed: its inline scripts are hashed on the way out
            kept = [(n, v) for n, v in kept if n != b"accept-encoding"]
        scope = dict(scope, headers=kept)
        await self._serve(scope, receive, send)

    def _refusal(self, scope, host, origin, referer, ctype) -> Optional[tuple]:
        """(status, reason[, extra headers]) when the request is refused before any route sees it."""
        if host is None or not self.allowed.allows(host):
            return 400, b"This server does not answer to that host name (see --allowed-hosts)."
        method, path = scope["method"], scope["path"]
        if _refused_query(scope.get("query_string", b"")):
            return 404, b"Not found."
        if self.table.match(method, path) is None:
            allow = self.table.methods(path)
            if allow:
                return 405, b"Method not allowed.", {b"allow": ", ".join(allow).encode()}
            return 404, b"Not found."
        if method in SAFE_METHODS:
            return None
        claimed = origin if origin is not None else referer
        if claimed is None or not same_origin(claimed, host):
            return 403, b"Cross-site requests are not accepted here."
        if (ctype or b"").split(b";")[0].strip().lower() != b"application/json":
            return 415, b"Send the request as application/json."
        return None

    async def _serve(self, scope, receive, send):
        """Run the app with the body deadline on `receive`, and on `send` the security headers, the page's
        policy (its body held until complete) and a 500 of a Gradio route made a generic 400."""
        gradio = is_gradio(scope["path"])
        deadline: Optional[float] = None
        body_done = started = swallow = timed_out = False
        page: Optional[tuple[dict, bytearray]] = None

        async def timed_receive():
            nonlocal deadline, body_done, timed_out
            if body_done:  # after the body, receive only reports a disconnect: no deadline
                return await receive()
            if deadline is None:
                deadline = anyio.current_time() + self.body_timeout
            try:
                with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                    msg = await receive()
            except TimeoutError:
                timed_out = True
                raise _SlowBody() from None
            body_done = msg["type"] != "http.request" or not msg.get("more_body", False)
            return msg

        async def guarded_send(msg):
            nonlocal started, swallow, page
            if swallow:
                return
            if msg["type"] == "http.response.start":
                started = True
                if msg["status"] == 500 and (gradio or timed_out):
                    swallow = True
                    return await _reply(send, *((408, SLOW) if timed_out else (400, GENERIC)))
                if _is_html(msg.get("headers", [])):
                    page = (msg, bytearray())
                    return
                return await send(dict(msg, headers=with_headers(msg.get("headers", []), OTHER_POLICY.encode())))
            if page is not None and msg["type"] == "http.response.body":
                start, buf = page
                buf += msg.get("body", b"")
                if msg.get("more_body", False):
                    return
                page = None
                await send(dict(start, headers=with_headers(start.get("headers", []), page_policy(bytes(buf)))))
                return await send({"type": "http.response.body", "body": bytes(buf)})
            await send(msg)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except _SlowBody:
            if not started:
                await _reply(send, 408, SLOW)
        except Exception as exc:  # noqa: BLE001 - already answered (a 500 made generic above): one line, no stack
            if not swallow:
                raise
            log.warning("%s %s: %s: %s (answered 400)", scope["method"], scope["path"], type(exc).__name__,
                        str(exc)[:200])


def _refused_query(query: bytes) -> bool:
    """Whether the query string names a key of REFUSED_QUERY (decoded, as the app behind would read it)."""
    return bool(query) and any(k in REFUSED_QUERY
                               for k, _ in parse_qsl(query.decode("latin-1"), keep_blank_values=True))


def _is_html(headers) -> bool:
    return any(n.lower() == b"content-type" and v.lower().startswith(b"text/html") for n, v in headers)


async def _reply(send, status: int, body: bytes, extra: Optional[dict] = None) -> None:
    """A plain-text refusal with the security headers."""
    await send({"type": "http.response.start", "status": status,
                "headers": with_headers([(b"content-type", b"text/plain; charset=utf-8"),
                                         (b"content-length", str(len(body)).encode()),
                                         (b"cache-control", b"no-store"), *(extra or {}).items()],
                                        OTHER_POLICY.encode())})
    await send({"type": "http.response.body", "body": body})
