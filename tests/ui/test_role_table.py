"""The role table, called entry by entry as every role (signed out, annotator, reviewer, admin) through the real
server path: a sign-in through POST /auth/signin's handler gives the cookie, a real HTTP request carries it,
and the studio's own checked functions (ibench_ui.guard), the Session tab's server functions, POST
/api/respond's function and each tab's "who is this for" line answer it. What each role may reach is written
out by hand below, never read from ibench_ui.role_table, so a wrong role in the table or a check that does not
read it fails here."""
from __future__ import annotations

import asyncio
import inspect

import gradio as gr
import pytest
from starlette.requests import Request

from annotation import auth
from annotation.store import Store
from ibench_ui import auth_routes
from ibench_ui.app import build_studio
from ibench_ui.context import AppContext
from ibench_ui.session import NOT_SIGNED_IN, SessionService

ROLES = (None, "annotator", "reviewer", "admin")  # None: a visitor who did not sign in
ALL = {None, "annotator", "reviewer", "admin"}
ACC = {"annotator", "reviewer", "admin"}
STF = {"reviewer", "admin"}
ADM = {"admin"}

# (tab, event function) -> who reaches it: the hand-written matrix (docs/security.md, "The role table")
EVENTS = {
    ("page", "signed_in"): ALL, ("page", "signin_status"): ALL, ("page", "tab_notices"): ALL,
    ("page", "_initial_tab"): ALL,
    ("browse", "on_bench"): ACC, ("browse", "on_item"): ACC, ("browse", "on_load"): ACC,
    ("runs", "on_start"): STF, ("runs", "on_cancel"): STF, ("runs", "on_show"): STF, ("runs", "on_open"): STF,
    ("runs", "on_runs_focus"): STF, ("runs", "on_run"): STF, ("runs", "on_drill"): STF, ("runs", "on_tick"): STF,
    ("compare", "on_bench"): STF, ("compare", "on_item"): STF, ("compare", "on_who"): STF,
    ("compare", "on_study"): STF, ("compare", "on_refresh"): STF, ("compare", "<lambda>"): STF,
    ("compare", "on_load"): STF, ("compare", "on_sign_in"): STF,
    ("leaderboard", "on_refresh"): STF, ("leaderboard", "on_report"): STF, ("leaderboard", "on_open"): STF,
    ("verify", "on_refresh"): ACC, ("verify", "on_item"): ACC, ("verify", "on_event"): ACC,
    ("verify", "on_submit"): ACC, ("verify", "on_withdraw"): ACC, ("verify", "on_next"): ACC,
    ("verify", "on_prev"): ACC, ("verify", "on_pick"): ACC, ("verify", "on_offset"): ACC,
    ("verify", "on_calibrate"): ACC, ("verify", "on_start"): ACC, ("verify", "on_interval"): ACC,
    ("verify", "on_back"): ACC,
    ("review", "on_refresh"): ACC, ("review", "on_pick"): STF, ("review", "on_next"): STF, ("review", "on_item"): STF,
    ("review", "on_field"): STF, ("review", "on_drag"): STF, ("review", "on_save"): STF, ("review", "on_undo"): STF,
    ("review", "on_status"): STF, ("review", "on_adj_pick"): STF, ("review", "on_resolve"): STF,
    ("review", "on_reopen"): STF, ("review", "on_export"): STF,
    ("agreement", "on_go"): ACC,
    ("users", "on_add"): ADM, ("users", "on_show"): ADM,
}
# which tabs each role may use; the others show "TAB is for WHO. You are ..."
TABS = {"browse": ACC, "session": ACC, "runs": STF, "compare": STF, "leaderboard": STF, "verify": ACC,
        "review": STF, "agreement": ACC, "users": ADM}
# the Session tab's server functions (by fn_name), and opening a session with a live model
SESSION = {"open_session": ACC, "item_sets": ACC, "respond": ACC, "speak": ACC, "correct": ACC,
           "finish_item": ACC, "asr_status": ACC, "clock": ACC, "model_stop": ACC, "study_step": ACC,
           "calibrate": ACC, "model_check": ACC, "hear": ACC, "wait_model": ACC}
LIVE_MODEL = ADM
RESPOND_ROUTE = ACC  # POST /api/respond


def _request(cookie: str) -> gr.Request:
    """A real HTTP request as the page sends it, with `cookie` as its Cookie header ("" for none)."""
    headers = [(b"cookie", cookie.encode())] if cookie else []
    scope = {"type": "http", "method": "POST", "path": "/gradio_api/queue/join", "headers": headers,
             "query_string": b"", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80), "scheme": "http"}
    return gr.Request(request=Request(scope))


def _cookies(ctx: AppContext) -> dict:
    """Per role, the Cookie header POST /auth/signin's handler sets for that role's account ("" signed out)."""
    out = {None: ""}
    for role in ROLES[1:]:
        resp = auth_routes.signin(ctx, {"name": role, "password": f"{role}-password"}, "127.0.0.1", "http")
        assert resp.status_code == 200, resp.body
        (set_cookie,) = [v.decode() for k, v in resp.raw_headers if k == b"set-cookie"]
        assert set_cookie.startswith(f"{auth_routes.STUDIO_COOKIE}=")
        out[role] = set_cookie.split(";", 1)[0]
    return out


def _accounts(store: Store) -> None:
    for role in ROLES[1:]:
        auth.create_user(store, role, role, f"{role}-password")


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """The studio on a store with one account per role (so nobody is the local single user), and each role's
    cookie."""
    store = Store(tmp_path_factory.mktemp("role_table") / "s.sqlite")
    _accounts(store)
    ctx = AppContext(store=store)
    demo, events = build_studio(ctx, {})
    yield demo, events, ctx, _cookies(ctx)
    store.close()


def _reach(events, event, cookie: str):
    """Run the checked function Gradio runs for `event`, with a request carrying `cookie`, the event's own
    function swapped for a probe: "ran" when the check let the call through, else the refusal."""
    real, event.fn = event.fn, lambda *a: "ran"
    try:
        n = len(inspect.signature(event.checked).parameters) - 1
        args = ["1" if x is events.token else None for x in event.inputs]
        return event.checked(_request(cookie), *args, *[None] * (n - len(args)))
    except gr.Error as exc:
        return f"error: {exc.message}"
    finally:
        event.fn = real


def test_every_event_function_reaches_exactly_the_roles_of_the_matrix(studio):
    demo, events, _ctx, cookies = studio
    registered = {(e.where, e.name) for e in events.registered}
    assert registered == set(EVENTS)  # nothing registered outside the matrix, no entry left unregistered
    assert events.unregistered() == []
    for event in events.registered:
        for role in ROLES:
            out = _reach(events, event, cookies[role])
            if role in EVENTS[(event.where, event.name)]:
                assert out == "ran", (event.where, event.name, role, out)
            elif event.quiet:
                assert out == gr.skip(), (event.where, event.name, role, out)
            else:
                assert isinstance(out, str) and out.startswith("error: Not allowed:"), (event.where, event.name, role)


def test_each_tab_says_who_it_is_for_to_the_roles_it_refuses(studio):
    demo, events, ctx, cookies = studio
    (notices, _on_sign_in) = [e for e in events.registered if e.name == "tab_notices"]
    boxes = {c.elem_id[:-len("-access")]: c for c in demo.blocks.values()
             if isinstance(c, gr.HTML) and (c.elem_id or "").endswith("-access")}
    assert set(boxes) == set(TABS)
    for role in ROLES:
        shown = notices.checked(_request(cookies[role]), "1")
        for tab, box in boxes.items():
            if role in TABS[tab]:
                assert shown[box] == "", (tab, role)
            else:
                assert "ib-tab-access" in shown[box] and " is for " in shown[box], (tab, role, shown[box])
    annotator = notices.checked(_request(cookies["annotator"]), "1")
    assert ("Compare is for reviewers and admins. You are signed in as annotator (annotator)."
            in annotator[boxes["compare"]])
    assert "Users is for admins. You are signed in as annotator (annotator)." in annotator[boxes["users"]]
    nobody = notices.checked(_request(""), "1")
    assert ("Browse is for every signed-in account (annotators, reviewers and admins). Sign in at the top of the "
            "page") in nobody[boxes["browse"]]


def test_the_local_single_user_may_use_every_tab(tmp_path):
    demo, events = build_studio(AppContext(store=Store(tmp_path / "s.sqlite")), {})  # no accounts, loopback
    (notices, _) = [e for e in events.registered if e.name == "tab_notices"]
    assert set(notices.checked(_request(""), "1").values()) == {""}


@pytest.fixture(scope="module")
def session_tab(tmp_path_factory):
    """The studio with every SessionService method the Session tab's server functions reach swapped for a probe
    (so each call says only whether it got through); its server functions, POST /api/respond's function, and
    each role's cookie."""
    mp = pytest.MonkeyPatch()
    for name in SESSION:
        if name == "wait_model":
            async def probe(self, req, _n=name):
                return {"ok": True, "reached": _n}
        else:
            def probe(self, req, owner=None, _n=name):
                return {"ok": True, "reached": _n}
        mp.setattr(SessionService, name, probe)
    store = Store(tmp_path_factory.mktemp("role_table_session") / "s.sqlite")
    _accounts(store)
    ctx = AppContext(store=store)
    routes: dict = {}
    demo, _events = build_studio(ctx, routes)
    (root,) = [c for c in demo.blocks.values() if getattr(c, "elem_id", None) == "session-root"]
    yield {f.__name__: f for f in root.server_fns}, routes, _cookies(ctx)
    mp.undo()
    store.close()


def _server_call(fn, req: dict, cookie: str) -> dict:
    out = fn(req, _request(cookie))
    return asyncio.run(out) if inspect.isawaitable(out) else out


def test_every_session_server_function_and_the_respond_route_reach_exactly_their_roles(session_tab):
    fns, routes, cookies = session_tab
    assert set(fns) == set(SESSION)
    for name, fn in fns.items():
        for role in ROLES:
            out = _server_call(fn, {}, cookies[role])
            if role in SESSION[name]:
                assert out == {"ok": True, "reached": name}, (name, role, out)
            else:
                assert out == {"ok": False, "error": NOT_SIGNED_IN}, (name, role, out)
    for role in ROLES:
        out = _server_call(routes["respond"], {}, cookies[role])
        assert (out == {"ok": True, "reached": "respond"}) == (role in RESPOND_ROUTE), (role, out)
        if role not in RESPOND_ROUTE:
            assert out == {"ok": False, "error": NOT_SIGNED_IN}


def test_only_the_live_model_roles_open_a_session_with_a_model(session_tab):
    fns, _routes, cookies = session_tab
    for role in ROLES[1:]:
        for req in ({"model": "baseline:periodic:5"}, {"who": "model"}):
            out = _server_call(fns["open_session"], req, cookies[role])
            if role in LIVE_MODEL:
                assert out == {"ok": True, "reached": "open_session"}, (role, req, out)
            else:
                assert out == {"ok": False, "error": f"Only an admin may run a live model ({role} is {role})."}
        # a human session is every account's
        assert _server_call(fns["open_session"], {"who": "human"}, cookies[role])["reached"] == "open_session"
