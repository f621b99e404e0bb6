"""The host's HTTP policy, outermost of the web app (ibench_ui.host): what every request must be before any
route, ours or Gradio's, sees it, and what every response carries.

- `Host` must be one of the allowed hosts (ibench_ui.allowed_hosts), else 400; `X-Forwarded-Host` and
  `X-Gradio-Server` are dropped, so the API root Gradio writes into the page is this host, never a header's.
- The method and path must be in the route table (ibench_ui.routes), else 404; so is a `deep_link` query.
- A state-changing request (any method but GET and HEAD) must come from this host's own page: an `Origin`
  (or, without one, a `Referer`) naming this host, else 403, and a JSON body, else 415. Another site's form or
  no-cors fetch can send neither. This holds for the local single user too.
- (The read deadlines for headers and body are the server's: ibench_ui.http_server.)
- Every response carries the security headers (ibench_ui.page_headers); a Gradio route that fails with 500
  (an unknown component, function or body shape) answers 400 with a generic message instead, logged here."""
from __future__ import annotations

import logging
from typing import Optional
from urllib.parse import parse_qsl, urlsplit

from ibench_ui.allowed_hosts import AllowedHosts, split_host
from ibench_ui.page_headers import OTHER_POLICY, page_policy, with_headers
from ibench_ui.routes import PAGES, REFUSED_QUERY, RouteTable, is_gradio

DROPPED = frozenset({b"x-forwarded-host", b"x-gradio-server"})
SAFE_METHODS = ("GET", "HEAD")
GENERIC = b"This request could not be handled."
OTHER = OTHER_POLICY.encode()
MEMO = 256  # host and origin values remembered with their verdicts (a client sends the same few every time)
log = logging.getLogger(__name__)


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

    def __init__(self, app, allowed: AllowedHosts, table: Optional[RouteTable] = None):
        self.app, self.allowed, self.table = app, allowed, table or RouteTable()
        self._hosts: dict[bytes, bool] = {}
        self._origins: dict[tuple[bytes, bytes], bool] = {}

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
        if host is None or not _memo(self._hosts, host, self.allowed.allows):
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
        if claimed is None or not _memo(self._origins, (claimed, host), lambda k: same_origin(*k)):
            return 403, b"Cross-site requests are not accepted here."
        if (ctype or b"").split(b";")[0].strip().lower() != b"application/json":
            return 415, b"Send the request as application/json."
        return None

    async def _serve(self, scope, receive, send):
        """Run the app with, on `send`, the security headers, the page's policy (its body held until complete)
        and a 500 of a Gradio route made a generic 400."""
        gradio = is_gradio(scope["path"])
        swallow = False
        page: Optional[tuple[dict, bytearray]] = None

        async def guarded_send(msg):
            nonlocal swallow, page
            if swallow:
                return
            if msg["type"] == "http.response.start":
                if msg["status"] == 500 and gradio:
                    swallow = True
                    return await _reply(send, 400, GENERIC)
                if _is_html(msg.get("headers", [])):
                    page = (msg, bytearray())
                    return
                return await send(dict(msg, headers=with_headers(msg.get("headers", []), OTHER)))
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
            await self.app(scope, receive, guarded_send)
        except Exception as exc:  # noqa: BLE001 - already answered (a 500 made generic above): one line, no stack
            if not swallow:
                raise
            log.warning("%s %s: %s: %s (answered 400)", scope["method"], scope["path"], type(exc).__name__,
                        str(exc)[:200])


def _memo(memo: dict, key, verdict) -> bool:
    """`verdict(key)`, remembered for the next request that sends the same value (at most MEMO of them)."""
    hit = memo.get(key)
    if hit is None:
        if len(memo) >= MEMO:
            memo.clear()
        hit = memo[key] = verdict(key)
    return hit


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
                                         (b"cache-control", b"no-store"), *(extra or {}).items()], OTHER)})
    await send({"type": "http.response.body", "body": body})
