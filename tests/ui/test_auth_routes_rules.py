"""Rules of ibench_ui.auth_routes as a browser or an attacker meets them: the sign-in cookie's attributes and
lifetime, 400/401/429 answers with hand-worked Retry-After values (5th wrong password of an account, 20th of a
client address, 10th wrong link token), the right password refused while locked, sign-out ending the account's
sessions, and a study link's token swapped for a cookie on /study only.

The routes run on a bare FastAPI app (no Gradio) through Starlette's TestClient; the throttle's clock is
pinned (annotation.throttle.time), so lockouts are exact seconds."""
from __future__ import annotations

import hashlib
from types import SimpleNamespace

import anyio
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse
from fastapi.testclient import TestClient

from annotation import auth, studies, throttle
from annotation.store import Store
from ibench_ui import auth_routes as ar
from ibench_ui.context import AppContext

WRONG = "Wrong user name or password (or the account is disabled)."


class _Clock:
    def __init__(self, t: float):
        self.t = t

    def time(self) -> float:
        return self.t


pytestmark = pytest.mark.usefixtures("fast_argon2")  # tests/conftest.py: argon2 at its cheapest parameters


@pytest.fixture
def ctx(tmp_path, fast_argon2, monkeypatch):
    st = Store(tmp_path / "r.sqlite")
    auth.create_user(st, "ann", "annotator", "ann-password")
    auth.create_user(st, "bob", "reviewer", "bob-password")
    clock = _Clock(1000.0)
    monkeypatch.setattr(throttle, "time", clock)
    c = AppContext(store=st, signin=auth.SignInSettings(idle=600, max_age=3600, link_max_age=86400))
    c.clock = clock  # the test moves the throttle's time through this
    yield c
    st.close()


def _app(ctx) -> FastAPI:
    app = FastAPI()
    ar.add_auth_routes(app, ctx)

    @app.get("/study/")
    @app.get("/study")
    @app.post("/study/")
    @app.get("/study/page")
    @app.get("/studyx/")
    async def page(request: Request):
        body = await request.body()  # the app behind reads the request body (a POST's form): it must get it
        return PlainTextResponse("the page" + (": " + body.decode() if body else ""))

    app.add_middleware(ar.StudyLinkCookies, ctx=ctx)
    return app


def _cookies(resp) -> dict[str, tuple[str, dict]]:
    """name -> (value, {attribute (lower case): value or True}) for every Set-Cookie of a response."""
    out = {}
    h = resp.headers
    for line in (h.get_list if hasattr(h, "get_list") else h.getlist)("set-cookie"):
        first, *attrs = [p.strip() for p in line.split(";")]
        name, value = first.split("=", 1)
        out[name] = (value, {a.split("=", 1)[0].lower(): (a.split("=", 1)[1] if "=" in a else True) for a in attrs})
    return out


def _live_user(ctx, sid):
    row = auth.live_token(ctx.store, sid)
    return row and row["user"]


def _sign(ctx, name, password, address="10.0.0.1", scheme="http"):
    return ar.signin(ctx, {"name": name, "password": password}, address, scheme)


def _json(resp):
    import json
    return json.loads(resp.body)


# -- sign-in ----------------------------------------------------------------------------------------

def test_a_right_password_sets_an_httponly_strict_cookie_for_the_session_lifetime(ctx):
    import time as wall
    with TestClient(_app(ctx)) as client:
        before = wall.time()
        resp = client.post("/auth/signin", json={"name": "ann", "password": "ann-password"})
        after = wall.time()
    assert resp.status_code == 200 and resp.json() == {"ok": True, "user": "ann", "role": "annotator"}
    assert resp.headers["cache-control"] == "no-store"
    sid, attrs = _cookies(resp)["ib_session"]
    assert attrs == {"httponly": True, "max-age": "3600", "path": "/", "samesite": "strict"}  # no Secure on http
    row = ctx.store.get_token(hashlib.sha256(sid.encode()).hexdigest())
    assert row["user"] == "ann" and row["idle"] == 600.0
    assert before + 3600.0 <= row["expires"] <= after + 3600.0  # the server's max_age, not the 12 h default
    assert sid not in resp.text


@pytest.mark.parametrize("base_url, scheme, secure", [("https://lab.example", "http", True),
                                                      ("", "https", True), ("http://lab.example", "http", False)])
def test_the_cookie_is_secure_behind_https(ctx, base_url, scheme, secure):
    ctx.base_url = base_url
    _, attrs = _cookies(_sign(ctx, "bob", "bob-password", scheme=scheme))["ib_session"]
    assert attrs.get("secure", False) is secure


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b'{"name": "ann"}', b'{"password": "ann-password"}',
                                 b'{"name": 5, "password": "ann-password"}', b'{"name": "ann", "password": null}'])
def test_a_malformed_body_is_refused_with_400(ctx, raw):
    with TestClient(_app(ctx)) as client:
        resp = client.post("/auth/signin", content=raw)
    assert resp.status_code == 400
    assert resp.json() == {"ok": False, "error": 'Send {"name": ..., "password": ...} as JSON.'}
    assert "set-cookie" not in resp.headers and ctx.store.failure("client:testclient") is None


def test_four_wrong_passwords_answer_401_and_the_fifth_locks_30_s(ctx):
    for _ in range(4):
        r = _sign(ctx, "ann", "guess")
        assert r.status_code == 401 and _json(r) == {"ok": False, "error": WRONG}
        assert "set-cookie" not in r.headers
    r = _sign(ctx, "ann", "guess")
    assert r.status_code == 429 and r.headers["retry-after"] == "30" and r.headers["cache-control"] == "no-store"
    assert _json(r) == {"ok": False, "error": "Too many failed attempts: try again in 30 s.", "retry_after": 30}


def test_while_locked_the_right_password_is_refused_until_the_last_second(ctx):
    """Locked at t = 1000 for 30 s: at 1029 the right password gets 429 with 1 s left; at 1030 it signs in, and
    the account's count is cleared (the next wrong password is a plain 401)."""
    for _ in range(5):
        _sign(ctx, "ann", "guess")
    ctx.clock.t = 1029.0
    r = _sign(ctx, "ann", "ann-password")
    assert r.status_code == 429 and r.headers["retry-after"] == "1" and "set-cookie" not in r.headers
    ctx.clock.t = 1030.0
    r = _sign(ctx, "ann", "ann-password")
    assert r.status_code == 200 and _json(r)["user"] == "ann"
    assert ctx.store.failure("user:ann") is None
    assert ctx.store.failure("client:10.0.0.1")["failures"] == 5  # the address's count is not cleared
    assert _sign(ctx, "ann", "guess").status_code == 401


def test_the_sixth_wrong_password_after_the_lock_doubles_it(ctx):
    for _ in range(5):
        _sign(ctx, "ann", "guess")
    ctx.clock.t = 1030.0
    r = _sign(ctx, "ann", "guess")
    assert r.status_code == 429 and r.headers["retry-after"] == "60"


def test_a_locked_account_does_not_lock_another(ctx):
    for _ in range(5):
        _sign(ctx, "ann", "guess", address="10.0.0.1")
    assert _sign(ctx, "bob", "bob-password", address="10.0.0.1").status_code == 200
    assert _sign(ctx, "ann", "ann-password", address="10.0.0.2").status_code == 429  # the account is locked anywhere


def test_one_address_guessing_many_names_locks_at_its_20th_failure(ctx):
    """20 names, one wrong password each, from 10.9.9.9: no account reaches 5; the address locks at the 20th
    (30 s) and then refuses even bob's right password, while another address signs bob in."""
    answers = [_sign(ctx, f"user{i}", "guess", address="10.9.9.9").status_code for i in range(20)]
    assert answers == [401] * 19 + [429]
    r = _sign(ctx, "bob", "bob-password", address="10.9.9.9")
    assert r.status_code == 429 and r.headers["retry-after"] == "30"
    assert _sign(ctx, "bob", "bob-password", address="10.9.9.8").status_code == 200


def test_a_server_lockout_sets_the_first_wait(ctx):
    ctx.signin = auth.SignInSettings(idle=600, max_age=3600, lockout=10)
    codes = [_sign(ctx, "ann", "guess") for _ in range(5)]
    assert [c.status_code for c in codes] == [401] * 4 + [429] and codes[-1].headers["retry-after"] == "10"


def test_a_one_second_lockout_is_still_a_lockout(ctx):
    """serve --signin-lockout 1 (the shortest allowed): the 5th wrong password answers 429 with Retry-After 1, and
    half a second later the right one is still refused."""
    ctx.signin = auth.SignInSettings(lockout=1)
    codes = [_sign(ctx, "ann", "guess") for _ in range(5)]
    assert [c.status_code for c in codes] == [401] * 4 + [429] and codes[-1].headers["retry-after"] == "1"
    ctx.clock.t = 1000.5
    assert _sign(ctx, "ann", "ann-password").status_code == 429
    ctx.clock.t = 1001.0
    assert _sign(ctx, "ann", "ann-password").status_code == 200


def test_the_route_passes_the_request_scheme_and_address(ctx):
    """Through POST /auth/signin over https the cookie is Secure, and failures count against the caller's
    address (TestClient's is "testclient")."""
    with TestClient(_app(ctx), base_url="https://testserver") as client:
        ok = client.post("/auth/signin", json={"name": "ann", "password": "ann-password"})
        client.post("/auth/signin", json={"name": "ann", "password": "guess"})
    assert _cookies(ok)["ib_session"][1]["secure"] is True
    assert ctx.store.failure("client:testclient")["failures"] == 1


def test_the_name_is_trimmed_and_its_count_is_per_name(ctx):
    """' ann ' signs ann in; a 70-character name is counted under its first 64 characters."""
    assert _json(_sign(ctx, " ann ", "ann-password"))["user"] == "ann"
    _sign(ctx, "a" * 70, "guess")
    assert ctx.store.failure("user:" + "a" * 64)["failures"] == 1
    _sign(ctx, " ann ", "guess")
    assert ctx.store.failure("user:ann")["failures"] == 1


# -- sign-out -----------------------------------------------------------------------------------------

def test_sign_out_ends_every_session_of_the_account_and_clears_the_cookie(ctx):
    a1 = _cookies(_sign(ctx, "ann", "ann-password"))["ib_session"][0]
    a2 = _cookies(_sign(ctx, "ann", "ann-password"))["ib_session"][0]
    b = _cookies(_sign(ctx, "bob", "bob-password"))["ib_session"][0]
    with TestClient(_app(ctx)) as client:
        client.cookies.set("ib_session", a1)
        resp = client.post("/auth/signout")
    assert resp.status_code == 200 and resp.json() == {"ok": True}
    assert resp.headers["cache-control"] == "no-store"
    value, attrs = _cookies(resp)["ib_session"]
    assert value == '""' and attrs["max-age"] == "0" and attrs["path"] == "/" and attrs["httponly"] is True
    assert attrs["samesite"] == "strict" and "secure" not in attrs
    assert (_live_user(ctx, a1), _live_user(ctx, a2), _live_user(ctx, b)) == (None, None, "bob")


def test_sign_out_over_https_clears_a_secure_cookie_and_without_a_cookie_ends_nothing(ctx):
    b = _cookies(_sign(ctx, "bob", "bob-password"))["ib_session"][0]
    with TestClient(_app(ctx), base_url="https://testserver") as client:
        resp = client.post("/auth/signout")
    assert resp.status_code == 200 and _cookies(resp)["ib_session"][1]["secure"] is True
    assert _live_user(ctx, b) == "bob"


# -- reading the request ------------------------------------------------------------------------------

@pytest.mark.parametrize("cookies, studio, study", [
    ({"ib_session": "abc", "ib_study": "xyz"}, "abc", "xyz"),
    ({"ib_session": "abc"}, "abc", None),
    ({"ib_study": "xyz"}, None, "xyz"),
    ({"ib_session": "", "ib_study": ""}, None, None),
    ({"ib_session": 5, "ib_study": ["x"]}, None, None),
    (None, None, None),
])
def test_the_cookie_names_are_kept_apart(cookies, studio, study):
    req = SimpleNamespace(cookies=cookies)
    assert (ar.caller_id(req), ar.link_id(req)) == (studio, study)
    assert ar.caller_id(object()) is None and ar.link_id(object()) is None


@pytest.mark.parametrize("client, address", [(SimpleNamespace(host="1.2.3.4"), "1.2.3.4"), (None, "unknown"),
                                             (SimpleNamespace(host=None), "unknown"), (SimpleNamespace(host=""), "unknown")])
def test_client_address(client, address):
    assert ar.client_address(SimpleNamespace(client=client)) == address
    assert ar.client_address(object()) == "unknown"


def test_json_body():
    assert ar.json_body(b'{"a": [1]}') == {"a": [1]} and ar.json_body(b"{a") is None


# -- a study link's token becomes a cookie ------------------------------------------------------------

@pytest.fixture
def link(ctx):
    study, tokens = studies.create_study(ctx.store, "interactionbench", ["p1", "p2"], ["moving_square#0"])
    return study, tokens


def _get(ctx, url, **kw):
    with TestClient(_app(ctx), follow_redirects=False, **kw) as client:
        return client.get(url)


def test_a_valid_token_becomes_the_study_cookie_and_leaves_the_address(ctx, link):
    _, tokens = link
    resp = _get(ctx, f"/study/?t={tokens['p1']}&PROLIFIC_PID=abc")
    assert resp.status_code == 303 and resp.headers["location"] == "/study/?PROLIFIC_PID=abc"
    assert resp.headers["cache-control"] == "no-store" and resp.headers["referrer-policy"] == "no-referrer"
    sid, attrs = _cookies(resp)["ib_study"]
    assert attrs == {"httponly": True, "max-age": "86400", "path": "/study", "samesite": "strict"}
    assert sid != tokens["p1"] and tokens["p1"] not in resp.headers["location"]
    assert studies.link_of_session(ctx.store, sid).participant == "p1"
    assert "ib_session" not in _cookies(resp)


@pytest.mark.parametrize("path, target", [("/study/", "/study/"), ("/study", "/study")])
def test_the_token_alone_redirects_to_the_bare_path(ctx, link, path, target):
    resp = _get(ctx, f"{path}?t={link[1]['p2']}")
    assert resp.status_code == 303 and resp.headers["location"] == target
    assert studies.link_of_session(ctx.store, _cookies(resp)["ib_study"][0]).participant == "p2"


def test_the_study_cookie_is_secure_behind_https(ctx, link):
    resp = _get(ctx, f"/study/?t={link[1]['p1']}", base_url="https://testserver")
    assert _cookies(resp)["ib_study"][1]["secure"] is True
    resp = _get(ctx, "/study/?t=wrong-token-wrong-token", base_url="https://testserver")
    assert _cookies(resp)["ib_study"][1]["secure"] is True
    ctx.base_url = "https://lab.example"
    assert _cookies(_get(ctx, f"/study/?t={link[1]['p2']}"))["ib_study"][1]["secure"] is True


def test_a_wrong_token_clears_the_study_cookie_and_the_10th_locks_the_client(ctx, link):
    """LINK policy: 10 free; wrong tokens 1-9 answer 303 with the cookie cleared, the 10th 429 (30 s); while
    locked even a valid token is refused."""
    for i in range(9):
        resp = _get(ctx, f"/study/?t={'x' * 43}&PROLIFIC_PID=abc")
        assert resp.status_code == 303 and resp.headers["location"] == "/study/?PROLIFIC_PID=abc"
        value, attrs = _cookies(resp)["ib_study"]
        assert value == '""' and attrs["max-age"] == "0" and attrs["path"] == "/study"
        assert attrs["httponly"] is True and attrs["samesite"] == "strict" and "secure" not in attrs
    assert ctx.store.failure("link:testclient")["failures"] == 9
    resp = _get(ctx, f"/study/?t={'x' * 43}")
    assert resp.status_code == 429 and resp.headers["retry-after"] == "30"
    assert resp.text == "Too many failed attempts: try again in 30 s." and "set-cookie" not in resp.headers
    ctx.clock.t = 1029.0
    resp = _get(ctx, f"/study/?t={link[1]['p1']}")
    assert resp.status_code == 429 and resp.headers["retry-after"] == "1" and "set-cookie" not in resp.headers
    assert resp.text == "Too many failed attempts: try again in 1 s."
    ctx.clock.t = 1030.0
    assert _get(ctx, f"/study/?t={link[1]['p1']}").status_code == 303


@pytest.mark.parametrize("lockout", [7, 1])
def test_a_server_lockout_applies_to_link_tokens(ctx, link, lockout):
    """--signin-lockout 7 or 1 (the shortest): the 10th wrong token answers 429 with that many seconds."""
    ctx.signin = auth.SignInSettings(lockout=lockout)
    codes = [_get(ctx, "/study/?t=wrong-token-wrong-token") for _ in range(10)]
    assert [c.status_code for c in codes] == [303] * 9 + [429] and codes[-1].headers["retry-after"] == str(lockout)


@pytest.mark.parametrize("method, url", [("POST", "/study/?t={t}"), ("GET", "/study/page?t={t}"),
                                         ("GET", "/study/?x={t}"), ("GET", "/studyx/?t={t}")])
def test_other_requests_pass_through_untouched(ctx, link, method, url):
    with TestClient(_app(ctx), follow_redirects=False) as client:
        resp = client.request(method, url.format(t=link[1]["p1"]), content=b"form=1")
    assert resp.status_code == 200 and resp.text == "the page: form=1" and "set-cookie" not in resp.headers
    assert ctx.store.query("select count(*) as n from auth_tokens")[0]["n"] == 0


def test_a_page_parameter_ending_in_t_is_not_a_link_token(ctx, link):
    """?start=1 or ?format=x on /study/ is the page's own query: it passes through, the participant's study cookie
    is kept and no failure is counted (before the fix, any "t=" in the query was read as a wrong token)."""
    sid = studies.open_link_session(ctx.store, link[1]["p1"], ttl=600.0)
    for query in ("start=1", "format=x&PROLIFIC_PID=abc"):
        with TestClient(_app(ctx), follow_redirects=False) as client:
            client.cookies.set("ib_study", sid)
            resp = client.get(f"/study/?{query}")
        assert resp.status_code == 200 and resp.text == "the page" and "set-cookie" not in resp.headers
    assert ctx.store.failure("link:testclient") is None
    assert studies.link_of_session(ctx.store, sid).participant == "p1"


def test_an_empty_token_is_a_wrong_token_and_blank_page_parameters_stay(ctx, link):
    resp = _get(ctx, "/study/?t=&a=")
    assert resp.status_code == 303 and resp.headers["location"] == "/study/?a="
    assert _cookies(resp)["ib_study"][1]["max-age"] == "0"
    assert ctx.store.failure("link:testclient")["failures"] == 1
    resp = _get(ctx, f"/study/?a=&t={link[1]['p1']}")
    assert resp.headers["location"] == "/study/?a=" and _cookies(resp)["ib_study"][1]["max-age"] == "86400"


def _asgi(ctx, scope) -> list[dict]:
    """Call the middleware with a hand-made ASGI scope; the messages it sends."""
    sent = []

    async def inner(scope, receive, send):
        if scope["type"] == "websocket":
            return sent.append({"inner": scope["path"]})
        await PlainTextResponse("inner")(scope, receive, send)

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(msg):
        sent.append(msg)

    anyio.run(ar.StudyLinkCookies(inner, ctx), scope, receive, send)
    return sent


def test_a_scope_without_client_or_scheme_counts_as_unknown_over_http(ctx, link):
    scope = {"type": "http", "method": "GET", "path": "/study/", "query_string": b"t=" + b"y" * 43, "headers": []}
    start = _asgi(ctx, scope)[0]
    assert start["status"] == 303
    assert ctx.store.failure("link:unknown")["failures"] == 1
    scope["query_string"] = b"t=" + link[1]["p1"].encode()
    headers = dict(_asgi(ctx, scope)[0]["headers"])
    assert b"Secure" not in headers[b"set-cookie"] and headers[b"location"] == b"/study/"


def test_a_websocket_to_the_study_path_passes_through(ctx, link):
    """Only HTTP GETs are read: a websocket scope (which has no method) goes to the app untouched."""
    scope = {"type": "websocket", "path": "/study/", "query_string": b"t=" + link[1]["p1"].encode(), "headers": []}
    assert _asgi(ctx, scope) == [{"inner": "/study/"}]
    assert ctx.store.query("select count(*) as n from auth_tokens")[0]["n"] == 0
