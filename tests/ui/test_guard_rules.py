"""The role check's rules one by one, on a tiny Blocks and a small table of our own (fast; the whole studio is
tests/ui/test_role_table.py): which table entries are refused, who passes `refusal`, where an event is looked
up, which refusals are silent, what the checked function hands the handler, and each tab's line in words.
Expected texts and verdicts are written out by hand."""
from __future__ import annotations

import functools
import inspect

import gradio as gr
import pytest

from annotation import auth
from annotation.store import Store
from ibench_ui import role_table
from ibench_ui.auth_routes import STUDIO_COOKIE
from ibench_ui.context import AppContext
from ibench_ui.guard import Events, check_roles, refusal
from ibench_ui.tab_access import TabNotices, notice_html, who_for

NOT_SIGNED_IN = "not signed in (or the session expired): sign in first"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A store with one account per role (nobody is the local single user) and each one's sign-in id."""
    store = Store(tmp_path_factory.mktemp("guard_rules") / "s.sqlite")
    tokens = {None: None}
    for role in ("annotator", "reviewer", "admin"):
        auth.create_user(store, f"{role[:3]}", role, f"{role}-password")
        tokens[role] = auth.sign_in(store, f"{role[:3]}", f"{role}-password")
    yield AppContext(store=store), tokens
    store.close()


class _Req:
    def __init__(self, token):
        self.cookies = {STUDIO_COOKIE: token} if token else {}


@pytest.mark.parametrize("roles", [("admin",), ("reviewer", "admin"), ("annotator", "reviewer", "admin"),
                                   ("anonymous", "annotator", "reviewer", "admin"),
                                   ("admin", "anonymous", "reviewer", "annotator")])
def test_a_table_entry_of_known_roles_is_accepted(roles):
    assert check_roles("t/f", roles) is None


@pytest.mark.parametrize("roles,why", [
    ((), "must be some of"), (["admin"], "must be some of"), ("admin", "must be some of"),
    (("root",), "must be some of"), (("admin", "Admin"), "must be some of"),
    (("anonymous",), "only together with every account role"),
    (("anonymous", "reviewer", "admin"), "only together with every account role"),
    (("anonymous", "annotator", "admin"), "only together with every account role"),
    (("anonymous", "annotator", "reviewer"), "only together with every account role")])
def test_a_table_entry_that_is_not_a_tuple_of_known_roles_or_lets_in_only_some_is_refused(roles, why):
    with pytest.raises(ValueError, match=f"role table: t/f: .*{why}"):
        check_roles("t/f", roles)


def test_refusal_lets_exactly_the_listed_roles_through(shared):
    ctx, tokens = shared
    assert refusal(ctx, tokens["reviewer"], ("reviewer", "admin")) is None
    assert refusal(ctx, tokens["admin"], ("reviewer", "admin")) is None
    assert refusal(ctx, tokens["annotator"], ("reviewer", "admin")) == \
        "user 'ann' (annotator) may not do this; it needs one of: reviewer, admin"
    assert refusal(ctx, tokens["reviewer"], ("admin",)) == \
        "user 'rev' (reviewer) may not do this; it needs one of: admin"
    assert refusal(ctx, None, ("annotator", "reviewer", "admin")) == NOT_SIGNED_IN
    assert refusal(ctx, "", ("annotator",)) == NOT_SIGNED_IN
    assert refusal(ctx, 12345, ("annotator", "reviewer", "admin")) == NOT_SIGNED_IN  # not a string: no caller
    assert refusal(ctx, "forged-" + "x" * 40, ("annotator", "reviewer", "admin")) == NOT_SIGNED_IN
    # anonymous in the roles: anyone at all
    for tok in tokens.values():
        assert refusal(ctx, tok, role_table.EVERYONE) is None


def test_the_local_single_user_passes_only_on_loopback_with_no_accounts(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    assert refusal(ctx, None, ("admin",)) is None
    ctx.loopback = False
    assert refusal(ctx, None, ("admin",)) == NOT_SIGNED_IN


def _events(ctx, table):
    """A tiny page: a State (the sign-in counter), a button, a box, and Events over `table`."""
    demo = gr.Blocks()
    with demo:
        state = gr.State("")
        ui = type("UI", (), {})()
        ui.button, ui.box, ui.other = gr.Button("x"), gr.Textbox(), gr.Textbox()
        ui.timer = gr.Timer(5, active=False)
        events = Events(ctx, state, table)
    return demo, events, ui


def test_an_event_is_looked_up_under_the_tab_it_is_registered_in(shared):
    ctx, _ = shared
    table = {("page", "f"): ("admin",), ("runs", "f"): ("reviewer", "admin")}
    demo, events, ui = _events(ctx, table)

    def f():
        return "x"

    with demo:
        assert events.where == "page"
        events.on(ui.button.click, f, None, ui.box)
        with events.tab("runs"):
            assert events.where == "runs"
            events.on(ui.button.click, f, None, ui.box)
            with pytest.raises(LookupError) as exc:
                with events.tab("compare"):
                    events.on(ui.button.click, f, None, ui.box)
            assert str(exc.value) == ("compare/f: not in the role table (ibench_ui/role_table.py EVENTS); "
                                      "add who may call it there")
            assert events.where == "runs"  # back after the failure inside
            with pytest.raises(LookupError, match=r"^runs/: not in the role table"):
                events.on(ui.button.click, functools.partial(f), None, ui.box)  # a callable with no name
        assert events.where == "page"
    assert [(e.where, e.name, e.roles) for e in events.registered] == [
        ("page", "f", ("admin",)), ("runs", "f", ("reviewer", "admin"))]
    assert [e.dependency_id for e in events.registered] == [d["id"] for d in demo.config["dependencies"]]
    assert events.unregistered() == []


def test_the_default_table_is_the_role_table(shared):
    ctx, _ = shared
    with gr.Blocks():
        assert Events(ctx, gr.State("")).table is role_table.EVENTS


def test_a_table_with_a_bad_entry_fails_when_events_are_made(shared):
    ctx, _ = shared
    with gr.Blocks():
        with pytest.raises(ValueError, match="role table: users/on_add"):
            Events(ctx, gr.State(""), {("page", "ok"): ("admin",), ("users", "on_add"): ("anonymous", "admin")})


def test_only_plain_functions_are_wrapped(shared):
    ctx, _ = shared
    table = {("page", "co"): ("admin",), ("page", "gen"): ("admin",)}
    demo, events, ui = _events(ctx, table)

    async def co():
        return "x"

    def gen():
        yield "x"

    with demo:
        with pytest.raises(TypeError, match="co: the role check wraps plain functions only"):
            events.on(ui.button.click, co, None, ui.box)
        with pytest.raises(TypeError, match="gen: the role check wraps plain functions only"):
            events.on(ui.button.click, gen, None, ui.box)
    assert events.registered == [] and events.unregistered() == [("page", "co"), ("page", "gen")]


def test_refusals_are_silent_for_loads_ticks_selects_and_state_changes_only(shared):
    ctx, tokens = shared
    names = ("on_click", "on_load", "on_tick", "on_select", "on_state", "on_then", "on_change")
    table = {("page", n): ("admin",) for n in names}
    demo, events, ui = _events(ctx, table)
    fns = {n: (lambda n=n: (lambda *a: n))() for n in names}
    for n, f in fns.items():
        f.__name__ = n
    with demo:
        dep = events.on(ui.button.click, fns["on_click"], None, ui.box)
        events.on(demo.load, fns["on_load"], None, ui.box)
        events.on(ui.timer.tick, fns["on_tick"], None, ui.box)
        events.on(ui.box.select, fns["on_select"], None, ui.box)
        events.on(events.token.change, fns["on_state"], None, ui.box)
        events.on(dep.then, fns["on_then"], None, ui.box)
        events.on(ui.box.change, fns["on_change"], None, ui.other)
    quiet = {e.name: e.quiet for e in events.registered}
    assert quiet == {"on_click": False, "on_load": True, "on_tick": True, "on_select": True, "on_state": True,
                     "on_then": False, "on_change": False}
    for e in events.registered:
        assert e.checked(_Req(tokens["admin"])) == e.name  # the admin passes every one
        if e.quiet:
            assert e.checked(_Req(tokens["reviewer"])) == gr.skip()
        else:
            with pytest.raises(gr.Error) as exc:
                e.checked(_Req(tokens["reviewer"]))
            assert exc.value.message == \
                "Not allowed: user 'rev' (reviewer) may not do this; it needs one of: admin"
        if e.quiet:
            assert e.checked(_Req(None)) == gr.skip()
        else:
            with pytest.raises(gr.Error) as exc:
                e.checked(_Req(None))
            assert exc.value.message == f"Not allowed: {NOT_SIGNED_IN}"


def test_the_handler_gets_the_callers_id_in_place_of_the_sign_in_counter(shared):
    ctx, tokens = shared
    table = {("page", "f"): ("reviewer", "admin"), ("page", "g"): ("reviewer", "admin"),
             ("page", "h"): ("reviewer", "admin")}
    demo, events, ui = _events(ctx, table)
    seen = []

    def f(a, tok, b):
        seen.append((a, tok, b))
        return "f"

    def g(b):
        seen.append((b,))
        return "g"

    def h(tok):
        seen.append(("h", tok))
        return "h"

    with demo:
        events.on(ui.button.click, f, [ui.box, events.token, ui.other], ui.box)
        events.on(ui.button.click, g, ui.box, ui.other)  # one input, not in a list
        events.on(ui.button.click, h, (events.token,), ui.other)
    ef, eg, eh = events.registered
    assert ef.inputs == [ui.box, events.token, ui.other] and eg.inputs == [ui.box] and eh.inputs == [events.token]
    assert ef.checked(_Req(tokens["reviewer"]), "before", "counter-1", "after") == "f"
    assert eg.checked(_Req(tokens["admin"]), "only") == "g"
    assert eh.checked(_Req(tokens["admin"]), "counter-2") == "h"
    assert seen == [("before", tokens["reviewer"], "after"), ("only",), ("h", tokens["admin"])]


def test_gradio_sees_the_request_parameter_first_and_the_functions_own_after_it(shared):
    ctx, _ = shared
    table = {("page", "f"): ("admin",)}
    demo, events, ui = _events(ctx, table)

    def f(name: str, count: int = 2):
        """Doc of f."""
        return name

    with demo:
        events.on(ui.button.click, f, [ui.box, ui.other], ui.box, api_name="named_f", show_progress="hidden")
    (e,) = events.registered
    (d,) = demo.config["dependencies"]  # the trigger's own keywords reach Gradio
    assert (d["api_name"], d["show_progress"], d["outputs"]) == ("named_f", "hidden", [ui.box._id])
    assert d["inputs"] == [ui.box._id, ui.other._id]
    assert demo.fns[d["id"]].fn is e.checked  # Gradio runs the checked wrapper, never the bare function
    params = list(inspect.signature(e.checked).parameters.values())
    assert [p.name for p in params] == ["ib_request", "name", "count"]
    assert params[0].kind is inspect.Parameter.POSITIONAL_ONLY and params[2].default == 2
    assert e.checked.__annotations__ == {"ib_request": gr.Request, "name": str, "count": int}
    assert e.checked.__name__ == "f" and e.checked.__doc__ == "Doc of f."
    assert not hasattr(e.checked, "__wrapped__")


def test_a_function_whose_annotations_cannot_be_resolved_is_wrapped_with_the_request_hint_only(shared):
    ctx, tokens = shared
    demo, events, ui = _events(ctx, {("page", "f"): ("admin",)})

    def f(x: "NoSuchType"):  # noqa: F821 - unresolvable on purpose
        return x

    with demo:
        events.on(ui.button.click, f, ui.box, ui.other)
    (e,) = events.registered
    assert e.checked.__annotations__ == {"ib_request": gr.Request}
    assert e.checked(_Req(tokens["admin"]), "through") == "through"


def test_an_event_registered_around_the_table_fails_the_build(shared):
    ctx, _ = shared
    table = {("page", "f"): ("admin",)}
    demo, events, ui = _events(ctx, table)

    def f():
        return "x"

    def stray():
        return "y"

    with demo:
        events.on(ui.button.click, f, None, ui.box)
    events.assert_complete(demo)  # everything through Events.on: fine
    with demo:
        ui.button.click(stray, None, ui.other, api_name="stray_call")
    with pytest.raises(RuntimeError, match=r"without a declared role \(use Events.on\): \['stray_call'\]"):
        events.assert_complete(demo)


def test_the_roles_in_plain_words():
    assert who_for(("annotator", "reviewer", "admin")) == "every signed-in account (annotators, reviewers and admins)"
    assert who_for(("anonymous", "annotator", "reviewer", "admin")) == \
        "every signed-in account (annotators, reviewers and admins)"
    assert who_for(("admin", "reviewer")) == "reviewers and admins"
    assert who_for(("reviewer", "admin")) == "reviewers and admins"
    assert who_for(("admin",)) == "admins"
    assert who_for(("annotator",)) == "annotators"
    assert who_for(("admin", "annotator")) == "annotators and admins"
    assert who_for(("annotator", "reviewer")) == "annotators and reviewers"


def test_a_tabs_line_names_who_it_is_for_and_who_you_are(shared, monkeypatch):
    ctx, tokens = shared
    monkeypatch.setitem(role_table.TABS, "t1", ("Tab <One>", ("reviewer", "admin")))
    monkeypatch.setitem(role_table.TABS, "t2", ("Open", role_table.EVERYONE))
    assert notice_html(ctx, "t1", tokens["reviewer"]) == ""
    assert notice_html(ctx, "t1", tokens["admin"]) == ""
    assert notice_html(ctx, "t1", tokens["annotator"]) == (
        '<div class="ib-warn ib-tab-access" role="status" data-tab="t1">Tab &lt;One&gt; is for reviewers and admins. '
        "You are signed in as ann (annotator).</div>")
    assert notice_html(ctx, "t1", None) == (
        '<div class="ib-warn ib-tab-access" role="status" data-tab="t1">Tab &lt;One&gt; is for reviewers and admins. '
        "Sign in at the top of the page with the user name and password your admin gave you.</div>")
    for tok in tokens.values():
        assert notice_html(ctx, "t2", tok) == ""
    # Review refused to an annotator also says where their own work is; a signed-out visitor is told to sign in
    assert notice_html(ctx, "review", tokens["annotator"]) == (
        '<div class="ib-warn ib-tab-access" role="status" data-tab="review">Review is for reviewers and admins. '
        "You are signed in as ann (annotator). Your own marks and prefix walks are in Verify.</div>")
    assert notice_html(ctx, "review", None).endswith(
        "Sign in at the top of the page with the user name and password your admin gave you.</div>")


def test_the_tab_lines_are_filled_on_load_and_on_each_sign_in(shared):
    ctx, tokens = shared
    table = {("page", "tab_notices"): role_table.EVERYONE}
    demo, events, ui = _events(ctx, table)
    notices = TabNotices(ctx)
    with demo:
        with pytest.raises(KeyError, match="no tab 'nowhere'"):
            notices.add("nowhere")
        notices.add("compare")
        notices.add("users")
        notices.wire(events, demo)
    assert {t: b.elem_id for t, b in notices.boxes.items()} == {"compare": "compare-access", "users": "users-access"}
    for b in notices.boxes.values():
        assert b.value == "" and b.elem_classes == ["ib-access-box"] and b.js_on_load is None
    on_load, on_sign_in = events.registered
    assert on_load.quiet and on_sign_in.quiet and on_load.inputs == [events.token]
    deps = demo.config["dependencies"]
    assert deps[0]["targets"][0][1] == "load" and tuple(deps[1]["targets"][0]) == (events.token._id, "change")
    for d in deps:  # no API page entry, no spinner over the tabs on every sign-in
        assert (d["api_visibility"], d["show_progress"]) == ("private", "hidden")
        assert d["outputs"] == [notices.boxes["compare"]._id, notices.boxes["users"]._id]
    shown = on_sign_in.checked(_Req(tokens["reviewer"]), "1")
    assert shown[notices.boxes["compare"]] == ""
    assert "Users is for admins. You are signed in as rev (reviewer)." in shown[notices.boxes["users"]]
    shown = on_load.checked(_Req(tokens["admin"]), "1")
    assert set(shown.values()) == {""}
