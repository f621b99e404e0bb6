"""The host's static route serves exactly the listed JS/CSS files (ibench_ui.static_route), with their types and a
content-hash URL that may be cached for good, and answers 404 for every other path under its prefix, traversal
included. Each page loads only what it uses: the study page none of the studio's scripts or styles."""
from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from starlette.testclient import TestClient

from annotation.store import Store
from ibench_ui.context import AppContext
from ibench_ui.allowed_hosts import AllowedHosts
from ibench_ui.app import web_app
from ibench_ui.static_route import CACHE_FOREVER, FILES, STATIC_DIR, STATIC_PREFIX, catalog, static_url

STUDIO_ONLY = {"timeline.js", "compare.js", "leaderboard.js", "browse.js", "timeline.css", "runs.css"}


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    d = tmp_path_factory.mktemp("static")
    ctx = AppContext(store=Store(d / "s.sqlite"), asr_model=str(d / "none"))
    return web_app(ctx, AllowedHosts.parse(["testserver"]))  # the test client's Host


def raw_get(app, path: str, raw_path: bytes) -> int:
    """The status of a GET sent to the ASGI app as is: no client in between normalises `..` or decodes `%2f`."""
    sent = []

    async def run():
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(msg):
            sent.append(msg)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
                 "path": path, "raw_path": raw_path, "root_path": "", "query_string": b"",
                 "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 1), "server": ("testserver", 80)}
        await app(scope, receive, send)

    anyio.run(run)
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


def test_the_list_is_the_folder():
    """Every file under static/ is listed and every listed file exists: nothing ships unserved, nothing else is."""
    assert sorted(FILES) == sorted(p.name for p in STATIC_DIR.iterdir())


def test_every_listed_file_is_served_with_its_type_and_hash(host):
    c = TestClient(host)
    for name in FILES:
        body = (STATIC_DIR / name).read_bytes()
        r = c.get(static_url(name))
        assert r.status_code == 200 and r.content == body, name
        want = "text/javascript" if name.endswith(".js") else "text/css"
        assert r.headers["content-type"] == f"{want}; charset=utf-8", name
        assert r.headers["cache-control"] == CACHE_FOREVER and r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["etag"] == f'"{catalog()[name].version}"'
        stale = c.get(f"{STATIC_PREFIX}{name}?v=0000")  # an old page's URL: the current file, revalidated
        assert stale.status_code == 200 and stale.content == body and stale.headers["cache-control"] == "no-cache"
        assert c.get(static_url(name), headers={"If-None-Match": r.headers["etag"]}).status_code == 304


@pytest.mark.parametrize("path", ["", "nope.js", "Session.js", "session.js/", "session.js.map", "static_route.py",
                                  "static/session.js", "./session.js", "..", "../host.py", "%2e%2e/host.py",
                                  "..%2fhost.py", "..%2F..%2Fapp.py", "%2e%2e%2fhost.py", "..\\host.py",
                                  "/etc/passwd", "session.js%00.py"])
def test_anything_else_under_the_prefix_is_404(host, path):
    from urllib.parse import unquote
    raw = (STATIC_PREFIX + path).encode()
    assert raw_get(host, unquote(STATIC_PREFIX + path), raw) == 404, path


def test_unlisted_names_are_404_over_http(host):
    c = TestClient(host)
    for name in ("nope.css", "../ibench_ui/host.py", "%2e%2e/%2e%2e/app.py"):
        assert c.get(STATIC_PREFIX + name).status_code == 404, name
    assert c.get("/static/img/logo.svg").status_code == 200  # Gradio's own /static/ is untouched


def _loaded(config: dict) -> set[str]:
    """The static files a page's config makes the browser load: its head and every component's head."""
    heads = [config.get("head") or ""] + [c.get("props", {}).get("head") or "" for c in config["components"]]
    return set(re.findall(re.escape(STATIC_PREFIX) + r"([\w.]+)\?v=", "".join(heads)))


def test_each_page_loads_only_its_own_files(host):
    c = TestClient(host)
    study, studio = _loaded(c.get("/study/config").json()), _loaded(c.get("/config").json())
    assert study == {"base.css", "session.css", "session.js", "session_transport.js",
                     "session_input.js", "session_clock.js", "session_model.js", "session_flow.js"}
    assert not study & STUDIO_ONLY
    assert STUDIO_ONLY <= studio and study | studio == set(FILES)
