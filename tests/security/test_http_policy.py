"""Issue 26's HTTP-layer findings replayed against a real `python app.py`: Gradio routes our pages do not use
(process_recording, deep links) are 404, a cross-site or foreign-Host request is refused in local single-user
mode with nothing stored, /config holds no run data, staff exports are never URLs, every response carries the
security headers, and hostile Gradio envelopes get a 4xx, never a 500."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from annotation import auth, studies
from annotation.loaders import demo_dir
from annotation.model import Run
from annotation.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import IB, ITEMS, component_id, http, origin, signin_cookie, start_app  # noqa: E402

LEAKS = ("run_leak_0001", "leak-model-name", "10.11.12.13", "IB_LEAK_KEY_ENV", "leak-judge")
HLS = b"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n/etc/hostname\n#EXT-X-ENDLIST\n"
EVIL = "http://evil.example"


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def staffed(tmp_path_factory):
    """Accounts, a study and a finished run of an openai model (with a base URL, a key variable and a judge)
    stored before the server starts, so anything built at start-up would show them."""
    d = tmp_path_factory.mktemp("policy")
    db = d / "store" / "ibench.sqlite"
    st = Store(db)
    auth.create_user(st, "root", "admin", "root-password")
    _, tokens = studies.create_study(st, IB, list(ITEMS), ITEMS, {"calibrate": False})
    st.create_run(Run(id=LEAKS[0], benchmark=IB, model_spec=f"openai:{LEAKS[1]}@http://{LEAKS[2]}:8000/v1",
                      protocol="paper", data_dir=str(demo_dir(IB)), status="done", created=1.0,
                      config={"options": {"api_key_env": LEAKS[3]},
                              "judge": f"openai:{LEAKS[4]}@http://{LEAKS[2]}/v1"}))
    st.close()
    proc, url = start_app(db, d / "app.log")
    yield url, db, tokens, d / "app.log"
    _stop(proc)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The local single user: no accounts, bound to loopback (every role check passes)."""
    d = tmp_path_factory.mktemp("local")
    db = d / "ibench.sqlite"
    Store(db).close()
    proc, url = start_app(db, d / "app.log")
    yield url, db
    _stop(proc)


def _headers(url: str, path: str, headers: dict | None = None):
    import urllib.error
    import urllib.request
    req = urllib.request.Request(url + path, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def _counts(db: Path) -> tuple[int, int]:
    with closing(Store(db)) as st:
        return len(st.sessions()), len(st.responses())


def test_gradio_routes_our_pages_do_not_use_are_404(staffed):
    url = staffed[0]
    for mount in ("", "/study"):
        for ctype in ("application/json", "multipart/form-data; boundary=x", "application/vnd.apple.mpegurl"):
            status, _ = http(f"{url}{mount}/gradio_api/process_recording", raw=HLS, headers={"Content-Type": ctype})
            assert status == 404, (mount, ctype)
        assert http(f"{url}{mount}/gradio_api/deep_link?session_hash=abcdefghijk")[0] == 404
        for query in ("deep_link=abc123", "deep%5Flink=abc123", "x=1&deep_link=abc123"):
            assert http(f"{url}{mount}/?{query}")[0] == 404, (mount, query)
            assert http(f"{url}{mount}/config?{query}")[0] == 404, (mount, query)
        for path in ("/gradio_api/upload", "/gradio_api/run/on_start", "/gradio_api/reset", "/gradio_api/cancel"):
            assert http(f"{url}{mount}{path}", {"data": []})[0] == 404, (mount, path)
        for path in ("/gradio_api/startup-events", "/monitoring", "/gradio_api/runs", "/openapi.json",
                     "/gradio_api/run-history/buckets", "/svelte/svelte.js", "/gradio_api/proxy=http://x/"):
            assert http(f"{url}{mount}{path}")[0] == 404, (mount, path)
    for path in ("/study/gradio_api/info", "/study/gradio_api/queue/data", "/study/gradio_api/file=/etc/hostname"):
        assert http(url + path)[0] == 404, path  # the study page uses none of the studio's Gradio routes


def test_another_site_cannot_post_in_local_mode_and_nothing_is_stored(local):
    url, db = local
    cid = component_id(url, "")
    body = json.dumps({"data": {"participant": "x", "benchmark": IB, "items": ITEMS["bob"]}, "component_id": cid,
                       "fn_name": "open_session", "session_hash": "evil1234567"}).encode()
    before = _counts(db)
    for path in ("/gradio_api/component_server", "/gradio_api/component_server/", "/api/respond",
                 "/gradio_api/queue/join", "/gradio_api/call/on_start"):
        for headers, want in (({"Content-Type": "text/plain", "Origin": EVIL}, 403),
                              ({"Content-Type": "text/plain"}, 415),  # own Origin (the helper's), wrong type
                              ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
                              ({"Origin": EVIL}, 403),
                              ({"Origin": "null"}, 403),
                              ({"Origin": EVIL.replace("http", "https") + ":" + url.rsplit(":", 1)[1]}, 403),
                              ({"Origin": None, "Referer": EVIL + "/page"}, 403),
                              ({"Origin": None}, 403)):  # neither Origin nor Referer
            status, _ = http(url + path, raw=body, headers=headers)
            assert status == want, (path, headers, status)
    assert _counts(db) == before
    # the page's own request (a same-origin Referer is enough) opens the session: the refusals were not vacuous
    status, text = http(url + "/gradio_api/component_server", raw=body,
                        headers={"Origin": None, "Referer": origin(url) + "/?x=1"})
    assert status == 200 and json.loads(text)["ok"], text[:300]
    assert _counts(db)[0] == before[0] + 1


def test_a_foreign_host_is_refused_and_never_named_in_the_page(local):
    url, db = local
    cid = component_id(url, "")
    rebind = "rebind.evil.example"
    sid = json.loads(http(url + "/gradio_api/component_server", {
        "data": {"participant": "y", "benchmark": IB, "items": ITEMS["bob"]}, "component_id": cid,
        "fn_name": "open_session", "session_hash": "own12345678"})[1])["session"]["id"]
    before = _counts(db)
    for path, body in (("/api/respond", {"session_id": sid, "item_index": 0, "kind": "press", "media_t": 0.0}),
                       ("/gradio_api/component_server", {"data": {"session_id": sid, "item_index": 0},
                                                         "component_id": cid, "fn_name": "finish_item",
                                                         "session_hash": "rebind12345"})):
        status, text = http(url + path, body, headers={"Host": f"{rebind}:{url.rsplit(':', 1)[1]}",
                                                       "Origin": f"http://{rebind}:{url.rsplit(':', 1)[1]}"})
        assert status == 400 and "target" not in text, (path, text[:200])
    for host in (rebind, f"{rebind}:{url.rsplit(':', 1)[1]}", "127.0.0.1:1", "localhost.evil.example"):
        assert _headers(url, "/", {"Host": host})[0] == 400, host
    assert _counts(db) == before
    for header in ("X-Forwarded-Host", "X-Gradio-Server"):
        status, _, page = _headers(url, "/", {header: rebind if header == "X-Forwarded-Host" else f"http://{rebind}"})
        assert status == 200 and rebind.encode() not in page, header
    status, _, page = _headers(url, "/")
    assert f'"root":"{url}"'.encode() in page  # the API root is the host the page was asked for


def test_anonymous_config_holds_no_run_data_and_staff_get_the_runs(staffed):
    from gradio_client import Client
    url = staffed[0]
    for path in ("/", "/config", "/gradio_api/info", "/study/", "/study/config"):
        status, text = http(url + path)
        assert status == 200, path
        assert [s for s in LEAKS if s in text] == [], path
    anon = Client(url + "/", verbose=False, headers={"Origin": origin(url)})
    with pytest.raises(Exception):
        anon.predict(api_name="/on_runs_focus")
    root = Client(url + "/", verbose=False,
                  headers={"Origin": origin(url), "Cookie": signin_cookie(url, "root", "root-password")})
    assert LEAKS[0] in json.dumps(root.predict(api_name="/on_runs_focus"))  # after sign-in, for staff


def test_staff_exports_are_never_urls(staffed):
    from gradio_client import Client
    url, db = staffed[0], staffed[1]
    anon = Client(url + "/", verbose=False, headers={"Origin": origin(url)})
    with pytest.raises(Exception, match="Not allowed"):
        anon.predict(10, 0, 1, api_name="/on_report")
    root = Client(url + "/", verbose=False,
                  headers={"Origin": origin(url), "Cookie": signin_cookie(url, "root", "root-password")})
    html = str(root.predict(10, 0, 1, api_name="/on_report"))
    assert 'download="ibench-report.zip" href="data:application/zip;base64,' in html, html[:300]
    assert "gradio_api/file=" not in html and "/tmp" not in html
    z = base64.b64decode(re.search(r'href="data:application/zip;base64,([^"]+)"', html).group(1))
    assert z[:2] == b"PK"  # the zip itself travels in the checked reply
    out = str(root.predict(IB, "jsonl", "mine", False, api_name="/review_export"))
    assert "exports/mine" in out and str(db.parent.resolve()) not in out and str(db.parent) not in out, out
    for mount in ("", "/study"):  # a file Gradio would serve: a guessed export path is nothing
        assert http(f"{url}{mount}/gradio_api/file=/tmp/ibench-report-x/ibench-report.zip")[0] in (403, 404)


def _policy(headers: dict) -> str:
    return {k.lower(): v for k, v in headers.items()}.get("content-security-policy", "")


def test_every_response_carries_the_security_headers(staffed):
    url, _, tokens, _ = staffed
    pages = ("/", "/study/", f"/study/?t={tokens['alice']}")
    others = ("/config", "/study/config", "/gradio_api/info", "/theme.css", "/ib-static/base.css",
              "/media/" + "0" * 32, "/nowhere", "/gradio_api/deep_link")
    for path in pages + others:
        status, headers, body = _headers(url, path)
        h = {k.lower(): v for k, v in headers.items()}
        assert h.get("x-frame-options") == "DENY" and h.get("x-content-type-options") == "nosniff", path
        assert h.get("referrer-policy") == "same-origin", path
        csp = _policy(headers)
        assert "frame-ancestors 'none'" in csp, (path, csp)
        if path in pages:
            script_src = re.search(r"script-src ([^;]*)", csp).group(1)
            assert "'unsafe-inline'" not in script_src and "*" not in script_src and "http" not in script_src
            inline = [m.group(2) for m in re.finditer(rb"<script\b([^>]*)>(.*?)</script>", body, re.S)
                      if b"src=" not in m.group(1)]
            assert len(inline) == 5, path  # Gradio's template: config, API info, mode, helper loader, padding
            for script in inline:
                digest = base64.b64encode(hashlib.sha256(script).digest()).decode()
                assert f"'sha256-{digest}'" in script_src, path
            assert not re.search(rb"\son[a-z]+\s*=", body), path  # no event-handler attribute
        else:
            assert csp.startswith("default-src 'none'"), (path, csp)
    status, headers, _ = _headers(url, "/", {"Host": "evil.example"})
    assert status == 400 and "frame-ancestors 'none'" in _policy(headers)


HOSTILE_ENVELOPES = [
    {"component_id": 999999, "fn_name": "respond", "session_hash": "h1", "data": {}},
    {"component_id": -1, "fn_name": "respond", "session_hash": "h1", "data": {}},
    {"component_id": "abc", "fn_name": "respond", "session_hash": "h1", "data": {}},
    {"component_id": None, "fn_name": "respond", "session_hash": "h1", "data": {}},
    {"fn_name": "respond", "session_hash": "h1", "data": {}},
    {"component_id": 0, "fn_name": "respond", "session_hash": "h1", "data": {}},
    {"component_id": "CID", "fn_name": "nonexistent", "session_hash": "h1", "data": {}},
    {"component_id": "CID", "fn_name": "__init__", "session_hash": "h1", "data": {}},
    {"component_id": "CID", "fn_name": ["respond"], "session_hash": "h1", "data": {}},
    {"component_id": "CID", "fn_name": "respond", "session_hash": {"$gt": ""}, "data": {}},
    {"component_id": "CID", "fn_name": "respond"},
    [], None, "text", 12,
]
QUEUE_ENVELOPES = [
    {"fn_index": 999999, "data": [], "session_hash": "h1"},
    {"fn_index": -5, "data": [], "session_hash": "h1"},
    {"fn_index": "x", "data": [], "session_hash": "h1"},
    {"trigger_id": 999999, "fn_index": 0, "data": [], "session_hash": "h1"},
    {"fn_index": 0, "data": "not a list", "session_hash": "h1"},
    {"fn_index": 0, "data": [1] * 50, "session_hash": "h1"},
    {"data": []}, {}, [], None,
]


def test_hostile_envelopes_get_a_4xx_never_a_500(staffed):
    url, _, _, log = staffed
    cids = {m: component_id(url, m) for m in ("", "/study")}
    for mount, cid in cids.items():
        for env in HOSTILE_ENVELOPES:
            env = {k: (cid if v == "CID" else v) for k, v in env.items()} if isinstance(env, dict) else env
            for path in ("/gradio_api/component_server", "/gradio_api/component_server/"):
                status, text = http(f"{url}{mount}{path}", env)
                assert 400 <= status < 500 or status == 200 and json.loads(text).get("ok") is False, \
                    (mount, env, status, text[:200])
                assert "Traceback" not in text and "File \"" not in text
        for raw in (b"", b"not json", b"{", b"\xff\xfe"):
            status, _ = http(f"{url}{mount}/gradio_api/component_server", raw=raw)
            assert 400 <= status < 500, (mount, raw, status)
    for env in QUEUE_ENVELOPES:
        status, text = http(f"{url}/gradio_api/queue/join", env)
        assert 400 <= status < 500 or status == 200, (env, status, text[:200])
    for raw in (b"", b"not json", b"[1"):
        assert 400 <= http(f"{url}/gradio_api/queue/join", raw=raw)[0] < 500, raw
    assert 400 <= http(f"{url}/gradio_api/call/no_such_function", {"data": []})[0] < 500
    assert http(url + "/study/")[0] == 200  # still serving
    said = Path(log).read_text(errors="replace")
    assert "POST /gradio_api/component_server: KeyError: 999999 (answered 400)" in said  # one line for the operator


def test_a_connection_that_never_finishes_its_headers_is_closed(local):
    """The real server's header deadline (ibench_ui/http_server.py, 10 s): waited for with a generous timeout."""
    host, port = local[0].split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=120) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: " + f"{host}:{port}".encode() + b"\r\nX-Slow: ")
        said = s.recv(1024)  # the server's answer; this socket's own 120 s timeout would raise instead
        assert said.startswith(b"HTTP/1.1 408") and s.recv(1024) == b""  # then it closes
