"""The plain response routes (`/study/api/respond`, `/api/respond`: issue 14's load work) against a real
`python app.py` with accounts and a study: they answer exactly as the session's server function does,
the link's token decides the session, staff routes need a sign-in, and no body gets a 500 or a stray row."""
from __future__ import annotations

import json
import re
import sys
from contextlib import closing
from pathlib import Path

from annotation.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))  # sec_helpers beside this file (importlib mode)
from sec_helpers import as_cookie, link_cookie, http, server_fn

BAD_LINK_START = "This study link is not valid"


def _route(server, mount: str, body=None, raw: bytes | None = None, method: str | None = None):
    body, headers = as_cookie(server.url, body)  # a link's token or a sign-in travel as the cookie set for them
    status, text = http(f"{server.url}{mount}/api/respond", body, raw=raw, method=method, headers=headers)
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def _rows(server, session_id: str) -> list:
    with closing(Store(server.db)) as st:
        return st.responses(session_id=session_id)


def test_a_link_responds_through_the_route_into_its_own_session_only(server):
    tok = server.tokens["alice"]
    _, opened = server_fn(server.url, "/study", "open_session", {"t": tok})
    mine = opened["session"]["id"]
    with closing(Store(server.db)) as st:
        bob = next(s.id for s in st.sessions() if s.participant == "bob")
        before = {r.id for r in st.responses(session_id=mine)}  # other tests of this module may respond as alice too
        bob_before = st.responses(session_id=bob)
    # the body names bob's session: the token decides, as in the server function
    status, res = _route(server, "/study", {"t": tok, "session_id": bob, "item_index": 0, "item_id": "moving_square#0",
                                            "kind": "press", "media_t": 0.0, "rid": "r_a11ce0000000000001"})
    assert status == 200 and res["ok"], res
    assert res["rid"] == "r_a11ce0000000000001" and res["t"] == 0.0 and res["duplicate"] is False
    assert res["row"]["item_index"] == 0 and 'data-rid="r_a11ce0000000000001"' in res["row"]["row_html"]
    # the same id again (a page retrying): acknowledged as a duplicate, one row
    status, again = _route(server, "/study", {"t": tok, "item_index": 0, "kind": "press", "media_t": 0.0,
                                              "rid": "r_a11ce0000000000001"})
    assert status == 200 and again["ok"] and again["duplicate"] is True
    rows = [r for r in _rows(server, mine) if r.id not in before]
    assert [(r.id, r.responder, r.t) for r in rows] == [("r_a11ce0000000000001", "human:alice", 0.0)]
    assert _rows(server, bob) == bob_before


def _same_words(reply: dict) -> dict:
    """A refusal with the item clock's reading ("(0.3 s since it opened)") replaced by a mark: the two calls are
    made one after the other, so each reads its own moment; every other word must match."""
    return {k: re.sub(r"\(\d+(?:\.\d+)? s since it opened\)", "(… s since it opened)", v) if k == "error" else v
            for k, v in reply.items()}


def test_the_route_refuses_what_the_server_function_refuses_in_the_same_words(server):
    tok = server.tokens["alice"]
    server_fn(server.url, "/study", "open_session", {"t": tok})
    for req in ({"t": tok, "item_index": 0, "kind": "press", "media_t": 1e9},       # past the item's end
                {"t": tok, "item_index": 0, "kind": "press", "media_t": 8.0},       # ahead of the item clock
                {"t": tok, "item_index": 1, "kind": "press", "media_t": 0.0},       # not the open item
                {"t": tok, "item_index": 0, "kind": "shell", "media_t": 0.0},       # no such kind
                {"t": "x" * 40, "item_index": 0, "kind": "press", "media_t": 0.0},  # no such link
                {"item_index": 0, "kind": "press", "media_t": 0.0}):                # no token at all
        _, by_fn = server_fn(server.url, "/study", "respond", req)
        status, by_route = _route(server, "/study", req)
        assert status == 200 and by_route["ok"] is False and _same_words(by_route) == _same_words(by_fn), req
        if req.get("media_t") == 8.0:  # the clock's refusal, its reading masked in both
            assert "(… s since it opened)" in _same_words(by_fn)["error"], by_fn
    _, bad = _route(server, "/study", {"t": "x" * 40, "item_index": 0, "kind": "press", "media_t": 0.0})
    assert bad["error"].startswith(BAD_LINK_START)


def test_the_studio_route_needs_a_sign_in_and_never_reaches_a_study_session(server):
    with closing(Store(server.db)) as st:
        alice = next(s.id for s in st.sessions() if s.participant == "alice")
        before = len(st.responses(session_id=alice))
    req = {"session_id": alice, "item_index": 0, "kind": "press", "media_t": 0.0}
    status, anon = _route(server, "", req)
    assert status == 200 and anon["ok"] is False and "Sign in" in anon["error"]
    assert _route(server, "", {**req, "auth": "not-a-token"})[1]["ok"] is False
    assert len(_rows(server, alice)) == before


def test_no_body_gets_a_500_or_a_row(server):
    with closing(Store(server.db)) as st:
        n0 = len(st.responses())
    for mount in ("/study", ""):
        for raw in (b"", b"not json", b"[1, 2, 3]", b'"text"', b"null", b"{\"t\": [1]}", b"\xff\xfe",
                    json.dumps({"t": {"$gt": ""}, "item_index": "0; drop table responses"}).encode()):
            status, res = _route(server, mount, raw=raw)
            assert status == 200 and isinstance(res, dict) and res["ok"] is False, (mount, raw, status, res)
        status, _ = _route(server, mount, method="GET")
        assert status == 405
        status, _ = _route(server, mount, raw=b"{" + b" " * (13 * 2**20) + b"}")
        assert status in (0, 413)  # refused before or while reading the body
    with closing(Store(server.db)) as st:
        assert len(st.responses()) == n0
    assert server.alive()


def test_another_sites_page_cannot_post_a_response(server):
    """A cross-site form or no-cors fetch can send text/plain or a foreign Origin, never both JSON and this
    host as its Origin: either is refused before the body is read, and nothing is stored."""
    tok = server.tokens["alice"]
    server_fn(server.url, "/study", "open_session", {"t": tok})
    with closing(Store(server.db)) as st:
        n0 = len(st.responses())
    body = json.dumps({"item_index": 0, "kind": "press", "media_t": 0.0}).encode()
    cookie = {"Cookie": link_cookie(server.url, tok)}  # even with the link's cookie (SameSite=Strict keeps it home)
    for mount in ("/study", ""):
        url = f"{server.url}{mount}/api/respond"
        status, _ = http(url, raw=body, headers={"Content-Type": "text/plain", **cookie})
        assert status == 415
        status, _ = http(url, raw=body, headers={"Content-Type": "application/x-www-form-urlencoded", **cookie})
        assert status == 415
        status, _ = http(url, raw=body, headers={"Origin": "https://evil.example", **cookie})
        assert status == 403
    # the page's own origin is accepted
    host = server.url.split("://", 1)[1]
    status, text = http(f"{server.url}/study/api/respond", raw=body, headers={"Origin": f"http://{host}", **cookie})
    assert status == 200 and json.loads(text)["ok"]
    with closing(Store(server.db)) as st:
        assert len(st.responses()) == n0 + 1
