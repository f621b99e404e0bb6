"""Every event function of the studio, called as every role (signed out, annotator, reviewer, admin): the
role check declared where the event is registered lets exactly the roles of the table below reach the
function; a refusal of a page load, tick, tab select or sign-in change is silent, any other an error. The
local single user reaches everything, and an event registered without a declared role fails the build."""
from __future__ import annotations

import inspect

import gradio as gr
import pytest

from annotation import auth
from annotation.store import Store
from ibench_ui.app import build_studio
from ibench_ui.auth_routes import STUDIO_COOKIE
from ibench_ui.context import AppContext
from ibench_ui.guard import PUBLIC, Events

ROLES = (None, "annotator", "reviewer", "admin")
EVERY_ACCOUNT = {"annotator", "reviewer", "admin"}
# who reaches each tab's functions (docs/security.md): by the module that defines them
ALLOWED = {"ibench_ui.browse": EVERY_ACCOUNT, "ibench_ui.runs": EVERY_ACCOUNT, "ibench_ui.verify": EVERY_ACCOUNT,
           "ibench_ui.review": EVERY_ACCOUNT, "ibench_ui.auth_ui": EVERY_ACCOUNT,
           "ibench_ui.compare": {"reviewer", "admin"}, "ibench_ui.leaderboard": {"reviewer", "admin"}}
ANYBODY = {"signed_in", "signin_status", "_initial_tab"}  # the sign-in status (after sign-in/out, on load), the tab


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("roles") / "s.sqlite")
    tokens = {None: ""}
    for role in ROLES[1:]:
        auth.create_user(store, role, role, f"{role}-password")
        tokens[role] = auth.sign_in(store, role, f"{role}-password")
    demo, events = build_studio(AppContext(store=store), {})
    return demo, events, tokens


class _Request:
    """What the guard reads of Gradio's request: its cookies."""

    def __init__(self, token: str):
        self.cookies = {STUDIO_COOKIE: token} if token else {}


def _call(events: Events, event, token: str):
    """Run the checked function Gradio runs with a request whose sign-in cookie is `token` (the sign-in State
    holding no secret, None elsewhere), the event's own function replaced by a probe: 'ran' when the check let
    it through, else the refusal. A function that takes the caller gets the cookie's id in the State's place."""
    ran = []

    def probe(*args):
        ran.append(args)
        return "ran"

    real, event.fn = event.fn, probe
    try:
        n = len(inspect.signature(event.checked).parameters) - 1
        args = ["1" if x is events.token else None for x in event.inputs]
        out = event.checked(_Request(token), *args, *[None] * (n - len(args)))
    except gr.Error as exc:
        out = f"error: {exc.message}"
    finally:
        event.fn = real
    assert (out == "ran") == bool(ran), out
    for got in ran:
        assert [a for a, x in zip(got, event.inputs) if x is events.token] == [
            token or None for x in event.inputs if x is events.token], event.name
    return out


def _quiet_by_config(demo: gr.Blocks) -> dict[int, bool]:
    """Per dependency id, whether Gradio's own config names a page load, tick, select or State change."""
    states = {c["id"] for c in demo.config["components"] if c.get("type") == "state"}
    return {d["id"]: any(ev in ("load", "tick", "select") or bid in states for bid, ev in d["targets"])
            for d in demo.config["dependencies"]}


def test_every_event_reaches_exactly_the_roles_of_its_tab(studio):
    demo, events, tokens = studio
    quiet = _quiet_by_config(demo)
    assert len(events.registered) >= 50  # every tab's functions, not a few
    for event in events.registered:
        module = event.fn.__module__
        expected = set(ROLES) if event.name in ANYBODY else ALLOWED[module]
        assert (event.roles == PUBLIC) == (event.name in ANYBODY), (module, event.name)
        assert event.quiet == quiet[event.dependency_id], (module, event.name)
        for role in ROLES:
            out = _call(events, event, tokens[role])
            if role in expected:
                assert out == "ran", (module, event.name, role, out)
            elif event.quiet:
                assert out == gr.skip(), (module, event.name, role, out)
            else:
                assert out.startswith("error: Not allowed:"), (module, event.name, role, out)


def test_the_local_single_user_reaches_everything(tmp_path):
    demo, events = build_studio(AppContext(store=Store(tmp_path / "s.sqlite")), {})  # no accounts, loopback
    for event in events.registered:
        assert _call(events, event, "") == "ran", event.name


def test_an_event_without_a_declared_role_fails_closed(tmp_path):
    ctx = AppContext(store=Store(tmp_path / "s.sqlite"))
    with gr.Blocks() as demo:
        events = Events(ctx, gr.State(""))
        button, box = gr.Button("x"), gr.Textbox()
        with pytest.raises(TypeError):
            events.on(button.click, lambda: "x", None, box)  # no roles: refused at once
        with pytest.raises(ValueError):
            events.on(button.click, lambda: "x", None, box, roles=PUBLIC)  # PUBLIC only for ANONYMOUS_OK names
        events.on(button.click, lambda: "x", None, box, roles=auth.STAFF)
        button.click(lambda: "y", None, box)  # around Events.on
    with pytest.raises(RuntimeError, match="without a declared role"):
        events.assert_complete(demo)


def test_every_checked_function_reads_the_request_and_the_api_shows_no_credential(studio):
    demo, events, _tokens = studio
    for event in events.registered:
        first = next(iter(inspect.signature(event.checked).parameters.values()))
        assert event.checked.__annotations__[first.name] is gr.Request, event.name
    info = demo.get_api_info()["named_endpoints"]
    assert [p["parameter_name"] for p in info["/review_edit"]["parameters"]] == ["b", "iid", "f", "v", "why"]
    assert [p["parameter_name"] for p in info["/on_start"]["parameters"]] == ["b", "m", "p", "lim", "c", "j"]
