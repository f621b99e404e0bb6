"""The HTTP policy's rules in-process: which Host values are allowed (by hand-written cases), which Origin values
are this host's, the page's policy hashing exactly its inline scripts, and the server's header and body read
deadlines (shortened for the test)."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import socket
import threading

import anyio
import pytest

from ibench_ui.allowed_hosts import AllowedHosts
from ibench_ui.http_policy import HttpPolicy, same_origin
from ibench_ui.page_headers import page_policy


@pytest.mark.parametrize("host, ok", [
    (b"127.0.0.1:7860", True), (b"localhost:7860", True), (b"LOCALHOST:7860", True), (b"[::1]:7860", True),
    (b"127.0.0.1:7861", False), (b"localhost", False), (b"rebind.evil.example:7860", False),
    (b"localhost.evil.example:7860", False), (b"127.0.0.1:7860@evil", False), (b"", False), (b"[::1", False),
])
def test_default_hosts_are_loopback_and_the_bind_address_with_the_port(host, ok):
    assert AllowedHosts.default("127.0.0.1", 7860).allows(host) is ok


def test_named_hosts_take_any_port_unless_one_is_given():
    a = AllowedHosts.parse(["study.example.org, 10.0.0.5:8080", "[fe80::1]"])
    assert a.allows(b"study.example.org") and a.allows(b"study.example.org:8443")
    assert a.allows(b"10.0.0.5:8080") and not a.allows(b"10.0.0.5:8081") and not a.allows(b"10.0.0.5")
    assert a.allows(b"[fe80::1]:7860") and not a.allows(b"example.org")
    assert AllowedHosts.parse(["a.org:443"]).allows(b"a.org")  # a browser leaves the default port out
    for bad in (["x y"], ["a.org:99999"], ["a.org:"], [""], ["http://a.org"], ["*"]):
        with pytest.raises(ValueError, match="--allowed-hosts"):
            AllowedHosts.parse(bad)


@pytest.mark.parametrize("value, ok", [
    (b"http://127.0.0.1:7860", True), (b"http://127.0.0.1:7860/study/?t=x", True), (b"HTTP://127.0.0.1:7860", True),
    (b"http://127.0.0.1:7861", False), (b"http://evil.example", False), (b"null", False), (b"", False),
    (b"file:///etc", False), (b"http://127.0.0.1:7860.evil.example", False), (b"http://user@127.0.0.1:7860", False),
])
def test_same_origin(value, ok):
    assert same_origin(value, b"127.0.0.1:7860") is ok


def test_same_origin_leaves_the_default_port_out_on_either_side():
    assert same_origin(b"https://a.org", b"a.org") and same_origin(b"https://a.org", b"a.org:443")
    assert same_origin(b"http://a.org", b"a.org:80") and not same_origin(b"http://a.org", b"a.org:443")


def test_the_page_policy_hashes_exactly_its_inline_scripts():
    html = (b'<html><head><script>window.a = 1;</script><script type="module" src="./x.js"></script>'
            b"<script data-x>\n  b()\n</script></head><body><script>c()</script></body></html>")
    want = [base64.b64encode(hashlib.sha256(s).digest()).decode() for s in (b"window.a = 1;", b"\n  b()\n", b"c()")]
    policy = page_policy(html).decode()
    script_src = policy.split("script-src ", 1)[1].split(";", 1)[0]
    assert script_src == "'self' 'unsafe-eval' " + " ".join(f"'sha256-{h}'" for h in want)
    assert "frame-ancestors 'none'" in policy and "'unsafe-inline'" not in script_src


async def _ok_app(scope, receive, send):
    body = b""
    while True:
        msg = await receive()
        body += msg.get("body", b"")
        if not msg.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": body})


def test_every_response_of_the_policy_carries_the_headers():
    sent = []

    async def run():
        async def receive():
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(msg):
            sent.append(msg)

        scope = {"type": "http", "method": "POST", "path": "/api/respond", "query_string": b"",
                 "headers": [(b"host", b"127.0.0.1:7860"), (b"origin", b"http://127.0.0.1:7860"),
                             (b"content-type", b"application/json")]}
        await HttpPolicy(_ok_app, AllowedHosts.default("127.0.0.1", 7860))(scope, receive, send)

    anyio.run(run)
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"{}"
    assert headers[b"x-frame-options"] == b"DENY" and headers[b"content-security-policy"].startswith(b"default-src")


def _until_closed(c: socket.socket) -> bytes:
    out = b""
    while chunk := c.recv(4096):
        out += chunk
    return out


def test_uvicorn_ends_a_request_whose_headers_or_body_never_end():
    import uvicorn
    from ibench_ui.http_server import DeadlineHttpTools

    class Quick(DeadlineHttpTools):
        header_timeout = body_timeout = 0.3

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(_ok_app, host="127.0.0.1", port=port, http=Quick, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started:
                break
            threading.Event().wait(0.05)
        # each socket's own 60 s timeout would raise: the server ends these, with a 408
        with socket.create_connection(("127.0.0.1", port), timeout=60) as c:  # silent after opening
            assert _until_closed(c).startswith(b"HTTP/1.1 408")
        with socket.create_connection(("127.0.0.1", port), timeout=60) as c:  # headers a few bytes, then nothing
            c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            assert _until_closed(c).startswith(b"HTTP/1.1 408")
        with socket.create_connection(("127.0.0.1", port), timeout=60) as c:  # 2 bytes of a 10-byte body
            c.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhi")
            assert _until_closed(c).startswith(b"HTTP/1.1 408")
        with socket.create_connection(("127.0.0.1", port), timeout=60) as c:  # a whole request is answered
            c.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
            assert c.recv(1024).startswith(b"HTTP/1.1 200")
    finally:
        server.should_exit = True
        thread.join(30)
