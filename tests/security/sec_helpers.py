"""Helpers for the security tests: start a real `python app.py`, plain HTTP calls, gr.HTML server functions."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from annotation import auth, studies
from annotation.store import Store

REPO = Path(__file__).resolve().parents[2]
IB = "interactionbench"
ITEMS = {"alice": ["moving_square#0", "color_scene#0"], "bob": ["ball_counter#0"]}


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    db: Path
    url: str
    proc: subprocess.Popen
    tokens: dict
    study_id: str
    marker_dir: Path
    log: Path
    extra: dict = field(default_factory=dict)

    def alive(self) -> bool:
        return self.proc.poll() is None and http(self.url + "/study/")[0] == 200


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **kw):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def http_full(url: str, body=None, method: str | None = None, headers: dict | None = None):
    """(status, headers, text) of one request, redirects not followed (a 303 is answered as is)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with _opener.open(req, timeout=120) as r:
            return r.status, r.headers, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode("utf-8", "replace")


def cookie_of(headers, name: str) -> str:
    """The value of cookie `name` a response sets ("" when it sets none)."""
    for v in headers.get_all("Set-Cookie") or []:
        k, _, rest = v.partition("=")
        if k.strip() == name:
            return rest.split(";", 1)[0]
    return ""


_LINKS: dict = {}


def link_cookie(url: str, token: str) -> str:
    """The Cookie header a study link's first load sets (GET /study/?t=TOKEN answers 303 with it)."""
    if (url, token) not in _LINKS:
        status, headers, _ = http_full(f"{url}/study/?t={urllib.parse.quote(token, safe='')}")
        _LINKS[(url, token)] = f"ib_study={cookie_of(headers, 'ib_study')}" if status == 303 else ""
    return _LINKS[(url, token)]


def signin_cookie(url: str, name: str, password: str) -> str:
    """The Cookie header of a sign-in (POST /auth/signin); "" when it is refused."""
    status, headers, _ = http_full(f"{url}/auth/signin", {"name": name, "password": password},
                                   headers={"Origin": url})
    return f"ib_session={cookie_of(headers, 'ib_session')}" if status == 200 else ""
def origin(url: str) -> str:
    """The scheme and host of a URL: the Origin its own page sends."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def http(url: str, body=None, method: str | None = None, headers: dict | None = None, raw: bytes | None = None):
    """(status, text) of one request; never raises on HTTP errors (status 0: the connection was closed). It is
    sent as the server's own page sends it (JSON, with this server as its Origin) unless `headers` say otherwise
    (a header given as None is not sent)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    sent = {"Content-Type": "application/json", "Origin": origin(url), **(headers or {})}
    req = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"),
                                 headers={k: v for k, v in sent.items() if v is not None})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except urllib.error.URLError as e:  # the server refused before reading the body (a 413 closes early)
        return 0, str(e)


def start_app(db: Path, log: Path, args: list[str] = (), timeout: float = 240) -> tuple[subprocess.Popen, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, HF_HUB_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "app.py", "--db", str(db), "--port", str(port), *args], cwd=REPO,
                            env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"app exited early:\n{log.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(url + "/study/", timeout=5)
            return proc, url
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError(f"app did not start in {timeout}s:\n{log.read_text()[-3000:]}")


def component_id(url: str, mount: str, elem_id: str = "session-root") -> int:
    status, text = http(f"{url}{mount}/config")
    assert status == 200, text[:300]
    for c in json.loads(text)["components"]:
        if c.get("props", {}).get("elem_id") == elem_id:
            return c["id"]
    raise AssertionError(f"no #{elem_id} in {mount}/config")


def as_cookie(url: str, req) -> tuple[object, dict]:
    """A body written with the old credentials in it ("t": a link token, "auth": a sign-in) as the page sends it
    now: those fields become the cookie the host set for them (a token no link opens: no cookie at all)."""
    if not isinstance(req, dict) or not ({"t", "auth"} & set(req)):
        return req, {}
    t, a = req.get("t"), req.get("auth")
    # only a token of the links' form is traded (the host refuses any other at once; no need to spend the
    # client's allowance of wrong tokens on it)
    cookie = link_cookie(url, t) if isinstance(t, str) and re.fullmatch(r"[A-Za-z0-9_-]{20,128}", t) else ""
    if isinstance(a, str):
        cookie = f"ib_session={a}"
    return {k: v for k, v in req.items() if k not in ("t", "auth")}, ({"Cookie": cookie} if cookie else {})


def server_fn(url: str, mount: str, fn: str, req, session_hash: str = "sec-test", cid: int | None = None,
              cookie: str = ""):
    """Call one gr.HTML server function the way the page does, with the cookie of `req`'s "t"/"auth" (see
    as_cookie) or `cookie`; returns (HTTP status, parsed reply or text)."""
    cid = cid if cid is not None else component_id(url, mount)
    req, headers = as_cookie(url, req)
    if cookie:
        headers = {"Cookie": cookie}
    status, text = http(f"{url}{mount}/gradio_api/component_server",
                        {"data": req, "component_id": cid, "fn_name": fn, "session_hash": session_hash},
                        headers={"Origin": url, **headers})
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def finish_when_due(url: str, mount: str, req: dict, deadline: float = 180.0):
    """finish_item as the page calls it: refused with `retry_in` until the item's clock has run to its end (a
    study item), then asked again after that many seconds; returns the final (status, reply)."""
    end = time.time() + deadline
    while True:
        status, res = server_fn(url, mount, "finish_item", req)
        if not (isinstance(res, dict) and not res.get("ok") and "retry_in" in res) or time.time() > end:
            return status, res
        time.sleep(min(res["retry_in"] + 0.2, 5.0))
